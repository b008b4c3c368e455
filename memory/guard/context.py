"""The context layer: secrets recognised by what surrounds them, not by their shape.

* assignments and key/value pairs whose *name* says secret (``password = ...``, ``"client_secret": "..."``,
  ``API key: ...``, ``the wifi password is ...``), with placeholder and variable-reference filtering; values
  of names that say "not secret" (``public_key``, ``client_id``, ``csrf_token``) go to ``vetoed``;
* ``Authorization:`` headers, ``curl -u user:pass``, ``scheme://user:pass@host``.

Every scanner has the shared signature ``(text, low, found, vetoed)`` (see :mod:`memory.guard.spans`).
"""

from __future__ import annotations

import functools
import re

from .credential_values import compound_talk
from .entropy import (
    DOTTED_IDENT,
    IDENTIFIER_PARTS,
    PLACEHOLDER_WORDS,
    classes,
    has_letters_digits,
    is_placeholder,
    looks_random,
    shannon_entropy,
    wordiness,
    words,
)
from .lexicon import talk_words
from .spans import Found, Vetoed

# the case-insensitive scans run case-sensitively on a lower-cased copy of the text (same offsets): faster
_KEYWORD = re.compile(
    r"pass(?:word|wd|phrase|code)?|pwd|secret|token|api[_\-.]?key|apikey|key|credentials?|creds|auth|login|accessid"
    r"|passwort|contrase[ñn]a|mot de passe|senha|пароль|密码|パスワード|비밀번호"
)
_IDENT_BEFORE = re.compile(r"[A-Za-z0-9_.\-]{1,60}$")
_IDENT_AFTER = re.compile(r"[A-Za-z0-9_.\-]{1,60}")


_TOKEN_SPLIT = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

_PASSWORD_TOKENS = words(
    """password passwd pwd passphrase passcode pass pw passw passwort senha contraseña contrasena"""
)
_SECRET_TOKENS = words(
    """secret secrets token tokens apikey credential credentials creds auth accessid bearer"""
)
_KEY_MODIFIERS = words(
    """api access secret private auth client app master license licence encryption enc signing sign
    session shared subscription consumer developer dev webhook admin service account server ssh gpg
    pgp hmac jwt crypt crypto cipher aes rsa root write read deploy bot integration sdk cloud prod
    production staging live test sandbox heroku snyk stripe twilio sendgrid mailgun mailchimp github
    gitlab slack aws azure gcp google openai anthropic hubspot okta datadog sentry pagerduty algolia
    firebase supabase vercel netlify cloudflare mapbox shopify paypal braintree plaid twitch twitter
    facebook linkedin dropbox jira confluence atlassian notion airtable zendesk intercom segment
    mixpanel amplitude sumo sumologic newrelic relic splunk elastic pinecone cohere mistral groq
    huggingface hf replicate pusher ably contentful sanity postmark mandrill sparkpost nexmo vonage
    messagebird plivo telnyx square adyen klarna coinbase binance kraken etherscan infura alchemy
    moralis openweather weather maps x"""
)
_NAME_EXCLUDE_LAST = words(
    """id ids name names url uri urls file files path paths dir length len size type types version
    field fields header prefix suffix endpoint env ref count expiry expires expiration ttl format
    kind label mode policy provider store manager pattern regex hint example placeholder timeout
    enabled required arn location lifetime index column param parameter method source scheme
    algorithm alg usage description desc message error input selector class style event handler
    listener callback generator validator rotation storage option options host port user username
    uid email owner pair bits spec resolver builder factory service client response request status
    state result results scope scopes audience issuer reset hash hashed digest salt rounds min max
    minlength maxlength strength check valid validation confirmation confirm changed updated created
    date time at on to from by flow grant page form button link icon text title keyword words word
    function fn func map mapping table list set vault secretsmanager"""
)
_KEY_TRAILERS = words("""value string str data b64 base64 hex raw bytes secret s""")
_NAME_EXCLUDE_ANY = words(
    """public publishable pub csrf xsrf keyboard keypress keyframe keyframes monkey turkey hotkey
    author authority authors authenticity"""
)

_OPERATOR = re.compile(
    r"""(?P<q>['"]?)[ \t]{0,4}(?P<op>:::=|::=|:=|\?=|=>|->|==|=|:|,)(?!=)[ \t]{0,4}"""
    r"""(?:(?:(?:basic|bearer|token|api-token|apikey|digest)[ \t]{1,3}))?"""
    r"""(?P<val>"[^"\n]{1,400}"|'[^'\n]{1,400}'|`[^`\n]{1,400}`|[^\s'"`,;)}\]<>]{1,400})""",
    re.IGNORECASE,
)
_PROSE_OPERATOR = re.compile(
    r"""[ \t]{1,3}(?:is|was|are|were|ist|est|es|è|é|это|—|-)[ \t]{1,3}(?:now[ \t]{1,3}|still[ \t]{1,3}|set to[ \t]{1,3}|just[ \t]{1,3})?"""
    r"""(?P<val>"[^"\n]{1,200}"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s'"`,;)}\]<>]{1,200})""",
    re.IGNORECASE,
)
_AUTH_HEADER = re.compile(
    r"\b(?:proxy-)?authorization[\"']?\s{0,4}[:=]\s{0,4}[\"']?\s{0,4}"
    r"(?:(?:basic|bearer|token|api-token|apikey|digest|sso-key|key|otp)\s{1,4})?([^\s\"'<>{}]{6,2000})"
)
_CURL_USER = re.compile(
    r"(?:^|\s)(?:-u|--user)(?:[ \t]{1,4}|=)((?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s\"']{1,200}){1,4})"
)
_URL_CREDENTIALS = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://([^\s:/?#@'\"]{0,128}):([^\s/?#@'\"]{1,256})@(?=[\w.\-\[])"
)


def _name_tokens(name: str) -> list[str]:
    return [t.lower() for t in _TOKEN_SPLIT.findall(name)]


@functools.lru_cache(maxsize=8192)
def _classify_name(name: str, prev_word: str) -> str | None:
    """'password' / 'secret' / None for an identifier (plus the word before it, for 'API key: ...')."""
    tokens = _name_tokens(name)
    if not tokens or len(name) > 80:
        return None
    if any(t in _NAME_EXCLUDE_ANY for t in tokens):
        return None
    if tokens[-1] in _NAME_EXCLUDE_LAST:
        return None
    if "passwort" in name.lower() or any(t in _PASSWORD_TOKENS for t in tokens):
        return "password"
    if any(t in _SECRET_TOKENS for t in tokens):
        return "secret"
    if tokens[-1] in {"login"} and len(tokens) >= 2:
        return "secret"
    if "key" in tokens:
        after = tokens[len(tokens) - 1 - tokens[::-1].index("key") + 1 :]
        if any(t not in _KEY_TRAILERS for t in after):
            return None
        context = set(tokens) | set(_name_tokens(prev_word))
        if context & _KEY_MODIFIERS or (name.isupper() and len(tokens) >= 2):
            return "secret"
        return "weak-key"
    return None


def _strip_quotes(raw: str) -> tuple[str, int]:
    if len(raw) >= 2 and raw[0] in "\"'`" and raw[-1] == raw[0]:
        return raw[1:-1], 1
    return raw, 0


_REFERENCE = re.compile(
    r"^(?:\$|%|\{|<|\[|@|&|\*|os\.|env\.|process\.|self\.|this\.|config\.|settings\.|secrets\.)"
    r"|^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\s*[\[(]"  # a code expression: token[:n], f(x)
    r"|^[a-z_][a-z0-9_]*\.[a-z_]"  # attribute access: ctx.session_key
)
_SNAKE_OR_CAMEL = re.compile(r"_?[a-z]+(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+")
_HAS_KEYWORD = re.compile(r"pass(?:word|wd|phrase)|secret|token|api[_\-]?key|credential", re.IGNORECASE)


def _names_a_field(value: str) -> bool:
    """'new_password1', 'usable_password', 'rawPassword': the value names a field, it is not one."""
    return _HAS_KEYWORD.search(value) is not None and wordiness(value) >= 0.5


def _password_value_ok(value: str, quoted: bool, prose: bool) -> bool:
    v = value.rstrip(".!?")
    if len(v) < 4 or len(v) > 200 or any(c.isspace() for c in v):
        return False
    if _REFERENCE.match(v) or is_placeholder(v, strict=False):
        return False
    if v.lower() in PLACEHOLDER_WORDS or re.fullmatch(r"[*x•#.\-_]+", v, re.IGNORECASE):
        return False
    if v.isalpha() and v.lower() in talk_words():
        return False  # "Passcode: expired.", "password: required"
    if not quoted and compound_talk(v):
        return False  # "the password is case-sensitive", "Password: user-defined"
    if "(" in v or "://" in v or _names_a_field(v):
        return False
    if not quoted and _SNAKE_OR_CAMEL.fullmatch(v):
        return False  # password = raw_password: a variable, not a literal
    if prose and not quoted:
        # "the password is hunter2": the value must look like a password, not like the next English word
        return (
            len(v) >= 6
            and (any(c.isdigit() for c in v) or any(not c.isalnum() for c in v))
            and classes(v) >= 2
        )
    if not quoted and len(v) < 6:
        return False
    return not (DOTTED_IDENT.fullmatch(v) and not any(c.isdigit() for c in v))


def _secret_value_ok(value: str, kind: str, quoted: bool, prose: bool) -> bool:
    v = value.rstrip(".!?") if not quoted else value
    if _REFERENCE.match(v) or _names_a_field(v):
        return False
    if kind == "weak-key":
        return len(v) >= 20 and looks_random(v, min_len=20) and shannon_entropy(v) >= 3.5
    if prose and not quoted:
        return looks_random(v, min_len=12) and has_letters_digits(v)
    return looks_random(v, min_len=8)


def _identifier_around(text: str, start: int, end: int) -> tuple[int, int]:
    before = _IDENT_BEFORE.search(text, max(0, start - 60), start)
    after = _IDENT_AFTER.match(text, end, min(len(text), end + 60))
    return (before.start() if before else start), (after.end() if after else end)


_PREVIOUS_WORD = re.compile(r"([A-Za-z]{2,20})[ _\-]$")
_FOREIGN_PASSWORD = re.compile(
    r"passwort|contrase|mot de passe|senha|пароль|密码|パスワード|비밀번호", re.IGNORECASE
)


def _previous_word(text: str, start: int) -> str:
    m = _PREVIOUS_WORD.search(text, max(0, start - 24), start)
    return m.group(1) if m else ""


def scan_assignments(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    """``name <op> value`` where the name says secret.  Values of names that say *not* secret (public_key,
    client_id, csrf_token, ...) are recorded in ``vetoed`` so the entropy rule leaves them alone."""
    seen: set[int] = set()
    memo: dict[str, tuple[str, int, int] | None] = {}  # repeated lines (logs, JSON arrays) are judged once
    for km in _KEYWORD.finditer(low):
        s, e = _identifier_around(text, km.start(), km.end())
        if s in seen:
            continue
        seen.add(s)
        context = text[max(0, s - 24) : e + 430]
        if context in memo:
            verdict = memo[context]
        else:
            verdict = memo[context] = _judge_assignment(text, s, e)
        if verdict is None:
            continue
        what, rel_start, rel_end = verdict
        if what == "veto":
            vetoed.append((s + rel_start, s + rel_end))
        else:
            out.append(Found(s + rel_start, s + rel_end, what, 2))


def _pair(text: str, s: int, m: re.Match[str]) -> bool:
    """("password", "hunter2"): a comma makes an assignment only inside a two-item tuple of quoted strings."""
    before = text[max(0, s - 3) : s].rstrip("\"'` ")
    raw = m.group("val")
    after = text[m.end("val") : m.end("val") + 3].lstrip()
    if IDENTIFIER_PARTS.fullmatch(raw.strip("\"'`")):
        return False  # ('password', 'credit_card'): two field names
    return before.endswith(("(", "[")) and raw[:1] in "\"'`" and after[:1] in (")", "]")


# One or two more words of letters after a plain word, to its line's or its sentence's end: "Wifi password: purple
# walrus" is one value, not "purple" and a word of talk ("Password: swordfish for the staging box" is one word)
_MORE_WORDS = re.compile(r"(?:[ \t]+[^\W\d_]+){1,2}(?=[ \t]*(?:[.!?,;)]|$))", re.MULTILINE)


def _judge_assignment(text: str, s: int, e: int) -> tuple[str, int, int] | None:
    """('veto' | rule, start, end) relative to ``s`` for the identifier at ``text[s:e]``, or None."""
    ident = text[s:e].rstrip(".-")
    e = s + len(ident)
    name = ident.lstrip(".-")
    kind = _classify_name(name, _previous_word(text, s))
    if kind is None and _FOREIGN_PASSWORD.search(name):
        kind = "password"
    m = _OPERATOR.match(text, e)
    if kind is None:
        # A name that says "not secret" (public_key, csrf_token, auth_url) vetoes its value; one that only
        # holds a keyword's letters (keypad, passport, author, tokenizer) says nothing about it.
        said = any(_KEYWORD.fullmatch(t) for t in _name_tokens(name))
        if said and m is not None and m.group("op") != ",":
            return "veto", m.start("val") - s, m.end("val") - s
        return None
    prose = False
    if m is not None and m.group("op") == "," and m.group("q") and not _pair(text, s, m):
        m = None
    if m is None or (m.group("op") == "," and not m.group("q")):
        m = _PROSE_OPERATOR.match(text, e)
        prose = True
        if m is None:
            return None
    raw = m.group("val")
    if raw.rstrip("'\"`").endswith(("...", "\u2026")):
        return None  # elided in the text itself: "ops_eyJzaWdu..."
    value, q = _strip_quotes(raw)
    vstart = m.start("val") + q
    if not q:
        value = value.rstrip(".!?:")
    if kind == "password":
        ok, rule = _password_value_ok(value, bool(q), prose), "password-assignment"
        more = _MORE_WORDS.match(text, vstart + len(value)) if ok and not q and value.isalpha() else None
        if more is not None:
            value = text[vstart : more.end()]
    else:
        ok, rule = _secret_value_ok(value, kind, bool(q), prose), "secret-assignment"
    return (rule, vstart - s, vstart + len(value) - s) if ok else None


def scan_auth_headers(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    if "authorization" not in low:
        return
    for m in _AUTH_HEADER.finditer(low):
        value = text[m.start(1) : m.end(1)].rstrip(".,;)")
        if _REFERENCE.match(value) or is_placeholder(value, strict=False):
            continue
        if len(value) < 6 or classes(value) < 2 or shannon_entropy(value) < 2.5:
            continue
        out.append(Found(m.start(1), m.start(1) + len(value), "auth-header", 2))


def _cred_part_ok(value: str) -> bool:
    v = value.strip("{}")
    if len(v) < 6 or _REFERENCE.match(v) or is_placeholder(v, strict=False):
        return False
    if v.lower() in PLACEHOLDER_WORDS or "$" in v[:1]:
        return False
    return classes(v) >= 2 or (len(v) >= 10 and shannon_entropy(v) >= 3.0)


def scan_curl_credentials(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    if "-u" not in text:
        return
    for m in _CURL_USER.finditer(text):
        raw = m.group(1)
        base = m.start(1)
        if "$" in raw and ("${" in raw or "$(" in raw or re.search(r"\$[A-Za-z_]", raw)):
            continue
        colon = -1
        for i, ch in enumerate(raw):
            if ch == ":":
                colon = i
                break
        if colon < 0:
            continue
        user_raw, pw_raw = raw[:colon], raw[colon + 1 :]

        def span_of(part: str, offset: int) -> tuple[int, int, str]:
            lead = len(part) - len(part.lstrip("\"'{"))
            inner = part.strip("\"'").strip("{}").strip("\"'")
            start = offset + lead
            return start, start + len(inner), inner

        ps, pe, pw = span_of(pw_raw, base + colon + 1)
        us, ue, user = span_of(user_raw, base)
        if pw and _cred_part_ok(pw):
            out.append(Found(ps, pe, "basic-auth-credentials", 2))
        elif not pw and user and _cred_part_ok(user):
            out.append(Found(us, ue, "basic-auth-credentials", 2))
        elif not user and pw and _cred_part_ok(pw):
            out.append(Found(ps, pe, "basic-auth-credentials", 2))


def scan_url_credentials(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    if "://" not in text or "@" not in text:
        return
    for m in _URL_CREDENTIALS.finditer(text):
        pw = m.group(2)
        pw_low = pw.lower()
        if pw_low in PLACEHOLDER_WORDS or _REFERENCE.match(pw) or is_placeholder(pw, strict=False):
            continue
        if len(pw) < 3 or (pw_low.startswith(("pass", "pwd", "secret")) and len(pw) <= 10 and pw.isalpha()):
            continue
        out.append(Found(m.start(2), m.end(2), "connection-string-password", 2))
