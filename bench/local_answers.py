"""The answer step alone: how often a local model answers right from the right results.

    python bench/local_answers.py [--model local] [--split dev|test|all] [--ids ID ...]
                                  [--shard K/N] [--out bench/out/answers.MODEL.jsonl]

For each item of the everyday-requests suite whose first turn expects calls (with example
arguments), those calls are made in one reply by a scripted model, their results fed back, and
the local model writes the reply that follows, which is scored with the turn's answer checks. A
reply that calls again instead of answering counts as wrong (in the whole loop it would go on).
What the calls get right is out of it: this isolates what `bench/local_requests.py` mixes with
the calls, so that a change to how answers are asked for is measured on the answers alone.
Records are appended to --out as they finish (resumable; `--shard K/N` as in local_requests);
the table reads the whole file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/requests would shadow the `requests` library: import the suite as the `bench` package.
if sys.path and Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import anyio  # noqa: E402

from bench.local_gate import scripted_first_turn  # noqa: E402
from bench.local_requests import _shard  # noqa: E402
from bench.requests.suite import KINDS, Item, load_items  # noqa: E402
from toolwire import Turn  # noqa: E402
from toolwire.events import TextDelta, ToolCallStarted  # noqa: E402
from toolwire.models import Model, ModelRequest, ScriptedCall, get_model  # noqa: E402


def after_expected_calls(item: Item) -> ModelRequest:
    """The first turn's request to the model once its expected calls were made, in one reply
    with their example arguments, and their results fed back."""
    calls = [ScriptedCall(name=c.name, arguments=c.example or {}) for c in item.turns[0].calls]
    return scripted_first_turn(item, [Turn(tool_calls=calls)])[1]


async def reply(model: Model, request: ModelRequest) -> tuple[str, int]:
    """The reply's text and how many calls it opened."""
    text: list[str] = []
    calls = 0
    async for event in model.stream(request):
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, ToolCallStarted):
            calls += 1
    return "".join(text), calls


def record(model: Model, item: Item) -> dict[str, Any]:
    request = after_expected_calls(item)
    results = [result.content for m in request.messages for result in m.tool_results]
    started = time.perf_counter()
    answer, calls = anyio.run(reply, model, request)
    right = calls == 0 and all(check.passes(answer, results) for check in item.turns[0].answer)
    return {
        "id": item.id,
        "split": item.split,
        "kind": item.kind,
        "right": right,
        "calls": calls,
        "answer": answer,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(items: list[Item], rows: dict[str, dict[str, Any]]) -> str:
    lines = []
    for split in ("dev", "test"):
        done = [rows[item.id] for item in items if item.split == split and item.id in rows]
        if not done:
            continue
        lines.append(f"{split}: answer right given the right results")
        for kind in [*KINDS, "all"]:
            group = [row for row in done if kind in (row["kind"], "all")]
            if group:
                right = sum(row["right"] for row in group)
                calls = sum(row["calls"] > 0 for row in group)
                lines.append(
                    f"  {kind:<10}{right:>4}/{len(group):<4}{100 * right / len(group):5.1f}%"
                    f"   called again: {calls}"
                )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--model", default="local")
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--ids", nargs="+")
    parser.add_argument("--shard", type=_shard, default=(0, 1), help="K/N: every Nth item from K")
    parser.add_argument("--out", type=Path)
    options = parser.parse_args(argv)
    items = [
        item
        for item in load_items()
        if options.split in ("all", item.split)
        and (not options.ids or item.id in options.ids)
        and item.turns[0].calls
        and all(call.example is not None for call in item.turns[0].calls)
    ]
    if options.ids and (unknown := set(options.ids) - {item.id for item in items}):
        print(
            f"unknown, filtered-out or callless ids: {', '.join(sorted(unknown))}", file=sys.stderr
        )
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", options.model)
    out: Path = options.out or ROOT / f"bench/out/answers.{name}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = {}
    if out.exists():
        lines = out.read_text(encoding="utf-8").splitlines()
        rows = {(row := json.loads(line))["id"]: row for line in lines if line.strip()}
    index, count = options.shard
    todo = [item for item in items[index::count] if item.id not in rows]
    if todo:
        model = get_model(options.model)
        with out.open("ab", buffering=0) as sink:
            for item in todo:
                row = record(model, item)
                sink.write((json.dumps(row, ensure_ascii=False) + "\n").encode())
                rows[item.id] = row
    print(report(items, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
