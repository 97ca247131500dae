"""The web app: pages, the same data as JSON, live feeds and answers to waiting calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import UsageError
from ..log import RunLog
from . import _data, _html, _run_html
from ._answer import decision_from
from ._guard import Guard
from ._live import LogWatcher, feed

STATIC = Path(__file__).parent / "static"
MAX_ANSWER_BYTES = 1_000_000


def create_app(
    path: Path, *, token: str | None = None, hosts: frozenset[str] = frozenset()
) -> Guard:
    """The ASGI app over the run log at `path`. `hosts`: the Host headers accepted (empty: any);
    `token`: required on every request when set (see `Guard`). Call its `close()` before
    stopping the server."""
    RunLog(path).close()  # creates or upgrades the log before anything reads it
    watcher = LogWatcher(path)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            group.start_soon(watcher.watch)
            yield
            group.cancel_scope.cancel()

    pages = _Pages(path, watcher)
    routes = [
        Route("/", pages.runs),
        Route("/runs/{run_id}", pages.run),
        Route("/api/runs", pages.runs_json),
        Route("/api/runs/{run_id}", pages.run_json),
        # Call ids come from providers, and may hold a slash.
        Route("/api/runs/{run_id}/calls/{call_id:path}", pages.call_json),
        Route("/api/approvals", pages.approvals_json),
        Route("/api/runs/{run_id}/approvals/{call_id:path}", pages.answer, methods=["POST"]),
        Route("/api/events", pages.events),
        Route("/api/runs/{run_id}/events", pages.run_events),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, max_body_size=MAX_ANSWER_BYTES)
    return Guard(app, token=token, hosts=hosts, on_close=watcher.close)


@contextmanager
def _opened(path: Path) -> Iterator[RunLog]:
    log = RunLog(path)
    try:
        yield log
    finally:
        log.close()


def _refused(error: UsageError, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=status)


class _Pages:
    """The endpoints. Synchronous ones run in Starlette's thread pool, each with its own
    connection to the log (SQLite in WAL mode: readers never wait for a run's writes)."""

    def __init__(self, path: Path, watcher: LogWatcher) -> None:
        self.path = path
        self.watcher = watcher

    def runs(self, request: Request) -> Response:
        try:
            chosen = _data.RunFilter.from_query(request.query_params)
        except UsageError as error:
            return HTMLResponse(_html.page("runs", _html.message(str(error))), status_code=400)
        with _opened(self.path) as log:
            runs = _data.run_list(log, chosen)
            waiting = _data.approval_list(log)
            if request.query_params.get("part") == "main":
                return HTMLResponse(_html.runs_main(runs, waiting))
            return HTMLResponse(_html.runs_page(runs, waiting, chosen, log.models()))

    def run(self, request: Request) -> Response:
        with _opened(self.path) as log:
            run = _data.run_detail(log, request.path_params["run_id"])
        if run is None:
            return HTMLResponse(_html.page("no such run", _html.message("No such run.")), 404)
        if request.query_params.get("part") == "main":
            return HTMLResponse(_run_html.run_main(run))
        return HTMLResponse(_run_html.run_page(run))

    def runs_json(self, request: Request) -> Response:
        try:
            chosen = _data.RunFilter.from_query(request.query_params)
        except UsageError as error:
            return _refused(error)
        with _opened(self.path) as log:
            return JSONResponse(_data.run_list(log, chosen))

    def run_json(self, request: Request) -> Response:
        with _opened(self.path) as log:
            run = _data.run_detail(log, request.path_params["run_id"])
        if run is None:
            return _refused(UsageError("no such run"), 404)
        return JSONResponse(run)

    def call_json(self, request: Request) -> Response:
        with _opened(self.path) as log:
            call = _data.call_detail(
                log, request.path_params["run_id"], request.path_params["call_id"]
            )
        if call is None:
            return _refused(UsageError("no such call"), 404)
        return JSONResponse(call)

    def approvals_json(self, request: Request) -> Response:
        with _opened(self.path) as log:
            return JSONResponse(_data.approval_list(log))

    async def answer(self, request: Request) -> Response:
        body = await request.body()  # at most MAX_ANSWER_BYTES: Starlette answers 413 beyond
        try:
            posted = json.loads(body)
        except ValueError:
            return _refused(UsageError("the answer is not JSON"))
        run_id, call_id = request.path_params["run_id"], request.path_params["call_id"]
        return await anyio.to_thread.run_sync(self._answer, run_id, call_id, posted)

    def _answer(self, run_id: str, call_id: str, posted: Any) -> Response:
        with _opened(self.path) as log:
            waiting = next((w for w in log.pending_approvals(run_id) if w.call_id == call_id), None)
            if waiting is None:
                return _refused(UsageError("this call is not waiting for an answer"), 409)
            try:
                decision = decision_from(posted, waiting)
            except UsageError as error:
                return _refused(error)
            if not log.answer_approval(run_id, call_id, decision):
                return _refused(UsageError("this call was answered meanwhile"), 409)
        return JSONResponse({"answered": type(decision).__name__.lower()})

    def events(self, request: Request) -> Response:
        return self._stream(lambda log: log.changes())

    def run_events(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        return self._stream(lambda log: log.changes(run_id))

    def _stream(self, marker: Callable[[RunLog], Any]) -> Response:
        return StreamingResponse(
            feed(self.watcher, self.path, marker),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store"},
        )
