"""What the call gate reads on the everyday-requests suite, without generating replies.

    python bench/local_gate.py [--model local] [--split dev|test|all] [--out bench/out/gate.jsonl]

For the first turn of every item, the local model is asked once with its toolset, cut after the
reply's first token; the gate's inputs are recorded: the probability the model gives a call's
opening, the request's relevance (nats the tools add to its likelihood, see
`toolwire.models.local._relevance`), its length in tokens and the values it writes. Each row
also says whether the turn needs a tool (`single`, `multi`, `followup`) or not (`none`, `ask`),
so a gate can be fitted on dev and checked on test from this file alone (`--fit`).
"""

from __future__ import annotations

import argparse
import json
import math
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
from toolwire.models.local._engine import Generation  # noqa: E402


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


def log_odds(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def report(rows: list[dict[str, Any]]) -> None:
    for split in ("dev", "test"):
        chosen = [r for r in rows if r["split"] == split]
        need = [r for r in chosen if r["needs_tool"]]
        none = [r for r in chosen if not r["needs_tool"]]
        if not chosen:
            continue
        print(
            f"{split}: gate opens for {sum(r['opened'] for r in need)}/{len(need)} turns that need "
            f"a tool, stays shut for {sum(not r['opened'] for r in none)}/{len(none)} that do not"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/out/gate.local.jsonl")
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
    report([done[i.id] for i in items])


if __name__ == "__main__":
    main()
