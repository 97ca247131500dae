"""What the call gate reads on the everyday-requests suite, without generating replies.

    python bench/local_gate.py [--model local] [--split dev|test|all] [--fit] [--after-results]
                               [--out bench/out/gate.local.jsonl]

For the first turn of every item, the local model is asked once with its toolset, cut after the
reply's first token; the gate's inputs are recorded: the probability the model gives a call's
opening, the request's relevance (nats the tools add to its likelihood, see
`toolwire.models.local._relevance`), its length in tokens and the values it writes. Each row
also says whether the turn needs a tool (`single`, `multi`, `followup`) or not (`none`, `ask`),
so a gate can be fitted on dev and checked on test from this file alone (`--fit`).
Readings are kept in `--out` and reused, so a report over both splits costs only the new ones.

With `--after-results`, the gate is read where a reply follows tool results instead: the first
turn's expected calls are made one per reply with their example arguments (a scripted model,
the toolset's real tools), and after each result the local model is asked as above. A call
should open while expected calls remain, the answer once every result is in; `--fit` fits the
after-results threshold and a lift per value of the request no call has used yet.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/requests would shadow the `requests` library: import the suite as the `bench` package.
if sys.path and Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import anyio  # noqa: E402

from bench.requests.suite import TOOLSETS, Item, load_items  # noqa: E402
from toolwire import Agent, Approve, Message, ScriptedModel, Turn  # noqa: E402
from toolwire.models import ModelRequest, ModelSettings, ScriptedCall, get_model  # noqa: E402
from toolwire.models.local import LocalModel  # noqa: E402
from toolwire.models.local._coverage import RequestValues  # noqa: E402
from toolwire.models.local._engine import Gate, GateReading, Generation  # noqa: E402
from toolwire.models.local._model import (  # noqa: E402
    DEFAULT_AFTER_RESULTS_THRESHOLD,
    UNUSED_VALUES_COUNTED,
)


def first_turn(item: Item) -> ModelRequest:
    toolset = TOOLSETS[item.toolset]
    messages = [Message.system(toolset.instructions)] if toolset.instructions else []
    messages.append(Message.user(item.turns[0].user))
    return ModelRequest(
        messages=tuple(messages),
        tools=tuple(tool.definition for tool in toolset.tools),
        settings=ModelSettings(max_output_tokens=1),
    )


def read_gate(model: LocalModel, request: ModelRequest) -> GateReading:
    """What the gate reads on `request`, from a reply cut after its first token."""
    engine = model.engine
    readings: list[Generation] = []
    generate = engine.generate

    def recording(*args: Any, **kwargs: Any) -> Generation:
        generation = generate(*args, **kwargs)
        readings.append(generation)
        return generation

    engine.generate = recording  # type: ignore[method-assign]
    try:
        anyio.run(_drain, model, request)
    finally:
        del engine.generate
    gate = readings[0].gate
    assert gate is not None, "an auto request with tools is gated"
    return gate


def probe(model: LocalModel, item: Item) -> dict[str, Any]:
    toolset = TOOLSETS[item.toolset]
    turn = item.turns[0]
    gate = read_gate(model, first_turn(item))
    return {
        "id": item.id,
        "split": item.split,
        "kind": item.kind,
        "needs_tool": bool(turn.calls),
        "probability": gate.probability,
        "nats": gate.nats,
        "tokens": len(model.engine.tokenize(turn.user)),
        "values": len(RequestValues.of(turn.user, [t.name for t in toolset.tools])),
        "opened": gate.opened,
    }


def scripted_first_turn(item: Item, replies: list[Turn]) -> list[ModelRequest]:
    """The requests a scripted model giving `replies` in turn (then "done") gets in the item's
    first turn, run with its toolset (state reset first) and every call approved."""
    toolset = TOOLSETS[item.toolset]
    toolset.reset()
    captured: list[ModelRequest] = []

    def script(request: ModelRequest) -> Turn:
        step = len(captured)
        captured.append(request)
        return replies[step] if step < len(replies) else Turn(text="done")

    agent = Agent(
        ScriptedModel(script),
        toolset.tools,
        instructions=toolset.instructions,
        approver=lambda request: Approve(by="bench"),
    )
    agent.run_sync(item.turns[0].user)
    return captured


def results_of_first(item: Item, made: int) -> ModelRequest:
    """The first turn's request to the model after the first `made` of its expected calls were
    made one per reply (with their example arguments) and their results fed back."""
    replies = [
        Turn(tool_calls=[ScriptedCall(name=call.name, arguments=call.example or {})])
        for call in item.turns[0].calls[:made]
    ]
    last = scripted_first_turn(item, replies)[made]
    return dataclasses.replace(last, settings=ModelSettings(max_output_tokens=1))


def probe_after_results(model: LocalModel, item: Item) -> list[dict[str, Any]]:
    """The gate's readings after each expected call's result on the first turn: a call should
    open while expected calls remain, and the answer once all have their results."""
    toolset = TOOLSETS[item.toolset]
    expected = item.turns[0].calls
    if any(call.example is None for call in expected):
        return []
    values = RequestValues.of(item.turns[0].user, [t.name for t in toolset.tools])
    rows = []
    for made in range(1, len(expected) + 1):
        gate = read_gate(model, results_of_first(item, made))
        rows.append(
            {
                "id": f"{item.id}@{made}",
                "split": item.split,
                "kind": item.kind,
                "needs_tool": made < len(expected),
                "probability": gate.probability,
                "unused": values.unused(call.example or {} for call in expected[:made]),
            }
        )
    return rows


async def _drain(model: LocalModel, request: ModelRequest) -> None:
    async for _ in model.stream(request):
        pass


def rates(gate: Gate, rows: list[dict[str, Any]]) -> tuple[float, float]:
    """The share of turns needing a tool that the gate opens for, and of those no tool fits
    (`none`) that it keeps shut."""
    need = [r for r in rows if r["needs_tool"]]
    none = [r for r in rows if r["kind"] == "none"]
    opened = sum(gate.opens(r["probability"], r["nats"]) for r in need)
    shut = sum(not gate.opens(r["probability"], r["nats"]) for r in none)
    return opened / max(1, len(need)), shut / max(1, len(none))


def fit(rows: list[dict[str, Any]]) -> Gate:
    """The gate that opens for the most turns needing a tool and keeps the most shut that no
    tool fits: the larger of the two shares' minimum, then of their sum."""
    candidates = [
        Gate((), threshold / 100, None, weight / 100, neutral)
        for threshold in range(5, 100, 5)
        for weight in range(0, 35, 5)
        for neutral in (0.0, 5.0, 10.0, 15.0)
    ]
    return max(candidates, key=lambda gate: (min(rates(gate, rows)), sum(rates(gate, rows))))


def report(rows: list[dict[str, Any]], model: LocalModel, chosen: Gate | None) -> None:
    current = Gate(
        (), model.call_threshold or 0.0, None, model.relevance_weight, model.relevance_neutral
    )
    gates = {"current": current}
    if chosen is not None:
        gates["fitted on dev"] = chosen
    for name, gate in gates.items():
        print(f"{name}: threshold {gate.threshold}, weight {gate.weight}, neutral {gate.neutral}")
        for split in ("dev", "test"):
            chosen_rows = [r for r in rows if r["split"] == split]
            if chosen_rows:
                opened, shut = rates(gate, chosen_rows)
                print(
                    f"  {split}: opens for {opened:.1%} of turns that need a tool, "
                    f"stays shut for {shut:.1%} of those no tool fits ({len(chosen_rows)} turns)"
                )


def opens_after(threshold: float, weight: float, row: dict[str, Any]) -> bool:
    """The after-results gate: the call's probability, its log-odds raised by `weight` for each
    value of the request no call has used yet (at most UNUSED_VALUES_COUNTED)."""
    p = min(max(row["probability"], 1e-12), 1 - 1e-12)
    lift = weight * min(row["unused"], UNUSED_VALUES_COUNTED)
    return math.log(p / (1 - p)) + lift >= math.log(threshold / (1 - threshold))


def rates_after(threshold: float, weight: float, rows: list[dict[str, Any]]) -> tuple[float, float]:
    """The share of readings with calls still to make where a call opens, and of those with
    every call's result in where the answer does."""
    more = [r for r in rows if r["needs_tool"]]
    done = [r for r in rows if not r["needs_tool"]]
    opened = sum(opens_after(threshold, weight, r) for r in more)
    answered = sum(not opens_after(threshold, weight, r) for r in done)
    return opened / max(1, len(more)), answered / max(1, len(done))


def fit_after(rows: list[dict[str, Any]]) -> tuple[float, float]:
    candidates = [
        (threshold / 100, weight / 2) for threshold in range(5, 100, 2) for weight in range(0, 9)
    ]
    return max(
        candidates,
        key=lambda c: (min(rates_after(*c, rows)), sum(rates_after(*c, rows))),
    )


def report_after(rows: list[dict[str, Any]], chosen: tuple[float, float] | None) -> None:
    gates = {"current": (DEFAULT_AFTER_RESULTS_THRESHOLD, 0.0)}
    if chosen is not None:
        gates["fitted on dev"] = chosen
    for name, (threshold, weight) in gates.items():
        print(f"{name}: after-results threshold {threshold}, weight {weight} per unused value")
        for split in ("dev", "test"):
            chosen_rows = [r for r in rows if r["split"] == split]
            if chosen_rows:
                opened, answered = rates_after(threshold, weight, chosen_rows)
                print(
                    f"  {split}: a call opens for {opened:.1%} of readings with calls to make, "
                    f"the answer for {answered:.1%} of those with every result "
                    f"({len(chosen_rows)} readings)"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--fit", action="store_true", help="fit a gate on dev, show it on both")
    parser.add_argument(
        "--after-results",
        action="store_true",
        help="read the gate after each expected call's result instead of on the first turn",
    )
    options = parser.parse_args()
    model = get_model(options.model)
    if not isinstance(model, LocalModel):
        sys.exit(f"{options.model} is not a local model")
    kind = "gate_after" if options.after_results else "gate"
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", options.model)
    out: Path = options.out or ROOT / f"bench/out/{kind}.{name}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, list[dict[str, Any]]] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.setdefault(row["item"], []).append(row)
    items = [i for i in load_items() if options.split in ("all", i.split)]
    with out.open("a") as sink:
        for item in items:
            if item.id in done:
                continue
            if options.after_results:
                rows = probe_after_results(model, item)
            else:
                rows = [probe(model, item)]
            # An item with no reading is recorded too, so a rerun does not probe it again.
            rows = rows or [{"split": item.split, "kind": item.kind, "empty": True}]
            for row in rows:
                row["item"] = item.id
                sink.write(json.dumps(row) + "\n")
            sink.flush()
            done[item.id] = rows
    read = [row for i in items for row in done[i.id] if not row.get("empty")]
    dev = [r for r in read if r["split"] == "dev"]
    if options.after_results:
        report_after(read, fit_after(dev) if options.fit and dev else None)
    else:
        report(read, model, fit(dev) if options.fit and dev else None)


if __name__ == "__main__":
    main()
