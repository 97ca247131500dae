"""What leaving out made-up optional arguments does to calls already made (no model needed).

    python bench/local_grounding.py DATASET.jsonl PREDICTIONS.jsonl [-v]

Each predicted call's arguments are grounded as the `local` adapter grounds them (see
`toolwire.models.local._grounding`; `drop_guessed_arguments`), a call after the first that goes
on past the request is dropped (`Grounding.made_up`), and every item is scored before and after
with BFCL's AST rules. The adapter grounds each call as it is written, so on a run made
without it this replay gives what a run with it would have scored (it also stops a reply at a
call that grounding makes a repeat of an earlier one; replayed, both stay). On the raw model's
predictions, which are kept: `bench/results/local.raw.jsonl`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from toolwire import UsageError
from toolwire.evals import PredictedCall, load_dataset, read_predictions, score_item
from toolwire.models.local._grounding import Grounding


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("predictions")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the items it changes")
    args = parser.parse_args()
    try:
        items = load_dataset(args.dataset)
        predictions = read_predictions(Path(args.predictions))
    except UsageError as error:
        sys.exit(f"error: {error}")
    if not predictions:
        sys.exit(f"error: no predictions in {args.predictions}")
    tally: Counter[tuple[str, str]] = Counter()
    for item in items:
        prediction = predictions.get(item.id)
        if prediction is None:
            continue
        grounding = Grounding.of(item.messages, item.tools)
        grounded: list[PredictedCall] = []
        earlier: list[tuple[str, dict[str, Any]]] = []
        for call in prediction.calls:
            if call.arguments is not None:
                arguments = grounding.arguments(call.name, call.arguments, earlier)
                earlier.append((call.name, arguments))
                kept = [(c.name, c.arguments) for c in grounded if c.arguments is not None]
                if grounding.made_up(call.name, arguments, kept):
                    continue
                call = PredictedCall(name=call.name, arguments=arguments)
            grounded.append(call)
        before = score_item(item, prediction.calls).correct
        after = score_item(item, grounded).correct
        tally[item.category, "items"] += 1
        tally[item.category, "right before"] += before
        tally[item.category, "made right"] += after and not before
        tally[item.category, "made wrong"] += before and not after
        if args.verbose and before != after:
            changed = [c.arguments for c in prediction.calls if c not in grounded]
            print(f"{item.id}: {'right' if after else 'wrong'} now (was: {changed})")
    print(
        f"{'category':20} {'items':>6} {'right before':>13} {'made right':>11} {'made wrong':>11}"
    )
    for category in dict.fromkeys(category for category, _ in tally):
        counts = [tally[category, column] for column in ("items", "right before")]
        changes = [tally[category, column] for column in ("made right", "made wrong")]
        print(f"{category:20} {counts[0]:6} {counts[1]:13} {changes[0]:11} {changes[1]:11}")


if __name__ == "__main__":
    main()
