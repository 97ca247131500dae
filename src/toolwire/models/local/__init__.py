"""The embedded local model: GGUF files run in-process by llama.cpp (`pip install
'toolwire[local]'`), with the model's own chat template, the text tool-call scanner, optional
grammar-constrained calls, and KV-cache reuse across the steps of a run."""

from ._assemble import ModelIntegrityError, ensure_packaged, models_dir
from ._catalog import DEFAULT_MODEL, PACKAGED_MODELS, CallGate, PackagedModel, Part
from ._model import LocalModel
from ._spec import from_spec

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "CallGate",
    "LocalModel",
    "ModelIntegrityError",
    "PackagedModel",
    "Part",
    "ensure_packaged",
    "from_spec",
    "models_dir",
]
