"""Secret detection and redaction.

Three layers, highest priority first when spans overlap:

1. Provider rules with a recognisable shape (gitleaks-style): cloud keys, SaaS tokens, JWTs, private key
   blocks.  Where detect-secrets ships a plugin for the provider its regex is used as well (see
   ``_detect_secrets_rules``); our own rules fill the gaps it has (newer token formats, Anthropic,
   Hugging Face, 1Password, ...).
2. Context rules: assignments and headers whose *name* says "secret" (``password = ...``,
   ``"client_secret": "..."``, ``Authorization: Bearer ...``, ``curl -u user:pass``, ``scheme://user:pass@``),
   with placeholder and variable-reference filtering.
3. High-entropy tokens: a random-looking token standing alone, or right after a secret keyword.  Values of
   names that say "not secret" (``public_key``, checksums, signatures, commit ids, CSRF form tokens) are left
   alone, and so are UUIDs in prose (identifiers); a UUID *assigned to a secret name* is redacted.

Every regex is linear (bounded quantifiers, no nested unbounded repetition).  A provider rule only runs when
one of its literals (``ghp_``, ``AKIA``, ``xox`` ..., read from the parsed regex itself) occurs in the text,
and the case-insensitive scans run on a lower-cased copy, so a 100 kB note costs a few tens of milliseconds.
Offsets of the redactions are in the original text.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .result import Redaction

Check = Callable[[str], bool]

# --------------------------------------------------------------------------------------------------
# value heuristics
# --------------------------------------------------------------------------------------------------


def shannon_entropy(value: str) -> float:
    """Bits per character (same definition as detect-secrets' HighEntropyString plugins)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum((c / n) * math.log2(c / n) for c in Counter(value).values())


_PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "key",
        "changeme",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "empty",
        "required",
        "optional",
        "string",
        "str",
        "text",
        "hidden",
        "masked",
        "redacted",
        "undefined",
        "unknown",
        "example",
        "sample",
        "placeholder",
        "username",
        "user",
        "test",
        "testing",
        "demo",
        "default",
        "value",
        "foo",
        "bar",
        "baz",
        "abc",
        "xxx",
        "yyy",
        "zzz",
        "secret_key",
        "mypassword",
        "yourpassword",
        "my_password",
        "your_password",
        "password123",
        "admin",
        "root",
        "guest",
        "login",
    }
)
_PLACEHOLDER_MARKERS = (
    "xxxx",
    "****",
    "....",
    "\u2026",
    "<",
    ">",
    "${",
    "$(",
    "{{",
    "}}",
    "%(",
    "%s",
    "your_",
    "your-",
    "yourkey",
    "your key",
    "insert",
    "replace",
    "put_your",
    "placeholder",
    "redacted",
    "todo",
    "dummy",
    "[redacted",
    "changeme",
    "_here",
    "-here",
    "getenv",
    "environ",
    "process.env",
    "secrets.",
    "####",
)


def _runs_fraction(value: str) -> float:
    """Share of characters that sit in runs of >= 4 equal characters."""
    covered = 0
    run = 1
    for i in range(1, len(value) + 1):
        if i < len(value) and value[i].lower() == value[i - 1].lower():
            run += 1
            continue
        if run >= 4:
            covered += run
        run = 1
    return covered / len(value) if value else 0.0


def _sequential_fraction(value: str) -> float:
    """Share of characters inside ascending runs (abcd, 1234) of >= 4: alphabets and examples."""
    covered = 0
    run = 1
    for i in range(1, len(value) + 1):
        if i < len(value) and ord(value[i]) == ord(value[i - 1]) + 1:
            run += 1
            continue
        if run >= 4:
            covered += run
        run = 1
    return covered / len(value) if value else 0.0


def is_placeholder(value: str, *, strict: bool = True) -> bool:
    """True for obvious non-secrets: xxxx, <token>, ${VAR}, EXAMPLE, aaaa..., alphabets."""
    v = value.strip().strip("'\"`")
    if not v:
        return True
    low = v.lower()
    if low in _PLACEHOLDER_WORDS:
        return True
    if any(m in low for m in _PLACEHOLDER_MARKERS):
        return True
    if v[0] in "$%@&*#":
        return True
    if len(set(low)) <= 3 and len(v) >= 6:
        return True
    if low.endswith("here") or _runs_fraction(v) > 0.6:
        return True
    if strict:
        if "example" in low:
            return True
        if len(v) >= 10 and _sequential_fraction(v) > 0.96:
            return True
    return False


def _classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


_WORDY = re.compile(r"[A-Z]?[a-z]{3,}")
_IDENTIFIER_PARTS = re.compile(r"(?:\d+|[A-Za-z][a-z]+|[A-Z]+)(?:[_.\-](?:\d+|[A-Za-z][a-z]+|[A-Z]+))+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DOTTED_IDENT = re.compile(r"[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)+")
_WORDS_ONLY = re.compile(r"[A-Za-z]+(?:[_\-. ][A-Za-z]+)*")
_CONSTANT_LIKE = re.compile(r"[A-Z][A-Z0-9]*(?:[_\-][A-Z0-9]+)*")


def _wordiness(value: str) -> float:
    """Share of the value made of word-like runs (camelCase identifiers score high, random tokens low)."""
    return sum(len(m) for m in _WORDY.findall(value)) / len(value) if value else 0.0


def looks_random(value: str, *, min_len: int = 8) -> bool:
    """A credential-like value: long enough, mixed, not an identifier, not a placeholder."""
    v = value
    if len(v) < min_len or len(v) > 1000 or is_placeholder(v):
        return False
    if any(c.isspace() for c in v):
        return False
    if _UUID.fullmatch(v):
        return True
    if "://" in v or v.startswith(("/", "./", "../", "~/")) or "(" in v:
        return False
    if v.count("/") >= 2 and not any(c.isupper() for c in v):
        return False  # a path: "7474/db/data/"
    if _DOTTED_IDENT.fullmatch(v) or _WORDS_ONLY.fullmatch(v.strip("_")) or _CONSTANT_LIKE.fullmatch(v):
        return False
    if _IDENTIFIER_PARTS.fullmatch(v):
        return False  # "0012_alter_user_first_name_max_length": words and numbers joined by _ - .
    if "=" in v.rstrip("="):
        return False  # "max_length=128": a key=value pair, not one token
    if _classes(v) < 2:
        # a single class: only long hex / digits strings qualify
        return (
            len(v) >= 24 and re.fullmatch(r"[0-9a-f]+|[0-9A-F]+", v) is not None and shannon_entropy(v) > 3.0
        )
    if _wordiness(v) > 0.7 and not any(c.isdigit() for c in v):
        return False
    ent = shannon_entropy(v)
    return ent >= (2.7 if len(v) < 20 else 3.1)


# --------------------------------------------------------------------------------------------------
# rules
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    name: str
    regex: re.Pattern[str]
    group: int = 0
    check: Check | None = None
    priority: int = 3
    strict_placeholder: bool = False
    placeholder: bool = True  # False: the prefix is unambiguous, never treat the value as a placeholder
    ds: bool = False  # a detect-secrets regex: no boundaries of its own


def _mixed(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _has_letters_digits(value: str) -> bool:
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def _entropy_at_least(limit: float) -> Check:
    return lambda v: shannon_entropy(v) >= limit


def _slack_ok(value: str) -> bool:
    return re.search(r"\d{8,}", value) is not None and any(c.isalpha() for c in value[5:])


def _b(body: str) -> str:
    """Token boundaries: not preceded/followed by token characters."""
    return rf"(?<![A-Za-z0-9_\-]){body}(?![A-Za-z0-9_\-])"


_C = re.compile
_I = re.IGNORECASE

_PROVIDER_RULES: tuple[Rule, ...] = (
    # --- cloud providers
    Rule(
        "aws-access-key", _C(_b(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}")), strict_placeholder=True
    ),
    Rule(
        "aws-secret-key",
        _C(
            r"aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?[\s'\"=:]([0-9a-zA-Z/+]{40})(?![0-9a-zA-Z/+])",
            _I,
        ),
        1,
        _mixed,
    ),
    Rule("aws-bedrock-key", _C(r"ABSK[A-Za-z0-9+/]{109,269}={0,2}")),
    Rule("aws-bedrock-key", _C(r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&?._\-]{0,2000}")),
    Rule("gcp-api-key", _C(_b(r"AIza[0-9A-Za-z_\-]{35}")), check=_entropy_at_least(3.5)),
    Rule("gcp-oauth-secret", _C(_b(r"GOCSPX-[A-Za-z0-9_\-]{28}"))),
    Rule("gcp-oauth-token", _C(_b(r"ya29\.[0-9A-Za-z_\-]{30,}"))),
    Rule("gcp-service-account-key", _C(r"\"private_key_id\"\s*:\s*\"([a-f0-9]{40})\""), 1),
    Rule(
        "azure-ad-client-secret",
        _C(r"(?:^|[\\'\"`\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.\-]{31,34})(?=$|[\\'\"`\s<),.;])"),
        1,
        _has_letters_digits,
    ),
    Rule("azure-storage-key", _C(r"AccountKey=([A-Za-z0-9+/]{86}==)"), 1),
    Rule("azure-sas-token", _C(r"[?&]sig=([A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})", _I), 1),
    Rule("digitalocean-token", _C(_b(r"do[opr]_v1_[a-f0-9]{64}"))),
    Rule("cloudflare-origin-ca-key", _C(_b(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"))),
    Rule("alibaba-access-key", _C(_b(r"LTAI[A-Za-z0-9]{20}")), check=_mixed),
    # --- code hosting / CI
    Rule("github-token", _C(_b(r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}")), check=_entropy_at_least(3.0)),
    Rule("github-token", _C(_b(r"github_pat_[A-Za-z0-9_]{82}")), check=_entropy_at_least(3.0)),
    Rule(
        "gitlab-token",
        _C(
            _b(
                r"(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas|glffct)-[A-Za-z0-9_\-.]{20,80}"
            )
        ),
        check=_entropy_at_least(3.0),
    ),
    Rule("gitlab-token", _C(_b(r"GR1348941[A-Za-z0-9_\-]{20,50}")), check=_mixed),
    Rule("npm-token", _C(_b(r"npm_[A-Za-z0-9]{36}")), check=_entropy_at_least(3.0)),
    Rule("pypi-token", _C(r"pypi-AgE[A-Za-z0-9_\-]{70,}")),
    Rule("rubygems-token", _C(_b(r"rubygems_[a-f0-9]{48}"))),
    Rule("docker-hub-token", _C(_b(r"dckr_pat_[A-Za-z0-9_\-]{27}"))),
    Rule("clojars-token", _C(_b(r"CLOJARS_[a-z0-9]{60}"), _I)),
    Rule("sourcegraph-token", _C(_b(r"sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}"))),
    Rule("sourcegraph-token", _C(_b(r"sgp_[a-fA-F0-9]{40}"))),
    Rule("sonar-token", _C(_b(r"sq[upa]_[a-zA-Z0-9]{40}"))),
    Rule("hashicorp-tf-token", _C(_b(r"[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9\-_=]{60,70}"))),
    Rule("vault-token", _C(_b(r"hv[sb]\.[A-Za-z0-9_\-]{90,400}"))),
    Rule("vault-token", _C(r"(?<![\w.])s\.([A-Za-z0-9]{24})(?![\w.])"), check=_mixed),
    Rule("atlassian-token", _C(_b(r"ATATT3[A-Za-z0-9_\-=]{186}"))),
    Rule("octopus-deploy-key", _C(_b(r"API-[A-Z0-9]{26}")), check=lambda v: any(c.isdigit() for c in v[4:])),
    # --- chat / SaaS
    Rule("slack-token", _C(_b(r"xox[abposre]-[0-9A-Za-z\-]{10,250}")), check=_slack_ok),
    Rule("slack-token", _C(_b(r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{60,200}")), check=_mixed),
    Rule("slack-token", _C(_b(r"xoxe-\d-[A-Za-z0-9]{60,200}")), check=_mixed),
    Rule("slack-token", _C(_b(r"xapp-\d-[A-Z0-9]{6,}-\d{6,}-[a-z0-9]{32,}"))),
    Rule(
        "slack-webhook",
        _C(
            r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_]{8,20}/[A-Za-z0-9+/_]{6,20}/[A-Za-z0-9+/_]{8,80}(?:/[A-Za-z0-9_]{8,80})?"
        ),
    ),
    Rule("discord-webhook", _C(r"discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_\-]{40,100}")),
    Rule("telegram-bot-token", _C(_b(r"\d{8,10}:AA[0-9A-Za-z_\-]{33}"))),
    Rule(
        "stripe-key", _C(_b(r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,120}")), check=_has_letters_digits
    ),
    Rule("square-token", _C(_b(r"sq0(?:atp|csp)-[0-9A-Za-z\-_]{22,43}"))),
    Rule("square-token", _C(_b(r"EAAA[A-Za-z0-9_\-]{60}")), check=_mixed),
    Rule("facebook-token", _C(_b(r"EAA[A-Z][A-Za-z0-9]{80,400}")), check=_mixed),
    Rule("facebook-token", _C(_b(r"\d{15,16}(?:\||%7C)[0-9A-Za-z_\-]{27,40}")), check=_has_letters_digits),
    Rule("mailchimp-key", _C(_b(r"[0-9a-f]{32}-us\d{1,2}"))),
    Rule("mailgun-key", _C(_b(r"key-[0-9a-f]{32}"))),
    Rule("sendgrid-key", _C(_b(r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"))),
    Rule("twilio-key", _C(_b(r"SK[0-9a-fA-F]{32}"))),
    Rule("shopify-token", _C(_b(r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"))),
    Rule("notion-token", _C(_b(r"ntn_[0-9]{11}[A-Za-z0-9]{35}")), check=_mixed),
    Rule("notion-token", _C(_b(r"secret_[A-Za-z0-9]{43}")), check=_mixed),
    Rule("linear-key", _C(_b(r"lin_api_[A-Za-z0-9]{40}"))),
    Rule("postman-key", _C(_b(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"))),
    Rule(
        "hubspot-key", _C(_b(r"pat-(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"))
    ),
    Rule("heroku-key", _C(_b(r"HRKU-AA[0-9A-Za-z_\-]{58}"))),
    Rule("flyio-token", _C(_b(r"fo1_[A-Za-z0-9_\-]{43}")), check=_mixed),
    Rule(
        "flyio-token",
        _C(r"(?<![A-Za-z0-9_+/-])(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}(?:,[A-Za-z0-9_+/=]{20,})*"),
    ),
    Rule("grafana-token", _C(_b(r"glc_[A-Za-z0-9+/]{32,400}={0,2}")), check=_mixed),
    Rule("grafana-token", _C(_b(r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}")), check=_mixed),
    Rule("grafana-token", _C(_b(r"eyJrIjoi[A-Za-z0-9]{70,400}={0,2}"))),
    Rule("sentry-token", _C(r"sntry[su]_[A-Za-z0-9+/=_]{60,}")),
    Rule("databricks-token", _C(_b(r"dapi[a-f0-9]{32}(?:-\d)?"))),
    Rule("infracost-key", _C(r"(?<![\w.\-])ico-[A-Za-z0-9]{32}(?![A-Za-z0-9])"), check=_mixed),
    Rule("intra42-secret", _C(_b(r"s-s4t2(?:ud|af)-[a-f0-9]{64}"))),
    Rule("maxmind-key", _C(_b(r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk"))),
    Rule("scalingo-token", _C(_b(r"tk-us-[A-Za-z0-9_\-]{48}"))),
    Rule("clickhouse-key", _C(_b(r"4b1d[A-Za-z0-9]{38}")), check=_mixed),
    Rule("onepassword-token", _C(_b(r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"))),
    Rule(
        "onepassword-secret-key",
        _C(
            _b(r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}")
        ),
        check=lambda v: any(c.isdigit() for c in v[3:]),
    ),
    Rule("age-secret-key", _C(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"), placeholder=False),
    Rule(
        "sumologic-key",
        _C(
            r"sumo[\w.]{0,16}access[_.]?id[\"']?\s{0,3}[:=]{1,2}\s{0,3}[\"']?(su[A-Za-z0-9]{12})(?![A-Za-z0-9])",
            _I,
        ),
        1,
    ),
    Rule(
        "sumologic-key",
        _C(
            r"sumo[\w.]{0,16}access[_.]?key[\"']?\s{0,3}[:=]{1,2}\s{0,3}[\"']?([A-Za-z0-9]{64})(?![A-Za-z0-9])",
            _I,
        ),
        1,
        _mixed,
    ),
    Rule(
        "sidekiq-credentials",
        _C(
            r"BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[\"']?\s{0,3}[:=]\s{0,3}[\"']?([a-f0-9]{8}:[a-f0-9]{8})",
            _I,
        ),
        1,
    ),
    # --- AI providers
    Rule(
        "openai-api-key", _C(_b(r"sk-(?:[A-Za-z0-9]{1,12}-)?[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,}"))
    ),
    Rule("openai-api-key", _C(_b(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,300}")), check=_mixed),
    Rule("anthropic-api-key", _C(_b(r"sk-ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_\-]{93}AA"))),
    Rule("openrouter-key", _C(_b(r"sk-or-v1-[a-f0-9]{64}"))),
    Rule("api-key", _C(_b(r"sk-[A-Za-z0-9]{32,64}")), check=_has_letters_digits),
    Rule("huggingface-token", _C(_b(r"(?:hf_|api_org_)[A-Za-z]{34}")), check=_entropy_at_least(3.5)),
    Rule("perplexity-key", _C(_b(r"pplx-[A-Za-z0-9]{48}")), check=_mixed),
    Rule("groq-key", _C(_b(r"gsk_[A-Za-z0-9]{52}")), check=_mixed),
    Rule("replicate-token", _C(_b(r"r8_[A-Za-z0-9]{37}")), check=_mixed),
    Rule("xai-key", _C(_b(r"xai-[A-Za-z0-9]{80}")), check=_mixed),
    # --- generic shapes with a recognisable form
    Rule(
        "jwt",
        _C(
            r"(?<![A-Za-z0-9_\-])ey[A-Za-z0-9_\-]{10,4000}\.ey[A-Za-z0-9_\-]{4,8000}(?:\.[A-Za-z0-9_\-+/]{0,4000}={0,2})?"
        ),
    ),
)

# detect-secrets plugins reused as-is (their regexes); our own rules above cover the same providers with
# gitleaks' newer formats, and these catch whatever shape detect-secrets knows and we did not write down.
# Left out on purpose: NpmDetector and OpenAIDetector (``.+`` / ``[...]*`` prefixes that backtrack
# quadratically on adversarial input; our own npm/OpenAI rules cover them) and the keyword/entropy plugins
# (replaced by the context rules below).
_DETECT_SECRETS_PLUGINS: tuple[tuple[str, str, str], ...] = (
    ("aws", "AWSKeyDetector", "aws-access-key"),
    ("artifactory", "ArtifactoryDetector", "artifactory-token"),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure-storage-key"),
    ("discord", "DiscordBotTokenDetector", "discord-token"),
    ("github_token", "GitHubTokenDetector", "github-token"),
    ("gitlab_token", "GitLabTokenDetector", "gitlab-token"),
    ("mailchimp", "MailchimpDetector", "mailchimp-key"),
    ("pypi_token", "PypiTokenDetector", "pypi-token"),
    ("sendgrid", "SendGridDetector", "sendgrid-key"),
    ("slack", "SlackDetector", "slack-token"),
    ("square_oauth", "SquareOAuthDetector", "square-token"),
    ("stripe", "StripeDetector", "stripe-key"),
    ("telegram_token", "TelegramBotTokenDetector", "telegram-bot-token"),
    ("twilio", "TwilioKeyDetector", "twilio-key"),
)


def _detect_secrets_rules() -> tuple[Rule, ...]:
    """Wrap detect-secrets' plugin regexes as rules (optional dependency: absent -> our rules only)."""
    try:
        rules: list[Rule] = []
        for module_name, class_name, rule in _DETECT_SECRETS_PLUGINS:
            module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
            for regex in getattr(module, class_name).denylist:
                if not isinstance(regex, re.Pattern):
                    continue
                group = 1 if regex.groups >= 1 else 0
                rules.append(
                    Rule(rule, regex, group, _ds_check, priority=2, strict_placeholder=True, ds=True)
                )
        return tuple(rules)
    except ImportError:  # pragma: no cover - detect-secrets is pinned; keep the guard usable without it
        return ()


def _ds_check(value: str) -> bool:
    if value.lower().startswith("xox") and not _slack_ok(value):
        return False  # Slack tokens carry long numeric ids ("xoxb-12345-abcd234" is an example)
    return len(value) >= 16 and _classes(value) >= 2 and shannon_entropy(value) >= 3.0


_DS_RULES = _detect_secrets_rules()

_PRIVATE_KEY_BEGIN = _C(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_END = _C(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BASE64_LINES = _C(r"(?:\s*(?:[A-Za-z][A-Za-z\-]{1,30}: [^\n]{0,200}\n)*)(?:[A-Za-z0-9+/=]{16,}\s*){1,400}")
_PUTTY = _C(
    r"PuTTY-User-Key-File-\d:[^\n]{0,100}\n(?:[^\n]{0,300}\n){0,40}?Private-Lines: \d+\n((?:[A-Za-z0-9+/=]{8,}\n?){1,60})"
)

# --------------------------------------------------------------------------------------------------
# context rules
# --------------------------------------------------------------------------------------------------

# the case-insensitive scans run case-sensitively on a lower-cased copy of the text (same offsets): faster
_KEYWORD = _C(
    r"pass(?:word|wd|phrase|code)?|pwd|secret|token|api[_\-.]?key|apikey|key|credentials?|creds|auth|login|accessid"
    r"|passwort|contrase[ñn]a|mot de passe|senha|пароль|密码|パスワード|비밀번호"
)
_IDENT_BEFORE = re.compile(r"[A-Za-z0-9_.\-]{1,60}$")
_IDENT_AFTER = re.compile(r"[A-Za-z0-9_.\-]{1,60}")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lowered(text: str) -> str:
    """``text`` in lower case with the same length (so offsets carry over)."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


_TOKEN_SPLIT = _C(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

_PASSWORD_TOKENS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "pass",
        "pw",
        "passw",
        "passwort",
        "senha",
        "contraseña",
        "contrasena",
    }
)
_SECRET_TOKENS = frozenset(
    {
        "secret",
        "secrets",
        "token",
        "tokens",
        "apikey",
        "credential",
        "credentials",
        "creds",
        "auth",
        "accessid",
        "bearer",
    }
)
_KEY_MODIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "auth",
        "client",
        "app",
        "master",
        "license",
        "licence",
        "encryption",
        "enc",
        "signing",
        "sign",
        "session",
        "shared",
        "subscription",
        "consumer",
        "developer",
        "dev",
        "webhook",
        "admin",
        "service",
        "account",
        "server",
        "ssh",
        "gpg",
        "pgp",
        "hmac",
        "jwt",
        "crypt",
        "crypto",
        "cipher",
        "aes",
        "rsa",
        "root",
        "write",
        "read",
        "deploy",
        "bot",
        "integration",
        "sdk",
        "cloud",
        "prod",
        "production",
        "staging",
        "live",
        "test",
        "sandbox",
        "heroku",
        "snyk",
        "stripe",
        "twilio",
        "sendgrid",
        "mailgun",
        "mailchimp",
        "github",
        "gitlab",
        "slack",
        "aws",
        "azure",
        "gcp",
        "google",
        "openai",
        "anthropic",
        "hubspot",
        "okta",
        "datadog",
        "sentry",
        "pagerduty",
        "algolia",
        "firebase",
        "supabase",
        "vercel",
        "netlify",
        "cloudflare",
        "mapbox",
        "shopify",
        "paypal",
        "braintree",
        "plaid",
        "twitch",
        "twitter",
        "facebook",
        "linkedin",
        "dropbox",
        "jira",
        "confluence",
        "atlassian",
        "notion",
        "airtable",
        "zendesk",
        "intercom",
        "segment",
        "mixpanel",
        "amplitude",
        "sumo",
        "sumologic",
        "newrelic",
        "relic",
        "splunk",
        "elastic",
        "pinecone",
        "cohere",
        "mistral",
        "groq",
        "huggingface",
        "hf",
        "replicate",
        "pusher",
        "ably",
        "contentful",
        "sanity",
        "postmark",
        "mandrill",
        "sparkpost",
        "nexmo",
        "vonage",
        "messagebird",
        "plivo",
        "telnyx",
        "square",
        "adyen",
        "klarna",
        "coinbase",
        "binance",
        "kraken",
        "etherscan",
        "infura",
        "alchemy",
        "moralis",
        "openweather",
        "weather",
        "maps",
        "x",
    }
)
_NAME_EXCLUDE_LAST = frozenset(
    {
        "id",
        "ids",
        "name",
        "names",
        "url",
        "uri",
        "urls",
        "file",
        "files",
        "path",
        "paths",
        "dir",
        "length",
        "len",
        "size",
        "type",
        "types",
        "version",
        "field",
        "fields",
        "header",
        "prefix",
        "suffix",
        "endpoint",
        "env",
        "ref",
        "count",
        "expiry",
        "expires",
        "expiration",
        "ttl",
        "format",
        "kind",
        "label",
        "mode",
        "policy",
        "provider",
        "store",
        "manager",
        "pattern",
        "regex",
        "hint",
        "example",
        "placeholder",
        "timeout",
        "enabled",
        "required",
        "arn",
        "location",
        "lifetime",
        "index",
        "column",
        "param",
        "parameter",
        "method",
        "source",
        "scheme",
        "algorithm",
        "alg",
        "usage",
        "description",
        "desc",
        "message",
        "error",
        "input",
        "selector",
        "class",
        "style",
        "event",
        "handler",
        "listener",
        "callback",
        "generator",
        "validator",
        "rotation",
        "storage",
        "option",
        "options",
        "host",
        "port",
        "user",
        "username",
        "uid",
        "email",
        "owner",
        "pair",
        "bits",
        "spec",
        "resolver",
        "builder",
        "factory",
        "service",
        "client",
        "response",
        "request",
        "status",
        "state",
        "result",
        "results",
        "scope",
        "scopes",
        "audience",
        "issuer",
        "reset",
        "hash",
        "hashed",
        "digest",
        "salt",
        "rounds",
        "min",
        "max",
        "minlength",
        "maxlength",
        "strength",
        "check",
        "valid",
        "validation",
        "confirmation",
        "confirm",
        "changed",
        "updated",
        "created",
        "date",
        "time",
        "at",
        "on",
        "to",
        "from",
        "by",
        "flow",
        "grant",
        "page",
        "form",
        "button",
        "link",
        "icon",
        "text",
        "title",
        "keyword",
        "words",
        "word",
        "function",
        "fn",
        "func",
        "map",
        "mapping",
        "table",
        "list",
        "set",
        "vault",
        "secretsmanager",
    }
)
_KEY_TRAILERS = frozenset(
    {"value", "string", "str", "data", "b64", "base64", "hex", "raw", "bytes", "secret", "s"}
)
_NAME_EXCLUDE_ANY = frozenset(
    {
        "public",
        "publishable",
        "pub",
        "csrf",
        "xsrf",
        "keyboard",
        "keypress",
        "keyframe",
        "keyframes",
        "monkey",
        "turkey",
        "hotkey",
        "author",
        "authority",
        "authors",
        "authenticity",
    }
)

_OPERATOR = _C(
    r"""(?P<q>['"]?)[ \t]{0,4}(?P<op>:::=|::=|:=|\?=|=>|->|==|=|:|,)(?!=)[ \t]{0,4}"""
    r"""(?:(?:(?:basic|bearer|token|api-token|apikey|digest)[ \t]{1,3}))?"""
    r"""(?P<val>"[^"\n]{1,400}"|'[^'\n]{1,400}'|`[^`\n]{1,400}`|[^\s'"`,;)}\]<>]{1,400})""",
    _I,
)
_PROSE_OPERATOR = _C(
    r"""[ \t]{1,3}(?:is|was|are|were|ist|est|es|è|é|это|—|-)[ \t]{1,3}(?:now[ \t]{1,3}|still[ \t]{1,3}|set to[ \t]{1,3}|just[ \t]{1,3})?"""
    r"""(?P<val>"[^"\n]{1,200}"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s'"`,;)}\]<>]{1,200})""",
    _I,
)
_AUTH_HEADER = _C(
    r"\b(?:proxy-)?authorization[\"']?\s{0,4}[:=]\s{0,4}[\"']?\s{0,4}"
    r"(?:(?:basic|bearer|token|api-token|apikey|digest|sso-key|key|otp)\s{1,4})?([^\s\"'<>{}]{6,2000})"
)
_CURL_USER = _C(
    r"(?:^|\s)(?:-u|--user)(?:[ \t]{1,4}|=)((?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s\"']{1,200}){1,4})"
)
_URL_CREDENTIALS = _C(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://([^\s:/?#@'\"]{0,128}):([^\s/?#@'\"]{1,256})@(?=[\w.\-\[])"
)
_BARE_TOKEN = _C(r"[A-Za-z0-9+_\-]{20,}+={0,3}")
_BARE_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~@:%#$\\")
_BARE_AFTER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~@\\")
_NEAR_KEYWORD = _C(
    r"\b(?:password|passwd|passphrase|secret|token|api[ _\-]?key|access[ _\-]?key|credentials?|bearer)\b"
    r"[^\n.!?]{0,40}?[\s:=\"'(]([A-Za-z0-9+/=_\-~!@#$%^&*]{12,200})(?![A-Za-z0-9+/=_\-])"
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


_REFERENCE = _C(
    r"^(?:\$|%|\{|<|\[|@|&|\*|os\.|env\.|process\.|self\.|this\.|config\.|settings\.|secrets\.)"
    r"|^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\s*[\[(]"  # a code expression: token[:n], f(x)
    r"|^[a-z_][a-z0-9_]*\.[a-z_]"  # attribute access: ctx.session_key
)
_SNAKE_OR_CAMEL = _C(r"_?[a-z]+(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+")
_HAS_KEYWORD = _C(r"pass(?:word|wd|phrase)|secret|token|api[_\-]?key|credential", _I)


def _names_a_field(value: str) -> bool:
    """'new_password1', 'usable_password', 'rawPassword': the value names a field, it is not one."""
    return _HAS_KEYWORD.search(value) is not None and _wordiness(value) >= 0.5


def _password_value_ok(value: str, quoted: bool, prose: bool) -> bool:
    v = value.rstrip(".!?")
    if len(v) < 4 or len(v) > 200 or any(c.isspace() for c in v):
        return False
    if _REFERENCE.match(v) or is_placeholder(v, strict=False):
        return False
    if v.lower() in _PLACEHOLDER_WORDS or re.fullmatch(r"[*x•#.\-_]+", v, _I):
        return False
    if "(" in v or "://" in v or _names_a_field(v):
        return False
    if not quoted and _SNAKE_OR_CAMEL.fullmatch(v):
        return False  # password = raw_password: a variable, not a literal
    if prose and not quoted:
        # "the password is hunter2": the value must look like a password, not like the next English word
        return (
            len(v) >= 6
            and (any(c.isdigit() for c in v) or any(not c.isalnum() for c in v))
            and _classes(v) >= 2
        )
    if not quoted and len(v) < 6:
        return False
    return not (_DOTTED_IDENT.fullmatch(v) and not any(c.isdigit() for c in v))


def _secret_value_ok(value: str, kind: str, quoted: bool, prose: bool) -> bool:
    v = value.rstrip(".!?") if not quoted else value
    if _REFERENCE.match(v) or _names_a_field(v):
        return False
    if kind == "weak-key":
        return len(v) >= 20 and looks_random(v, min_len=20) and shannon_entropy(v) >= 3.5
    if prose and not quoted:
        return looks_random(v, min_len=12) and _has_letters_digits(v)
    return looks_random(v, min_len=8)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    rule: str
    priority: int


_MAX_LITERALS = 32
_RARE_CHARS = frozenset("|~^`\\")


def _literal_set(op: Any, av: Any) -> set[str] | None:
    """The finite set of strings this parsed item always matches, or None."""
    if op is _SRE.LITERAL:
        return {chr(av)}
    if op is _SRE.IN:
        if len(av) <= 10 and all(kind is _SRE.LITERAL for kind, _ in av):
            return {chr(c) for _, c in av}
        return None
    if op is _SRE.SUBPATTERN:
        return _sequence_set(av[-1])
    if op is _SRE.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            found = _sequence_set(branch)
            if found is None:
                return None
            out |= found
        return out if len(out) <= _MAX_LITERALS else None
    return None


def _sequence_set(items: Any) -> set[str] | None:
    out = {""}
    for op, av in items:
        found = _literal_set(op, av)
        if found is None:
            return None
        out = {a + b for a in out for b in found}
        if len(out) > _MAX_LITERALS:
            return None
    return out


def _required_literals(items: Any) -> set[str] | None:
    """Literals one of which every match of this parsed regex sequence contains (the most selective set)."""
    candidates: list[set[str]] = []
    current: set[str] | None = None

    def flush() -> None:
        # a literal of two characters or more, or a character that is rare in prose ("|" in "123|abc")
        if current and all(len(x) >= 2 or x in _RARE_CHARS for x in current):
            candidates.append(current)

    for op, av in items:
        found = _literal_set(op, av)
        if found is not None:
            product = found if current is None else {a + b for a in current for b in found}
            if len(product) <= _MAX_LITERALS:
                current = product
                continue
            flush()
            current = found
            continue
        flush()
        current = None
        inner: set[str] | None = None
        if op is _SRE.SUBPATTERN:
            inner = _required_literals(av[-1])
        elif op is _SRE.BRANCH:
            alternatives = [_required_literals(branch) for branch in av[1]]
            if all(alternatives):
                inner = set().union(*(a for a in alternatives if a))
        elif op in (_SRE.MAX_REPEAT, _SRE.MIN_REPEAT, _SRE.POSSESSIVE_REPEAT) and av[0] >= 1:
            inner = _required_literals(av[2])
        if inner:
            candidates.append(inner)
    flush()
    if not candidates:
        return None
    return max(candidates, key=lambda c: (min(len(x) for x in c), -len(c)))


def _hints(regex: re.Pattern[str]) -> tuple[tuple[str, ...], bool]:
    """(literals, case-insensitive): the rule can only match where one of the literals occurs.  () = always run."""
    ignore_case = bool(regex.flags & re.IGNORECASE)
    try:
        found = _required_literals(list(_PARSER.parse(regex.pattern, regex.flags)))
    except Exception:  # noqa: BLE001 - an unparsable hint only costs speed: run the rule everywhere
        found = None
    if not found:
        return (), ignore_case
    return tuple(sorted(h.lower() if ignore_case else h for h in found)), ignore_case


_PARSER: Any = importlib.import_module("re._parser")
_SRE: Any = importlib.import_module("re._constants")
_HINT_CACHE: dict[int, tuple[tuple[str, ...], bool]] = {}


def _may_match(rule: Rule, text: str, low: str) -> bool:
    key = id(rule.regex)
    if key not in _HINT_CACHE:
        _HINT_CACHE[key] = _hints(rule.regex)
    hints, ignore_case = _HINT_CACHE[key]
    if not hints:
        return True
    hay = low if ignore_case else text
    return any(h in hay for h in hints)


def _scan_provider_rules(text: str, rules: Iterable[Rule], out: list[_Found], low: str | None = None) -> None:
    low = lowered(text) if low is None else low
    for rule in rules:
        if not _may_match(rule, text, low):
            continue
        for m in rule.regex.finditer(text):
            group = rule.group if rule.group <= (m.re.groups or 0) else 0
            value = m.group(group)
            if not value:
                continue
            start, end = m.span(group)
            if rule.ds:
                # detect-secrets regexes have no boundaries (some start with a separator): add them here
                lead = len(value) - len(value.lstrip(" \t\n=:\"'"))
                value, start = value[lead:], start + lead
                if (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                    continue
            if rule.placeholder and is_placeholder(value, strict=rule.strict_placeholder):
                continue
            if (
                text[end : end + 3] in ("###", "***", "xxx", "XXX", "...", "\u2026")
                or text[end : end + 1] == "\u2026"
            ):
                continue  # the value goes on as a mask: "xoxp-5723...-####": a redacted example
            if rule.check is not None and not rule.check(value):
                continue
            out.append(_Found(start, end, rule.name, rule.priority))


def _scan_private_keys(text: str, out: list[_Found]) -> None:
    for m in _PRIVATE_KEY_BEGIN.finditer(text):
        end_m = _PRIVATE_KEY_END.search(text, m.end(), min(len(text), m.end() + 20000))
        if end_m is not None:
            body = text[m.end() : end_m.start()]
            if len(re.sub(r"[^A-Za-z0-9+/=]", "", body)) >= 20:
                out.append(_Found(m.start(), end_m.end(), "private-key", 4))
            continue
        tail = _BASE64_LINES.match(text, m.end())
        if tail is not None and len(re.sub(r"[^A-Za-z0-9+/=]", "", tail.group(0))) >= 20:
            out.append(_Found(m.start(), tail.end(), "private-key", 4))
    for m in _PUTTY.finditer(text):
        out.append(_Found(m.start(1), m.end(1), "private-key", 4))


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


def _scan_assignments(
    text: str, out: list[_Found], vetoed: list[tuple[int, int]], low: str | None = None
) -> None:
    """``name <op> value`` where the name says secret.  Values of names that say *not* secret (public_key,
    client_id, csrf_token, ...) are recorded in ``vetoed`` so the entropy rule leaves them alone."""
    seen: set[int] = set()
    memo: dict[str, tuple[str, int, int] | None] = {}  # repeated lines (logs, JSON arrays) are judged once
    for km in _KEYWORD.finditer(lowered(text) if low is None else low):
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
            out.append(_Found(s + rel_start, s + rel_end, what, 2))


def _pair(text: str, s: int, m: re.Match[str]) -> bool:
    """("password", "hunter2"): a comma makes an assignment only inside a two-item tuple of quoted strings."""
    before = text[max(0, s - 3) : s].rstrip("\"'` ")
    raw = m.group("val")
    after = text[m.end("val") : m.end("val") + 3].lstrip()
    if _IDENTIFIER_PARTS.fullmatch(raw.strip("\"'`")):
        return False  # ('password', 'credit_card'): two field names
    return before.endswith(("(", "[")) and raw[:1] in "\"'`" and after[:1] in (")", "]")


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
        if m is not None and m.group("op") != ",":
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
    else:
        ok, rule = _secret_value_ok(value, kind, bool(q), prose), "secret-assignment"
    return (rule, vstart - s, vstart + len(value) - s) if ok else None


def _scan_auth_headers(text: str, out: list[_Found], low: str | None = None) -> None:
    low = lowered(text) if low is None else low
    if "authorization" not in low:
        return
    for m in _AUTH_HEADER.finditer(low):
        value = text[m.start(1) : m.end(1)].rstrip(".,;)")
        if _REFERENCE.match(value) or is_placeholder(value, strict=False):
            continue
        if len(value) < 6 or _classes(value) < 2 or shannon_entropy(value) < 2.5:
            continue
        out.append(_Found(m.start(1), m.start(1) + len(value), "auth-header", 2))


def _cred_part_ok(value: str) -> bool:
    v = value.strip("{}")
    if len(v) < 6 or _REFERENCE.match(v) or is_placeholder(v, strict=False):
        return False
    if v.lower() in _PLACEHOLDER_WORDS or "$" in v[:1]:
        return False
    return _classes(v) >= 2 or (len(v) >= 10 and shannon_entropy(v) >= 3.0)


def _scan_curl_credentials(text: str, out: list[_Found]) -> None:
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
            out.append(_Found(ps, pe, "basic-auth-credentials", 2))
        elif not pw and user and _cred_part_ok(user):
            out.append(_Found(us, ue, "basic-auth-credentials", 2))
        elif not user and pw and _cred_part_ok(pw):
            out.append(_Found(ps, pe, "basic-auth-credentials", 2))


def _scan_url_credentials(text: str, out: list[_Found]) -> None:
    if "://" not in text or "@" not in text:
        return
    for m in _URL_CREDENTIALS.finditer(text):
        pw = m.group(2)
        low = pw.lower()
        if low in _PLACEHOLDER_WORDS or _REFERENCE.match(pw) or is_placeholder(pw, strict=False):
            continue
        if len(pw) < 3 or (low.startswith(("pass", "pwd", "secret")) and len(pw) <= 10 and pw.isalpha()):
            continue
        out.append(_Found(m.start(2), m.end(2), "connection-string-password", 2))


def _bare_high_entropy(value: str) -> bool:
    n = len(value)
    if n < 20 or not _mixed(value) or is_placeholder(value):
        return False
    segments = re.split(r"[_\-]", value)
    if len(segments) >= 3 and all(len(seg) <= 12 for seg in segments):
        return False  # SOME_Identifier_v2_Name, release-2024-01-rc3
    if _wordiness(value) > 0.45:
        return False
    digits = sum(c.isdigit() for c in value)
    if digits < 2 or digits > n * 0.8:
        return False
    return shannon_entropy(value) >= min(4.0, 0.85 * math.log2(n))


_PUBLIC_BLOCK = _C(
    r"-----BEGIN (?:PGP PUBLIC KEY BLOCK|PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE|PGP SIGNATURE|PGP MESSAGE|SSH2 PUBLIC KEY)-----"
    r"[\s\S]{0,20000}?-----END [A-Z0-9 ]{3,30}-----"
)
_SSH_PUBLIC_KEY = _C(r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d{3}) [A-Za-z0-9+/=]{40,}")


def _in_url(text: str, start: int) -> bool:
    """True when the token at ``start`` is part of a URL (path, query) rather than free-standing."""
    ws = max(
        text.rfind(" ", 0, start),
        text.rfind("\n", 0, start),
        text.rfind("\t", 0, start),
        text.rfind('"', 0, start),
    )
    prefix = text[ws + 1 : start]
    return "://" in prefix or prefix.startswith("www.")


# values that are random but not secret: checksums, signatures, hashes, commit ids, CSRF form tokens
_NOT_SECRET_VALUE = _C(
    r"\b(?:signature|sig|checksum|hash|digest|etag|integrity|nonce|commit|sha|sha1|sha256|sha512|md5|revision|"
    r"fingerprint|request[_-]?id|trace[_-]?id|correlation[_-]?id|uuid|guid)[\"']?\s{0,3}[:=]\s{0,3}[\"']?"
    r"([A-Za-z0-9+/=_\-]{16,2000})"
    r"|name=[\"'][\w-]*(?:csrf|xsrf|authenticity)[\w-]*[\"']\s+value=[\"']([^\"'<>]{8,2000})"
)  # runs on the lower-cased copy


def _scan_high_entropy(
    text: str, out: list[_Found], vetoed: list[tuple[int, int]], low: str | None = None
) -> None:
    vetoed = (
        vetoed
        + [m.span() for m in _PUBLIC_BLOCK.finditer(text)]
        + [m.span() for m in _SSH_PUBLIC_KEY.finditer(text)]
        + [
            m.span(m.lastindex or 0)
            for m in _NOT_SECRET_VALUE.finditer(lowered(text) if low is None else low)
        ]
    )

    def free(start: int, end: int) -> bool:
        return not any(s <= start and end <= e for s, e in vetoed)

    for m in _BARE_TOKEN.finditer(text):
        if (m.start() > 0 and text[m.start() - 1] in _BARE_BEFORE) or (
            m.end() < len(text) and text[m.end()] in _BARE_AFTER
        ):
            continue
        value = m.group(0).strip("-_=")
        if text[m.end() : m.end() + 2] in ("..", "\u2026") or text[m.end() : m.end() + 1] == "\u2026":
            continue  # elided in the text itself: "ops_eyJzaWdu..."
        if (
            len(value) <= 1000
            and _bare_high_entropy(value)
            and free(m.start(), m.end())
            and not _in_url(text, m.start())
        ):
            start = m.start() + m.group(0).index(value)
            out.append(_Found(start, start + len(value), "high-entropy", 1))
    for m in _NEAR_KEYWORD.finditer(lowered(text) if low is None else low):
        if text[m.end(1) : m.end(1) + 2] == ".." or text[m.end(1) : m.end(1) + 1] == "\u2026":
            continue
        value = text[m.start(1) : m.end(1)].rstrip(".!?,;:)")
        if not free(m.start(1), m.end(1)):
            continue
        if len(value) >= 12 and looks_random(value, min_len=12) and _has_letters_digits(value):
            out.append(_Found(m.start(1), m.start(1) + len(value), "high-entropy", 1))


def find_secrets(text: str) -> list[Redaction]:
    """All secret spans in ``text`` (non-overlapping, sorted)."""
    found: list[_Found] = []
    _scan_private_keys(text, found)
    low = lowered(text)
    _scan_provider_rules(text, _PROVIDER_RULES, found, low)
    _scan_provider_rules(text, _DS_RULES, found, low)
    vetoed: list[tuple[int, int]] = []
    _scan_assignments(text, found, vetoed, low)
    _scan_auth_headers(text, found, low)
    _scan_curl_credentials(text, found)
    _scan_url_credentials(text, found)
    _scan_high_entropy(text, found, vetoed, low)
    if not found:
        return []
    # highest priority first, then the longest; drop anything overlapping an accepted span
    found.sort(key=lambda f: (-f.priority, -(f.end - f.start), f.start))
    accepted: list[_Found] = []
    for f in found:
        if f.end <= f.start:
            continue
        if any(f.start < a.end and a.start < f.end for a in accepted):
            continue
        accepted.append(f)
    accepted.sort(key=lambda f: f.start)
    return [Redaction(f.rule, f.start, f.end) for f in accepted]


def fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def redact(text: str) -> tuple[str, tuple[Redaction, ...]]:
    """Replace every secret by ``[REDACTED:<rule>:<sha256[:8]>]``."""
    spans = find_secrets(text)
    if not spans:
        return text, ()
    parts: list[str] = []
    pos = 0
    for r in spans:
        parts.append(text[pos : r.start])
        parts.append(f"[REDACTED:{r.rule}:{fingerprint(text[r.start : r.end])}]")
        pos = r.end
    parts.append(text[pos:])
    return "".join(parts), tuple(spans)


for _rule in _PROVIDER_RULES + _DS_RULES:  # literal hints are computed once, at import
    _HINT_CACHE[id(_rule.regex)] = _hints(_rule.regex)
