"""A password in a table: the cells of a column whose header names one (Markdown, CSV, TSV, semicolons).

    | system | user | pw |                               a header's cell is a credential word ("pw",
    |---|---|---|                                         "Passwort", "wifi password", "PIN"), alone or with
    | Jira service | ops-bot | tangerine-lamp-55 |        one or two words more; each row below it with as
                                                          many cells gives the cell under that word
    host;login;password
    nas01;admin;Kestrel!19

A cell is a value unless it is empty, shorter than three characters, more than five words, a placeholder ("-",
"n/a", "***", "TBD", ``entropy.is_placeholder``), a brand ("Okta"), or holds a word that points elsewhere or says
something of a password ("in vault", "ask Maria", "rotated", "abgelaufen": ``lexicon``'s errands and
``describing.toml``). A header that describes passwords ("password policy", "pw last changed", "PIN length") is no
column of values. Where a row has another number of cells, the table has ended.

Read by ``credentials.find_prose_credentials`` from the credential words it found, so a note without one pays
nothing. Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from .credential_values import _POINTERS
from .entropy import is_placeholder
from .lexicon import _said_of_passwords, errands, not_passwords

_KINDS = frozenset({"credential", "numeric"})  # not "code": a product's code, a country's
_MAX_HEADER_WORDS = 3
_MAX_VALUE_WORDS = 5
_MAX_ROWS = 200  # a table's rows read after its header
_MAX_HEADER = 1000  # characters of a header's line
_MAX_COLUMNS = 3  # a password's, a PIN's and a passphrase's columns; more is a line of words, no header
_RULE = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*")  # Markdown's |---|:--:|
_WORD = re.compile(r"[^\W_]+")
_LABEL = re.compile(
    r"[^\W\d][\w .#/()-]{0,40}"
)  # a delimited header's cell: words, no quotes, colons nor braces
_TRIM = " \t\r`'\"*“”‘’«»()[]<>"
# What a column about passwords is headed by, besides the password's word: its facts, not its values
_ABOUT = frozenset({"hint", "hints", "policy", "policies", "rotation", "rotated", "reset", "resets", "expiry",
                    "expires", "expired", "expiration", "length", "changed", "change", "last", "age", "strength",
                    "status", "manager", "managers", "required", "rule", "rules", "format", "type", "owner", "date",
                    "updated", "set", "ok", "where", "location", "stored", "storage", "vault", "notes", "note",
                    "needed", "min", "max", "minimum", "maximum", "complexity", "history", "attempts", "tries",
                    "lockout", "recovery", "question", "questions", "field", "column", "label", "prompt", "hash",
                    "hashed", "algorithm", "salt", "mfa", "2fa", "sso"})  # fmt: skip
# A cell that says no value stands there
_EMPTY = frozenset({"-", "--", "—", "–", "n/a", "na", "none", "null", "nil", "tbd", "tba", "?", "??", "x", "✓",
                    "✗", "yes", "no", "same", "sso", "unknown", "hidden", "redacted", "masked", "n.a.", "k.a.",
                    "idem", "dito", "ditto", "as above", "see above"})  # fmt: skip


def _delimiter(line: str) -> str | None:
    """The table's delimiter a header line uses: "|" (two or more), else a tab, a semicolon or a comma."""
    if line.count("|") >= 2:
        return "|"
    for sign in ("\t", ";", ","):
        if sign in line:
            return sign
    return None


def _cells(text: str, start: int, end: int, sign: str) -> list[tuple[int, int]]:
    """The cells of ``text[start:end]`` split by ``sign``, as offsets in ``text`` (a Markdown row's outer pipes
    left out)."""
    cells: list[tuple[int, int]] = []
    at = start
    while True:
        cut = text.find(sign, at, end)
        cells.append((at, end if cut < 0 else cut))
        if cut < 0:
            break
        at = cut + 1
    if sign == "|":
        if cells and not text[cells[0][0] : cells[0][1]].strip():
            cells = cells[1:]
        if cells and not text[cells[-1][0] : cells[-1][1]].strip():
            cells = cells[:-1]
    return cells


def _trimmed(text: str, cell: tuple[int, int]) -> tuple[int, int]:
    s, e = cell
    while s < e and text[s] in _TRIM:
        s += 1
    while e > s and text[e - 1] in _TRIM:
        e -= 1
    return s, e


def _a_header(cell: str, sign: str, cells: list[str]) -> bool:
    """A column of values: its cell a credential word with at most two words more, none of them a fact about
    passwords; a delimited line (not Markdown's) is a header only when each of its cells is as short."""
    words = _WORD.findall(cell.lower())
    if not words or len(words) > _MAX_HEADER_WORDS or any(w in _ABOUT for w in words):
        return False
    # a delimited line's cells are short labels: not a sentence's commas ("Password, as we agreed, is in the
    # vault"), not JSON ('"password": ""')
    labels = sign == "|" or all(
        _LABEL.fullmatch(c.strip()) and len(_WORD.findall(c)) <= _MAX_HEADER_WORDS for c in cells
    )
    return labels and len(cells) >= 2


def _a_value(value: str) -> bool:
    low = value.lower()
    if len(value) < 3 or low in _EMPTY or value.startswith("[REDACTED"):
        return False
    words = _WORD.findall(low)
    if not words or len(words) > _MAX_VALUE_WORDS:
        return False
    if len(words) > 1 and words[0] in _POINTERS:  # "in 1Password", "ask Maria", "same as Jira"
        return False
    said, away = _said_of_passwords(), errands()
    if any(w in said or w in away for w in words):
        return False
    return not (is_placeholder(value, strict=False) or low in not_passwords("brands"))


def table_values(text: str, phrases: Iterable[tuple[int, int, str, str]]) -> list[tuple[int, int]]:
    """The values under each header cell that is a credential word (``phrases``: ``lexicon.phrases_in``'s)."""
    out: list[tuple[int, int]] = []
    lines: set[int] = set()  # each line is judged once, as a header or not, whatever its words
    words = sorted((a, b) for a, b, _, k in phrases if k in _KINDS)
    starts = [a for a, _ in words]
    for start, end in words:
        line_start = text.rfind("\n", 0, start) + 1
        if line_start in lines:
            continue
        lines.add(line_start)
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        if line_end - line_start > _MAX_HEADER:
            continue  # no table's header: "password, " repeated over 100 kB was read once a word
        sign = _delimiter(text[line_start:line_end])
        if sign is None:
            continue
        cells = _cells(text, line_start, line_end, sign)
        shown = [text[s:e] for s, e in cells]
        mine = words[bisect.bisect_left(starts, line_start) : bisect.bisect_left(starts, line_end)]
        columns = [
            i
            for i, (s, e) in enumerate(cells)
            if any(s <= a and b <= e for a, b in mine) and _a_header(shown[i], sign, shown)
        ]
        if not columns or len(columns) > _MAX_COLUMNS:
            continue  # none, or a line of password words that is no table's header
        at = line_end + 1
        for _ in range(_MAX_ROWS):
            if at >= len(text):
                break
            row_end = text.find("\n", at)
            row_end = len(text) if row_end < 0 else row_end
            if sign == "|" and _RULE.fullmatch(text, at, row_end):
                at = row_end + 1
                continue
            row = _cells(text, at, row_end, sign)
            if len(row) != len(cells) or text[at:row_end] == text[line_start:line_end]:
                break  # another table, or the header again (a repeated line is no table)
            lines.add(at)  # a table's row is no header of its own: each line is read once
            for column in columns:
                s, e = _trimmed(text, row[column])
                if _a_value(text[s:e]):
                    out.append((s, e))
            at = row_end + 1
    return out
