"""A value told a sentence or two after its word, by a pronoun that stands for the word.

    <word> ... (the same paragraph, at most ``_REACH`` characters) ... it's | it is | it was <value>

    "The password for the shared drive changed again. It's now octopusink."
    "The alarm company will ask for the account password before they cancel a callout — it's bluebell."
    "— Is the door code still the same? — No, they changed it Monday. It's 4471 now"

The pronoun stands for the last credential, code or lock word before it (``antecedents``), unless a word that is no
English small word follows that word: then it stands for what the two name ("My password manager crashed. It's
Dashlane.", "The password policy was updated. It is stricter now."). What follows the pronoun is read
by ``credentials.find_prose_credentials`` as after that word and an English link, with the same tests (a word of
talk, an errand, a describing word is no value: "I forgot my password again. It's annoying."). Pure functions.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from .credential_values import _DESCRIBING
from .lexicon import _SINGLE_END, CALENDAR_WORDS, _stopwords

_IT = re.compile(r"(?<![\w'’])it(?=['’]s\b|\s+is\b|\s+was\b)", re.IGNORECASE)
_REACH = 200  # characters between the word's end and the pronoun
_KINDS = frozenset({"credential", "numeric", "code", "lock"})
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")  # the word right after the credential word, if any


def antecedents(text: str, phrases: list[tuple[int, int, str, str]]) -> Iterator[tuple[int, int, str, str]]:
    """(the pronoun's start, its end, the word it stands for, the word's kind) for each "it's", "it is", "it was"
    after a credential, code or lock word of the same paragraph (``phrases``: ``lexicon.phrases_in``'s)."""
    words = sorted((end, phrase, kind) for _, end, phrase, kind in phrases if kind in _KINDS)
    if not words:
        return
    ends = [end for end, _, _ in words]
    for m in _IT.finditer(text, ends[0]):
        k = bisect.bisect_right(ends, m.start()) - 1
        if k < 0:
            continue
        end, phrase, kind = words[k]
        if m.start() - end > _REACH or "\n\n" in text[end : m.start()]:
            continue
        after = _NEXT_WORD.match(text, end)
        if after is not None and after.group(1).lower() not in _stopwords():
            continue  # the pronoun stands for what the word names: "My password manager crashed. It's Dashlane."
        yield m.start(), m.end(), phrase, kind


_AFTER = re.compile(r"[ \t]+(?:now|then|still|again|too)\b", re.IGNORECASE)
# A day's or a month's name is when, not what: "I reset the password. It was Monday." ("may" too: no modal here)
_CALENDAR = CALENDAR_WORDS | {"may", "weekend"}


def told(text: str, start: int, end: int) -> bool:
    """Whether the value read after the pronoun at ``start``-``end`` is one: it ends its clause, or "now", "then",
    "still", "again" or "too" follow it ("it's tb-04 in the lab rack" names a machine); no day's or month's name; no participle
    or adjective first ("how it is applied in everyday technology": what is said of the word)."""
    value = text[start:end]
    if not (_SINGLE_END.match(text, end) or _AFTER.match(text, end)):
        return False
    return value.lower() not in _CALENDAR and not _DESCRIBING.match(value.split(" ", 1)[0].lower())
