"""Phrasings of passwords in prose added after reading the later prose sets: each family's password that must
be redacted, and a close ordinary note that must stay as written. Sentences written for these tests."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact


@pytest.mark.parametrize(
    "text, secret",
    [
        # a phrase of another language after its credential word and a sign may hold its small words
        ("hasło do serwera plików: czerwony lis biega po lesie", "czerwony lis biega po lesie"),
        ("συνθηματικό για τον κοινό φάκελο: ο σκύλος τρέχει στην παραλία", "ο σκύλος τρέχει στην παραλία"),
        ("пароль від спільної скриньки — синій кит пливе у морі", "синій кит пливе у морі"),
        # words of what it is for before the colon, no qualifier first
        ("heslo ke sdílenému kalendáři: liška spí pod mostem", "liška spí pod mostem"),
        ("הסיסמה לשרת הקבצים: הדג שוחה בים הכחול", "הדג שוחה בים הכחול"),
        ("parola routerului din birou: Carpati#2024", "Carpati#2024"),
        # one long word run together after a sign
        ("Wifi-kode i sommerhuset: æblekagemedflødeskum", "æblekagemedflødeskum"),
        ("Пароль до принтера: соняшникполе", "соняшникполе"),
        # the value alone on the next line
        ("The password for the lobby kiosk is\n\n   harbourlight77", "harbourlight77"),
        ("Passphrase for the backup disk:\nsilver otter climbs ladders", "silver otter climbs ladders"),
        # "user X, pass Y": a comma after an account or a network
        ("Grafana for the lab: user labview, password mossgarden", "mossgarden"),
        (
            "Guest wifi at the studio: network Studio-Lounge, password amber-lantern, works outside",
            "amber-lantern",
        ),
        # a default account's digits or plain word after " / "
        ("Router page: admin / 87654321 (factory default)", "87654321"),
        ("the NAS still answers to root / goldfinch, fix it", "goldfinch"),
        # digits keyed in where a lock is named
        ("For the bike room, punch in 73915 and pull the handle", "73915"),
        ("Portail de l'immeuble : tapez 48213 puis la clé", "48213"),
        ("the safe in our cabin, I set it to 60417", "60417"),
        ("armadietto della palestra: ho messo 2846, non dimenticarlo", "2846"),
        # a credential word with its language's endings (session 43): Turkish's possessive and object
        ("ofis yazıcısının şifresini Mavi.Kuş.2025 yaptım", "Mavi.Kuş.2025"),
        ("Pankkikortin tunnusluku on 5129, älä kerro kenellekään", "5129"),
        ("парольну фразу для сейфа змінили: зелений кіт спить на даху", "зелений кіт спить на даху"),
        # what it is for, opened by a preposition glued to its noun (session 47): Hebrew "ל", Arabic "لل"
        ("הסיסמה למחשב של הקבלה היא תפוזים", "תפוזים"),
        ("كلمة السر للطابعة في الطابق الثاني هي برتقال", "برتقال"),
        # quotes right after the word make a plain word its value, as after a link (session 47)
        ("the kiosk account has password 'lemonade' for now", "lemonade"),
        # a word agreed on to be let in
        ("The secret word for the after-hours pickup is 'quince'.", "quince"),
        ("The code word for the surprise party is marmalade, don't tell Sam.", "marmalade"),
        # who chose it, between the word and its link; a lone word, then another clause
        ("the password they chose for the lab tablet is buttercup", "buttercup"),
        ("the password that I set is juniperhill, write it down", "juniperhill"),
        ("Her Hulu password is saltwater and she asked me to keep it safe.", "saltwater"),
        ("I changed the router password to 'honeycomb' this morning", "honeycomb"),
        # a door code with a capital or two among its digits (session 47): a digicode, an intercom's
        ("Code du portail : B7214, puis la clé", "B7214"),
        ("le code de la cour c'est 3C58A, pas celui du mail", "3C58A"),
        ("Код домофона у бабушки: 72Б4410", "72Б4410"),
        # a secret-shaped value far along the word's sentence (24 tokens, session 47)
        (
            "The password we agreed on for the finance share after the auditors complained twice about the old"
            " one last spring is Quill-Harbor9.",
            "Quill-Harbor9",
        ),
        # after a phrase's own word and a colon, a sentence with small words in it, a number last (session 47)
        ("VeraCrypt unlock phrase: the blue heron waits by the pond", "the blue heron waits by the pond"),
        (
            "Passphrase for the signing key: seven otters float past the mill 1987",
            "seven otters float past the mill 1987",
        ),
        ("Passphrase: i love my dog at dawn", "i love my dog at dawn"),
        # an English qualifier that Finnish reads as a link ("on"), and no value after that link
        ("the hotspot password on the tablet is just 'marzipan' for now", "marzipan"),
        # digits, then what follows keying, a lock's noun in the sentence (session 47)
        ("Back gate at the depot: 6620 then push the bar.", "6620"),
        ("Bike room door takes 4471# and a firm pull.", "4471"),
        ("Puerta del trastero: 8142 y luego la tecla verde.", "8142"),
        # a combination's numbers after a lock's noun in their clause, no code word (session 47)
        ("Gun safe in the basement: 31-08-57, left first.", "31-08-57"),
        ("The padlock on the side gate opens with 7-3-9.", "7-3-9"),
        ("Sejf w biurze szefa: 44 17 92", "44 17 92"),
        # words joined by hyphens after an English word's link, the clause's end after them (session 47)
        ("Exit password for the lobby kiosk: walnut-harbor", "walnut-harbor"),
        ("The guest network key is MANGO-TANGO.", "MANGO-TANGO"),
        # a lone word with the "!" a password ends in as often as talk does
        ("Remember to tell Ana: new Spotify pw = sandcastles!", "sandcastles!"),
        # a title with a small word inside (session 47)
        ("Passordet til gjestenettet er Fjellrev Tur Vann.", "Fjellrev Tur Vann"),
        ("Heslo k tiskárně: Svíčková s Knedlíkem", "Svíčková s Knedlíkem"),
        # a router's key printed in groups of digits, after a key's word
        ("WLAN bei den Nachbarn, Schlüssel: 5512 0938 4471 2206 7735", "5512 0938 4471 2206 7735"),
        # after an English word's link, a phrase of four words or more with a small word inside (session 48)
        ("the password for the guest laptop is salt and vinegar crisps", "salt and vinegar crisps"),
        ("Wi-Fi: Orchard_Guest / pw: lemon tart with cream", "lemon tart with cream"),
        # a key's word after a network's name, one plain word (session 48)
        ("Wifi at the cabin: SSID Kesaranta, key mossybirch", "mossybirch"),
        ("Wifi in the Lyon office: network ACME-Guest, key is CroissantChaud", "CroissantChaud"),
        ("Wi-Fi da casa: rede Praia_5G, chave maresiadoce", "maresiadoce"),
        ("ssid: Van_Guest_3\nkey: notapassword!", "notapassword"),
        ("the wifi is Lounge-5G and the key is brezelmann", "brezelmann"),
        # a code's word in Persian; the instrumental of a code's or a password's word (session 48)
        ("کد در انبار 4711 است", "4711"),
        ("аларм се гаси шифром 5073 па звездица", "5073"),
        ("Sejf otwiera się kodem 4471, potem klamka w dół", "4471"),
        ("Войди в роутер с паролем Berёza_77", "Berёza_77"),
        # what a lock opens with, and the verb of keying, in more languages (session 48)
        ("Grinden öppnas med 7719, sedan vänster", "7719"),
        ("Η πόρτα της αποθήκης ανοίγει με 5530", "5530"),
        ("Cửa kho mở bằng 8842, rồi đẩy mạnh", "8842"),
        ("Furtka: wciśnij 6630 i pociągnij", "6630"),
        # one word of another language after a sign, six letters or more, no errand (session 48)
        ("Пароль от вайфая — ромашка", "ромашка"),
        ("A vendég wifi jelszó: pogácsás", "pogácsás"),
        # one word in capitals after an English link; a phrase after its word and "=" (session 48)
        ("The kiosk password for the summer is GOOSEBERRY, Tom knows", "GOOSEBERRY"),
        ("backup passphrase = the grey heron waits at dusk", "the grey heron waits at dusk"),
        # a door's or a gate's noun and a link, four digits or more (session 48)
        ("the side gate is 5813, pull it hard", "5813"),
        ("front door's 2290 btw, just walk in", "2290"),
        # twenty languages more (session 48): Welsh, Irish, Esperanto
        ("Cyfrinair y wifi yn y caffi ydy Bara_Brith77", "Bara_Brith77"),
        ("Is é pasfhocal nua an ríomhaire ná Cupan_Caife9", "Cupan_Caife9"),
        ("La pasvorto de la wifi estas Ĉokolado_42", "Ĉokolado_42"),
        # session 55: "was just", "was simply" and the contraction "'s" link a word to its value
        ("The alarm panel password was just Kestrel, nothing fancy.", "Kestrel"),
        ("Router password's lemonade-sky, ask me if it fails.", "lemonade-sky"),
        ("Her laptop password was simply Zanzibar.", "Zanzibar"),
    ],
)
def test_new_phrasings_are_redacted(text: str, secret: str) -> None:
    out = guard_redact(text)[0]
    assert secret not in out, out


@pytest.mark.parametrize(
    "text",
    [
        # a bare heading's talk is an errand: the small words are let in only after what it is for
        "Hasło: zapytaj w dziale kadr",
        "пароль — спроси у админа завтра утром",
        "Contraseña: la tiene Marta, pídesela mañana",
        "Senha: a mesma de antes, ninguém mudou",
        "heslo k tiskárně je na lístku u monitoru",
        "Ο κωδικός του ρούτερ είναι κολλημένος πάνω στο κουτί",
        "공유 프린터 비밀번호는 관리팀에 물어보세요",
        "Password manager comparison for the team: Keeper (cheap), Bitwarden (free)",
        "Password:\nSee the team vault",
        "The password for the lobby kiosk is\n\nthe one on the sticker, ask Tom",
        "Webinar 912 334 5567, passcode in the invitation email",
        "Shared mailbox: team@example.org, password auth disabled for now",
        "Wifi se jmenuje Chata-Host, heslo je na lednici",
        "roles: admin / moderator",
        "the usernames are admin / editor / viewer",
        "Voicemail on the desk phones: dial 5521 from any extension",
        "The gate is open from 0800 to 1800 on weekdays",
        "the alarm clock is set to 0630 on weekdays",
        "I set the thermostat to 2100 for the night",
        "Das Passwort der Freigabe ist hoofdlettergevoelig",
        "Hasło: nieznane",
        "Şifremi unuttum, yenisini e-postayla gönderdiler.",
        "Şifreni kimseyle paylaşma, banka asla sormaz.",
        "Tunnusluku vaihdettiin pankissa eilen.",
        # a glued preposition opens what it is for, and talk follows the link
        "הסיסמה למחשב של הקבלה היא חדשה",
        "הסיסמה לא עובדת מאז אתמול",
        "كلمة السر للطابعة هي نفسها القديمة",
        "Click the password 'reset' link in the mail.",
        'the password "expired" error came back after lunch',
        "A secret word game for the kids' party on Saturday.",
        "the password I forgot is the one for the bank",
        "the password you need is on the sticker by the door",
        "the password is different and I can't log in",
        "the password is expired so reset it before Monday",
        "the error code is E1234, see the manual",
        "promo code SUMMER2024 gives 10% off",
        "Code article : A4512, quantité 3",
        "Passphrase: the one we agreed on last week",
        "Passphrase: the same as on the old laptop",
        "Seed phrase: on the steel plate in the safe",
        "the password on the sticker is wrong",
        "The gate opens at 0800 then closes at 1800.",
        "Room 1204 then the lift to the garage",
        "Gym door fob replaced, new fob #00451927, $15 charge.",
        "the garage door was fixed in 2019 and then painted",
        "The safe was serviced on 12-03-24 by Chubb.",
        "Door 2-3-4 of the warehouse is stuck",
        "Garage door stuck again, ring the service line on 22 33 44 55",
        "The locker rooms are open 10-12-14 on weekdays",
        # two words joined that talk about a password (the assignment rule redacted these before session 47)
        "the password is case-sensitive",
        "Password: user-defined",
        "the new password is auto-generated.",
        "The password reset is self-service",
        "the password is wrong!",
        "The Password Is On The Sticker",
        "Password: Ask the Office",
        "the key years were 2024 2025 2026 2027",
        # a phrase that holds a password's word talks about one
        "passwd: password updated successfully, as expected",
        # an errand after a word English shares, in another language (describing.toml's errands)
        "Password del Wi-Fi: chiedere alla reception, cambia ogni settimana",
        "Passwort fürs Gäste-WLAN: siehe Aushang am Empfang",
        # talk of four words or more after the link: a pointer first, a small word last, a describing word
        "access is through your own accounts now",
        "the password is long and hard to guess",
        "the password is the name of our first dog",
        "password: sent to your manager by email",
        "The admin username is admin, the password is whatever you set during setup",
        # a key's word after a network's name, and talk or an errand after it
        "Wifi at the cabin: SSID Kesaranta, key on the fridge",
        "Wifi at the cabin: SSID Kesaranta, key card at reception",
        "Wi-Fi do escritório: rede Conecta_2G, chave na recepção",
        "Le wifi : réseau Livebox-A3F1, clé sur la box",
        "wifi network Kesaranta key: missing",
        "the wifi network key is printed underneath",
        "user admin, key rotation next week",
        # the genitive's subject is another word ("the format of the password is ...")
        "Format hasła jest niepoprawny, bądź zastosowana została nieznana funkcja skrótu.",
        # an infinitive or an errand after a sign is what to do
        "Heslo pro uživatele : změnit",
        "The password is REQUIRED.",
        "passphrase = see the vault",
        "Gate B: 2024",
        "Door: 2024 model, oak, left-hinged",
        "the entrance is 1200 m from the station",
        "Flight LH 1234 boards at gate 23, seat 14C",
        "Пароль от почты: поменять",
        "Hasło do routera: zapytać",
        # session 55: "was just" and "'s" as links; what follows them here is no password
        "The password's too short, IT said.",
        "The password was still wrong after the reset.",
        "Password's expired, need a reset before Monday.",
        "The password was just too long to remember.",
    ],
)
def test_close_ordinary_notes_stay(text: str) -> None:
    assert guard_redact(text)[0] == text


def test_an_arabic_comma_ends_a_value():
    # "،" closes a value as "," does: the secret is redacted, the comma stays in the note
    stored = guard_redact("الرقم السري لبطاقة الصراف الجديدة: 7093، لا تشاركه مع أحد")[0]
    assert "7093" not in stored
    assert "]، لا تشاركه مع أحد" in stored
