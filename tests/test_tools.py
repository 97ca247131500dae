from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Literal

import anyio
import pytest
from pydantic import BaseModel

from toolwire import Injected, InvalidArguments, Tool, ToolContext, UsageError, tool
from toolwire.tools import FunctionToolset, HiddenToolset, ToolDefinition, to_content

CONTEXT = ToolContext(run_id="r1", call_id="c1", step=1, idempotency_key="k1", deps={"user": "ann"})


def invoke(t: Tool, arguments: dict[str, object], context: ToolContext = CONTEXT) -> str:
    return anyio.run(t.invoke, t.validate(arguments), context)


def test_schema_and_descriptions_from_a_google_docstring() -> None:
    @tool
    def search(query: str, limit: int = 5, kind: Literal["post", "photo"] | None = None) -> str:
        """Search the user's content.

        Args:
            query: words to look for
            limit: how many results at most
            kind: only this kind of item
        """
        return query

    assert search.name == "search"
    assert search.description == "Search the user's content."  # the Args live in the schema
    schema = search.parameters
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"] == {"description": "words to look for", "type": "string"}
    assert schema["properties"]["limit"]["default"] == 5
    assert "title" not in schema and "title" not in schema["properties"]["limit"]


def test_a_docstring_keeps_its_prose_and_returns_and_leaves_the_parameters_to_the_schema() -> None:
    @tool
    def forecast(city: str, days: int = 3) -> str:
        """Forecast the weather.

        Uses the national service where there is one.

        Args:
            city: a city name
            days: how far ahead

        Returns:
            one line per day

        Raises:
            KeyError: for an unknown city
        """
        return city

    assert forecast.description == (
        "Forecast the weather.\n\nUses the national service where there is one.\n\n"
        "Returns: one line per day"
    )
    assert forecast.parameters["properties"]["days"]["description"] == "how far ahead"

    @tool
    def plain(city: str) -> str:
        """Weather for a city; no sections, so all of it is the description."""
        return city

    assert plain.description == "Weather for a city; no sections, so all of it is the description."


def test_numpy_and_sphinx_docstrings_describe_parameters() -> None:
    def numpy_style(city: str) -> str:
        """Weather.

        Parameters
        ----------
        city : str
            The city name.
        """
        return city

    def sphinx_style(city: str) -> str:
        """Weather.

        :param city: The city name.
        """
        return city

    for function in (numpy_style, sphinx_style):
        made = tool(function)
        assert made.parameters["properties"]["city"]["description"] == "The city name."


def test_injected_parameters_are_hidden_and_rejected_from_the_model() -> None:
    @tool
    def whoami(
        greeting: str,
        user: Annotated[str, Injected()],
        key: Annotated[str, Injected("idempotency_key")],
        context: ToolContext,
    ) -> str:
        return f"{greeting} {user} {key} {context.call_id}"

    assert set(whoami.parameters["properties"]) == {"greeting"}
    assert whoami.injected == {"user", "idempotency_key"}
    assert invoke(whoami, {"greeting": "hi"}) == "hi ann k1 c1"
    with pytest.raises(InvalidArguments) as raised:
        whoami.validate({"greeting": "hi", "user": "mallory"})
    assert ("user", "Extra inputs are not permitted") in raised.value.errors


def test_validation_errors_carry_paths() -> None:
    class Item(BaseModel):
        sku: str
        quantity: int

    @tool
    def order(items: list[Item]) -> int:
        return len(items)

    with pytest.raises(InvalidArguments) as raised:
        order.validate({"items": [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": "many"}]})
    assert raised.value.errors[0][0] == "items[1].quantity"
    assert "items[1].quantity" in str(raised.value)
    assert invoke(order, {"items": [{"sku": "a", "quantity": 2}]}) == "1"


def test_parameters_may_shadow_pydantic_names() -> None:
    @tool
    def save(json: str, copy: bool = False, model_config: int = 0) -> str:
        return f"{json}{copy}{model_config}"

    assert set(save.parameters["properties"]) == {"json", "copy", "model_config"}
    assert invoke(save, {"json": "x", "copy": True}) == "xTrue0"


def test_sync_and_async_functions_and_return_conversion() -> None:
    @dataclass
    class Point:
        x: int
        y: int

    @tool
    async def point(x: int) -> Point:
        return Point(x, x * 2)

    @tool(in_thread=False)
    def listing() -> list[str]:
        return ["a", "é"]

    assert invoke(point, {"x": 2}) == '{"x":2,"y":4}'
    assert invoke(listing, {}) == '["a","é"]'
    assert to_content("plain") == "plain"
    assert to_content(None) == "null"


def test_tool_options_and_names() -> None:
    @tool(name="read-file", side_effect="read_only", timeout=3)
    def read(path: str) -> str:
        return path

    assert (read.name, read.side_effect, read.timeout, read.needs_approval) == (
        "read-file",
        "read_only",
        3,
        False,
    )
    with pytest.raises(UsageError, match="must match"):
        tool(lambda: None)
    with pytest.raises(UsageError, match="must match"):
        tool(name="x" * 65)(lambda_free)
    with pytest.raises(UsageError, match="side_effect"):
        tool(side_effect="harmless")(lambda_free)  # type: ignore[arg-type]
    assert tool(lambda_free).needs_approval  # destructive unless declared


def lambda_free() -> None:
    pass


def test_unsupported_signatures_are_developer_errors() -> None:
    def star(*args: int) -> None:
        pass

    def positional(a: int, /) -> None:
        pass

    for function in (star, positional):
        with pytest.raises(UsageError):
            tool(function)


def test_toolset_wrappers() -> None:
    @tool(side_effect="read_only")
    def read(path: str) -> str:
        return path

    @tool
    def write(path: str) -> str:
        return path

    @tool
    def remember(note: str) -> str:
        return note

    base = FunctionToolset([read, write, remember])

    def names(toolset: object) -> list[str]:
        return [t.name for t in anyio.run(toolset.get_tools)]  # type: ignore[attr-defined]

    assert names(base.filtered(allow={"read", "write"}, deny={"write"})) == ["read"]
    assert names(base.filtered(allow=lambda t: t.side_effect == "read_only")) == ["read"]
    assert names(base.prefixed("fs_")) == ["fs_read", "fs_write", "fs_remember"]
    hidden = base.hidden("remember")
    assert isinstance(hidden, HiddenToolset)
    assert names(hidden) == ["read", "write"]
    assert [t.name for t in anyio.run(hidden.hidden_tools)] == ["remember"]
    approved = anyio.run(base.requiring_approval("read").get_tools)
    assert [t.needs_approval for t in approved] == [True, True, True]
    assert not anyio.run(base.requiring_approval("write").get_tools)[0].needs_approval
    with pytest.raises(UsageError, match="must match"):
        names(base.prefixed("x" * 62))
    with pytest.raises(UsageError, match="duplicate"):
        FunctionToolset([read, read])


def test_wrapper_recomputes_only_when_the_inner_list_changes() -> None:
    base = FunctionToolset([lambda_free])
    prefixed = base.prefixed("p_")
    first = anyio.run(prefixed.get_tools)
    assert anyio.run(prefixed.get_tools) is first


def test_schema_is_plain_json() -> None:
    @tool
    def f(a: float, tags: list[str] | None = None) -> None:
        pass

    json.dumps(f.parameters)


def test_a_definition_carries_the_tools_side_effect() -> None:
    @tool(side_effect="read_only")
    def look(query: str) -> str:
        """Look something up."""
        return query

    assert look.definition.side_effect == "read_only"
    assert ToolDefinition(name="x", description="", parameters={}).side_effect == "destructive"
