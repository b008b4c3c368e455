"""The chaos suite's quick subset (bench/chaos/): real ``manage.py serve`` processes, real faults.

Each experiment starts its own serve on a private data directory (its own embedded PostgreSQL and
broker), so these tests share nothing with the test session's cluster. About a minute each on two
cores; the full runs are ``python -m bench.chaos.run`` (bench/chaos/README.md).
"""

from __future__ import annotations

import pytest

from bench.chaos import experiments as chaos

pytestmark = pytest.mark.live

QUICK = chaos.Options(quick=True)


def _explain(result: chaos.Result) -> str:
    return (
        f"failed: {result.failures()}; errors {result.errors}; healthz max {result.healthz_max_ms} ms; "
        f"recovery {result.recovery_s} s; backlog {chaos.backlog_text(result.backlog)}; notes {result.notes}"
    )


def _assert_common(result: chaos.Result) -> None:
    why = _explain(result)
    assert result.acknowledged > 0, why
    assert result.lost == 0, why
    assert result.duplicated == 0, why
    assert result.html == 0, why
    assert result.healthz_max_ms <= 2000, why
    assert result.checks[chaos.BACKGROUND], why


def test_worker_kill_loses_nothing_and_recovers() -> None:
    result = chaos.worker_kill(QUICK)
    why = _explain(result)
    assert result.checks[chaos.RECOVERED], why
    assert result.recovery_s is not None, why
    assert result.checks[chaos.SAVE_AFTER], why
    _assert_common(result)
    assert result.verdict, why


def test_idempotent_retries_make_one_record() -> None:
    result = chaos.idempotent_retries(QUICK)
    why = _explain(result) + f"; {result.extra}"
    assert result.extra["same_body_statuses"] == {"200": QUICK.retries}, why
    assert result.extra["same_body_event_ids"] == 1, why
    assert result.extra["same_body_records"] == 1, why
    assert result.extra["different_bodies_statuses"] == {"200": 1, "409": QUICK.retries - 1}, why
    assert result.extra["different_bodies_records"] == 1, why
    _assert_common(result)
    assert result.verdict, why
