"""The shape layer: secret rules loaded from data, gitleaks' rule file first.

Two files in ``memory/guard/data/``, same format (gitleaks' ``[[rules]]`` tables: ``id``, ``description``,
``regex``, ``keywords``, ``entropy``, ``secretGroup``, ``allowlists``), loaded once at import:

* ``gitleaks.toml``: gitleaks' default rule file, vendored unchanged (MIT, notice in ``gitleaks.LICENSE``);
* ``secret_rules.toml``: Mnemos' own rules for what gitleaks lacks or matches too narrowly, the gitleaks rules
  left out (``[gitleaks.skip]``, with the reason), the names gitleaks ids are reported under
  (``[gitleaks.ids]``: the names Mnemos used before, so stored markers keep their meaning) and Mnemos'
  extension fields set on gitleaks rules (``[gitleaks.overrides.<id>]``).

gitleaks semantics kept: a rule runs only when one of its ``keywords`` occurs in the lower-cased text (the
literal prefilter that keeps 200 rules cheap); the secret is group ``secretGroup``, else the first non-empty
group, else the whole match; ``entropy`` is the minimum Shannon entropy of the secret (strictly above, and a
``generic*`` rule's secret must contain a digit); allowlists (``regexes`` on the secret, the match or the
line; ``stopwords`` in the secret; the global allowlist) drop a finding.  Path allowlists cannot apply here.

gitleaks writes Go RE2 syntax; :func:`translate_re2` rewrites what Python's ``re`` reads differently, and a
rule it cannot translate (or that warns) is left out and listed in ``SKIPPED``.  Mnemos' extensions, for its
own rules: ``boundary = true`` (token boundaries on both sides), ``check`` (a named value check, see
``_CHECKS``), ``placeholder = "strict" | "off"`` and ``priority``.
"""

from __future__ import annotations

import re
import tomllib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .entropy import has_letters_digits, is_placeholder, mixed, shannon_entropy
from .spans import Found, Vetoed

DATA = Path(__file__).resolve().parent / "data"
GITLEAKS_FILE = DATA / "gitleaks.toml"
MNEMOS_FILE = DATA / "secret_rules.toml"


class Untranslatable(ValueError):
    """An RE2 construct with no safe Python equivalent."""


# --------------------------------------------------------------------------------------------------
# RE2 -> Python re
# --------------------------------------------------------------------------------------------------

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "xdigit": "0-9A-Fa-f",
    "upper": "A-Z",
    "lower": "a-z",
    "word": r"\w",
    "space": r"\t\n\v\f\r ",
    "blank": r" \t",
    "punct": r"!-/:-@\[-`{-~",
}
_FLAG_GROUP = re.compile(r"\(\?([imsU-]+)\)")


def translate_re2(pattern: str) -> str:
    """Python ``re`` syntax for an RE2 ``pattern`` (compiled with ``re.ASCII``: RE2's ``\\b \\w \\s \\d``).

    * ``(?i)`` after the start (Python only takes global flags at the very start) becomes a scoped group up
      to the end of the enclosing group, closed and reopened around each ``|`` (RE2 keeps the flag across
      alternatives: ``a(?i)b|c`` -> ``a(?i:b)|(?i:c)``);
    * ``\\z`` -> ``\\Z``; ``(?<name>`` -> ``(?P<name>``; ``{,n}`` (a literal in RE2) -> ``\\{,n}``;
    * POSIX classes ``[[:alnum:]]`` are expanded; ``[ & ~ |`` inside a class are escaped (Python reserves
      them for set operations);
    * ``\\p``/``\\P`` (Unicode classes), ``\\Q...\\E``, ``\\C`` and the ``U`` flag raise :class:`Untranslatable`.
    """
    out: list[str] = []
    scopes: list[list[str]] = [[]]  # per open group: the flags opened inside it, still to be closed
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if not nxt or nxt in "pPQEC":
                raise Untranslatable(f"\\{nxt} at {i}")
            out.append(r"\Z" if nxt == "z" else c + nxt)
            i += 2
        elif in_class:
            if pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                name = pattern[i + 2 : end] if end > 0 else ""
                if name not in _POSIX_CLASSES:
                    raise Untranslatable(f"POSIX class {name!r}")
                out.append(_POSIX_CLASSES[name])
                i = end + 2
                continue
            if c == "]":
                in_class = False
            out.append("\\" + c if c in "[&~|" else c)
            i += 1
        elif c == "[":
            in_class = True
            start = i + 2 if pattern.startswith("[^", i) else i + 1
            out.append(pattern[i:start])
            if pattern[start : start + 1] == "]":  # a leading "]" is a literal in both
                out.append(r"\]")
                start += 1
            i = start
        elif c == "(":
            flags = _FLAG_GROUP.match(pattern, i)
            if flags is not None:
                if "U" in flags.group(1):
                    raise Untranslatable("ungreedy flag")
                if i == 0:
                    out.append(flags.group(0))  # global flags at the very start: Python reads them too
                else:
                    out.append(f"(?{flags.group(1)}:")
                    scopes[-1].append(flags.group(1))
                i = flags.end()
                continue
            if pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
                out.append("(?P<")
                i += 3
            else:
                out.append(c)
                i += 1
            scopes.append([])
        elif c == ")":
            if len(scopes) == 1:
                raise Untranslatable(f"unbalanced ) at {i}")
            out.append(")" * len(scopes.pop()) + ")")
            i += 1
        elif c == "|":
            opened = scopes[-1]
            out.append(")" * len(opened) + "|" + "".join(f"(?{f}:" for f in opened))
            i += 1
        elif c == "{" and pattern.startswith("{,", i):
            out.append(r"\{")
            i += 1
        else:
            out.append(c)
            i += 1
    if in_class or len(scopes) != 1:
        raise Untranslatable("unbalanced [ or (")
    out.append(")" * len(scopes[0]))
    return "".join(out)


# gitleaks' "name = value" rules start with an optional lazy run before the name: it only moves the match's
# start to the left (the secret is a later group), and in Python's backtracking engine it costs up to 50
# steps at every position of the text (3 s on 100 kB of one repeated keyword).  It is dropped.
_LEADING_RUN = re.compile(r"^(\(\?i\))?\[\\w\.-\]\{0,50\}\?")


def compile_rule_regex(pattern: str, *, re2: bool = True) -> re.Pattern[str]:
    """Compile a rule's regex; any warning (an ambiguous construct) is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            if re2:
                pattern = _LEADING_RUN.sub(lambda m: m.group(1) or "", translate_re2(pattern))
            return re.compile(pattern, re.ASCII)
        except (re.error, FutureWarning, DeprecationWarning) as exc:
            raise Untranslatable(str(exc)) from exc


# --------------------------------------------------------------------------------------------------
# rules
# --------------------------------------------------------------------------------------------------


def _slack_ok(value: str) -> bool:
    return re.search(r"\d{8,}", value) is not None and any(c.isalpha() for c in value[5:])


_CHECKS: dict[str, Callable[[str], bool]] = {
    "mixed": mixed,  # upper, lower and digit
    "letters-digits": has_letters_digits,
    "slack": _slack_ok,  # long numeric ids, letters after the prefix
}


@dataclass(frozen=True)
class AllowList:
    target: str  # "secret" | "match" | "line"
    regexes: tuple[re.Pattern[str], ...]
    stopwords: tuple[str, ...]

    def allows(self, secret: str, match: str, line: str) -> bool:
        hay = {"secret": secret, "match": match, "line": line}[self.target]
        if any(r.search(hay) for r in self.regexes):
            return True
        low = secret.lower()
        return any(w in low for w in self.stopwords)


@dataclass(frozen=True)
class SecretRule:
    id: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...] = ()
    entropy: float = 0.0
    secret_group: int = 0
    allowlists: tuple[AllowList, ...] = ()
    check: Callable[[str], bool] | None = None
    placeholder: str = "lenient"  # "lenient" | "strict" | "off": drop values is_placeholder() calls fake
    priority: int = 3


def _allowlist(table: dict[str, Any]) -> AllowList | None:
    """One gitleaks allowlist; None when it cannot apply to a text (path or commit conditions)."""
    path_like = any(table.get(k) for k in ("paths", "commits"))
    if path_like and table.get("condition", "OR").upper() == "AND":
        return None  # every condition must hold, and a memory has no path
    regexes = tuple(compile_rule_regex(p) for p in table.get("regexes", ()))
    stopwords = tuple(w.lower() for w in table.get("stopwords", ()))
    if not regexes and not stopwords:
        return None
    return AllowList(table.get("regexTarget", "secret"), regexes, stopwords)


def _rule(table: dict[str, Any], *, re2: bool, name: str, extra: tuple[AllowList, ...]) -> SecretRule:
    pattern = table["regex"]
    if table.get("boundary"):
        pattern = rf"(?<![A-Za-z0-9_\-])(?:{pattern})(?![A-Za-z0-9_\-])"
    allowlists = [a for a in (_allowlist(t) for t in table.get("allowlists", ())) if a is not None]
    check = table.get("check")
    return SecretRule(
        id=name,
        regex=compile_rule_regex(pattern, re2=re2),
        keywords=tuple(k.lower() for k in table.get("keywords", ())),
        entropy=float(table.get("entropy", 0.0)),
        secret_group=int(table.get("secretGroup", 0)),
        allowlists=(*allowlists, *extra),
        check=_CHECKS[check] if check else None,
        placeholder=table.get("placeholder", "lenient"),
        priority=int(table.get("priority", 3)),
    )


def load_rules() -> tuple[tuple[SecretRule, ...], dict[str, str]]:
    """(rules, skipped id -> reason): Mnemos' own rules first (ties keep Mnemos' name), then gitleaks'."""
    with MNEMOS_FILE.open("rb") as f:
        mnemos = tomllib.load(f)
    with GITLEAKS_FILE.open("rb") as f:
        gitleaks = tomllib.load(f)
    settings = mnemos.get("gitleaks", {})
    skip: dict[str, str] = dict(settings.get("skip", {}))
    ids: dict[str, str] = settings.get("ids", {})
    overrides: dict[str, dict[str, Any]] = settings.get("overrides", {})
    global_allow = _allowlist(gitleaks.get("allowlist", {}))
    extra = (global_allow,) if global_allow is not None else ()
    rules = [_rule(t, re2=False, name=t["id"], extra=()) for t in mnemos.get("rules", ())]
    for table in gitleaks["rules"]:
        rule_id = table["id"]
        if rule_id in skip:
            continue
        if "regex" not in table:
            skip[rule_id] = "no regex (matches file paths only)"
            continue
        try:
            table = {**table, **overrides.get(rule_id, {})}
            rules.append(_rule(table, re2=True, name=ids.get(rule_id, rule_id), extra=extra))
        except Untranslatable as exc:
            skip[rule_id] = f"RE2 pattern not translatable: {exc}"
    return tuple(rules), skip


RULES, SKIPPED = load_rules()

# --------------------------------------------------------------------------------------------------
# scanning
# --------------------------------------------------------------------------------------------------

_MASK_AFTER = ("###", "***", "xxx", "XXX", "...", "\u2026")


def _secret_span(rule: SecretRule, m: re.Match[str]) -> tuple[int, int]:
    if rule.secret_group and rule.secret_group <= (m.re.groups or 0):
        return m.span(rule.secret_group)
    for g in range(1, (m.re.groups or 0) + 1):
        if m.group(g):
            return m.span(g)
    return m.span()


def _accepted(rule: SecretRule, text: str, m: re.Match[str], start: int, end: int) -> bool:
    value = text[start:end]
    if not value:
        return False
    if rule.entropy:
        if shannon_entropy(value) <= rule.entropy:
            return False
        if rule.id.startswith("generic") and not any(c.isdigit() for c in value):
            return False
    if rule.placeholder != "off" and is_placeholder(value, strict=rule.placeholder == "strict"):
        return False
    if text[end : end + 3] in _MASK_AFTER or text[end : end + 1] == "\u2026":
        return False  # the value goes on as a mask: "xoxp-5723...-####": a redacted example
    if rule.check is not None and not rule.check(value):
        return False
    if rule.allowlists:
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start : len(text) if line_end < 0 else line_end]
        if any(a.allows(value, m.group(0), line) for a in rule.allowlists):
            return False
    return True


def _keyword_finder() -> Callable[[str], set[str]]:
    """A function giving the keywords that occur in a lower-cased text: one Aho-Corasick pass over it
    (pyahocorasick: 250 keywords in ~2 ms on 100 kB, where 250 ``in`` tests take ~15 ms), else the tests."""
    keywords = sorted({k for rule in RULES for k in rule.keywords})
    try:
        import ahocorasick  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # pragma: no cover - pinned in requirements.txt; slower but the same answer
        return lambda low: {k for k in keywords if k in low}
    automaton = ahocorasick.Automaton()
    for k in keywords:
        automaton.add_word(k, k)
    automaton.make_automaton()
    return lambda low: {k for _, k in automaton.iter(low)}


_present_keywords = _keyword_finder()


def scan_rules(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    """Every rule one of whose keywords occurs in the lower-cased text (and every rule without keywords)."""
    present = _present_keywords(low)
    for rule in RULES:
        if rule.keywords and present.isdisjoint(rule.keywords):
            continue
        for m in rule.regex.finditer(text):
            start, end = _secret_span(rule, m)
            if _accepted(rule, text, m, start, end):
                out.append(Found(start, end, rule.id, rule.priority))


# --------------------------------------------------------------------------------------------------
# private key blocks (bounded search for the END line; truncated keys; PuTTY files)
# --------------------------------------------------------------------------------------------------

_PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_END = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BASE64_LINES = re.compile(
    r"(?:\s*(?:[A-Za-z][A-Za-z\-]{1,30}: [^\n]{0,200}\n)*)(?:[A-Za-z0-9+/=]{16,}\s*){1,400}"
)
_PUTTY = re.compile(
    r"PuTTY-User-Key-File-\d:[^\n]{0,100}\n(?:[^\n]{0,300}\n){0,40}?Private-Lines: \d+\n((?:[A-Za-z0-9+/=]{8,}\n?){1,60})"
)
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=]")


def scan_private_keys(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    if "-----begin" not in low and "putty-user-key-file" not in low:
        return
    for m in _PRIVATE_KEY_BEGIN.finditer(text):
        end_m = _PRIVATE_KEY_END.search(text, m.end(), min(len(text), m.end() + 20000))
        if end_m is not None:
            body = text[m.end() : end_m.start()]
            if len(_NOT_BASE64.sub("", body)) >= 20:
                out.append(Found(m.start(), end_m.end(), "private-key", 4))
            continue
        tail = _BASE64_LINES.match(text, m.end())
        if tail is not None and len(_NOT_BASE64.sub("", tail.group(0))) >= 20:
            out.append(Found(m.start(), tail.end(), "private-key", 4))
    for m in _PUTTY.finditer(text):
        out.append(Found(m.start(1), m.end(1), "private-key", 4))
