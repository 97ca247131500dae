"""One run's page: a summary, a bar per step for its tokens and time, and the conversation as a
timeline of model turns and tool calls."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ._html import (
    PREVIEW_CHARS,
    approval_form,
    badge,
    esc,
    live,
    page,
    pretty,
    seconds,
    when,
)


def run_page(run: dict[str, Any]) -> str:
    run_id = quote(run["id"])
    inner = live(
        f"/api/runs/{run_id}/events", f"/runs/{run_id}?part=main", run_main(run), done=_done(run)
    )
    return page(f"run {run['id'][:12]}", inner)


def _done(run: dict[str, Any]) -> bool:
    return not run["running"] and not run["waiting"]


def run_main(run: dict[str, Any]) -> str:
    # The feed stops once nothing more can change; the fragment says so to the page.
    marker = "<span hidden data-finished></span>" if _done(run) else ""
    return (
        _summary(run)
        + "".join(approval_form(w, show_run=False) for w in run["waiting"])
        + _bars(run["timeline"])
        + _timeline(run)
        + marker
    )


def _summary(run: dict[str, Any]) -> str:
    tokens = f"{run['input_tokens']:,} in · {run['output_tokens']:,} out"
    error = f"<p class=error>{esc(run['error'])}</p>" if run["error"] else ""
    answer = ""
    if run["output"]:
        answer = f"<h2>Answer</h2><div class=answer>{esc(run['output'])}</div>"
    return (
        f"<h1>run <code>{esc(run['id'])}</code> {badge(run['stop_reason'])}</h1>"
        f"<dl class=summary><dt>model</dt><dd>{esc(run['model'])}</dd>"
        f"<dt>started</dt><dd>{esc(when(run['started_at']))}</dd>"
        f"<dt>time</dt><dd>{esc(seconds(run['seconds']))}</dd>"
        f"<dt>steps</dt><dd>{esc(run['steps'] or 0)}</dd><dt>tokens</dt><dd>{tokens}</dd></dl>"
        f"{error}{answer}"
    )


def _bars(steps: list[dict[str, Any]]) -> str:
    if not steps:
        return ""
    most_tokens = max(s["input_tokens"] + s["output_tokens"] for s in steps) or 1
    longest = max(s["seconds"] or 0.0 for s in steps) or 1.0
    rows = []
    for s in steps:
        given = 100 * s["input_tokens"] / most_tokens
        written = 100 * s["output_tokens"] / most_tokens
        took = 100 * (s["seconds"] or 0.0) / longest
        rows.append(
            f'<tr><th><a href="#step-{s["step"]}">step {s["step"]}</a></th>'
            f'<td><div class=bar><span class=in style="width:{given:.1f}%"></span>'
            f'<span class=out style="width:{written:.1f}%"></span></div>'
            f"<small>{s['input_tokens']:,} in · {s['output_tokens']:,} out</small></td>"
            f'<td><div class=bar><span class=time style="width:{took:.1f}%">'
            f"</span></div><small>{esc(seconds(s['seconds']))}</small></td></tr>"
        )
    return (
        "<h2>Steps</h2><table class=bars><thead><tr><th></th><th>tokens</th><th>time</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _timeline(run: dict[str, Any]) -> str:
    items = [_history(m) for m in run["history"]]
    items += [_step(run["id"], s) for s in run["timeline"]]
    items += [
        f"<li class=dropped>step {esc(d['step'])}: a call to {esc(d['name'])} was dropped: "
        f"{esc('; '.join(d['changes']))}</li>"
        for d in run["dropped"]
    ]
    return f"<h2>Timeline</h2><ol class=timeline>{''.join(items)}</ol>"


def _history(message: dict[str, Any]) -> str:
    calls = "".join(
        f"<pre class=arguments>→ {esc(c['name'])} {esc(pretty(c['arguments']))}</pre>"
        for c in message["calls"]
    )
    text = f"<div class=text>{esc(message['text'])}</div>" if message["text"] else ""
    role = esc(message["role"])
    return f'<li class="message {role}"><b>{role}</b>{text}{calls}</li>'


def _step(run_id: str, step: dict[str, Any]) -> str:
    head = (
        f'<h3 id="step-{step["step"]}">step {step["step"]} <small>{esc(seconds(step["seconds"]))}'
        f" · {step['input_tokens']:,} in · {step['output_tokens']:,} out</small></h3>"
    )
    if not step["replied"]:
        return f"<li class=step>{head}<p class=pending>waiting for the model…</p></li>"
    reasoning = ""
    if step["reasoning"]:
        reasoning = (
            "<details class=reasoning><summary>reasoning</summary>"
            f"{esc(step['reasoning'])}</details>"
        )
    text = f"<div class=text>{esc(step['text'])}</div>" if step["text"] else ""
    calls = "".join(_call(run_id, c) for c in step["calls"])
    return f"<li class=step>{head}{reasoning}{text}{calls}</li>"


def _call(run_id: str, call: dict[str, Any]) -> str:
    flags = [_state(call)]
    if call.get("interrupted"):
        flags.append("<span class='flag error'>interrupted</span>")
    if call.get("duration") is not None:
        flags.append(f"<span class=duration>{esc(seconds(call['duration']))}</span>")
    edited = ""
    if call.get("edited_arguments") is not None:
        edited = (
            f"<p>edited to</p><pre class=arguments>{esc(pretty(call['edited_arguments']))}</pre>"
        )
    corrections = "".join(
        f"<p class=correction>corrected: {esc('; '.join(c['changes']))}</p>"
        for c in call["corrections"]
    )
    return (
        f'<div class="call {esc(call["state"])}" data-call="{esc(call["call_id"])}">'
        f"<p><strong>{esc(call['name'])}</strong> {' '.join(flags)}</p>"
        f"<pre class=arguments>{esc(pretty(call['arguments']))}</pre>{edited}{corrections}"
        f"{_approver(call)}{_result(run_id, call)}</div>"
    )


def _state(call: dict[str, Any]) -> str:
    if call["state"] != "done":
        return f"<span class='flag {esc(call['state'])}'>{esc(call['state'])}…</span>"
    if call["is_error"]:
        return "<span class='flag error'>error</span>"
    return "<span class='flag ok'>ok</span>"


def _approver(call: dict[str, Any]) -> str:
    if not call.get("decided_by"):
        return ""
    waited = call.get("decision_time")
    after = f" after {esc(seconds(waited))}" if waited is not None else ""
    return f"<p class=approver>decided by {esc(call['decided_by'])}{after}</p>"


def _result(run_id: str, call: dict[str, Any]) -> str:
    if call["state"] != "done":
        return ""
    result: str = call["result"]
    if len(result) <= PREVIEW_CHARS:
        return f"<pre class=result>{esc(result)}</pre>"
    url = f"/api/runs/{quote(run_id)}/calls/{quote(call['call_id'], safe='')}"
    key = f"result {run_id} {call['call_id']}"
    return (
        f'<div class="result long" data-keep="{esc(key)}"><pre class=result>'
        f"{esc(result[:PREVIEW_CHARS])}…</pre>"
        f'<button type=button data-full="{esc(url)}">show all {len(result):,} characters'
        "</button></div>"
    )
