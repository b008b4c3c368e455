"""config/uvicorn_http.py: every accepted connection gets TCP_NODELAY, also on a socket bound as uvicorn's
``--workers`` binds it (``socket.socket(family)``, proto 0), where asyncio itself never sets it."""

from __future__ import annotations

import socket

from config import uvicorn_http


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


def test_serve_uses_the_c_parser_protocol():
    assert uvicorn_http.HTTP_PROTOCOL == "config.uvicorn_http:NoDelayHttpToolsProtocol"
    assert issubclass(uvicorn_http.NoDelayHttpToolsProtocol, uvicorn_http.HttpToolsProtocol)
