"""The JSON API, the pages' escaping, and who may use them: a real server on a free port."""

from __future__ import annotations

import http.client
import json
import sqlite3
import time
import urllib.parse
import urllib.request
from datetime import date, timedelta
from pathlib import Path

from tests.ui.conftest import HOSTILE, LONG, Served, request, start, stop
from toolwire.events import RunStarted, StepStarted
from toolwire.log import RunLog
from toolwire.ui._data import LIST_LIMIT


def test_runs_are_listed_with_steps_tokens_and_time(
    served: Served, seeded: tuple[Path, dict[str, str]]
) -> None:
    _, ids = seeded
    runs = served.json("/api/runs")
    assert [r["id"] for r in runs] == [ids["plain"], ids["hostile"]]
    hostile = runs[1]
    assert hostile["model"] == "scripted-a" and hostile["stop_reason"] == "answer"
    assert hostile["steps"] == 2 and hostile["input_tokens"] > 0 and hostile["output_tokens"] > 0
    assert 0 <= hostile["seconds"] < 30 and hostile["running"] is False


def test_runs_are_filtered(served: Served, seeded: tuple[Path, dict[str, str]]) -> None:
    _, ids = seeded

    def listed(query: str) -> list[str]:
        return [r["id"] for r in served.json(f"/api/runs?{query}")]

    assert listed("model=scripted-b") == [ids["plain"]]
    assert listed("q=EVIL") == [ids["hostile"]]  # the prompt, ignoring case
    assert listed("q=two+pages") == [ids["hostile"]]  # the answer
    assert listed(f"q={ids['plain'][:10]}") == [ids["plain"]]
    assert listed("stop_reason=answer") == [ids["plain"], ids["hostile"]]
    assert listed("stop_reason=running") == []
    today = date.today()
    assert len(listed(f"since={today}&until={today}")) == 2
    assert listed(f"since={today + timedelta(days=1)}") == []
    assert listed(f"until={today - timedelta(days=1)}") == []
    status, _, body = served.get("/api/runs?since=yesterday")
    assert status == 400 and b"since must be a date" in body
    status, _, body = served.get("/api/runs?stop_reason=whatever")
    assert status == 400 and b"stop_reason must be one of" in body


def test_one_run_is_a_timeline_of_turns_and_calls(
    served: Served, seeded: tuple[Path, dict[str, str]]
) -> None:
    _, ids = seeded
    run = served.json(f"/api/runs/{ids['hostile']}")
    assert run["history"] == [{"role": "user", "text": "read the evil page", "calls": []}]
    first, second = run["timeline"]
    assert first["text"] == "Fetching <b>both</b>." and second["text"] == "Done: <i>two pages</i>."
    assert first["input_tokens"] > 0 and first["seconds"] >= 0
    hostile, long, failed = first["calls"]
    assert hostile["result"] == HOSTILE and hostile["is_error"] is False
    assert long["result"] == LONG and long["result_chars"] == len(LONG)
    assert failed["is_error"] is True and "disk full" in failed["result"]
    assert all(c["state"] == "done" and c["duration"] >= 0 for c in first["calls"])
    assert served.json(f"/api/runs/{ids['hostile']}/calls/{long['call_id']}")["result"] == LONG
    assert served.get("/api/runs/nope")[0] == 404
    assert served.get(f"/api/runs/{ids['hostile'][:8]}")[0] == 404  # pages need the whole id
    assert served.get(f"/api/runs/{ids['hostile']}/calls/nope")[0] == 404


def test_what_a_model_or_tool_wrote_is_escaped(
    served: Served, seeded: tuple[Path, dict[str, str]]
) -> None:
    _, ids = seeded
    status, headers, body = served.get(f"/runs/{ids['hostile']}")
    page = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    assert "<script>window" not in page and "<img" not in page and "<b>both" not in page
    assert "Done: &lt;i&gt;two pages&lt;/i&gt;." in page
    # The long result is cut on the page, the rest fetched on demand.
    assert page.count("line of a long result") < LONG.count("line of a long result")
    assert f"show all {len(LONG):,} characters" in page
    listing = served.get("/?q=evil")[2].decode()
    assert "read the evil page" in listing and ids["plain"][:12] not in listing


def test_off_loopback_every_request_needs_the_token(
    seeded: tuple[Path, dict[str, str]],
) -> None:
    path, _ = seeded
    running = start(path, token="s3cret-token", loopback_only=False)
    base = f"http://127.0.0.1:{running.port}"
    try:
        status, _, body = request(base + "/api/runs")
        assert status == 401 and b"token" in body
        assert request(base + "/api/runs?token=wrong")[0] == 401
        assert request(base + "/", headers={"Authorization": "Bearer wrong"})[0] == 401
        status, headers, _ = request(base + "/?token=s3cret-token")
        assert status == 200
        cookie = headers["set-cookie"].split(";")[0]
        assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
        assert request(base + "/api/runs", headers={"Cookie": cookie})[0] == 200
        bearer = {"Authorization": "Bearer s3cret-token"}
        assert request(base + "/api/runs", headers=bearer)[0] == 200
        assert request(base + "/static/ui.js")[0] == 401
    finally:
        stop(running)


def test_on_loopback_only_this_server_s_name_is_answered(served: Served) -> None:
    status, _, body = served.get("/api/runs", Host="evil.example:80")
    assert status == 421 and b"answers to 127.0.0.1:" in body


def test_answers_come_as_json_from_this_page_only(served: Served) -> None:
    foreign = {"Origin": "http://evil.example"}
    assert served.post("/api/runs/r/approvals/c", {"answer": "approve"}, **foreign)[0] == 403
    form = urllib.request.Request(
        served.url + "/api/runs/r/approvals/c", data=b"answer=approve", method="POST"
    )
    form.add_header("Content-Type", "application/x-www-form-urlencoded")
    status, _, _ = request(form.full_url, data=form.data, headers=dict(form.header_items()))
    assert status == 415
    # The refusal is read whole however much of a body came with it: the server reads the body
    # it refuses, so the connection is not reset under the client's feet.
    for _ in range(20):
        padded = b"answer=approve&padding=" + b"x" * 60_000
        status, _, body = request(form.full_url, data=padded, headers=dict(form.header_items()))
        assert (status, body) == (415, b"toolwire ui: answers are JSON\n")
    status, reply = served.post("/api/runs/r/approvals/c", {"answer": "approve"})
    assert status == 409 and "not waiting" in reply["error"]
    assert _declared_too_large(served.url, "/api/runs/r/approvals/c") == 413


def _declared_too_large(url: str, path: str) -> int:
    """The status of an answer declaring a body past the limit. Only the headers are sent: the
    server refuses before reading, and a client still sending would meet a closed socket."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.putrequest("POST", path)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(2_000_000))
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def test_the_feed_sends_a_change_when_the_run_is_written(
    served: Served, seeded: tuple[Path, dict[str, str]]
) -> None:
    path, ids = seeded
    run_id = ids["plain"]
    feed = urllib.request.urlopen(f"{served.url}/api/runs/{run_id}/events", timeout=10)
    assert feed.headers["content-type"].startswith("text/event-stream")
    assert feed.readline() == b"event: change\n"
    first = json.loads(feed.readline().removeprefix(b"data: "))
    assert feed.readline() == b"\n"
    written = time.monotonic()
    log = RunLog(path)
    log.record(run_id, StepStarted(step=9))
    log.close()
    assert feed.readline() == b"event: change\n"
    second = json.loads(feed.readline().removeprefix(b"data: "))
    assert second != first and time.monotonic() - written < 2
    feed.close()


def test_the_list_shows_the_latest_runs_and_says_so(served: Served) -> None:
    log = RunLog(served.log_path)
    for n in range(LIST_LIMIT):
        run_id = f"extra-{n}"
        log.record(run_id, RunStarted(run_id=run_id, model="m", prompt="p", started_at=2e9 + n))
    log.close()
    runs = served.json("/api/runs")
    assert len(runs) == LIST_LIMIT and runs[0]["id"] == f"extra-{LIST_LIMIT - 1}"
    assert runs[0]["running"] and runs[0]["steps"] is None
    assert f"The latest {LIST_LIMIT} shown" in served.get("/")[2].decode()
    assert "The latest" not in served.get("/?model=scripted-a")[2].decode()


def test_a_run_logged_before_step_times_still_shows_its_steps(
    served: Served, seeded: tuple[Path, dict[str, str]]
) -> None:
    path, ids = seeded
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM step_times WHERE run_id = ?", (ids["hostile"],))
    db.close()
    first, second = served.json(f"/api/runs/{ids['hostile']}")["timeline"]
    assert (first["step"], first["started_at"], first["seconds"]) == (1, None, None)
    assert len(first["calls"]) == 3 and second["text"] == "Done: <i>two pages</i>."
    assert first["input_tokens"] > 0
    assert served.get(f"/runs/{ids['hostile']}")[0] == 200
