"""Connection details shared by the adapters: model strings and missing extras.

A model string is `provider:MODEL[@BASE_URL]`: everything after the provider prefix is the model,
except a trailing `@http://...` or `@https://...` (the last one), which points the adapter at
another server (a proxy, a
local OpenAI-compatible server, a test double). Keys come from each SDK's usual environment
variables unless given to the adapter's constructor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UsageError

_SPEC = re.compile(r"(?P<model>.*)@(?P<url>https?://\S+)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    model: str
    base_url: str | None


def parse_spec(provider: str, spec: str) -> ModelSpec:
    match = _SPEC.fullmatch(spec)
    model, base_url = (match["model"], match["url"]) if match else (spec, None)
    if not model.strip():
        raise UsageError(f"'{provider}:' needs a model name: {provider}:MODEL[@BASE_URL]")
    return ModelSpec(model.strip(), base_url)


def missing_extra(provider: str, extra: str, error: ImportError) -> UsageError:
    return UsageError(
        f"models '{provider}:' need an optional dependency ({error.name or error}): "
        f"pip install 'toolwire[{extra}]'"
    )
