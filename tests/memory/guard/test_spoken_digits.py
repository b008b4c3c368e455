"""Codes said digit by digit in words (``codes.spoken_digits``, ``data/number_words.toml``), session 45: the
languages added (Romanian, Hungarian, Malay, Tagalog, Swahili, Thai, Persian, Bulgarian, Bengali, Chinese), a
quoted answer, three words of one language after a lock's or a code's word, and one-character digits written
glued (Chinese, Japanese kanji, Korean) after such a word. None of these phrasings is in a prose set; each is
found by the rules alone, the learned tagger held off."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from memory.guard.codes import spoken_digits
from memory.guard.lexicon import _phrases
from tests.memory.guard.helpers import assert_found_by_the_rules_alone


@pytest.mark.parametrize(
    "text, secret",
    [
        # four words or more, of a language added this session
        ("Codul de la interfon e trei cinci opt unu, apoi cheia.", "trei cinci opt unu"),
        ("A riasztó: kilenc négy egy hét, és zöld gomb.", "kilenc négy egy hét"),
        ("PIN kad bank ayah: lapan dua enam tiga, jangan beritahu sesiapa.", "lapan dua enam tiga"),
        ("Ang PIN ng card ko ay walo tatlo anim apat.", "walo tatlo anim apat"),
        ("Namba ya siri ya simu ni tisa mbili saba tano.", "tisa mbili saba tano"),
        ("รหัสประตู สาม เจ็ด หนึ่ง แปด นะ", "สาม เจ็ด หนึ่ง แปด"),
        ("رمز در ورودی: پنج هشت دو هفت", "پنج هشت دو هفت"),
        ("Кодът на входа е осем две девет четири.", "осем две девет четири"),
        ("গেটের কোড চার সাত দুই নয়, মনে রেখো", "চার সাত দুই নয়"),
        # an answer in quotes: the quote is no part of the first word
        ("Me: 'which PIN did you set on the tablet?' Sam: 'nine one nine six'", "nine one nine six"),
        # three, of one language, after a lock's or a code's word
        ("Padlock on the shed: eight, one, five.", "eight, one, five"),
        ("Il lucchetto della bici si apre con sette-due-nove.", "sette-due-nove"),
        # glued, one character a digit, after a code's or a safe's word
        ("家里保险柜的密码是八二六四一九，千万别外传。", "八二六四一九"),
        ("事務所の金庫は九三〇七で開きます。", "九三〇七"),
        ("현관 비번 팔삼구칠이야", "팔삼구칠"),
        # the twenty languages of session 48: Welsh, Turkmen
        ("Cod y drws ffrynt: pedwar naw dau saith", "pedwar naw dau saith"),
        ("Gapynyň kody: dört dokuz iki ýedi", "dört dokuz iki ýedi"),
    ],
)
def test_a_code_said_in_words_is_redacted_by_the_rules(text, secret):
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        # a count, a year and a date in digits of one character each, and glued digits far from any code word
        "Kids counted down: five, four, three, two, one, and the rocket launched.",
        "令和の前、二〇一九年に引っ越しました。",
        "会议定在二〇二四年三月举行，密码另行通知。",
        "第一二三四章的内容很长。",
        # three number words with no lock's or code's word before them, or of several languages
        "We have to do one thing first, then two more.",
        "The lock is fine; we need three or four more volunteers, maybe five.",
        "I set aside one two three hours for the password workshop.",
        # a number another word names, said in words
        "The ticket number is four four nine one, please quote it.",
        # English words that another language's digits spelled without accents once were (Faroese "try", Irish
        # "do", Welsh "dim"): a run of them is English
        "Think I'm going to try to do more outdoor activities like this every week!",
    ],
)
def test_talk_with_number_words_is_left_alone(text):
    assert guard_redact(text)[0] == text


def test_a_glued_run_needs_a_code_word_before_it():
    for text, spans in (("彼の電話は九三〇七です", []), ("暗証番号は九三〇七です", [(5, 9)])):
        assert spoken_digits(text, list(_phrases(text))) == spans


@pytest.mark.parametrize(
    "text, secret",
    [
        # numbers of two digits said in words after a lock's, a code's or a credential's word (session 47,
        # ``codes.spoken_numbers``)
        ("Shed padlock combination: thirty-one, seven, twenty-two.", "thirty-one, seven, twenty-two"),
        ("The alarm code at the depot is fourteen sixty-two, then OFF.", "fourteen sixty-two"),
        ("La combinación del candado es cuarenta y uno, doce, ocho.", "cuarenta y uno, doce, ocho"),
        (
            "Die Kombination vom Vorhängeschloss ist dreiundzwanzig – elf – siebenundvierzig.",
            "dreiundzwanzig – elf – siebenundvierzig",
        ),
        ("La combinazione del lucchetto è ventotto, trentuno, sei.", "ventotto, trentuno, sei"),
    ],
)
def test_a_code_said_in_numbers_of_two_digits_is_redacted_by_the_rules(text, secret):
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "The PIN reminder meeting is at twelve thirty on Friday.",
        "Code review at twelve thirty, then lunch.",
        "The password expires in thirty days, twenty if you are an admin.",
        "We had twenty-two, maybe twenty-five people at the door code workshop",
        "Ticket number twenty-two forty is about the lock",
        "the lock has been broken for twenty-two, twenty-three days",
        "the PIN pad took fifteen, twenty minutes to reset",
        "the door code workshop had twenty-two, twenty-five people",
    ],
)
def test_times_and_counts_in_words_are_left_alone(text):
    assert guard_redact(text)[0] == text
