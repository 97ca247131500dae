"""`python -m toolwire.evals.bfcl OUT.jsonl`: the eval dataset from the BFCL data in the
`bfcl-eval` package (fetched with `pip download --no-deps` unless --source names a copy)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import ToolwireError
from ._bfcl import BFCL_CATEGORIES, BFCL_VERSION, convert_bfcl


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolwire.evals.bfcl", description=__doc__)
    parser.add_argument("out", help="the dataset to write (JSONL)")
    parser.add_argument(
        "--source",
        help=f"a bfcl_eval directory or wheel (default: the installed package, else "
        f"bfcl-eval=={BFCL_VERSION} fetched with pip)",
    )
    parser.add_argument(
        "--categories",
        default=",".join(BFCL_CATEGORIES),
        help=f"comma-separated, from {', '.join(BFCL_CATEGORIES)} (default: all)",
    )
    args = parser.parse_args(argv)
    try:
        count = convert_bfcl(
            args.out, source=args.source, categories=[c.strip() for c in args.categories.split(",")]
        )
    except ToolwireError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {count} items to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
