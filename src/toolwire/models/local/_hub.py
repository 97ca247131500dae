"""GGUF files from the Hugging Face Hub (`local:OWNER/REPO[:FILENAME]`), through huggingface_hub,
so its cache, token, mirror (`HF_ENDPOINT`) and offline mode (`HF_HUB_OFFLINE`) all apply."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from ...errors import UsageError

__all__ = ["hub_file"]


def hub_file(repo_id: str, filename: str | None) -> Path:
    """Download (or find in the cache) the repo's GGUF file. `filename` may be a glob
    (`*q4_k_m.gguf`); without it the repo must hold exactly one GGUF file."""
    hub = _hub()
    if filename is None or any(ch in filename for ch in "*?["):
        filename = _choose(hub, repo_id, filename or "*.gguf")
    try:
        return Path(hub.hf_hub_download(repo_id=repo_id, filename=filename))
    except Exception as error:  # the hub raises many error types; all mean "not available"
        raise UsageError(
            f"cannot get {filename} from the Hugging Face repo {repo_id}: "
            f"{type(error).__name__}: {error}"
        ) from None


def _choose(hub: Any, repo_id: str, pattern: str) -> str:
    try:
        files: list[str] = hub.list_repo_files(repo_id)
    except Exception as error:
        raise UsageError(
            f"cannot list the Hugging Face repo {repo_id} ({type(error).__name__}: {error}); "
            f"name the file: local:{repo_id}:FILENAME.gguf"
        ) from None
    matches = sorted(f for f in files if f.endswith(".gguf") and fnmatch.fnmatch(f, pattern))
    if len(matches) != 1:
        found = ", ".join(matches) if matches else "none"
        raise UsageError(
            f"the Hugging Face repo {repo_id} has {len(matches)} GGUF files matching {pattern} "
            f"({found}); choose one: local:{repo_id}:FILENAME"
        )
    return matches[0]


def _hub() -> Any:
    try:
        import huggingface_hub
    except ImportError:
        raise UsageError(
            "loading models from the Hugging Face Hub needs huggingface_hub: "
            "pip install 'toolwire[local]'"
        ) from None
    return huggingface_hub
