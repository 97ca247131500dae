"""`toolwire eval`: a model's tool calling, scored with BFCL's AST rules on a JSONL dataset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import anyio

from ..errors import UsageError
from ..evals import (
    EvalItem,
    Prediction,
    format_report,
    load_dataset,
    model_predictor,
    run_eval,
    score,
    score_item,
    select_items,
)
from ..models import ModelSettings, get_model
from ._display import one_line
from ._options import positive_int


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="score a model's tool calls on a dataset (BFCL AST rules)",
        description="Ask the model once per dataset item and score its calls with the Berkeley "
        "Function Calling Leaderboard's AST rules. Predictions are appended to --out as they "
        "are made; run the same command again to resume. Build a dataset from BFCL with "
        "`python -m toolwire.evals.bfcl bfcl.jsonl`.",
    )
    parser.add_argument("dataset", help="JSONL: id, category, tools, messages, expected")
    parser.add_argument("--model", "-m", default="local", help="provider:model (default: local)")
    parser.add_argument("--out", required=True, help="predictions file (JSONL)")
    parser.add_argument("--limit", type=positive_int, help="at most N items of each category")
    parser.add_argument("--categories", help="comma-separated categories to run")
    parser.add_argument(
        "--fresh", action="store_true", help="start over instead of resuming from --out"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no line per item")
    parser.set_defaults(func=eval_command)


def eval_command(args: argparse.Namespace) -> int:
    _check_writable(Path(args.out))
    items = select_items(
        load_dataset(args.dataset),
        categories=[c.strip() for c in args.categories.split(",")] if args.categories else None,
        limit=args.limit,
    )
    model = get_model(args.model)
    done = 0

    def show(item: EvalItem, prediction: Prediction) -> None:
        nonlocal done
        done += 1
        if args.quiet:
            return
        verdict = score_item(item, prediction.calls)
        mark = "ok" if verdict.correct and prediction.error is None else "--"
        detail = prediction.error or verdict.reason
        print(
            f"[{done}/{len(items)}] {mark} {one_line(item.id)} {prediction.seconds:.1f}s"
            + (f"  {one_line(detail[:100])}" if mark == "--" and detail else ""),
            file=sys.stderr,
            flush=True,
        )

    async def run() -> list[Prediction]:
        predictor = model_predictor(model, ModelSettings(temperature=0.0))
        return await run_eval(items, predictor, args.out, resume=not args.fresh, on_prediction=show)

    predictions = anyio.run(run)
    print(f"{model.name} on {args.dataset}: {len(predictions)} items")
    print(format_report(score(items, predictions)))
    return 0


def _check_writable(out: Path) -> None:
    """Before the model loads, which can take minutes: a prediction that cannot be kept is lost."""
    if out.is_dir():
        raise UsageError(f"--out is a directory: {out}")
    if not out.parent.is_dir():
        raise UsageError(f"--out: no directory {out.parent} to write {out.name} in")
