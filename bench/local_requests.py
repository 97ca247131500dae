"""Everyday requests through the whole loop: the suite in bench/requests/, run on a model.

    python bench/local_requests.py [--model local [MODEL ...]] [--split dev|test|all] [--limit N]
                                   [--kinds single multi ...] [--toolsets builtin shop ...]
                                   [--ids ID ...] [--spread] [--shard K/N]
                                   [--out bench/out/requests.MODEL.jsonl]
                                   [--max-steps 6] [--timeout 300]

Each item is a conversation run by `toolwire.Agent` with the item's toolset (its state reset
first), the toolset's instructions, an approver that approves every call (the suite measures the
model's calls, not a person's approvals; destructive tools keep their declared side effect), and
`Limits(max_steps, timeout)` per turn; each follow-up runs with the history so far. Every item's
calls, answers, stop reasons, seconds and scores are written to --out as it finishes (resumable:
ids already there for the same model are skipped; `--limit N` takes the first N selected items).
The table re-scores everything --out holds for the selection with the current items and scorer,
per split and kind, with the suite's target metrics (bench/requests/scoring.py).

Given several models, each item runs on each of them in turn, so that a shared, noisy machine
slows them alike; the table then also compares them, item for item, with the ratio of their
seconds. `--shard K/N` takes every Nth selected item from the Kth (0-based): N processes, one
per core, share a selection and the same --out; run again without it, the table is the whole
selection's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, Python puts bench/ first on the path, where bench/requests/ would stand for
# any `import requests`: import the suite as the `bench` package from the repository root instead.
if sys.path and Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import anyio  # noqa: E402

from bench.requests.scoring import METRICS, ItemScore, RanCall, RanTurn, score_item, tally  # noqa: E402
from bench.requests.suite import KINDS, SPLITS, TOOLSETS, Item, load_items  # noqa: E402
from toolwire import Agent, ApprovalRequest, Approve, Limits, Message, Model, RunResult  # noqa: E402
from toolwire.events import CallCorrected, RunEvent  # noqa: E402
from toolwire.models import get_model  # noqa: E402


def approve_all(request: ApprovalRequest) -> Approve:
    return Approve(by="bench:approve-all")


def default_out(models: Sequence[str]) -> Path:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", "+".join(models))
    return ROOT / "bench" / "out" / f"requests.{name}.jsonl"


def select(
    items: Sequence[Item],
    split: str,
    kinds: Sequence[str] | None,
    toolsets: Sequence[str] | None,
    ids: Sequence[str] | None,
    limit: int | None,
    spread: bool = False,
) -> list[Item]:
    """The items selected, in the suite's order, or with `spread` in an order fixed by a hash
    of each id, so that the first `limit` of them are a fair sample of every toolset and kind."""
    chosen = [
        item
        for item in items
        if split in ("all", item.split)
        and (not kinds or item.kind in kinds)
        and (not toolsets or item.toolset in toolsets)
        and (not ids or item.id in ids)
    ]
    if spread:
        chosen.sort(key=lambda item: hashlib.sha256(f"order:{item.id}".encode()).digest())
    return chosen if limit is None else chosen[:limit]


def turn_record(
    user: str,
    result: RunResult | None,
    seconds: float,
    error: str | None,
    corrected: Sequence[CallCorrected] = (),
) -> dict[str, Any]:
    calls = [] if result is None else result.calls
    return {
        "user": user,
        "calls": [
            {
                "name": c.call.name,
                "arguments": None if c.call.error else dict(c.call.arguments),
                "result": c.result.content,
                "is_error": c.result.is_error,
            }
            for c in calls
        ],
        "corrections": [
            {
                "name": c.name,
                "written": dict(c.written),
                "dropped": c.index is None,
                "why": c.changes,
            }
            for c in corrected
        ],
        "answer": "" if result is None else result.output,
        "stop_reason": "error" if result is None else result.stop_reason,
        "steps": 0 if result is None else result.steps,
        "seconds": round(seconds, 2),
        "error": error if result is None else result.error,
    }


async def run_item(item: Item, model: Model, limits: Limits) -> list[dict[str, Any]]:
    toolset = TOOLSETS[item.toolset]
    toolset.reset()
    agent = Agent(
        model,
        toolset.tools,
        instructions=toolset.instructions,
        limits=limits,
        approver=approve_all,
    )
    turns: list[dict[str, Any]] = []
    history: Sequence[Message] = ()
    for turn in item.turns:
        started = time.perf_counter()
        events: list[RunEvent] = []
        try:
            result = await agent.run(turn.user, history=history, on_event=events.append)
        except Exception as failure:  # one failing item must not end the whole run
            seconds = time.perf_counter() - started
            turns.append(
                turn_record(turn.user, None, seconds, f"{type(failure).__name__}: {failure}")
            )
            break
        seconds = time.perf_counter() - started
        corrected = [event for event in events if isinstance(event, CallCorrected)]
        turns.append(turn_record(turn.user, result, seconds, None, corrected))
        history = result.messages
    return turns


def ran_turns(turns: Sequence[dict[str, Any]]) -> list[RanTurn]:
    """The turns as recorded, read back for scoring (a turn that raised ended the conversation,
    so an item can hold fewer turns than it has: it is then scored incomplete)."""
    return [
        RanTurn(
            tuple(
                RanCall(c["name"], c["arguments"], c["result"], c["is_error"])
                for c in turn["calls"]
            ),
            turn["answer"],
            turn["stop_reason"],
        )
        for turn in turns
    ]


def score_record(item: Item, record: dict[str, Any]) -> ItemScore:
    return score_item(item, ran_turns(record["turns"]), TOOLSETS[item.toolset].defaults())


def read_records(path: Path, models: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """By model, then by item id: the records --out holds for `models`."""
    records: dict[str, dict[str, dict[str, Any]]] = {model: {} for model in models}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                if record.get("model") in records:
                    records[record["model"]][record["id"]] = record
    return records


def _percent(right: int, total: int) -> str:
    return f"{right:>4}/{total:<4}{100 * right / total:5.1f}%" if total else f"{'-':>15}"


def _row(label: str, group: Sequence[tuple[Item, dict[str, Any], ItemScore]]) -> str:
    calls = sum(score.calls_right for _, _, score in group)
    answers = sum(score.answer_right for _, _, score in group)
    seconds = sum(record["seconds"] for _, record, _ in group) / len(group)
    return (
        f"  {label:<10}{len(group):>6}  {_percent(calls, len(group))}  "
        f"{_percent(answers, len(group))}  {seconds:7.1f}"
    )


def report(items: Sequence[Item], records: dict[str, dict[str, Any]], model: str) -> str:
    done = [(item, records[item.id]) for item in items if item.id in records]
    lines = [f"model {model}: {len(done)} of {len(items)} selected items run"]
    for split in SPLITS:
        rows = [
            (item, record, score_record(item, record))
            for item, record in done
            if item.split == split
        ]
        if not rows:
            continue
        header = f"{'items':>6}  {'calls right':>15}  {'answer right':>15}  {'mean s':>7}"
        lines += ["", f"{split}:", f"  {'kind':<10}{header}"]
        by_kind = [(kind, [r for r in rows if r[0].kind == kind]) for kind in KINDS]
        lines += [_row(kind, group) for kind, group in [*by_kind, ("all", rows)] if group]
        lines.append(f"  {'toolset':<10}{header}")
        by_toolset = [(name, [r for r in rows if r[0].toolset == name]) for name in TOOLSETS]
        lines += [_row(name, group) for name, group in by_toolset if group]
        counts = tally((item, score) for item, _, score in rows)
        lines.append("  targets:")
        for metric in METRICS:
            right, total = counts[metric.name]
            target = "" if metric.target is None else f"  (target {metric.target:.0%})"
            lines.append(f"    {metric.label:<36}{_percent(right, total)}{target}")
    return "\n".join(lines)


def compare(
    items: Sequence[Item], records: dict[str, dict[str, dict[str, Any]]], models: Sequence[str]
) -> str:
    """The models side by side on the items every one of them ran."""
    both = [item for item in items if all(item.id in records[model] for model in models)]
    if not both:
        return "no item was run on every model"
    first = models[0]
    lines = [f"side by side on the {len(both)} items every model ran:"]
    header = f"{'model':<32}{'calls right':>15}  {'answer right':>15}  {'mean s':>7}  {'time':>6}"
    lines.append(f"  {header}")
    base_seconds = sum(records[first][item.id]["seconds"] for item in both)
    for model in models:
        ran = [(item, records[model][item.id]) for item in both]
        scores = [score_record(item, record) for item, record in ran]
        seconds = sum(record["seconds"] for _, record in ran)
        lines.append(
            f"  {model:<32}{_percent(sum(s.calls_right for s in scores), len(both))}  "
            f"{_percent(sum(s.answer_right for s in scores), len(both))}  "
            f"{seconds / len(both):7.1f}  "
            + (f"{seconds / base_seconds:5.2f}x" if base_seconds else f"{'-':>6}")
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--model", nargs="+", default=["local"], help="one or more models")
    parser.add_argument("--split", choices=["dev", "test", "all"], default="all")
    parser.add_argument("--limit", type=int)
    parser.add_argument(
        "--spread", action="store_true", help="take items in a fixed hashed order (a fair --limit)"
    )
    parser.add_argument("--kinds", nargs="+", choices=KINDS)
    parser.add_argument("--toolsets", nargs="+", choices=list(TOOLSETS))
    parser.add_argument("--ids", nargs="+")
    parser.add_argument("--shard", type=_shard, default=(0, 1), help="K/N: every Nth item from K")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--max-steps", type=int, default=6, help="model requests per turn (6)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per turn (300)")
    return parser.parse_args(argv)


def _shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise argparse.ArgumentTypeError(f"not K/N with K < N: {text!r}")
    return int(index), int(count)


async def run(args: argparse.Namespace) -> int:
    items = select(
        load_items(),
        args.split,
        args.kinds,
        args.toolsets,
        args.ids,
        args.limit,
        args.spread,
    )
    if args.ids and (unknown := set(args.ids) - {item.id for item in items}):
        print(f"unknown or filtered-out ids: {', '.join(sorted(unknown))}", file=sys.stderr)
    index, count = args.shard
    items = items[index::count]
    models: list[str] = args.model
    out: Path = args.out or default_out(models)
    out.parent.mkdir(parents=True, exist_ok=True)
    records = read_records(out, models)
    todo = [(item, name) for item in items for name in models if item.id not in records[name]]
    print(f"{len(items)} items selected, {len(todo)} runs to go into {out}", file=sys.stderr)
    if todo:
        loaded = {name: get_model(name) for name in {name for _, name in todo}}
        for model in loaded.values():
            # Load an embedded model now, so the first item's seconds and timeout are its own.
            load = getattr(model, "load", None)
            if callable(load):
                load()
        limits = Limits(max_steps=args.max_steps, timeout=args.timeout)
        try:
            # Unbuffered: each record goes down in one write, whole among other shards' records.
            with out.open("ab", buffering=0) as sink:
                for number, (item, name) in enumerate(todo, start=1):
                    record = await run_record(item, name, loaded[name], limits)
                    sink.write((json.dumps(record, ensure_ascii=False) + "\n").encode())
                    records[name][item.id] = record
                    score = record["score"]
                    print(
                        f"[{number}/{len(todo)}] {name} {item.id}: "
                        f"calls {'ok' if score['calls_right'] else 'WRONG'}, "
                        f"answer {'ok' if score['answer_right'] else 'WRONG'}, "
                        f"{record['seconds']:.1f} s",
                        file=sys.stderr,
                    )
        finally:
            for model in loaded.values():
                aclose = getattr(model, "aclose", None)
                if aclose is not None:
                    await aclose()
    print("\n\n".join(report(items, records[name], name) for name in models))
    if len(models) > 1:
        print(f"\n{compare(items, records, models)}")
    return 0


async def run_record(item: Item, name: str, model: Model, limits: Limits) -> dict[str, Any]:
    started = time.perf_counter()
    turns = await run_item(item, model, limits)
    record: dict[str, Any] = {
        "id": item.id,
        "model": name,
        "split": item.split,
        "toolset": item.toolset,
        "kind": item.kind,
        "turns": turns,
        "seconds": round(time.perf_counter() - started, 2),
    }
    score = score_record(item, record)
    record["score"] = {
        "calls_right": score.calls_right,
        "parts_called": score.parts_called,
        "answer_right": score.answer_right,
        "reasons": score.reasons(item),
    }
    return record


def main(argv: Sequence[str] | None = None) -> int:
    return anyio.run(run, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
