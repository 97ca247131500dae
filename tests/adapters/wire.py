"""A local HTTP server for adapter tests: plays scripted replies and records every request.

It speaks plain HTTP/1.1 on 127.0.0.1. Streaming replies go out with chunked transfer encoding,
cut where the test says (every byte, at random, ...) with a short pause between pieces so the
client really receives them apart; a reply can also drop the connection part-way. The API-specific
modules beside this one build the bodies (SSE for OpenAI, Anthropic and Gemini, AWS event-stream
frames for Bedrock).
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Chunker = Callable[[bytes], Iterable[bytes]]


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    stream: bool = False
    chunks: Chunker | None = None
    """How a streamed body is cut into pieces (default: one piece)."""
    drop_after: int | None = None
    """Close the connection abruptly after this many body bytes (no terminating chunk)."""
    pause: float = 0.0005


def json_reply(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Reply:
    return Reply(status=status, body=json.dumps(body).encode(), headers=headers or {})


def every_byte(body: bytes) -> Iterator[bytes]:
    return (body[i : i + 1] for i in range(len(body)))


def split_at(*points: int) -> Chunker:
    def chunks(body: bytes) -> Iterator[bytes]:
        edges = [0, *sorted(p for p in points if 0 < p < len(body)), len(body)]
        return (body[a:b] for a, b in itertools.pairwise(edges) if b > a)

    return chunks


class WireServer:
    """`with WireServer() as server:` ... `server.script(reply, ...)`; `server.requests`."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def __enter__(self) -> WireServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def _take(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if self._replies:
                return self._replies.pop(0)
        return json_reply({"error": {"message": "no scripted reply left"}}, status=599)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up early (an error frame ended its stream) is part of the script.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(server: WireServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server._take(Recorded(self.command, self.path, headers, body))
            self._send(reply)

        do_GET = do_POST

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if not reply.stream:
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            body = reply.body
            if reply.drop_after is not None:
                body = body[: reply.drop_after]
            pieces = list(reply.chunks(body) if reply.chunks else [body])
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                if len(pieces) > 1:
                    time.sleep(reply.pause)
            if reply.drop_after is not None:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler
