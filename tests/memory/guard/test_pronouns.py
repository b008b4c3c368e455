"""A value told by a pronoun a sentence or two after its word (``memory/guard/pronouns.py``, session 57)."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "The alarm company will ask for the account password before they cancel a callout — it's bluebell.",
            "bluebell",
        ),
        (
            "— Is the door code still the same?\n— No, they changed it Monday. It's 4471 now, then the hash key.",
            "4471",
        ),
        (
            "Password for the PDF the accountant sent: I thought it was your NI number in lower case but they "
            "changed it, it's taxyear2324",
            "taxyear2324",
        ),
        ("The password for the shared drive changed again. It's now octopusink.", "octopusink"),
        ("The password's now octopusink.", "octopusink"),
        (
            "the shared drive asks for a passphrase. it's correct horse battery staple, the classic",
            "horse battery",
        ),
        (
            "Shed: I thought it was the first four digits of the landline but that's just the area code. It's 5843.",
            "5843",
        ),
    ],
)
def test_a_value_after_the_pronoun_is_redacted(text: str, secret: str) -> None:
    assert secret not in guard_redact(text)[0]


@pytest.mark.parametrize(
    "text",
    [
        # the pronoun stands for what the word and the next name
        "My password manager crashed. It's Dashlane.",
        "The password policy was updated. It is stricter now.",
        "The password hint is useless. It's nonsense.",
        # when, not what; what is said of the word; a machine, not its password
        "I reset the password. It was Monday.",
        "Please provide your understanding of the term 'PW' and how it is applied in everyday technology.",
        "the root pw on the test box expired, who can reset it? it's tb-04 in the lab rack",
        # talk and errands after the pronoun
        "I forgot my password again. It's annoying.",
        "Where is the password? It's somewhere in the drawer.",
        "What's the wifi password? It's the same as last year.",
        "The new PIN letter arrived. It's in the blue folder.",
        "I changed the password. It's something only I know.",
    ],
)
def test_talk_after_the_pronoun_is_kept(text: str) -> None:
    assert guard_redact(text)[0] == text
