"""Fault injection for tests that run real processes: a TCP proxy in front of a real server.

``FaultProxy`` listens on 127.0.0.1:<port> and forwards every connection to its upstream (a TCP
address, or a Unix socket path: the embedded PostgreSQL listens on a socket only). Its faults:

- ``cut()`` closes every open connection and refuses new ones (the listening socket is closed: a client
  gets "connection refused", as from a stopped server);
- ``stall()`` keeps every connection open and forwards nothing, new ones accepted and left unanswered
  (a partition, a hung server: a client learns only from its own timeouts);
- ``restore()`` forwards again (stalled connections are closed: their clients gave up on them), on the
  same port.

Nothing of the client or the server is changed: the fault is on the wire.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType

Upstream = str | tuple[str, int]


class FaultProxy:
    def __init__(self, upstream: Upstream, *, port: int = 0) -> None:
        self.upstream = upstream
        self.port = port
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._held: set[socket.socket] = set()  # accepted while stalled, never forwarded
        self._stalled = threading.Event()
        self._threads: list[threading.Thread] = []

    # Lifecycle ---------------------------------------------------------------------------------

    def start(self) -> FaultProxy:
        self._listen()
        return self

    def stop(self) -> None:
        self.cut()
        for thread in self._threads:
            thread.join(timeout=2)

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def address(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    @property
    def forwarding(self) -> bool:
        with self._lock:
            return self._listener is not None

    # Faults ------------------------------------------------------------------------------------

    def cut(self) -> None:
        """Close every open connection (both sides) and refuse new ones."""
        self._stalled.clear()
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._open, self._held = self._open | self._held, set(), set()
        if listener is not None:
            _close(listener)
        for sock in sockets:
            _close(sock)

    def stall(self) -> None:
        """Forward nothing more, close nothing: open connections go silent, new ones get no answer."""
        self._stalled.set()
        if not self.forwarding:
            self._listen()

    def restore(self) -> None:
        """Forward again, on the same port; the connections that were stalled are closed first."""
        if self._stalled.is_set():
            with self._lock:
                sockets, self._open, self._held = self._open | self._held, set(), set()
            for sock in sockets:
                _close(sock)
            self._stalled.clear()
        if not self.forwarding:
            self._listen()

    # Forwarding --------------------------------------------------------------------------------

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._listener = listener
        self._spawn(self._accept, listener)

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        thread.start()
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # closed by cut()
                return
            if self._stalled.is_set():
                with self._lock:
                    self._held.add(client)
                continue
            try:
                server = self._connect_upstream()
            except OSError:
                _close(client)
                continue
            with self._lock:
                if self._listener is not listener:  # cut while connecting
                    _close(client)
                    _close(server)
                    continue
                self._open.update((client, server))
            self._spawn(self._pump, client, server)
            self._spawn(self._pump, server, client)

    def _connect_upstream(self) -> socket.socket:
        if isinstance(self.upstream, str):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        else:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.connect(self.upstream)
        except OSError:
            sock.close()
            raise
        return sock

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                while self._stalled.is_set():  # held: restore() closes this connection
                    time.sleep(0.05)
                sink.sendall(data)
        except OSError:  # closed by cut() or restore(), or by either end
            return
        finally:
            # One side is done: so is the connection (PostgreSQL's protocol has no half-close).
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            _close(source)
            _close(sink)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # not connected, or closed already
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
