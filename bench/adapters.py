"""What translating one request costs each adapter: 20 tools, a history of up to 50 turns.

    python bench/adapters.py [--repeat N] [--no-gc]

For every adapter it times `wire_request` (the neutral request turned into exactly what the SDK is
handed) at several history lengths, and, in the same run, `json.dumps` of that result: the cost of
serialising the history once, which every request pays anyway. Per-step work is flat when the
ratio of the two stays the same as the history grows (no step redoes work for earlier turns
beyond writing them out) and the cost per turn does not climb. Also printed: tool translation
uncached versus cached (the loop sends the same tools every step). No network: the clients point
at an unused local port. Needs the extras: pip install 'toolwire[openai,anthropic,gemini,bedrock]'.
Absolute times on a shared machine are for orientation only; compare the ratios.
"""

from __future__ import annotations

import argparse
import base64
import functools
import gc
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from toolwire.messages import Message, ReasoningPart, TextPart, ToolCall, ToolResult
from toolwire.models import ModelRequest, ModelSettings
from toolwire.models._tools import ToolTranslator, WireTool
from toolwire.models.anthropic import AnthropicModel
from toolwire.models.bedrock import BedrockModel
from toolwire.models.gemini import GeminiModel
from toolwire.models.openai_chat import OpenAIChatModel
from toolwire.models.openai_responses import OpenAIResponsesModel
from toolwire.tools import Tool, tool

TURNS = (5, 25, 50)
UNUSED = "http://127.0.0.1:9"


class Address(BaseModel):
    street: str
    city: str
    postcode: str | None = None


class Order(BaseModel):
    sku: str = Field(description="Stock keeping unit")
    quantity: int = Field(ge=1)
    ship_to: Address
    gift_note: str | None = None


def _tools() -> list[Tool]:
    """20 tools, in the shapes real ones have: flat, optional, enum, nested models with $defs."""

    def search(query: str, limit: int = 10, language: Literal["en", "de", "fr"] = "en") -> str:
        """Search the knowledge base.

        Args:
            query: What to look for.
            limit: How many hits at most.
            language: Which language the hits should be in.
        """
        return query

    def place(order: Order, express: bool = False) -> str:
        """Place an order.

        Args:
            order: The order.
            express: Ship it express.
        """
        return order.sku

    def convert(amount: float, source: str, target: str) -> float:
        """Convert between currencies."""
        return amount

    def schedule(
        title: str, start: str, minutes: int = 30, attendees: list[str] | None = None
    ) -> str:
        """Put a meeting in the calendar."""
        return title

    shapes = [search, place, convert, schedule]
    return [
        tool(name=f"{shape.__name__}_{n}", side_effect="read_only")(shape)
        for n in range(5)
        for shape in shapes
    ]


def _history(turns: int) -> tuple[Message, ...]:
    """`turns` rounds of: a question, an assistant turn (reasoning, text, two calls), two results.
    The reasoning carries each API's provider data, as a real history would for its own API."""
    signature = base64.b64encode(b"s" * 64).decode()
    reasoning_data = {
        "openai_reasoning": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Plan."}],
                "encrypted_content": "gAAAA" + "x" * 400,
            }
        ],
        "anthropic_thinking": [{"type": "thinking", "thinking": "Plan.", "signature": signature}],
        "bedrock_reasoning": [{"reasoningText": {"text": "Plan.", "signature": signature}}],
    }
    messages = [Message.system("You are a careful assistant. " * 10)]
    for turn in range(turns):
        messages.append(Message.user(f"Question {turn}: " + "what about the order? " * 8))
        calls = tuple(
            ToolCall(
                id=f"call_{turn}_{n}",
                name=name,
                arguments={"query": f"q{turn}", "limit": 5},
                raw_arguments=json.dumps({"query": f"q{turn}", "limit": 5}),
                provider_data={
                    "thought_signature": signature,
                    "gemini_call_id": f"call_{turn}_{n}",
                },
            )
            for n, name in enumerate(("search_0", "search_1"))
        )
        parts = (
            ReasoningPart(text="Plan.", provider_data=reasoning_data),
            TextPart(text="Looking."),
        )
        messages.append(Message(role="assistant", parts=(*parts, *calls)))
        results = tuple(
            ToolResult(call_id=c.id, name=c.name, content="result text " * 30) for c in calls
        )
        messages.append(Message(role="tool", parts=results))
    messages.append(Message.user("And finally?"))
    return tuple(messages)


def _models() -> dict[str, Any]:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    return {
        "openai (Responses)": OpenAIResponsesModel("gpt-5", api_key="k", base_url=UNUSED),
        "openai-chat": OpenAIChatModel("gpt-4.1", api_key="k", base_url=UNUSED),
        "anthropic": AnthropicModel("claude-x", api_key="k", base_url=UNUSED),
        "gemini": GeminiModel("gemini-x", api_key="k", base_url=UNUSED),
        "bedrock": BedrockModel("anthropic.claude-x", region="us-east-1", endpoint_url=UNUSED),
    }


def _median_us(fn: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def _serialise(body: Any) -> str:
    return json.dumps(body, default=lambda b: base64.b64encode(b).decode())


def _render(tool: WireTool) -> dict[str, Any]:
    return {"name": tool.wire_name, "parameters": tool.schema}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument(
        "--no-gc",
        action="store_true",
        help="time with the cyclic garbage collector off: its passes grow with the live objects "
        "(the history itself), which shows as a little growth per turn that is not the adapters'",
    )
    options = parser.parse_args()
    repeat = options.repeat
    if options.no_gc:
        gc.disable()
    tools = tuple(t.definition for t in _tools())
    histories = {turns: _history(turns) for turns in TURNS}
    print(f"20 tools; history of {', '.join(map(str, TURNS))} turns; median of {repeat} runs\n")
    header = (
        f"{'adapter':<20}{'µs @5':>8}{'µs @50':>9}{'µs/turn 5-25':>14}{'µs/turn 25-50':>15}"
        f"{'growth':>8}{'json µs/turn':>14}{'vs json':>9}"
    )
    print(header)
    print("-" * len(header))
    for label, model in _models().items():
        translate: dict[int, float] = {}
        serialise: dict[int, float] = {}
        for turns, history in histories.items():
            request = ModelRequest(messages=history, tools=tools, settings=ModelSettings())
            body = model.wire_request(request)  # warm: the tools are translated and cached
            translate[turns] = _median_us(functools.partial(model.wire_request, request), repeat)
            serialise[turns] = _median_us(functools.partial(_serialise, body), repeat)
        early = (translate[25] - translate[5]) / 20
        late = (translate[50] - translate[25]) / 25
        per_turn = (translate[50] - translate[5]) / 45
        json_per_turn = (serialise[50] - serialise[5]) / 45
        print(
            f"{label:<20}{translate[5]:>8.0f}{translate[50]:>9.0f}{early:>14.1f}{late:>15.1f}"
            f"{late / early:>7.2f}x{json_per_turn:>14.1f}{per_turn / json_per_turn:>8.2f}x"
        )
    print(
        "\nµs/turn: what one more turn of history adds to a request, early and late in a run; "
        "growth: late / early (about 1: linear, no step redoes earlier work).\n"
        "vs json: that cost per turn / json.dumps' cost per turn of the result (below 1: "
        "translating the history costs less than writing it out once)."
    )
    cold = _median_us(lambda: ToolTranslator("openai-strict", _render).translate(tools), repeat)
    warm_translator = ToolTranslator("openai-strict", _render)
    warm_translator.translate(tools)
    warm = _median_us(lambda: warm_translator.translate(tools), repeat)
    print(
        f"\ntools, OpenAI strict dialect: first step {cold:.0f} µs, every later step {warm:.1f} µs "
        f"({cold / warm:.0f}x less: cached per schema object)"
    )


if __name__ == "__main__":
    main()
