"""Text folding, words and tag spelling: the one place memory decides when two texts count as the same.

Pure functions (no models, no database), so every layer may use them: the write path keys entities
with ``fold``, the search and the graph language look names up with it, the archivist and training
compare contents with ``fold_content``; ``normal_tag`` and ``tag_rejection`` are the tag rules every
tool that attaches tags applies.
"""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"\w+", re.UNICODE)


def fold(name: str) -> str:
    """The key two spellings share when they are the same name: case and full-width folded.

    NFKC first (full-width letters are their ASCII ones), then case, then runs of white space as one space.
    What an entity's ``key`` holds, and what every name lookup compares against it.
    """
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def fold_content(text: str) -> str:
    """What two stored texts share when they say the same thing: case and white space folded.

    No NFKC, unlike ``fold``: a content's characters are kept as written (a full-width digit in a
    note is not an ASCII one), only letter case and spacing do not make a text different.
    """
    return " ".join(text.casefold().split())


def content_words(text: str) -> set[str]:
    """The text's distinct words, case folded (for a word-overlap measure)."""
    return set(WORD.findall(text.casefold()))


def query_words(text: str) -> list[str]:
    """A query's words, case folded, in order; one-letter ASCII words dropped (non-ASCII kept: a Han
    character is a word)."""
    return [w for w in WORD.findall(text.casefold()) if len(w) > 1 or not w.isascii()]


# Tags are slash paths of short lower-case names; what is not a category (an id, a hash, a date) is refused.
MAX_TAG = 64
_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
_HASH = re.compile(r"^(?:sha\d*[:-]|md5[:-])?[0-9a-f]{12,}$", re.I)
_NUMERIC_ID = re.compile(r"^#?\d{3,}$")
_DATE = re.compile(
    r"^(?:\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?(?:t[\d:.]+z?)?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|q[1-4][-/ ]?\d{4}|\d{4}[-/ ]?q[1-4]"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*[-/ ]?\d{2,4})$",
    re.I,
)


def normal_tag(tag: str) -> str:
    """A tag as stored: its path's parts trimmed, lower case, inner white space as hyphens."""
    parts = [re.sub(r"\s+", "-", p.strip().lower()) for p in tag.strip().strip("/").split("/")]
    return "/".join(p for p in parts if p)


def tag_rejection(tag: str) -> str | None:
    """Why this (normal) tag is refused, or None."""
    leaf = tag.rsplit("/", 1)[-1]
    if not leaf:
        return "empty tag"
    if len(tag) > MAX_TAG:
        return f"longer than {MAX_TAG} characters: tags are short paths"
    if _UUID.match(leaf):
        return "looks like an id: ids belong in the content or summary, not in tags"
    if _HASH.match(leaf):
        return "looks like a hash: hashes belong in the content, not in tags"
    if _NUMERIC_ID.match(leaf):
        return "looks like a numeric id: ids belong in the content or summary, not in tags"
    if _DATE.match(leaf):
        return "looks like a date: the event's timestamp carries time, not tags"
    return None
