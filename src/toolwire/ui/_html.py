"""Server-rendered pages. Every value shown went through `esc`: a model, a tool or a prompt wrote
it, and tool output especially is untrusted, so `<script>` in a result is text on the page."""

from __future__ import annotations

import html
import json
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode

from ._data import LIST_LIMIT, STOP_REASONS, RunFilter

PREVIEW_CHARS = 600
"""A longer result is cut to this on the page; the rest is fetched when asked for."""


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


def page(title: str, main: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · toolwire</title>"
        '<link rel=icon href="data:,"><link rel=stylesheet href="/static/ui.css">'
        '<script src="/static/ui.js" defer></script>'
        '</head><body><header><a class=brand href="/">toolwire</a><span>runs</span></header>'
        f"{main}</body></html>"
    )


def live(feed: str, source: str, inner: str, *, done: bool = False) -> str:
    """The part of a page that redraws itself when its feed says the log changed."""
    finished = " data-done" if done else ""
    return (
        f'<main id=live data-feed="{esc(feed)}" data-src="{esc(source)}"{finished}>{inner}</main>'
    )


def when(timestamp: float | None) -> str:
    if timestamp is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp))


def seconds(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"


def badge(stop_reason: str | None) -> str:
    reason = stop_reason or "running"
    return f'<span class="badge end-{esc(reason)}">{esc(reason.replace("_", " "))}</span>'


def filter_form(chosen: RunFilter, models: Iterable[str]) -> str:
    def options(values: Iterable[str], selected: str | None, anything: str) -> str:
        shown = [f'<option value="">{esc(anything)}</option>']
        for value in values:
            mark = " selected" if value == selected else ""
            shown.append(f'<option value="{esc(value)}"{mark}>{esc(value)}</option>')
        return "".join(shown)

    since = chosen.since.isoformat() if chosen.since else ""
    until = chosen.until.isoformat() if chosen.until else ""
    return (
        '<form class=filters method=get action="/">'
        f'<input type=search name=q placeholder="search prompts, answers, ids" '
        f'value="{esc(chosen.text or "")}">'
        f"<select name=model>{options(models, chosen.model, 'any model')}</select>"
        f"<select name=stop_reason>{options(STOP_REASONS, chosen.stop_reason, 'any end')}"
        "</select>"
        f'<label>from <input type=date name=since value="{esc(since)}"></label>'
        f'<label>to <input type=date name=until value="{esc(until)}"></label>'
        '<button type=submit>Filter</button> <a href="/">clear</a></form>'
    )


def runs_table(runs: list[dict[str, Any]]) -> str:
    if not runs:
        return "<p class=empty>No runs match.</p>"
    rows = "".join(
        f'<tr><td><a href="/runs/{quote(r["id"])}">{esc(r["id"][:12])}</a></td>'
        f"<td>{esc(when(r['started_at']))}</td><td>{esc(r['model'])}</td>"
        f"<td class=prompt>{esc((r['prompt'] or '')[:140])}</td>"
        f"<td>{badge(r['stop_reason'])}</td><td class=num>{esc(r['steps'] or 0)}</td>"
        f"<td class=num>{r['input_tokens'] + r['output_tokens']:,}</td>"
        f"<td class=num>{esc(seconds(r['seconds']))}</td></tr>"
        for r in runs
    )
    more = ""
    if len(runs) == LIST_LIMIT:
        more = f"<p class=empty>The latest {LIST_LIMIT} shown: filter to find older runs.</p>"
    return (
        "<table class=runs><thead><tr><th>run</th><th>started</th><th>model</th><th>prompt</th>"
        "<th>end</th><th>steps</th><th>tokens</th><th>time</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>{more}"
    )


def approval_form(waiting: dict[str, Any], *, show_run: bool) -> str:
    run_id, call_id = waiting["run_id"], waiting["call_id"]
    url = f"/api/runs/{quote(run_id)}/approvals/{quote(call_id, safe='')}"
    link = f' in run <a href="/runs/{quote(run_id)}">{esc(run_id[:12])}</a>' if show_run else ""
    arguments = esc(json.dumps(waiting["arguments"], indent=2, ensure_ascii=False))
    return (
        f'<form class=approval data-keep="approval {esc(run_id)} {esc(call_id)}" '
        f'data-url="{esc(url)}"><p><strong>{esc(waiting["name"])}</strong> waits for approval'
        f'{link} <span class="side-effect {esc(waiting["side_effect"])}">'
        f"{esc(waiting['side_effect'].replace('_', '-'))}</span></p>"
        f"<pre class=arguments>{arguments}</pre><div class=actions>"
        "<button type=button data-answer=approve class=approve>Approve</button>"
        '<input name=message placeholder="reason (optional)" aria-label="reason for declining">'
        "<button type=button data-answer=decline class=decline>Decline</button></div>"
        "<details><summary>Edit arguments</summary>"
        f"<textarea name=arguments rows=6 spellcheck=false>{arguments}</textarea>"
        "<button type=button data-answer=edit>Run with these arguments</button></details>"
        "<p class=status role=status></p></form>"
    )


def runs_main(runs: list[dict[str, Any]], waiting: list[dict[str, Any]]) -> str:
    approvals = ""
    if waiting:
        forms = "".join(approval_form(w, show_run=True) for w in waiting)
        approvals = f"<section class=waiting><h2>Waiting for you</h2>{forms}</section>"
    return approvals + runs_table(runs)


def runs_page(
    runs: list[dict[str, Any]],
    waiting: list[dict[str, Any]],
    chosen: RunFilter,
    models: Iterable[str],
) -> str:
    query = urlencode({**chosen.as_query(), "part": "main"})
    body = filter_form(chosen, models) + live("/api/events", f"/?{query}", runs_main(runs, waiting))
    return page("runs", body)


def message(text: str) -> str:
    return f"<main><p class=empty>{esc(text)}</p></main>"
