from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = [
    "toolwire",
    "toolwire.tools",
    "toolwire.models",
    "toolwire.log",
    "toolwire.cli",
    "toolwire.events",
    "toolwire.messages",
    "toolwire.errors",
    "toolwire.limits",
    "toolwire.approval",
    "toolwire.elicitation",
    "toolwire.sampling",
    "toolwire.run",
    "toolwire.clock",
    "toolwire.mcp",
    "toolwire.textcalls",
    "toolwire.builtin",
    "toolwire.evals",
    "toolwire.ui",
    "toolwire.models.openai_responses",
    "toolwire.models.openai_chat",
    "toolwire.models.anthropic",
    "toolwire.models.gemini",
    "toolwire.models.bedrock",
    "toolwire.models.profiles",
    "toolwire.models.local",
    "toolwire.otel",
    "toolwire.durable",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_lists_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    assert len(exported) == len(module.__all__), "duplicates in __all__"
    for item in exported:
        assert hasattr(module, item), f"{name}.{item} is listed but missing"
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and getattr(value, "__module__", "").startswith(name)
        and callable(value)
    }
    assert public <= exported, f"{name} defines public names not in __all__: {public - exported}"


def test_core_import_loads_no_optional_dependency() -> None:
    code = (
        "import sys, toolwire, toolwire.cli, toolwire.log;"
        "heavy = {'openai','anthropic','google','boto3','mcp','llama_cpp','httpx','jinja2','dbos','sqlalchemy'};"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "[]"
