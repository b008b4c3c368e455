"""A value in a list, after an account's or a network's name and a comma, and a network's key.

    user baker, pass crumbcake                       a credential word that a comma puts after an account or a
    rede Conecta_2G, password fuchsia-kettle         network in its clause; the value ends the item
    network ACME-Guest, key is FrischeBrezel         after a network's name, "key" and its languages' words
    ssid: FBI_Van_3\\nkey: notreallyfbi!             name its password too (session 48)

Read by ``credentials.find_prose_credentials``; split from it (session 48) to keep each module of the guard
under 700 lines. Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import re

from .credential_values import _KEY_COMBO, _a_name, _lettered, _passphrase, plausible, stronger
from .lexicon import _clause_start, _trim

# The weak words that name a network's password after its name ("rede Conecta_2G, chave saudadedelisboa")
_KEY_WORDS = frozenset({"key", "schlüssel", "clé", "llave", "chave", "chiave", "sleutel", "ключ"})

_VALUE = re.compile(r"\S{1,129}")  # a value's token, at most 129 characters: a 100 kB blob is read in pieces

_LISTED_ITEM = re.compile(r"[^,;\n(]{1,80}")  # an item of a list, to its comma

_LISTED_END = re.compile(r"\s*(?:$|[,;(\n]|[.!?](?:\s|$))")


def _network_before(text: str, start: int) -> bool:
    """A network named up to 80 characters before the key's word ("ssid: FBI_Van_3\\nkey: ...")."""
    network = _ACCOUNT_BEFORE.search(text, max(0, start - 80), start)
    return network is not None and network.group() != "@"


def _a_network_key(value: str) -> bool:
    """One word a network's key may be: letters (capitals between words too), a closing "!", or a secret's shape."""
    return (
        _a_name(value.rstrip("!").lower())
        or bool(_JOINED_WORDS.fullmatch(value))
        or _lettered(value)
        or stronger(value)
    ) and not _KEY_COMBO.search(value)


def _listed_value(
    text: str,
    start: int,
    end: int,
    phrases: list[tuple[int, int, str, str]],
    english: bool,
    links: frozenset[str],
    networked: bool = False,
) -> tuple[int, int] | None:
    """A value right after a credential word that a comma puts after an account or a network in its clause,
    the value ending the item ("user baker, pass crumbcake", "uživatel eshop_admin, heslo Kolonáda.Karlovy.Vary",
    "rede Conecta_2G, password fuchsia-kettle", "sonos@acme.io, password loud music please"): words joined
    by dots or hyphens, and after an English word one plain word named (``_a_name``) or a phrase of plain
    words (``_passphrase``); "..., password auth disabled there", "..., passcode in the calendar invite" and
    "síť se jmenuje X, heslo je na tabuli" are talk, and so is another language's word ("şifre resepsiyonda")."""
    if not text[max(0, start - 3) : start].rstrip().endswith(","):
        return None
    clause = _clause_start(text, start)
    network = _ACCOUNT_BEFORE.search(text, clause, start)
    if networked and (network is None or network.group() == "@"):
        return None  # a key's word names a password only after a network's: "SSID Kesaranta, key mossybirch"
    account = network or any(kind == "signin" and clause <= s < start for s, _, _, kind in phrases)
    if not account:
        return None
    item = _LISTED_ITEM.match(text, end)
    if item is None or not text[end : end + 1].isspace():
        return None
    token = _VALUE.search(text, item.start(), item.end())
    if token is None:
        return None
    s, e = _trim(text, *token.span())
    if text[s:e].lower() in links:
        if not (english and networked):
            return None  # "heslo je na tabuli": a link, and talk after it
        token = _VALUE.search(text, e, item.end())  # "network ACME-Guest, key is FrischeBrezel"
        if token is None:
            return None
        s, e = _trim(text, *token.span())
    value = text[s:e]
    if e >= item.end() - 1 or _LISTED_END.match(text, e):  # one token, the whole item
        # after a network's name, a key's word in any language, a word's capitals too ("FrischeBrezel")
        named = _a_name(value.lower() if networked else value)
        if _JOINED_WORDS.fullmatch(value) or plausible(value) or ((english or networked) and named):
            return s, e
        return None
    return _passphrase(text, s, item.end()) if english else None


# Words joined by dots or hyphens, or capitals: "ember.oak.kettle", "Kolonáda.Karlovy.Vary", "TortillaDeMiAbuela"
_JOINED_WORDS = re.compile(r"[^\W\d_]{2,20}(?:[.-][^\W\d_]{2,20}){1,4}|[A-Z][a-z]+(?:[A-Z][a-z]+){2,5}")

# An account or a network named before the comma: an address, a handle, a naming word ("network", "rede")
_ACCOUNT_BEFORE = re.compile(
    r"@|(?<!\w)(?:network|netwerk|netzwerk|réseau|rede|red|rete|ssid|sieť|síť|сеть|мережа|nätverk|nettverk|wifi|wi-fi)(?!\w)",
    re.IGNORECASE,
)
