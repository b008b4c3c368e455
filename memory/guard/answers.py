"""The answer to a security question, a bank's memorable word or a code word for the phone line: a name.

    Security question (first pet): Mr Biscuits          a security question's words (each language's
    memorable place answer "Stonehenge" matched         ``answers`` in data/credential_words.toml), then
    Кодовое слово для банка — Барсик                    within 100 characters a colon, a dash or "answer
    câu hỏi bảo mật ... trả lời là Mực                  is", then one to four words to the clause's end

Such answers are names, not password-shaped, so the phrasing rules (``credentials``) pass them by. A redaction
layer of its own (``redaction.SCANNERS``, with the phrasing rules' rule and priority). A question is no answer
("Security question: what was your first pet's name?"), nor a pointer or talk ("security answer: see the
vault", "... : changed last week"). Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from .credentials import PRIORITY, RULE
from .lexicon import (
    _KINDS,
    CALENDAR_WORDS,
    _lexicon,
    _said_of_passwords,
    _stopwords,
    every_stopword,
    word_automaton,
)
from .spans import Found, Vetoed, overlap_test

# Between the question's words and its answer: an aside, a colon, a dash, or "answer is".
_REACH = 100
# Other languages' "is" and "was" ("A resposta da pergunta de segurança é Paçoca", "Die Antwort auf die
# Sicherheitsfrage lautet Bello"): what follows one is read as talk in any language's words ("es obligatoria")
_COPULAS = (
    r"es|era|fue|é|foi|est|était|è|ist|lautet|war|jest|brzmi|zní|este|var|oli|adalah|ialah|là|это|является|є"
)
_LINK = (  # what stands between a question and its answer: a colon, an arrow, a dash, a verb, "answer is"
    r"(?:[:：→]|\s[-=]>\s|\s[—–-]\s|\s=\s|\s(?:هو|هي)\s|\s(?:i\s+put|(?:set|changed|reset)\s+(?:it\s+)?to|puse|coloquei|ho\s+messo|j'ai\s+mis|er|är|is|was)\s|"
    rf"\s(?P<copula>{_COPULAS})\s|"
    r"(?:answer|respuesta|resposta|réponse|risposta|antwort|odpowiedź|ответ|"
    r"trả lời|jawaban|cevap|vastaus|답)\s*(?:is|es|é|est|è|ist|to|—|:|là|adalah)?\s)\s*"
    r"(?:(?:the\s+|my\s+|our\s+)?answer\s+(?:is|was)\s*:?\s*)?"
)
# the last link on the line within reach: "Security question — first pet's name: X"; the first, where the last
# one's words are talk after a quoted question
_TO_ANSWER = re.compile(r"[^\n]{0,100}" + _LINK, re.IGNORECASE)
_FIRST_LINK = re.compile(r"[^\n]{0,100}?" + _LINK, re.IGNORECASE)
# One to four words of a name, in quotes or not, to a full stop, a comma, a parenthesis or the line's end.
_ANSWER = re.compile(r"""["“«'‘「]?([^\s"”»'’」.,;!?()\[\]\n]+(?:[ \t][^\s"”»'’」.,;!?()\[\]\n]+){0,3})""")
_TALK = frozenset(
    {
        "see", "ask", "check", "call", "reset", "changed", "updated", "forgot", "forgotten", "unknown", "none",
        "n/a", "tbd", "what", "which", "who", "where", "when", "why", "how", "same", "in", "on", "stored", "saved",
        "set", "needed", "required", "pending", "done", "i", "we", "you", "he", "she", "they", "it",
    }
) | CALENDAR_WORDS  # fmt: skip  # a day or a month answers a question of when ("the 'first day' question: Monday")


# An answer ends its clause: punctuation, a closing quote, a dash, an aside or the line's end.
_COMPLETE = re.compile(r"""\s*(?:$|[.,;!?()\[\]"”»'’」\n]|[—–-]\s)""")
# A word right after the question's words that makes the note about the questions, not an answer.
_ABOUT = re.compile(
    r"s?\s+(?:rollout|roll-out|policy|policies|reset|resets|update|updates|change|changes|training|removal|feature|"
    r"setup|set-up|flow|page|form|field|fields|migration|audit|review|meeting|project|ticket|bug|issue|launch|"
    r"deadline|status|design|screen|requirements?|rules?)\b"
)
# A question quoted as it is asked, then its answer: "Answer to 'city where your parents met': Swansea", "the
# 'favourite teacher' answer is Hendricks", "the answer to the 'favourite animal' question on the site: Pickles".
_QUOTED_QUESTION = re.compile(
    r"""\banswers?\s+(?:to|for)\s+(?:the\s+)?["“'‘][^"”'’\n]{3,80}["”'’](?:\s+questions?\b)?"""
    r"""|["“'‘][^"”'’\n]{3,80}["”'’]\s+(?:answer|question)\b""",
    re.IGNORECASE,
)
# Or a question of three words or more quoted before a colon and an answer with no quote of its own ('Insurance
# website "favorite childhood book": Charlottes Web'; not JSON's '"first name": "Ann"', nor a form's field,
# '"Street name": Baker Street'). Each pattern runs only where its words or marks occur: apostrophes are in most
# notes, and scanning from each one cost 6 ms a 100 kB note.
_QUOTED_BEFORE_COLON = re.compile(r"""["“'‘][^"”'’\s]+(?:\s+[^"”'’\s]+){2,11}["”'’](?=:[ \t]+[^\s"“'‘])""")
_CLOSE_COLON = re.compile(r"""["”'’]:""")
# What the usual security questions ask about: a quoted question names one ("'favourite teacher'", "'city where
# your parents met'"); "'what is 2+2'" and "'reply all'" are other quotes.
_TOPICS = re.compile(
    r"\b(?:first|favou?rite|maiden|name|pet|city|town|street|road|school|teacher|friend|born|birth|car|nickname|"
    r"mother|father|childhood|grew up|hospital|parents|memorable|honeymoon|job|boss|sibling|grandmother|"
    r"grandfather|hero|mascot)\b",
    re.IGNORECASE,
)
# A name in capitals before the clause goes on in small words: "is Wexford Lane for all my accounts"
_CAPITALISED = re.compile(r"[A-Z][\w'’-]*(?:[ \t][A-Z][\w'’-]*){0,3}(?=[ \t][a-z])")
_VERBS = frozenset(
    {"has", "have", "had", "is", "are", "was", "know", "knows", "keeps", "forget", "forgot", "asks"}
)


@functools.cache
def _questions() -> tuple[str, ...]:
    lexicon = _lexicon()
    words = {w.lower() for k, v in lexicon.items() if k not in _KINDS for w in v.get("answers", [])}
    return tuple(sorted(words, key=len, reverse=True))


@functools.cache
def _question_automaton() -> Any:
    """The questions' words in one Aho-Corasick automaton (``lexicon.word_automaton``): one pass over the text,
    where a search a word took 0.11 ms a 1 kB note with 71 languages' words (bench/RESULTS.md, session 46); None
    without the package."""
    return word_automaton(_questions())


def _occurrences(low: str) -> Iterator[tuple[int, int]]:
    automaton = _question_automaton()
    if automaton is not None:
        for last, size in automaton.iter(low):
            yield last + 1 - size, last + 1
        return
    for word in _questions():
        at = low.find(word)
        while at >= 0:
            yield at, at + len(word)
            at = low.find(word, at + len(word))


def _asked(low: str) -> list[int]:
    """Where a security question's words end in ``low`` (the lower-cased text; a word's own bounds)."""
    ends = []
    for at, end in _occurrences(low):
        before = low[at - 1] if at else " "
        after = low[end] if end < len(low) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            ends.append(end)
    return sorted(set(ends))


def _answer(text: str, start: int, quoted: bool, foreign: bool = False) -> tuple[int, int] | None:
    """The answer at ``start`` (after a link), or None for talk, a pointer or a question. After a quoted
    question (``quoted``), a name in capitals is the answer where the clause goes on in small words. After
    another language's "is" (``foreign``), a word of talk in any language is talk."""
    answer = _ANSWER.match(text, start)
    if answer is None:
        return None
    value = answer.group(1)
    words = value.split()
    if foreign and any(w.lower() in every_stopword() or w.lower() in _said_of_passwords() for w in words):
        return None  # "la pregunta de seguridad es obligatoria", "die Sicherheitsfrage ist neu"
    capitalised = (
        _CAPITALISED.match(text, start) if quoted and any(w.lower() in _stopwords() for w in words) else None
    )
    if capitalised is not None and not any(
        w in _TALK or w in _stopwords() for w in capitalised.group(0).lower().split()
    ):
        return capitalised.span()
    titled = len(words) > 1 and all(w[:1].isupper() for w in words)  # a title: "The Princess Bride"
    after = text[answer.end(1) : answer.end(1) + 3].lstrip("\"”»'’」")[:1]
    talk = words[0].lower() in _TALK or (
        not titled and any(w.lower() in _stopwords() or w.lower() in _VERBS for w in words)
    )
    talk = talk or not _COMPLETE.match(text, answer.end(1))  # "'name of your first teacher'?": cut short
    if talk or after == "?" or value.endswith("?"):
        return None  # a pointer, talk or a question: "see the vault", "what was your first pet's name?"
    return answer.span(1)


def security_answers(text: str, low: str | None = None) -> list[tuple[int, int]]:
    """Spans of answers to a security question or a code word asked on the phone. ``low``: ``text`` in
    lower case with the same offsets, where the caller has it."""
    low = text.lower() if low is None or len(low) != len(text) else low
    spans = []
    asked = [(end, False) for end in _asked(low)]
    quotes: list[re.Match[str]] = []
    if "answer" in low or "question" in low:
        quotes += _QUOTED_QUESTION.finditer(text)
    if _CLOSE_COLON.search(text):
        quotes += _QUOTED_BEFORE_COLON.finditer(text)
    asked += [(m.end(), True) for m in quotes if _TOPICS.search(m.group(0))]
    for end, quoted in asked:
        link = _TO_ANSWER.match(text, end)
        if link is None or link.end() - end > _REACH + 20:
            continue
        if _ABOUT.match(low, end):
            continue  # talk about the questions themselves: "Security question rollout: Tuesday, ask Maria"
        found = _answer(text, link.end(), quoted, link.group("copula") is not None)
        if found is None and quoted:  # the first link, where the last one's words are talk
            first = _FIRST_LINK.match(text, end)
            found = _answer(text, first.end(), quoted) if first is not None else None
        if found is not None:
            spans.append(found)
    return sorted(set(spans))


def scan_security_answers(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): every answer not judged "not secret". Unlike the phrasing
    rules' values, an answer after "name:" is kept as one ("first pet's name: Biscuit McGee")."""
    overlaps_vetoed = overlap_test(vetoed)
    for start, end in security_answers(text, low):
        if not overlaps_vetoed(start, end):
            found.append(Found(start, end, RULE, PRIORITY))
