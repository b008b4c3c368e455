"""LoCoMo as the benchmark protocol reads it (shared with the project), with speakers and session times kept.

One passage per dialog turn, ``"{speaker}: {text}"`` plus `` [shares {blip_caption}]``; gold = the
normalised evidence ids (``bench.embeddings.run.normalise_gold``); questions left without gold are
dropped (4, all category 3). No Django here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.embeddings.run import normalise_gold

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo10.json"
TUNING = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
HEADLINE = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

_SESSION = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    id: str  # D<session>:<n>
    session: int
    speaker: str
    text: str  # the protocol's passage text
    timestamp: datetime  # the session's date, plus one second per turn to keep the order


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    gold: tuple[str, ...]
    answer: str


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def session_time(raw: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56:00+00:00 (LoCoMo gives no zone: UTC)."""
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load(path: Path = DEFAULT_DATA, limit: int | None = None) -> tuple[list[Conversation], int]:
    """The first ``limit`` conversations (all when None) and how many questions were dropped."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if limit:
        raw = raw[:limit]
    conversations: list[Conversation] = []
    dropped = 0
    for item in raw:
        conv = item["conversation"]
        sessions = sorted(int(m[1]) for key in conv if (m := _SESSION.match(key)))
        turns: list[Turn] = []
        for n in sessions:
            start = session_time(conv[f"session_{n}_date_time"])
            for i, t in enumerate(conv[f"session_{n}"]):
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [shares {t['blip_caption']}]"
                turns.append(
                    Turn(
                        id=t["dia_id"],
                        session=n,
                        speaker=t["speaker"],
                        text=text,
                        timestamp=start + timedelta(seconds=i),
                    )
                )
        known = {t.id for t in turns}
        questions: list[Question] = []
        for qa in item["qa"]:
            gold = normalise_gold(qa.get("evidence", []), known)
            if not gold:
                dropped += 1
                continue
            questions.append(
                Question(
                    text=qa["question"],
                    category=int(qa["category"]),
                    gold=tuple(gold),
                    answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                )
            )
        conversations.append(
            Conversation(sample_id=item["sample_id"], turns=tuple(turns), questions=tuple(questions))
        )
    return conversations, dropped
