"""Model strings for local models.

local                       the default packaged model (Qwen2.5-Coder-0.5B-Instruct)
local:NAME                  another packaged model (see PACKAGED_MODELS)
local:/path/model.gguf      any GGUF file (also ./relative, ~/home, or any path ending .gguf)
local:OWNER/REPO[:FILE]     a GGUF file from the Hugging Face Hub (FILE may be a glob)
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from ...errors import UsageError
from ._assemble import ensure_packaged
from ._catalog import PACKAGED_MODELS, find_packaged
from ._hub import hub_file
from ._model import LocalModel

__all__ = ["from_spec"]

_REPO = re.compile(r"(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]+)(?::(?P<file>.+))?")


def from_spec(spec: str) -> LocalModel:
    spec = spec.strip()
    packaged = find_packaged(spec)
    if packaged is not None:
        gate = packaged.gate
        fitted = {} if gate is None else dataclasses.asdict(gate)
        return LocalModel(
            functools.partial(ensure_packaged, packaged),
            name=f"local:{packaged.name}",
            describes_calls=packaged.describes_calls,
            **fitted,
        )
    path = Path(spec).expanduser()
    repo = _REPO.fullmatch(spec)
    # OWNER/REPO:FILE.gguf names a Hub file; a path looks like one, exists, or ends in .gguf.
    on_hub = repo is not None and (repo["file"] is not None or not spec.endswith(".gguf"))
    if (
        spec.startswith(("/", ".", "~"))
        or path.is_file()
        or (spec.endswith(".gguf") and not on_hub)
    ):
        if not path.is_file():
            raise UsageError(f"no GGUF model file at {path}")
        return LocalModel(path, name=f"local:{spec}")
    if repo is not None:
        return LocalModel(
            functools.partial(hub_file, repo["repo"], repo["file"]), name=f"local:{spec}"
        )
    raise UsageError(
        f"unknown local model {spec!r}: use local (the default), local:NAME with NAME one of "
        f"{', '.join(PACKAGED_MODELS)}, local:/path/to/model.gguf, or local:OWNER/REPO[:FILE]"
    )
