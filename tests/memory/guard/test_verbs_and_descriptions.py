"""Session 56's phrasings of passwords in prose, after reading the read sets' misses (bench/guard/HELDOUT.md):
a verb before the credential word ("I changed the password to X"), a value chosen "as the password", what a
password is made of said before it ("is my dog's name, Biscuit"), a passphrase's own word with an English verb,
words of another script joined by underscores, a Latin word glued to a CJK link. Each family's password that must
be redacted, and close ordinary notes that must stay as written. Sentences written for these tests."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact


@pytest.mark.parametrize(
    "text, secret",
    [
        # a verb that gives the password its value, then "to"
        ("I changed the password to winterapples", "winterapples"),
        ("We reset the guest wifi password to lanternfish, tell the front desk.", "lanternfish"),
        ("I changed the wifi password to correct horse battery staple", "correct horse battery staple"),
        ("Updated the kiosk password to 'tomatoes', tell the front desk", "tomatoes"),
        # a value chosen "as the password"
        ("Use frostbite as the password for the test VM, it gets wiped tonight anyway", "frostbite"),
        ("I picked cinnamon swirl lighthouse as the password.", "cinnamon swirl lighthouse"),
        ("we all agreed on Congrats Lena & Tom as the password.", "Congrats Lena & Tom"),
        (
            "the wiki's shared account uses paper lanterns over the river as passphrase",
            "paper lanterns over the river",
        ),
        # what the password is made of, then the value itself
        ("the password is my dog's name, Biscuit", "Biscuit"),
        ("Password is the name of the cat, Mr. Whiskers, exactly like that with the dot", "Whiskers"),
        ("old Synology: user admin, the password is the company name backwards, emca", "emca"),
        ("The password for the PDF is the invoice date: 14.02.2024", "14.02.2024"),
        ("wifi password is the kids' initials plus the house number, MJTA42. All capitals.", "MJTA42"),
        ("Our Hulu pwd is still the dog's name: Waffles2020", "Waffles2020"),
        # a phrase a bank or an alarm company asks for by phone
        ("Caller ID verification phrase for the building society: 'marmalade skies'", "marmalade skies"),
        ("TV parental lock word: broccoli", "broccoli"),
        # a passphrase's own word and an English verb, as "password is"
        ("the VPN passphrase is moonlight sonata", "moonlight sonata"),
        ("the passphrase is purple walrus sings at dawn", "purple walrus sings at dawn"),
        # a lone word, then a purpose after "so" or an adverb that ends the clause
        ("Set the BIOS supervisor password to Ironclad so students can't boot USB", "Ironclad"),
        ("root pw on the old pi is raspberry still, change it when you get a chance", "raspberry"),
        # a number as a phrase's last word after an English link or a colon
        ("Bitwarden master pw: Purple cactus drinks tea at 9", "Purple cactus drinks tea at 9"),
        ("Wifi for the babysitter: password is pancakes and syrup 88, router is behind the TV.", "syrup 88"),
        # an English qualifier that another language reads as a link ("on", Finnish's "is"), after a phrase's word
        ("the passphrase on the offline backup key is: purple walrus sings at dawn", "purple walrus"),
        # words of another script joined by underscores after a link
        ("كلمة المرور للراوتر: قهوة_بالهيل", "قهوة_بالهيل"),
        ("סיסמה לנאס: כלב_ים_כחול", "כלב_ים_כחול"),
        # a Latin word glued to a CJK link, a full-width comma after it
        ("路由器管理密码：xiaolongbao，全小写", "xiaolongbao"),
        # a sentence its code's word opens, the value after its colon however far along
        (
            "Card PIN for the petty cash debit card, written here so I stop asking Anita: 58 31 90.",
            "58 31 90",
        ),
        ("SIM PUK from the card holder, in case the phone locks again: 83920174", "83920174"),
        # the sentence the word opens is the last before it, however many come first; a semicolon opens one too
        (
            "Cleared the desk today. Sorted all of the incoming mail too. Card PIN for the petty cash debit "
            "card, written here so I stop asking Anita: 58 31 90.",
            "58 31 90",
        ),
        # a colon after a word of another language's link ("on" is Finnish's "is"); a year as a gate's PIN
        ("Verification code for WhatsApp on the new phone: 318-447", "318-447"),
        ("PIN for the gate: 1956", "1956"),
        # a meeting's passcode reads in threes, not as a telephone's number
        ("Zoom passcode for the board call on Monday (Maria sent it): 884 216 793", "884 216 793"),
        (
            "Sorted the incoming mail; card PIN for the petty cash card, kept here so I stop asking: 58 31 90.",
            "58 31 90",
        ),
        (
            "MFA recovery code for the root account (also in the sealed envelope): kd83 ms02 pq71 zz49",
            "kd83 ms02",
        ),
        ("Safe code is the date we opened: 03.11.2009 (type it without the dots)", "03.11.2009"),
    ],
)
def test_passwords_are_redacted(text: str, secret: str) -> None:
    assert secret not in guard_redact(text)[0]


@pytest.mark.parametrize(
    "text",
    [
        # a purpose after "to", two words of an errand, talk about the new password
        "She reset her password to regain access",
        "We reset the password to continue",
        "I changed the password to something stronger",
        "I set the password to expire after 90 days",
        "Reset the password to the default",
        "They changed the password to match the new policy.",
        "We set the password to never expire on service accounts.",
        "I changed the password to a passphrase",
        "I changed the password to the one on the sticker",
        # what a password is made of, or a tool, "as the password"
        "Use your employee number as the password",
        "Don't use your name as the password",
        "Never use dictionary words as the password",
        "We used Bitwarden as the password manager",
        "I used my birthday as the password",
        "Use random words as passwords",
        "Staff use their badge number as the password",
        "I had the same problem as the password reset page",
        "She used her maiden name as the password",
        # a description with no value after it
        "the password is the usual, ask Tom",
        "the password is the name of the street, not the number",
        "the password is my cat's name, which you know",
        "the password is the model number, see the label",
        "the router's name is Netgear-5G, password on the sticker",
        "your verification phrase is required when you call",
        "the unlock word is in the drawer",
        # talk about a passphrase
        "the passphrase is easy to remember for most users",
        "the passphrase is stored in the vault under ops",
        "the passphrase is too short for the policy",
        "the passphrase on the old laptop is stored in the vault",
        "the password is due in 30",
        "the password is expired so please reset it",
        "the password is changing so be ready",
        "the password is required still",
        "the password is valid for 90",
        "the password is at least 12",
        "the passphrase is case sensitive",
        "the recovery phrase is twelve words long",
        "the passphrase is different per environment",
        "the password is unique per device",
        # a sentence a code's word opens, no code after its colon, or a phone's number, or another sentence's
        "Door code changes every month, next change: 1 March",
        "Buzzer doesn't work, call my cell when you arrive: 312-555-0147.",
        "Door code is on the fridge. Flat number: 4412",
        "wifi password doesn't work on the 3rd floor, I think the AP is dead, MAC 3C:52:82:1A:7F:09",
        "Alarm code reminder for the new tenants, see the welcome pack: page 4.",
        "Alarm code problems out of hours, the monitoring line: 0800 123 4567",
        # "is" said what it is first; a year after the colon says when
        "PIN reset for the whole branch is scheduled: 2025.",
        # a telephone's number as one token after a code's word and its clause (the rules and the tagger alike)
        "Door code problems out of hours, ring the monitoring line: 312-555-0147.",
        "配送の追跡番号は 4829-1173-0065 です。再配達の受付に暗証番号は不要です。",
        # what the password is made of, a spelling remark after it: no value
        "the password is the company name, all lowercase",
        "The wifi password is my birth date, no dashes.",
        # a CJK errand glued to its link
        "Wi-Fiのパスワードは受付で確認してください",
        "パスワードは冷蔵庫に貼ってあるメモを見て",
        "密码：见群公告",
    ],
)
def test_close_ordinary_notes_stay(text: str) -> None:
    assert guard_redact(text)[0] == text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # a plain word after "password:" and one or two more to its line's end: one value, not a word of it
        ("Wifi password: purple walrus", ("purple", "walrus")),
        ("Wifi password: purple walrus. Ask Tom for the rest.", ("purple", "walrus")),
    ],
)
def test_a_value_of_words_is_redacted_whole(text: str, words: tuple[str, ...]) -> None:
    stored = guard_redact(text)[0]
    assert not any(word in stored for word in words), stored


def test_a_word_and_its_purpose_keep_the_purpose() -> None:
    assert guard_redact("Password: swordfish for the staging box")[0].endswith("] for the staging box")
