"""core/uvicorn_http.py: every accepted connection gets TCP_NODELAY, also on a socket bound as uvicorn's
``--workers`` binds it (``socket.socket(family)``, proto 0), where asyncio itself never sets it."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from core import uvicorn_http


class _Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str) -> socket.socket | None:
        return self.sock if name == "socket" else None


def test_accepted_connections_get_tcp_nodelay():
    listener = socket.socket(family=socket.AF_INET)  # as uvicorn's Config.bind_socket does
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        assert accepted.proto == 0  # what keeps asyncio from setting it
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
        uvicorn_http._no_delay(_Transport(accepted))  # type: ignore[arg-type]
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        for s in (client, accepted, listener):
            s.close()


async def _hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"5")]})
    await send({"type": "http.response.body", "body": b"hello"})


def _served_nodelay(protocol: str) -> tuple[int, bytes]:
    """Serve one request with uvicorn's protocol ``protocol`` (as ``--http`` names it) on a socket bound as
    ``--workers`` binds it; the accepted connection's TCP_NODELAY and the response."""
    config = uvicorn.Config(app=_hello, http=protocol, lifespan="off", log_level="warning")
    config.load()
    listener = socket.socket(family=socket.AF_INET)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    async def exchange() -> tuple[int, bytes]:
        made: list[Any] = []
        protocol_class: Any = (
            config.http_protocol_class
        )  # typed as asyncio.Protocol; built as uvicorn builds it

        def factory() -> asyncio.Protocol:
            made.append(protocol_class(config=config, server_state=ServerState(), app_state={}))
            return made[-1]

        server = await asyncio.get_running_loop().create_server(factory, sock=listener)
        reader, writer = await asyncio.open_connection(*listener.getsockname()[:2])
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
            response = await reader.readuntil(b"hello")
            accepted = made[0].transport.get_extra_info("socket")  # the connection is kept alive
            return accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY), response
        finally:
            writer.close()
            server.close()
            await server.wait_closed()

    return asyncio.run(exchange())


def test_uvicorn_loads_the_protocol_serve_names_and_it_sets_tcp_nodelay():
    nodelay, response = _served_nodelay(uvicorn_http.HTTP_PROTOCOL)
    assert nodelay != 0
    assert response.startswith(b"HTTP/1.1 200 OK") and response.endswith(b"hello")
    # Without it (uvicorn's own httptools protocol) the same socket keeps Nagle's algorithm on.
    nodelay, _ = _served_nodelay("httptools")
    assert nodelay == 0
