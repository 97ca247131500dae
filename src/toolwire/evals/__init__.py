"""Tool-calling evals: a JSONL dataset format, BFCL's AST scoring rules, a BFCL converter, and a
resumable runner that works with any toolwire model."""

from ._bfcl import BFCL_CATEGORIES, BFCL_VERSION, convert_bfcl
from ._dataset import EvalItem, ExpectedCall, item_to_json, load_dataset, parse_item
from ._runner import (
    CategoryScore,
    Prediction,
    Predictor,
    Report,
    format_report,
    model_predictor,
    read_predictions,
    run_eval,
    score,
    select_items,
)
from ._scoring import PredictedCall, Verdict, score_item

__all__ = [
    "BFCL_CATEGORIES",
    "BFCL_VERSION",
    "CategoryScore",
    "EvalItem",
    "ExpectedCall",
    "PredictedCall",
    "Prediction",
    "Predictor",
    "Report",
    "Verdict",
    "convert_bfcl",
    "format_report",
    "item_to_json",
    "load_dataset",
    "model_predictor",
    "parse_item",
    "read_predictions",
    "run_eval",
    "score",
    "score_item",
    "select_items",
]
