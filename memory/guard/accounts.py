"""Passwords after an account's name and a slash or a colon ("admin / 12345678", "root:st4g1ng_r00t", "login: bob /
hunter22"), and after MySQL's glued ``-p``: ``account_values``, called by ``credentials.find_prose_credentials``
with where its sign-in and credential words end. Pure functions, offsets in the text given."""

from __future__ import annotations

import bisect
import re

from .credential_values import _a_name, _lettered, _policy_shaped, plausible, stronger
from .lexicon import _SINGLE_END, _TOKEN, _clause_start, _trim
from .listed import _VALUE

_DEFAULT_ACCOUNTS = frozenset({"admin", "administrator", "root", "pi", "ubnt", "guest", "sa", "postgres", "ubuntu",
                               "oracle", "operator", "superuser", "sysadmin"})  # fmt: skip


# "admin / X", "admin/X" (two name characters before a glued slash), "root:X"; blanks read from their run's start
# only (100 kB of spaces was read again from each of them: 5 s)
_ACCOUNT_SEPARATOR = re.compile(r"(?<![ \t])[ \t]++/[ \t]*+(?=\S)|(?<=\w\w)/(?=[^\s/])|:(?=[^\s/])")

# The account before it: a plain name ("root", "svc_backup"); "event-bus-api:rc0.15" is a coordinate.
# An account's name, or its e-mail address ("jim.parr@btinternet.com / Kingfisher7")
_ACCOUNT = re.compile(
    r"(?<![\w/:.@-])(?:[a-z_][a-z0-9_]{1,31}(?:[.-][a-z0-9_]{1,31}){0,2}|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4})\Z",
    re.IGNORECASE,
)

_DIGITS = re.compile(r"\d{6,32}")  # a password of digits only, after a default account: "admin / 12345678"

_ROLE = re.compile(
    r".*(?:er|or|ist|ant)\Z"
)  # "admin / moderator", "admin / developer": a role, not a password


def _ends_item(text: str, end: int) -> bool:
    """Whether a value ends its clause, its line or an item of a list (a comma, a bracket, a dash after it)."""
    return _SINGLE_END.match(text, end) is not None


_MYSQL_P = re.compile(r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b[^\n]{0,120}?(?<!\S)-p(?=\S)")


def _named_account(text: str, account_start: int, word_ends: list[int]) -> bool:
    """A sign-in or credential word ends in the account's clause, before it ("login: bob / hunter22");
    ``word_ends`` sorted."""
    clause = _clause_start(text, account_start)
    i = bisect.bisect_left(word_ends, clause)
    return i < len(word_ends) and word_ends[i] <= account_start


def account_values(text: str, signin_words: list[int]) -> list[tuple[int, int]]:
    """Spans of the passwords after an account and its separator, and after MySQL's ``-p``; ``signin_words``: where
    the text's sign-in and credential words end, sorted (an account after one is named)."""
    spans: list[tuple[int, int]] = []
    for m in _ACCOUNT_SEPARATOR.finditer(text):
        account = _ACCOUNT.search(text, max(0, m.start() - 33), m.start())
        # the value, read only after an account and at most 129 characters far: a 100 kB base64 blob has a
        # "/" every ~64 characters, and reading the rest of it at each one was quadratic
        token = _VALUE.match(text, m.end()) if account else None
        if account is not None and token is not None and len(token.group()) <= 128:
            s, e = _trim(text, token.start(), token.end())
            value = text[s:e]
            # a default account's: "root / st4g1ng_r00t", "admin/Vd7_h8Xq2b"
            default = account.group().lower() in _DEFAULT_ACCOUNTS
            glued = m.group() == "/"
            shaped = _policy_shaped(value) or (default and stronger(value))
            if glued and not (account.group().islower() and shaped):
                continue  # glued: a path ("runbooks/backup.md#restore", "GnuPG/MacGPG2") unless "admin/S0nar!Qube"
            named = default or _named_account(text, account.start(), signin_words)
            if stronger(value) or ((not glued or _policy_shaped(value)) and _lettered(value) and named):
                spans.append((s, e))
            elif (
                (default or named)
                and not glued
                and (_DIGITS.fullmatch(value) or (_a_name(value) and not _ROLE.match(value)))
                and _ends_item(text, e)
            ):
                spans.append((s, e))  # "admin / 12345678", "pi / raspberry", "root / calvin": a default's
    for m in _MYSQL_P.finditer(text):
        token = _TOKEN.match(text, m.end())
        if token and plausible(text[token.start() : token.end()]):
            spans.append((token.start(), token.end()))
    return spans
