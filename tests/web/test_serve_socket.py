"""The listening socket of ``serve --workers N`` (``paperscope.serve_workers``): replies go out at once.

A response that uvicorn writes in two parts (headers, then body) on a kept-alive connection
waited for the client's delayed ACK (~40 ms on Linux) whenever Nagle's algorithm was left on:
asyncio turns it off (``TCP_NODELAY``) only on sockets whose ``proto`` says TCP, and an
accepted socket takes the listening socket's ``proto``.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from paperscope import serve_workers

pytestmark = pytest.mark.skipif(
    not serve_workers.reuse_port_balances(), reason="the SO_REUSEPORT workers run on Linux only"
)


def _nodelay_of_an_accepted_connection(sock: socket.socket) -> int:
    """Serve ``sock`` with asyncio (as uvicorn does) and return TCP_NODELAY of one accepted connection."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        seen: asyncio.Future[int] = loop.create_future()

        class Accept(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                accepted = transport.get_extra_info("socket")
                seen.set_result(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        server = await loop.create_server(Accept, sock=sock)
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        try:
            return await asyncio.wait_for(seen, 10)
        finally:
            writer.close()
            server.close()
            await server.wait_closed()

    return asyncio.run(main())


def test_a_workers_accepted_connections_have_nagle_turned_off():
    sock = serve_workers._listening_socket("127.0.0.1", 0, 8)
    assert sock.proto == socket.IPPROTO_TCP
    assert _nodelay_of_an_accepted_connection(sock) != 0
