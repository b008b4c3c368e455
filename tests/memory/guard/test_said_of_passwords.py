"""A plain word or two after another language's link, a title's capitals, and forty languages more (session 46).

What is said of a password in each language (``data/describing.toml``: "abgelaufen", "cambiata", "vaihdettu")
is talk; a lone word or a pair of words after the credential word's link that is none of it is the value, in a
language whose talk the lexicon holds (``lexicon.talk_known``). Links are the credential word's own language's
(``lexicon.word_links``). None of these sentences is in a prose set; each is found by the rules alone, the
learned tagger held off, and each close ordinary note passes untouched with the tagger on.
"""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from memory.guard.lexicon import talk_endings, talk_known, word_links
from tests.memory.guard.helpers import assert_found_by_the_rules_alone


@pytest.mark.parametrize(
    "text, secret",
    [
        # a lone word after a verb of its language
        ("la password del wifi in montagna è stellalpina", "stellalpina"),
        ("Das Kennwort fürs Büro-WLAN ist jetzt Zimtschnecke", "Zimtschnecke"),
        ("Salasana mökin verkkoon on nykyään korvapuusti", "korvapuusti"),
        ("Het wachtwoord van de gastwifi is pannenkoek, alles klein.", "pannenkoek"),
        # two words after a verb of its language
        ("La clave del wifi del bar es churros calientes, todo en minúsculas.", "churros calientes"),
        ("A senha da rede do sítio é cavalo baio.", "cavalo baio"),
        # a title's capitals after a sign, after a verb
        ("Password: Silver Maple Lantern", "Silver Maple Lantern"),
        ("Hasło do drukarki: Zielony Groszek", "Zielony Groszek"),
        ("the password for the kiosk is Velvet Harbour", "Velvet Harbour"),
        # languages the lexicon lacked until session 46
        ("Lykilorðið á þráðlausa netinu er Hraunfoss88", "Hraunfoss88"),
        ("Šifra od alarma je 4471, pa pritisni OFF.", "4471"),
        ("Pasahitza: Txingudi2024", "Txingudi2024"),
        ("Wagwoord vir die kantoor-wifi: Protea!2023", "Protea!2023"),
        # a plain word that opens its clause, a link of the word's language, then the word
        ("blueberry is the password for the guest network", "blueberry"),
        ("mandarina es la clave del wifi de la cocina", "mandarina"),
        ("Pepparkaka är lösenordet till skrivaren.", "Pepparkaka"),
        # a word processor's non-breaking hyphen inside the credential word
        ("Guest Wi\u2011Fi key: sunflowerfield", "sunflowerfield"),
        # a Portuguese note whose "da" is Basque's "is" in another table: the word's own links only
        ("senha do wifi da casa da praia: coqueiroverde (tudo junto)", "coqueiroverde"),
    ],
)
def test_a_plain_value_after_its_link_is_redacted(text, secret):
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "La password del wifi è stata cambiata ieri.",
        "la password è scaduta",
        "Das Passwort ist seit Montag abgelaufen.",
        "Unser WLAN-Passwort ist abgelaufen",
        "Das Passwort der Freigabe ist hoofdlettergevoelig",  # two languages in one note
        "Ce mot de passe est entièrement numérique.",
        "Esta contraseña es completamente numérica.",
        "Heslo je příliš krátké.",
        "Salasana on vaihdettu eilen.",
        "Het wachtwoord is verlopen, vraag een nieuwe aan.",
        "Паролата е сменена, питай Десислава.",
        "the password is case sensitive",
        "the password is pretty weak",
        "Password: Not Required",
        "Пароль — зроблю ввечері",  # an errand right after the word and its dash
        "पिन कोड 110001, नई दिल्ली — पार्सल इसी पते पर भेजना।",  # India's PIN code is a postal code
        "Sarah has the password.",  # who holds it: no link between
        "Rotation is the password policy now.",  # a noun after the word: talk about its policy
        "Ricordati che la password del Wi-Fi è la stessa della TIM.",  # "che" is no link of the word's
        "Pytanie: jakie jest hasło do poczty?",  # a heading
        "Lykilorðið er útrunnið",  # Icelandic, a language added this session: its talk came with it
        "La contraseña es solo números",  # what a password is made of
        "the password is numbers",
    ],
)
def test_talk_about_a_password_passes(text):
    assert guard_redact(text)[0] == text


def test_a_language_without_its_talk_in_the_lexicon_reads_no_lone_word():
    assert talk_known(frozenset({"it"})) and talk_endings(frozenset({"it"}))
    assert not talk_known(frozenset({"xx"}))


def test_a_words_links_are_its_own_languages_and_englishs():
    assert "é" in word_links("senha") and "is" in word_links("senha")
    assert "da" not in word_links("senha")  # Basque's "is"
    assert "da" in word_links("password")  # English's word, borrowed everywhere: every language's links
