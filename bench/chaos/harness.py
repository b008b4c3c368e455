"""The chaos suite's machinery: a private ``manage.py serve``, its faults, the clients, the checks.

Nothing here imports Django: the suite is a client of a running Mnemos, as an operator's script would
be. It reads the private database afterwards as the owner role (core/dbserver.py) over the embedded
server's socket, with ``app.all_tenants`` on (core/tenancy.py's setting), so row-level security shows
it every tenant's rows.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg

from core.dbserver import DATABASE_NAME, OWNER_ROLE

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "bench" / "out" / "chaos"
PYTHON = sys.executable

HEALTH_LIMIT_S = 2.0
HEALTH_INTERVAL_S = 0.5
BACKGROUND_DEADLINE_S = 120.0
# A plan limit no load here reaches: the suite measures faults, not the rate window (docs: 429 is correct).
UNLIMITED_CALLS = 1_000_000
# What a shell or a test process (config.settings_test) may have set that would point serve elsewhere.
_INHERITED = (
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "DATABASE_APP_URL",
    "CELERY_BROKER_URL",
    "MNEMOS_THROWAWAY_DB",
    "MNEMOS_PGDATA",
    "MNEMOS_BROKER_DIR",
    "MNEMOS_VAR_DIR",
    "MNEMOS_CELERY_QUEUE",
    "MNEMOS_PUBLIC_URL",
    "MNEMOS_HOST",
    "MNEMOS_PORT",
)
# Starts the embedded server on a data directory and holds it until stdin closes (then it stops it):
# the checks' way in after a fault that took serve, and with it the database, down for good.
_HOLD_DATABASE = (
    "import sys\nfrom core.dbserver import database_settings\ndatabase_settings()\n"
    "print('ready', flush=True)\nsys.stdin.read()\n"
)


class ChaosError(RuntimeError):
    """The experiment could not run (serve never started, a tool missing): no verdict."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sleep_until(moment: float) -> None:
    delay = moment - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def _alive(process: psutil.Process) -> bool:
    try:
        return bool(process.is_running()) and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _describe(process: psutil.Process) -> str:
    try:
        return f"{process.pid} {' '.join(process.cmdline())[:120]}"
    except psutil.Error:
        return str(process.pid)


class Instance:
    """One ``manage.py serve --no-demo`` on loopback with a data directory of its own.

    Every process of serve's tree, and the postmaster's, is remembered as it is seen, so that the
    clean-up can end what a fault orphaned (a worker's pool child, a killed postmaster's backends).
    """

    def __init__(self, root: Path, *, broker_url: str = "") -> None:
        self.root = root
        self.pgdata = root / "pg"
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.broker_url = broker_url
        self.log_path = root / "serve.log"
        self.serve: subprocess.Popen[bytes] | None = None
        self._seen: dict[tuple[int, float], psutil.Process] = {}
        self._holder: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def env(self) -> dict[str, str]:
        env = {name: value for name, value in os.environ.items() if name not in _INHERITED}
        env.update(
            MNEMOS_PGDATA=str(self.pgdata),
            MNEMOS_BROKER_DIR=str(self.root / "broker"),
            MNEMOS_VAR_DIR=str(self.root / "var"),
            PYTHONUNBUFFERED="1",
        )
        if self.broker_url:
            env["CELERY_BROKER_URL"] = self.broker_url
        return env

    # serve

    def start(self, *, timeout: float = 240) -> float:
        """Start serve (again, on the same data directory and port); seconds until /healthz said 200."""
        (self.root / "var").mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with self.log_path.open("ab") as log:
            self.serve = subprocess.Popen(
                [PYTHON, "manage.py", "serve", "--no-demo", "--port", str(self.port)],
                cwd=ROOT,
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < started + timeout:
                if self.serve.poll() is not None:
                    raise ChaosError(
                        f"serve exited with {self.serve.returncode} during start-up: {self.log_tail()}"
                    )
                with suppress(httpx.HTTPError):
                    if client.get(f"{self.base_url}/healthz").status_code == 200:
                        self.track()
                        return time.monotonic() - started
                time.sleep(0.5)
        raise ChaosError(f"serve did not answer /healthz 200 within {timeout:.0f} s: {self.log_tail()}")

    def serving(self) -> bool:
        return self.serve is not None and self.serve.poll() is None

    def manage(self, *args: str) -> str:
        """A management command with serve's environment; its stdout."""
        done = subprocess.run(
            [PYTHON, "manage.py", *args],
            cwd=ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if done.returncode != 0:
            raise ChaosError(f"manage.py {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
        return done.stdout

    def seed(self) -> str:
        """The demo enterprise, an all-scope access key on it (printed alone on the last line), no rate cap."""
        self.manage("demo_seed")
        secret = self.manage("accesskey", "create", "--enterprise", "demo", "--label", "chaos suite")
        with self.connect() as conn:
            conn.execute("UPDATE accounts_plan SET tool_calls_per_minute_per_project = %s", [UNLIMITED_CALLS])
        return secret.strip().splitlines()[-1]

    def sigint(self) -> None:
        """Ctrl-C, as a terminal gives it to serve."""
        assert self.serve is not None
        self.track()
        self.serve.send_signal(signal.SIGINT)

    def wait_exit(self, timeout: float) -> int | None:
        assert self.serve is not None
        try:
            return self.serve.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " | ".join(line for line in text.splitlines()[-lines:] if line.strip())

    # the process tree

    def _tree(self) -> list[psutil.Process]:
        if not self.serving():
            return []
        assert self.serve is not None
        try:
            return [psutil.Process(self.serve.pid), *psutil.Process(self.serve.pid).children(recursive=True)]
        except psutil.Error:
            return []

    def track(self) -> None:
        """Remember every process now in serve's tree and the postmaster's."""
        processes = self._tree()
        postmaster = self.postmaster_pid()
        if postmaster is not None:
            with suppress(psutil.Error):
                process = psutil.Process(postmaster)
                processes += [process, *process.children()]
        with self._lock:
            for process in processes:
                with suppress(psutil.Error):
                    self._seen.setdefault((process.pid, process.create_time()), process)

    def leftovers(self) -> list[str]:
        """What is still running of everything seen (after serve has exited, it should be nothing)."""
        with self._lock:
            seen = list(self._seen.values())
        return [_describe(process) for process in seen if _alive(process)]

    def worker_pid(self) -> int | None:
        """The Celery worker's main process: the topmost process of serve's tree running celery."""
        celery: dict[int, psutil.Process] = {}
        for process in self._tree():
            with suppress(psutil.Error):
                if "celery" in " ".join(process.cmdline()):
                    celery[process.pid] = process
        for pid, process in celery.items():
            with suppress(psutil.Error):
                if process.ppid() not in celery:
                    return pid
        return None

    def _postmaster_lines(self) -> list[str]:
        try:
            return (self.pgdata / "postmaster.pid").read_text(encoding="utf-8").splitlines()
        except OSError:
            return []

    def postmaster_pid(self) -> int | None:
        """The embedded server's postmaster (postmaster.pid's first line) when it runs on this data directory."""
        lines = self._postmaster_lines()
        if not lines or not lines[0].strip().isdigit():
            return None
        try:
            process = psutil.Process(int(lines[0]))
            if str(self.pgdata) in " ".join(process.cmdline()) and _alive(process):
                return process.pid
        except psutil.Error:
            pass
        return None

    def kill(self, pid: int) -> None:
        """SIGKILL one process, its tree remembered first (the clean-up ends what it orphans)."""
        self.track()
        with suppress(psutil.Error):
            process = psutil.Process(pid)
            with self._lock:
                for child in process.children(recursive=True):
                    self._seen.setdefault((child.pid, child.create_time()), child)
        os.kill(pid, signal.SIGKILL)

    # the database, for the checks

    @contextmanager
    def connect(self) -> Iterator[psycopg.Connection[Any]]:
        """The owner role over the embedded server's socket, every tenant visible (read for the checks)."""
        lines = self._postmaster_lines()
        if len(lines) < 5:
            raise ChaosError("the database has not started (no postmaster.pid)")
        with psycopg.connect(
            host=lines[4],
            port=int(lines[3]),
            dbname=DATABASE_NAME,
            user=OWNER_ROLE,
            autocommit=True,
            connect_timeout=5,
            options="-c app.all_tenants=on",
        ) as conn:
            yield conn

    def ensure_database(self, timeout: float = 90) -> None:
        """The database running for the checks: started here (and held until close) when nothing runs it."""
        if self.postmaster_pid() is not None or self._holder is not None:
            return
        # A killed postmaster's backends hold its shared memory; a new postmaster refuses to start beside them.
        for leftover in list(self._seen.values()):
            with suppress(psutil.Error):
                if _alive(leftover) and leftover.name() == "postgres":
                    leftover.kill()
        self._holder = subprocess.Popen(
            [PYTHON, "-c", _HOLD_DATABASE],
            cwd=ROOT,
            env=self.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self._postmaster_lines()
            if self.postmaster_pid() is not None and len(lines) >= 8 and lines[7].strip() == "ready":
                return
            if self._holder.poll() is not None:
                raise ChaosError("the database could not be started again for the checks")
            time.sleep(0.5)
        raise ChaosError("the database did not start again for the checks")

    # the end

    def close(self) -> None:
        """Stop serve as Ctrl-C does, then end whatever is left of it and of the database."""
        if self.serving():
            assert self.serve is not None
            self.sigint()
            if self.wait_exit(60) is None:
                self.serve.kill()
                self.serve.wait()
        if self._holder is not None:
            if self._holder.stdin is not None:
                with suppress(OSError):
                    self._holder.stdin.close()
            try:
                self._holder.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._holder.kill()
                self._holder.wait()
        postmaster = self.postmaster_pid()
        if postmaster is not None:
            with suppress(psutil.Error):
                process = psutil.Process(postmaster)
                process.send_signal(signal.SIGINT)  # fast shutdown
                try:
                    process.wait(timeout=20)
                except psutil.TimeoutExpired:
                    process.kill()
        with self._lock:
            seen = list(self._seen.values())
        for process in seen:
            if _alive(process):
                with suppress(psutil.Error):
                    process.kill()


class Redis:
    """A private redis-server without persistence: what a restart loses, it loses."""

    def __init__(self, root: Path) -> None:
        if shutil.which("redis-server") is None:
            raise ChaosError("redis-server is not installed")
        self.root = root
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20) -> None:
        with (self.root / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(self.root)],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.1)
        raise ChaosError(f"redis-server did not answer on port {self.port}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        self.kill()


@contextmanager
def private_root(name: str, *, keep: bool) -> Iterator[Path]:
    """A fresh directory for one experiment's data; serve's log is copied to bench/out/chaos/ at the end."""
    root = Path(tempfile.mkdtemp(prefix=f"mnemos-chaos-{name}-"))
    try:
        yield root
    finally:
        OUT.mkdir(parents=True, exist_ok=True)
        for log in ("serve.log", "redis.log"):
            if (root / log).exists():
                shutil.copyfile(root / log, OUT / f"{name}.{log}")
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


# Calls


@dataclass(frozen=True)
class Reply:
    """One call's outcome: ``error`` is its kind (status and body code, or what happened instead), or None."""

    status: int | None
    body: Any
    error: str | None
    seconds: float
    html: bool = False

    @property
    def retryable(self) -> bool:
        """An outage's answer (none, 5xx, 429): a client with an idempotency key tries again."""
        return self.error is not None and (self.status is None or self.status >= 500 or self.status == 429)


def _refusal_kind(response: httpx.Response, body: Any) -> str:
    code = body.get("code") if isinstance(body, dict) else None
    return f"{response.status_code} {code or 'no-code'}"


def _is_html(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").lower().startswith("text/html")


def _exchange(send: Callable[[], httpx.Response], read: Callable[[httpx.Response], Reply]) -> Reply:
    start = time.perf_counter()
    try:
        response = send()
    except httpx.TimeoutException:
        return Reply(None, None, "timeout", time.perf_counter() - start)
    except httpx.ConnectError:
        return Reply(None, None, "connection refused", time.perf_counter() - start)
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
        return Reply(None, None, "connection dropped", time.perf_counter() - start)
    except httpx.HTTPError as exc:
        return Reply(None, None, type(exc).__name__, time.perf_counter() - start)
    reply = read(response)
    return Reply(reply.status, reply.body, reply.error, time.perf_counter() - start, reply.html)


def _read_rest(response: httpx.Response) -> Reply:
    if _is_html(response):
        return Reply(response.status_code, None, f"{response.status_code} html", 0, html=True)
    try:
        body = response.json()
    except ValueError:
        return Reply(response.status_code, None, f"{response.status_code} not-json", 0)
    if response.is_success and isinstance(body, dict):
        return Reply(response.status_code, body, None, 0)
    return Reply(response.status_code, body, _refusal_kind(response, body), 0)


def _read_mcp(response: httpx.Response) -> Reply:
    status = response.status_code
    if _is_html(response):
        return Reply(status, None, f"mcp {status} html", 0, html=True)
    try:
        if "text/event-stream" in response.headers.get("content-type", ""):
            events = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
            message = json.loads(events[-1]) if events else None
        else:
            message = response.json()
    except ValueError:
        return Reply(status, None, f"mcp {status} not-json", 0)
    if response.is_success and message is None:
        return Reply(status, None, f"mcp {status} stream ended without a message", 0)
    if not isinstance(message, dict):
        return Reply(status, message, f"mcp {status} not-an-object", 0)
    error = message.get("error")
    if isinstance(error, dict):
        # A JSON-RPC error: Mnemos's own code rides in its data ({"error", "code"}), else the JSON-RPC code.
        detail = error.get("data")
        own = detail.get("code") if isinstance(detail, dict) else None
        return Reply(status, message, f"mcp {status} {own or 'jsonrpc ' + str(error.get('code'))}", 0)
    if not response.is_success:
        return Reply(status, message, f"mcp {_refusal_kind(response, message)}", 0)
    result = message.get("result") or {}
    texts = [item.get("text", "") for item in result.get("content", []) if isinstance(item, dict)]
    try:
        body = result.get("structuredContent") or (json.loads(texts[0]) if texts else None)
    except ValueError:
        body = texts[0] if texts else None
    if result.get("isError"):
        code = body.get("code") if isinstance(body, dict) else None
        return Reply(status, body, f"mcp isError {code or 'no-code'}", 0)
    return Reply(status, body, None, 0)


class Api:
    """REST tool calls and MCP ``tools/call`` with one access key (httpx is thread-safe)."""

    def __init__(self, base_url: str, key: str, *, timeout: float = 15.0, connections: int = 4) -> None:
        self.client = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {key}"},
            timeout=timeout,
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        )

    def tool(self, name: str, arguments: dict[str, Any], *, idempotency_key: str | None = None) -> Reply:
        headers = {"X-Idempotency-Key": idempotency_key} if idempotency_key else {}
        return _exchange(
            lambda: self.client.post(f"/v1/tools/{name}", json=arguments, headers=headers), _read_rest
        )

    def mcp_tool(self, name: str, arguments: dict[str, Any]) -> Reply:
        message = {
            "jsonrpc": "2.0",
            "id": uuid.uuid4().hex,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        headers = {"Accept": "application/json, text/event-stream"}
        return _exchange(lambda: self.client.post("/mcp", json=message, headers=headers), _read_mcp)

    def close(self) -> None:
        self.client.close()


TOPICS = (
    ("deploy", "staging goes out through the app-staging systemd unit"),
    ("incident", "the broker ran out of disk and the queue was drained by hand"),
    ("decision", "the platform team moved the nightly backup to 02:00 UTC"),
    ("customer", "the partner asked for the quarterly export in CSV"),
    ("oncall", "pager rotation changes hands on Mondays at noon"),
)


def save_arguments(content: str, *, client: str, topic: str, text: str) -> dict[str, Any]:
    return {
        "summary": f"Chaos client {client} recorded a {topic} note: {text}.",
        "entities": [{"name": f"chaos-client-{client}", "type": "system"}, {"name": topic, "type": "topic"}],
        "tags": [f"chaos/{topic}"],
        "content": content,
    }


@dataclass
class Tally:
    """What the clients saw: calls, errors by kind, HTML responses, and the acknowledged saves."""

    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    html: int = 0
    acknowledged: dict[str, str] = field(default_factory=dict)  # content -> event id
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)  # error kind -> the first body seen with it

    def record(self, op: str, reply: Reply, *, expected: bool = False) -> None:
        """One call; ``expected``: a refusal the experiment asks for (not an error)."""
        with self.lock:
            self.calls[op] += 1
            if reply.html:
                self.html += 1
            if reply.error is not None and not expected:
                kind = f"{op}: {reply.error}"
                self.errors[kind] += 1
                if kind not in self.samples and reply.body is not None:
                    self.samples[kind] = json.dumps(reply.body)[:300]
            elif reply.error is None:
                self.latencies_ms.setdefault(op, []).append(reply.seconds * 1000)

    def acknowledge(self, content: str, reply: Reply) -> None:
        event_id = reply.body.get("event_id") if isinstance(reply.body, dict) else None
        with self.lock:
            if event_id:
                self.acknowledged[content] = str(event_id)
            else:
                self.errors["save: 2xx without event_id"] += 1


OPS = ("save", "save/mcp", "search", "search/mcp")
WEIGHTS = (6, 1, 2, 1)


class Load:
    """``clients`` threads calling save_memory (REST with an idempotency key, and MCP) and search_memory.

    A REST save is retried with its key until it is acknowledged (2xx) or the load stops: what an agent
    does through an outage, and what makes a duplicate possible if idempotency fails. An MCP save has no
    key and is never retried. Every save's content is unique and starts with ``prefix``.

    ``rate``: calls a second each client starts (a late call starts at once, with no catch-up burst);
    0 is a closed loop, each call as soon as the last has answered.
    """

    def __init__(
        self, base_url: str, key: str, *, clients: int, prefix: str, tally: Tally, rate: float = 0
    ) -> None:
        self.base_url = base_url
        self.key = key
        self.clients = clients
        self.prefix = prefix
        self.tally = tally
        self.interval = 1 / rate if rate > 0 else 0.0
        self.stopping = threading.Event()
        self._threads = [
            threading.Thread(target=self._client, args=(n,), daemon=True, name=f"chaos-client-{n}")
            for n in range(clients)
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self, timeout: float = 30) -> None:
        self.stopping.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread.ident is not None:
                thread.join(max(0.1, deadline - time.monotonic()))

    def _client(self, number: int) -> None:
        rng = random.Random(f"{self.prefix}{number}")
        api = Api(self.base_url, self.key)
        n = 0
        due = time.monotonic() + rng.random() * self.interval  # the clients spread over one interval
        try:
            while not self.stopping.wait(max(0.0, due - time.monotonic())):
                due = max(due + self.interval, time.monotonic())
                op = rng.choices(OPS, WEIGHTS)[0]
                topic, text = rng.choice(TOPICS)
                if op.startswith("save"):
                    content = f"{self.prefix}{number}-{n} {text} (client {number}, save {n})"
                    arguments = save_arguments(content, client=str(number), topic=topic, text=text)
                    n += 1
                    if op == "save":
                        reply = self._save_until_acknowledged(api, arguments, f"{self.prefix}{number}-{n}")
                    else:
                        reply = api.mcp_tool("save_memory", arguments)
                        self.tally.record(op, reply)
                    if reply.error is None:
                        self.tally.acknowledge(content, reply)
                else:
                    query = f"What did chaos client {rng.randrange(self.clients)} record about the {topic}?"
                    call = api.mcp_tool if op == "search/mcp" else api.tool
                    reply = call("search_memory", {"query": query, "top_k": 5})
                    self.tally.record(op, reply)
                if reply.status is None:
                    self.stopping.wait(0.25)  # nothing answers: do not spin
        finally:
            api.close()

    def _save_until_acknowledged(self, api: Api, arguments: dict[str, Any], key: str) -> Reply:
        delay = 0.25
        while True:
            reply = api.tool("save_memory", arguments, idempotency_key=key)
            self.tally.record("save", reply)
            if not reply.retryable or self.stopping.wait(delay):
                return reply
            delay = min(2.0, delay * 2)


# /healthz


@dataclass(frozen=True)
class Probe:
    at: float  # time.monotonic() when sent
    status: int | None
    ms: float
    html: bool = False


class HealthPoller:
    """GET /healthz every half second for the whole experiment; latency and status of each."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.probes: list[Probe] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="chaos-healthz")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.ident is not None:
            self._thread.join(30)

    def _run(self) -> None:
        with httpx.Client(timeout=10) as client:
            due = time.monotonic()
            while not self._stopping.wait(max(0.0, due - time.monotonic())):
                due = time.monotonic() + HEALTH_INTERVAL_S
                start = time.perf_counter()
                status: int | None = None
                html = False
                with suppress(httpx.HTTPError):
                    response = client.get(f"{self.instance.base_url}/healthz")
                    status, html = response.status_code, _is_html(response)
                self.probes.append(
                    Probe(due - HEALTH_INTERVAL_S, status, (time.perf_counter() - start) * 1000, html)
                )
                self.instance.track()

    def max_ms(self) -> float:
        return max((p.ms for p in self.probes), default=0.0)

    def latencies_ms(self) -> list[float]:
        return [p.ms for p in self.probes]

    def slow(self) -> int:
        return sum(1 for p in self.probes if p.ms > HEALTH_LIMIT_S * 1000)

    def statuses(self) -> dict[str, int]:
        return dict(Counter(str(p.status) if p.status else "no answer" for p in self.probes))

    def green(self) -> bool:
        return bool(self.probes) and self.probes[-1].status == 200

    def recovery(
        self, since: float, *, deadline: float, alive: Callable[[], bool], never_red_s: float = 15
    ) -> float | None:
        """Seconds from ``since`` (the fault) to the first 200 after the first non-200 that followed it.

        0 when /healthz stayed green for ``never_red_s`` after the fault; None when it was not green
        again by ``deadline`` or when ``alive()`` says nothing is left to recover (serve exited).
        """
        while True:
            after = [p for p in list(self.probes) if p.at >= since]
            red = next((i for i, p in enumerate(after) if p.status != 200), None)
            if red is not None:
                green = next((p for p in after[red:] if p.status == 200), None)
                if green is not None:
                    return green.at + green.ms / 1000 - since
            elif after and time.monotonic() - since >= never_red_s and after[-1].status == 200:
                return 0.0
            if time.monotonic() >= deadline or not alive():
                return None
            time.sleep(0.25)


# The checks


@dataclass(frozen=True)
class Backlog:
    """The background work not yet done, across the instance's memories and its outbox."""

    memories: int
    without_vector: int
    archivist_waiting: int
    jobs_open: int | None  # pending or failed rows in accounts_job; None: no outbox table
    jobs_by_state: dict[str, int] = field(default_factory=dict)
    jobs_by_task: dict[str, int] = field(default_factory=dict)  # the open ones
    oldest_open_job_s: float | None = None
    most_sends: int | None = None  # of an open job: 1 = sent once, more = sent again by the sweeper
    last_job_error: str = ""

    @property
    def done(self) -> bool:
        return self.without_vector == 0 and self.archivist_waiting == 0 and not self.jobs_open


def backlog(conn: psycopg.Connection[Any]) -> Backlog:
    row = conn.execute(
        """
        SELECT count(*) FILTER (WHERE forgotten_at IS NULL),
               count(*) FILTER (WHERE embedding IS NULL AND forgotten_at IS NULL),
               count(*) FILTER (WHERE archivist_waiting)
        FROM memory_memory
        """
    ).fetchone()
    assert row is not None
    table = conn.execute("SELECT to_regclass('accounts_job')").fetchone()
    if table is None or table[0] is None:
        return Backlog(row[0], row[1], row[2], None)
    states = dict(conn.execute("SELECT state, count(*) FROM accounts_job GROUP BY state").fetchall())
    is_open = "state IN ('pending', 'failed')"
    tasks = dict(
        conn.execute(f"SELECT task, count(*) FROM accounts_job WHERE {is_open} GROUP BY task").fetchall()
    )
    ages = conn.execute(
        f"SELECT extract(epoch FROM now() - min(created_at))::float, max(sends) FROM accounts_job WHERE {is_open}"
    ).fetchone()
    last = conn.execute(
        f"SELECT coalesce(last_error, '') FROM accounts_job WHERE {is_open} AND last_error <> '' "
        "ORDER BY created_at DESC LIMIT 1"
    ).fetchone()
    return Backlog(
        memories=row[0],
        without_vector=row[1],
        archivist_waiting=row[2],
        jobs_open=sum(n for state, n in states.items() if state in ("pending", "failed")),
        jobs_by_state=states,
        jobs_by_task=tasks,
        oldest_open_job_s=round(ages[0], 1) if ages and ages[0] is not None else None,
        most_sends=ages[1] if ages else None,
        last_job_error=(last[0] if last else "")[:300],
    )


def wait_background(
    instance: Instance, *, since: float, deadline_s: float = BACKGROUND_DEADLINE_S
) -> tuple[float | None, Backlog | None, Backlog | None]:
    """Poll the backlog until it is empty or ``deadline_s`` after ``since``.

    (seconds taken, or None past the deadline; the first backlog seen; the last).
    """
    first: Backlog | None = None
    seen: Backlog | None = None
    while True:
        try:
            with instance.connect() as conn:
                seen = backlog(conn)
            first = first or seen
        except (psycopg.Error, ChaosError):
            pass  # the database restarting: look again
        if seen is not None and seen.done:
            return max(0.0, time.monotonic() - since), first, seen
        if time.monotonic() >= since + deadline_s:
            return None, first, seen
        time.sleep(1)


@dataclass(frozen=True)
class Writes:
    acknowledged: int
    present: int
    lost: int
    duplicated: int  # live rows beyond the first for one save's content
    unacknowledged_present: int  # saves that failed at the client but committed (not a fault)
    lost_ids: list[str]


def writes_check(conn: psycopg.Connection[Any], *, prefix: str, acknowledged: dict[str, str]) -> Writes:
    """Every acknowledged save present (its id, with its content), and no content saved twice."""
    rows = conn.execute(
        "SELECT id::text, content FROM memory_memory WHERE starts_with(content, %s) AND forgotten_at IS NULL",
        [prefix],
    ).fetchall()
    by_content: dict[str, list[str]] = {}
    for memory_id, content in rows:
        by_content.setdefault(content, []).append(memory_id)
    lost = [eid for content, eid in acknowledged.items() if eid not in by_content.get(content, [])]
    return Writes(
        acknowledged=len(acknowledged),
        present=len(acknowledged) - len(lost),
        lost=len(lost),
        duplicated=sum(len(ids) - 1 for ids in by_content.values()),
        unacknowledged_present=len(set(by_content) - set(acknowledged)),
        lost_ids=lost[:10],
    )


def verify_writes(instance: Instance, *, prefix: str, acknowledged: dict[str, str]) -> Writes:
    """``writes_check`` on the instance's database, started again for it when a fault left it down."""
    try:
        with instance.connect() as conn:
            return writes_check(conn, prefix=prefix, acknowledged=acknowledged)
    except (psycopg.Error, ChaosError):
        instance.ensure_database()
        with instance.connect() as conn:
            return writes_check(conn, prefix=prefix, acknowledged=acknowledged)


def snapshot_backlog(instance: Instance) -> Backlog | None:
    try:
        with instance.connect() as conn:
            return backlog(conn)
    except (psycopg.Error, ChaosError):
        return None


def run_id() -> str:
    return uuid.uuid4().hex[:10]
