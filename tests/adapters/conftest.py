from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from toolwire.models import Model

from .anthropic_wire import AnthropicDriver
from .bedrock_wire import BedrockDriver
from .gemini_wire import GeminiDriver
from .openai_wire import ChatDriver, ResponsesDriver
from .script import Driver
from .wire import WireServer

DRIVERS: list[Driver] = [
    ResponsesDriver(),
    ChatDriver(),
    AnthropicDriver(),
    GeminiDriver(),
    BedrockDriver(),
]

_CLEARED = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_API_VERSION",
    "AWS_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
)


@pytest.fixture(autouse=True)
def isolated_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """No key, base URL or AWS setting of the machine may leak into a test, and nothing may be
    read from the home directory (SDK profiles, AWS config)."""
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(home / "anthropic"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-test")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    # The run log of CLI tests goes to a temporary directory too.
    monkeypatch.setenv("TOOLWIRE_DATA_DIR", str(home / "toolwire"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as running:
        yield running


@pytest.fixture
async def model(driver: Driver, server: WireServer) -> AsyncIterator[Model]:
    """The driver's adapter, pointed at the server, closed after the test."""
    built = driver.model(server.url)
    yield built
    await built.aclose()  # type: ignore[attr-defined]


@pytest.fixture(params=DRIVERS, ids=lambda d: d.prefix)
def driver(request: pytest.FixtureRequest) -> Driver:
    driver: Driver = request.param
    return driver
