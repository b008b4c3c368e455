"""The MCP Inspector's own strict schema check (npm ``@modelcontextprotocol/inspector``), run as a
client runs it: against Mnemos' streamable HTTP endpoint with a real key, and, to show the check can
fail, against a small stdio server whose output schema has a value typed as anything.

``.ci/run`` installs the Inspector into ``var/inspector`` (not committed); when it is missing, the
fixture installs it from npm the same way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.registry import registry
from tests.live import ROOT, running_web

pytestmark = pytest.mark.live

INSPECTOR_VERSION = "2.12.0"
INSPECTOR_DIR = ROOT / "var" / "inspector"
INSPECTOR = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"


@pytest.fixture(scope="module")
def inspector() -> Path:
    if not INSPECTOR.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the MCP Inspector (Debian: apt-get install npm)"
        subprocess.run(
            [
                npm,
                "install",
                "--silent",
                "--prefix",
                str(INSPECTOR_DIR),
                f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
            ],
            check=True,
            timeout=600,
        )
    return INSPECTOR


def _strict_tools_list(inspector: Path, *target: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(inspector), "--cli", "--method", "tools/list", "--strict", *target],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.fixture(scope="module")
def web(committed_world):
    with running_web() as base:
        yield base


def test_every_mnemos_tool_passes_the_inspectors_strict_check(inspector, web, committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    done = _strict_tools_list(
        inspector,
        "--transport",
        "http",
        "--server-url",
        f"{web}/mcp",
        "--header",
        f"Authorization: Bearer {secret}",
    )
    assert done.returncode == 0, done.stderr[-4000:]
    # A value typed as anything is a warning (the exit status stays 0): none may be reported. With no
    # problem at all --strict prints nothing (the loose server below shows what it prints otherwise).
    assert "Warning:" not in done.stderr and "Path:" not in done.stderr, done.stderr[-4000:]
    # The listing reached the server: every tool the key may use is in it.
    listed = json.loads(done.stdout)["tools"]
    assert {tool["name"] for tool in listed} == {spec.mcp_name for spec in registry.all()}


LOOSE_SERVER = textwrap.dedent(
    """
    from typing import Any

    from mcp.server.mcpserver import MCPServer
    from pydantic import BaseModel

    class Table(BaseModel):
        rows: list[list[Any]]

    server = MCPServer("loose")

    @server.tool()
    def table() -> Table:
        return Table(rows=[[1, "a"]])

    server.run()
    """
)


def test_the_strict_check_fails_on_a_value_typed_as_anything(inspector, tmp_path):
    script = tmp_path / "loose_server.py"
    script.write_text(LOOSE_SERVER)
    done = _strict_tools_list(inspector, "--", sys.executable, str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Path: outputSchema.properties.rows.items.items" in done.stderr, done.stderr[-2000:]
    assert "0 errors, 1 warning across 1 tool" in done.stderr
