"""The TypeScript client (clients/typescript) against a live Mnemos: ``npm ci`` when its dependencies are
missing or stale, then its ``node --test`` suite (``npm test``: tsc, then the tests) with the server's URL
and a real access key in MNEMOS_URL and MNEMOS_API_KEY. Without node and npm this fails: it never skips."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from tests.live import ROOT, running_web

pytestmark = pytest.mark.live

PACKAGE = ROOT / "clients" / "typescript"
NODE_MAJOR = 20
MISSING = (
    "the TypeScript client's tests need Node.js {major}+ and npm ({what}); install them "
    "(Debian: apt-get install nodejs npm, as .ci/run does)"
)


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(MISSING.format(major=NODE_MAJOR, what=f"no {name} on PATH"), pytrace=False)
    return path


def installed() -> bool:
    """node_modules is what package-lock.json pins (npm writes its own copy of the lock there)."""
    hidden_lock = PACKAGE / "node_modules" / ".package-lock.json"
    return (
        hidden_lock.exists()
        and hidden_lock.stat().st_mtime >= (PACKAGE / "package-lock.json").stat().st_mtime
    )


def test_the_typescript_client_against_a_live_server(committed_world):
    node, npm = tool("node"), tool("npm")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    major = int(re.match(r"v(\d+)", version.strip()).group(1))  # type: ignore[union-attr]
    if major < NODE_MAJOR:
        pytest.fail(MISSING.format(major=NODE_MAJOR, what=f"found node {version.strip()}"), pytrace=False)
    if not installed():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=PACKAGE, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    with running_web() as base:
        done = subprocess.run(
            [npm, "test"],
            cwd=PACKAGE,
            env={**os.environ, "MNEMOS_URL": base, "MNEMOS_API_KEY": str(secret)},
            capture_output=True,
            text=True,
            timeout=600,
        )
    output = done.stdout + done.stderr
    print(output)  # shown with -rP: each TypeScript test by name
    assert done.returncode == 0, f"npm test failed:\n{output[-20000:]}"
    # The suite ran, all of it: a build that compiled nothing or a runner that found no test fails too.
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE) or re.search(r"ℹ pass (\d+)", output)
    failed = re.search(r"^# fail (\d+)$", output, re.MULTILINE) or re.search(r"ℹ fail (\d+)", output)
    assert passed and int(passed.group(1)) >= 9, output[-5000:]
    assert failed and int(failed.group(1)) == 0, output[-5000:]
