"""What the call gate reads on the everyday-requests suite, without generating replies.

    python bench/local_gate.py [--model local] [--split dev|test|all] [--out bench/out/gate.jsonl]

For the first turn of every item, the local model is asked once with its toolset, cut after the
reply's first token; the gate's inputs are recorded: the probability the model gives a call's
opening, the request's relevance (nats the tools add to its likelihood, see
`toolwire.models.local._relevance`), its length in tokens and the values it writes. Each row
also says whether the turn needs a tool (`single`, `multi`, `followup`) or not (`none`, `ask`),
so a gate can be fitted on dev and checked on test from this file alone (`--fit`).
Readings are kept in `--out` and reused, so a report over both splits costs only the new ones.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/requests would shadow the `requests` library: import the suite as the `bench` package.
if sys.path and Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import anyio  # noqa: E402

from bench.requests.suite import TOOLSETS, Item, load_items  # noqa: E402
from toolwire import Message  # noqa: E402
from toolwire.models import ModelRequest, ModelSettings, get_model  # noqa: E402
from toolwire.models.local import LocalModel  # noqa: E402
from toolwire.models.local._coverage import RequestValues  # noqa: E402
from toolwire.models.local._engine import Gate, Generation  # noqa: E402
from toolwire.models.local._model import DEFAULT_CALL_THRESHOLD  # noqa: E402
from toolwire.models.local._relevance import RELEVANCE_NEUTRAL, RELEVANCE_WEIGHT  # noqa: E402


def probe(model: LocalModel, item: Item) -> dict[str, Any]:
    toolset = TOOLSETS[item.toolset]
    turn = item.turns[0]
    messages = [Message.system(toolset.instructions)] if toolset.instructions else []
    messages.append(Message.user(turn.user))
    request = ModelRequest(
        messages=tuple(messages),
        tools=tuple(tool.definition for tool in toolset.tools),
        settings=ModelSettings(max_output_tokens=1),
    )
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
    return {
        "id": item.id,
        "split": item.split,
        "kind": item.kind,
        "needs_tool": bool(turn.calls),
        "probability": gate.probability,
        "nats": gate.nats,
        "tokens": len(engine.tokenize(turn.user)),
        "values": len(RequestValues.of(turn.user, [t.name for t in toolset.tools])),
        "opened": gate.opened,
    }


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


def report(rows: list[dict[str, Any]], chosen: Gate | None) -> None:
    gates = {"current": Gate((), DEFAULT_CALL_THRESHOLD, None, RELEVANCE_WEIGHT, RELEVANCE_NEUTRAL)}
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/out/gate.local.jsonl")
    parser.add_argument("--fit", action="store_true", help="fit a gate on dev, show it on both")
    options = parser.parse_args()
    model = get_model(options.model)
    if not isinstance(model, LocalModel):
        sys.exit(f"{options.model} is not a local model")
    options.out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, dict[str, Any]] = {}
    if options.out.exists():
        for line in options.out.read_text().splitlines():
            row = json.loads(line)
            done[row["id"]] = row
    items = [i for i in load_items() if options.split in ("all", i.split)]
    with options.out.open("a") as out:
        for item in items:
            if item.id in done:
                continue
            row = probe(model, item)
            done[item.id] = row
            out.write(json.dumps(row) + "\n")
            out.flush()
    rows = [done[i.id] for i in items]
    dev = [r for r in rows if r["split"] == "dev"]
    report(rows, fit(dev) if options.fit and dev else None)


if __name__ == "__main__":
    main()
