"""`make run` end to end: the serve command brings up a healthy Mnemos and stops cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.live import ROOT, free_port, stop_process, wait_for

pytestmark = pytest.mark.live


def _health(port: int):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return json.load(response)
    except (urllib.error.URLError, OSError):
        return None


def test_serve_is_healthy_with_a_real_worker_and_stops_on_ctrl_c(django_db_setup, tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--concurrency", "1"],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            report = wait_for(lambda: _health(port), timeout=120, interval=0.5, what="a green /healthz")
            assert report["status"] == "ok"
            assert all(check["ok"] for check in report["checks"].values())
            wait_for(lambda: "Press Ctrl-C to stop." in log.read_text(), timeout=30, what="the banner")
            text = log.read_text()
            assert f"Mnemos is running at http://127.0.0.1:{port}" in text
            # First start in this database: demo logins and a demo key are printed once.
            assert "demo-admin" in text and "Access key      : mnm_" in text
        finally:
            code = stop_process(process, sig=signal.SIGINT, timeout=60)
    assert code == 0, log.read_text()
    assert "Mnemos stopped." in log.read_text()
    assert _health(port) is None
