"""core.env's readers: a value they cannot take stops start-up with one clear line."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.env import env_float, env_int


def test_env_int_reads_defaults_and_refuses_what_is_below_its_minimum(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("MNEMOS_TEST_INT", raising=False)
    assert env_int("MNEMOS_TEST_INT", 4, minimum=1) == 4
    monkeypatch.setenv("MNEMOS_TEST_INT", " ")
    assert env_int("MNEMOS_TEST_INT", 4, minimum=1) == 4
    monkeypatch.setenv("MNEMOS_TEST_INT", "2")
    assert env_int("MNEMOS_TEST_INT", 4, minimum=1) == 2
    monkeypatch.setenv("MNEMOS_TEST_INT", "0")
    assert env_int("MNEMOS_TEST_INT", 4) == 0
    with pytest.raises(ImproperlyConfigured, match=r"^MNEMOS_TEST_INT must be 1 or more$"):
        env_int("MNEMOS_TEST_INT", 4, minimum=1)
    monkeypatch.setenv("MNEMOS_TEST_INT", "two")
    with pytest.raises(ImproperlyConfigured, match="MNEMOS_TEST_INT must be an integer, got 'two'"):
        env_int("MNEMOS_TEST_INT", 4, minimum=1)
    monkeypatch.delenv("MNEMOS_TEST_INT")
    with pytest.raises(ImproperlyConfigured, match="must be 1 or more"):  # a default is held to it too
        env_int("MNEMOS_TEST_INT", 0, minimum=1)


def test_env_float_reads_numbers_and_refuses_others(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("MNEMOS_TEST_FLOAT", raising=False)
    assert env_float("MNEMOS_TEST_FLOAT", 0.02, minimum=0.001) == 0.02
    monkeypatch.setenv("MNEMOS_TEST_FLOAT", " ")
    assert env_float("MNEMOS_TEST_FLOAT", 0.02, minimum=0.001) == 0.02
    monkeypatch.setenv("MNEMOS_TEST_FLOAT", "0.25")
    assert env_float("MNEMOS_TEST_FLOAT", 0.02, minimum=0.001) == 0.25
    monkeypatch.setenv("MNEMOS_TEST_FLOAT", "0")
    with pytest.raises(ImproperlyConfigured, match=r"^MNEMOS_TEST_FLOAT must be 0.001 or more$"):
        env_float("MNEMOS_TEST_FLOAT", 0.02, minimum=0.001)
    for bad in ("fast", "nan", "inf"):
        monkeypatch.setenv("MNEMOS_TEST_FLOAT", bad)
        with pytest.raises(ImproperlyConfigured, match=f"^MNEMOS_TEST_FLOAT must be a number, got '{bad}'$"):
            env_float("MNEMOS_TEST_FLOAT", 0.02, minimum=0.001)
