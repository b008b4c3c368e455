"""Input checks every surface shares, before any argument is validated or stored.

PostgreSQL refuses NUL in ``text`` and ``jsonb``, and a lone surrogate cannot be encoded to UTF-8 at
all: either would fail at an insert (the call's audit at the latest) as a 500. Such input is refused
with 422, not cleaned: content is stored as given, and silently dropping characters would store
something the caller did not send. Python's ``json`` recurses once per level of nesting, so a body's
depth is measured on its text before it is parsed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from core.errors import InvalidInput, Unprocessable

# Far deeper than any tool's arguments (save_memory's payload.entities[0].name is 4 levels).
MAX_DEPTH = 64

INVALID_CHARACTERS = "invalid_characters"
NESTED_TOO_DEEP = "nested_too_deep"
BODY_TOO_DEEP = "request body is nested too deep"
BODY_TOO_LARGE = "request body too large"

_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")
# The depth scan works on UTF-8 bytes, where no byte of a multi-byte character is a bracket or a quote.
_BRACKETS_ONLY = bytes.maketrans(b"{}", b"[]"), bytes(set(range(256)) - set(b"[]{}"))


def _bad_characters(text: str) -> str | None:
    """What is wrong with ``text``'s characters, or None."""
    if text.isascii():  # no surrogate can hide in an ASCII string
        return "NUL characters" if "\x00" in text else None
    found = _BAD_CHARACTER.search(text)
    if found is None:
        return None
    return "NUL characters" if found.group() == "\x00" else "unpaired surrogates"


def _shown(name: str) -> str:
    """A name fit for an error message (stored in the audit, so no NUL): bad characters as escapes."""
    return _BAD_CHARACTER.sub(lambda m: f"\\u{ord(m.group()):04x}", name)


def arguments_check(arguments: Any, *, where: str = "", max_depth: int = MAX_DEPTH) -> None:
    """Refuse (422) NUL characters and lone surrogates in argument names or values, non-finite
    numbers, and nesting deeper than ``max_depth``, at any depth. The message names the field
    (``entities.0.name: must not contain NUL characters``; for depth, the outermost argument).
    Walks iteratively: no recursion, whatever the depth."""
    stack: list[tuple[str, str, int, Any]] = [(where, where, 0, arguments)]
    while stack:
        path, outermost, depth, value = stack.pop()
        if isinstance(value, str):
            problem = _bad_characters(value)
            if problem:
                raise Unprocessable(
                    f"{path or 'arguments'}: must not contain {problem}", code=INVALID_CHARACTERS
                )
        elif isinstance(value, float) and not math.isfinite(value):
            raise Unprocessable(f"{path or 'arguments'}: must be a finite number", code="invalid_number")
        elif isinstance(value, (dict, list)):
            if depth >= max_depth:
                raise Unprocessable(
                    f"{outermost or 'arguments'}: nested deeper than {max_depth} levels", code=NESTED_TOO_DEEP
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for name, item in items:
                shown = _shown(str(name))
                inner = f"{path}.{shown}" if path else shown
                problem = _bad_characters(str(name))
                if problem:
                    raise Unprocessable(
                        f"{inner}: argument names must not contain {problem}", code=INVALID_CHARACTERS
                    )
                stack.append((inner, outermost or inner, depth + 1, item))


def json_depth(text: str, *, limit: int = MAX_DEPTH) -> int:
    """How deep the JSON ``text`` nests (brackets outside strings), counted up to ``limit + 1`` at most.

    All in C, no pass per character: escaped backslashes and quotes dropped, the text between quotes
    dropped, everything but the brackets dropped; then each ``replace`` removes the innermost pairs
    (one level), at most ``limit + 1`` times, and a run of ``limit + 1`` opening brackets ends it at
    once. Brackets that never close (``json`` still recurses into them before it fails) count too.
    """
    data = text.encode("utf-8", "surrogatepass").replace(b"\\\\", b"").replace(b'\\"', b"")
    if b'"' in data:
        data = b"".join(data.split(b'"')[::2])  # outside the strings (an unclosed one runs to the end)
    brackets = data.translate(*_BRACKETS_ONLY)
    too_deep = b"[" * (limit + 1)
    depth = 0
    while brackets:
        if depth > limit or too_deep in brackets:
            return limit + 1
        inner_gone = brackets.replace(b"[]", b"")
        if len(inner_gone) == len(brackets):  # no pair left: ]]][[[, brackets that never close
            return min(depth + brackets.count(b"["), limit + 1)
        brackets, depth = inner_gone, depth + 1
    return min(depth, limit + 1)


def json_body_load(body: bytes, *, encoding: str | None = None) -> Any:
    """A request body parsed as JSON; 400 ``invalid_json`` when it is not JSON (NaN and Infinity are
    not) or nests deeper than ``MAX_DEPTH``. ``encoding``: the request's charset, else detected as
    ``json.loads`` does."""
    try:
        text = body.decode(encoding or json.detect_encoding(body), "surrogatepass")
    except (UnicodeDecodeError, LookupError) as exc:
        raise InvalidInput(f"request body is not valid JSON: {exc}", code="invalid_json") from exc
    if json_depth(text) > MAX_DEPTH:
        raise InvalidInput(BODY_TOO_DEEP, code="invalid_json")
    try:
        return json.loads(text, parse_constant=_not_json)
    except (json.JSONDecodeError, _NotJson) as exc:
        raise InvalidInput(f"request body is not valid JSON: {exc}", code="invalid_json") from exc
    except ValueError as exc:  # an integer past Python's 4300 digits
        raise InvalidInput(
            "request body is not valid JSON: a number is too long", code="invalid_json"
        ) from exc


def json_argument_load(text: str, *, where: str) -> Any:
    """A JSON text inside the arguments (save_memory's ``payload``), refused like the arguments
    themselves (422) when it nests too deep or carries bad characters; ValueError when it is not JSON."""
    if json_depth(text) > MAX_DEPTH:
        raise Unprocessable(f"{where}: nested deeper than {MAX_DEPTH} levels", code=NESTED_TOO_DEEP)
    value = json.loads(text, parse_constant=_not_json)
    arguments_check(value, where=where)
    return value


class _NotJson(ValueError):
    pass


def _not_json(constant: str) -> Any:
    raise _NotJson(f"{constant} is not valid JSON")
