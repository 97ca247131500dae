"""Connection details shared by the adapters: model strings, keys and missing extras.

A model string is `provider:MODEL[@BASE_URL]`: everything after the provider prefix is the model,
except a trailing `@http://...` or `@https://...` (the last one), which points the adapter at
another server (a proxy, a
local OpenAI-compatible server, a test double). Keys come from each SDK's usual environment
variables unless given to the adapter's constructor.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

_SPEC = re.compile(r"(?P<model>.*)@(?P<url>https?://\S+)", re.DOTALL)
# Servers other than the provider's rarely check the key, but the SDKs insist on one.
_NO_KEY = "not-needed"


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


def key_or_placeholder(
    api_key: str | None,
    base_url: str | None,
    *,
    key_variables: Sequence[str],
    base_url_variable: str,
    missing: str,
) -> str | None:
    """The key to hand the SDK: `api_key`, or None where one of `key_variables` holds a key (the
    SDK reads it), or a placeholder where there is none but the requests go to another server
    (`base_url`, or `base_url_variable` set). With neither: UsageError(`missing`)."""
    if api_key is not None or any(os.environ.get(name) for name in key_variables):
        return api_key
    if base_url is None and not os.environ.get(base_url_variable):
        raise UsageError(missing)
    return _NO_KEY


def client_options(timeout: float | None) -> dict[str, Any]:
    """Options of an OpenAI or Anthropic SDK client (both SDKs take the same): its own retries off,
    since the loop retries (honouring Retry-After), and `timeout` where one is given."""
    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:
        options["timeout"] = timeout
    return options
