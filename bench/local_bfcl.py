"""BFCL (non-live) accuracy of a local model through toolwire, against the same model used raw.

    python bench/local_bfcl.py DATASET.jsonl [--model local] [--limit N] [--categories a,b]
                               [--split dev|test|all] [--out-dir bench/out]
                               [--only toolwire|raw] [--max-tokens 512]

"raw" is the model as llama-cpp-python serves it on its own: `create_chat_completion` with the
GGUF's chat template and the tools, greedy decoding, and every JSON object with a `name` and
`arguments` (or `parameters`) found in the reply taken as a call. "toolwire" is the `local`
adapter (template, scanner, call steering). Both run on the same loaded model, in one process,
over the same items, each reply cut at the same `--max-tokens` (a call is a few dozen tokens, so
the cap shortens prose answers only). Predictions are written as they are made (resumable: rerun
the same command to continue); the table covers the items predicted so far by both.

The raw path does not depend on toolwire's code: bench/results/local.raw.jsonl keeps its
predictions on the BFCL data of `toolwire.evals.BFCL_VERSION`, so `--out-dir bench/results` runs
the toolwire path only (its predictions there are not kept: they are only as good as the code).

`--split` keeps one half of the items, fixed by a hash of each id (as for the everyday-requests
suite, `bench/requests`): the local model's rules are fitted on dev and reported on test.

Make the dataset first: python -m toolwire.evals.bfcl bfcl.jsonl
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/requests would shadow the `requests` library: import the suite as the `bench` package.
if sys.path and Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import anyio  # noqa: E402

from bench.requests.suite import split_of  # noqa: E402
from toolwire.evals import (  # noqa: E402
    EvalItem,
    PredictedCall,
    Prediction,
    format_report,
    load_dataset,
    model_predictor,
    run_eval,
    score,
    select_items,
)
from toolwire.models import ModelSettings, get_model  # noqa: E402
from toolwire.models.local import LocalModel  # noqa: E402


def raw_predictor(model: LocalModel, max_tokens: int) -> Any:
    llm = model.engine.llm

    async def predict(item: EvalItem) -> Prediction:
        messages = [{"role": m.role, "content": m.text} for m in item.messages]
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in item.tools
        ]
        started = time.perf_counter()
        reply = await anyio.to_thread.run_sync(
            lambda: llm.create_chat_completion(
                messages=messages, tools=tools, temperature=0.0, max_tokens=max_tokens
            )
        )
        text = reply["choices"][0]["message"].get("content") or ""
        usage = reply.get("usage", {})
        return Prediction(
            id=item.id,
            category=item.category,
            calls=tuple(json_calls(text)),
            text=text,
            seconds=time.perf_counter() - started,
            input_tokens=usage.get("prompt_tokens", 0),
            output_tokens=usage.get("completion_tokens", 0),
        )

    return predict


def json_calls(text: str) -> list[PredictedCall]:
    """Every top-level JSON object (or list of objects) in `text` shaped like a call."""
    decoder = json.JSONDecoder()
    calls: list[PredictedCall] = []
    position = 0
    while position < len(text):
        if text[position] not in "{[":
            position += 1
            continue
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            position += 1
            continue
        for candidate in value if isinstance(value, list) else [value]:
            if isinstance(candidate, dict) and isinstance(candidate.get("name"), str):
                arguments = candidate.get("arguments", candidate.get("parameters", {}))
                calls.append(
                    PredictedCall(
                        name=candidate["name"],
                        arguments=arguments if isinstance(arguments, dict) else None,
                    )
                )
        position = end
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("--model", default="local")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--categories")
    parser.add_argument("--out-dir", default="bench/out")
    parser.add_argument("--only", choices=["toolwire", "raw"])
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--split", choices=["dev", "test", "all"], default="all")
    args = parser.parse_args()
    dataset = load_dataset(args.dataset)
    if args.split != "all":
        dataset = [item for item in dataset if split_of(item.id) == args.split]
    items = select_items(
        dataset,
        categories=args.categories.split(",") if args.categories else None,
        limit=args.limit,
    )
    model = get_model(args.model)
    if not isinstance(model, LocalModel):
        sys.exit("this benchmark compares a local: model with its raw use")
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    settings = ModelSettings(temperature=0.0, max_output_tokens=args.max_tokens)
    slug = args.model.replace(":", "_").replace("/", "_")
    runs = {
        "toolwire": (out / f"{slug}.toolwire.jsonl", lambda: model_predictor(model, settings)),
        "raw": (out / f"{slug}.raw.jsonl", lambda: raw_predictor(model, args.max_tokens)),
    }
    results = {}
    for which, (path, predictor) in runs.items():
        if args.only and which != args.only:
            continue

        def progress(item: EvalItem, prediction: Prediction, which: str = which) -> None:
            print(f"{which} {item.id} {len(prediction.calls)} calls {prediction.seconds:.1f}s",
                  file=sys.stderr, flush=True)  # fmt: skip

        results[which] = anyio.run(
            functools.partial(run_eval, items, predictor(), path, on_prediction=progress)
        )
    for which, predictions in results.items():
        print(f"\n{which} ({args.model}, {len(predictions)} items)")
        print(format_report(score(items, predictions)))
    if len(results) == 2:
        ours, raw = (score(items, results[w]) for w in ("toolwire", "raw"))
        print(f"\ntoolwire - raw: {100 * (ours.mean_accuracy - raw.mean_accuracy):+.1f} points "
              "(mean of categories)")  # fmt: skip


if __name__ == "__main__":
    main()
