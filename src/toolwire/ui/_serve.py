"""`toolwire ui`'s server: bound before anything is printed (so a busy port is a clear error and
port 0 picks a free one), on loopback unless asked, and then only with a token."""

from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import uvicorn

from ..errors import UsageError
from ._app import create_app

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    path: Path,
    *,
    port: int,
    host: str = LOOPBACK,
    open_browser: bool = True,
) -> None:
    """Serve the run log at `path` until interrupted (`port` 0: any free one)."""
    listening = _bind(host, port)
    port = listening.getsockname()[1]
    token = None if is_loopback(host) else secrets.token_urlsafe(24)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    hosts = frozenset({f"{shown}:{port}"} | _loopback_names(port)) if token is None else frozenset()
    app = create_app(path, token=token, hosts=hosts)
    print(f"toolwire ui: {url}  (Ctrl-C stops it)", flush=True)
    if token is not None:
        print("toolwire ui: anyone with this address can answer approvals", file=sys.stderr)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    _Server(config, app.close).run(sockets=[listening])


class _Server(uvicorn.Server):
    """Ends the live feeds as soon as it is told to stop (Ctrl-C, SIGTERM)."""

    def __init__(self, config: uvicorn.Config, closing: Callable[[], None]) -> None:
        super().__init__(config)
        self.closing = closing

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.closing()
        super().handle_exit(sig, frame)


def _loopback_names(port: int) -> set[str]:
    return {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as error:
        raise UsageError(
            f"cannot listen on {host}:{port} ({error.strerror}); choose another with --port"
        ) from None
