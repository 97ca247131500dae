"""Tools from plain Python functions: one signature gives both the schema and the validator."""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin, get_type_hints, overload

import anyio.to_thread
import docstring_parser
import pydantic
import pydantic_core
from pydantic.json_schema import GenerateJsonSchema

from ..errors import InvalidArguments, UsageError
from ._tool import SideEffect, Tool, ToolContext, ToolExited


@dataclass(frozen=True, slots=True)
class Injected:
    """Marks a parameter the application supplies: `user: Annotated[User, Injected()]`.

    It never appears in the schema, and a model that sends it gets a validation error. The value
    is `deps[key]` (key defaults to the parameter name), or one of the context's own values:
    `run_id`, `call_id`, `step`, `idempotency_key`. A parameter typed `ToolContext` receives the
    whole context.
    """

    key: str | None = None


class _SchemaWithoutTitles(GenerateJsonSchema):
    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


_ARGUMENTS_CONFIG = pydantic.ConfigDict(
    extra="forbid", populate_by_name=False, arbitrary_types_allowed=True
)


@overload
def tool(function: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    side_effect: SideEffect = "destructive",
    requires_approval: bool | None = None,
    timeout: float | None = None,
    in_thread: bool = True,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    side_effect: SideEffect = "destructive",
    requires_approval: bool | None = None,
    timeout: float | None = None,
    in_thread: bool = True,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a tool of a sync or async function.

    The docstring is the description; parameter descriptions come from its Args / Parameters /
    `:param:` section (Google, NumPy or Sphinx), which then appears in the schema only, not again
    in the description (the model would read each parameter's text twice). A sync function runs
    in a worker thread unless `in_thread=False`, for quick pure computations only: that runs it on
    the event loop, where no timeout can stop it (a thread cannot be killed either, but on timeout
    the loop stops waiting for it). The return value becomes the result: a str as is, anything
    else as compact JSON.
    """

    # Like pydantic, resolve string annotations against the caller's locals too, so a tool defined
    # in a function may use classes defined beside it.
    caller_locals = dict(sys._getframe(1).f_locals)

    def make(function: Callable[..., Any]) -> Tool:
        return function_tool(
            function,
            localns=caller_locals,
            name=name,
            description=description,
            side_effect=side_effect,
            requires_approval=requires_approval,
            timeout=timeout,
            in_thread=in_thread,
        )

    return make(function) if function is not None else make


def function_tool(
    function: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    side_effect: SideEffect = "destructive",
    requires_approval: bool | None = None,
    timeout: float | None = None,
    in_thread: bool = True,
    localns: Mapping[str, Any] | None = None,
) -> Tool:
    if not callable(function):
        raise UsageError(f"not a tool, a toolset or a function: {function!r:.60}")
    tool_name = name or getattr(function, "__name__", None)
    if not tool_name:
        raise UsageError(f"{function!r:.60} has no __name__: give the tool a name")
    doc, param_docs = _read_docstring(inspect.getdoc(function) or "")
    params = _parse_signature(function, tool_name, param_docs, localns)
    fields = {p.field: (p.annotation, p.field_info) for p in params if p.injected is None}
    arguments_model = pydantic.create_model(  # type: ignore[call-overload]
        f"{tool_name}_arguments", __config__=_ARGUMENTS_CONFIG, **fields
    )
    schema = arguments_model.model_json_schema(schema_generator=_SchemaWithoutTitles)
    schema.pop("title", None)
    schema.setdefault("properties", {})

    def validate(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        try:
            validated = arguments_model.model_validate(arguments)
        except pydantic.ValidationError as error:
            raise InvalidArguments(
                [(_error_path(e["loc"]), e["msg"]) for e in error.errors(include_url=False)]
            ) from None
        return {p.name: getattr(validated, p.field) for p in params if p.injected is None}

    call = _caller(function, in_thread)

    async def invoke(arguments: Mapping[str, Any], context: ToolContext) -> str:
        kwargs: dict[str, Any] = {}
        for p in params:
            if p.injected is None:
                kwargs[p.name] = arguments[p.name]
            elif p.injected == "":
                kwargs[p.name] = context
            else:
                kwargs[p.name] = context.lookup(p.injected)
        return to_content(await call(kwargs))

    return Tool(
        name=tool_name,
        description=description if description is not None else doc,
        parameters=schema,
        validate=validate,
        invoke=invoke,
        side_effect=side_effect,
        requires_approval=requires_approval,
        timeout=timeout,
        injected=frozenset(p.injected for p in params if p.injected),
    )


def to_content(value: Any) -> str:
    if isinstance(value, str):
        return value
    return pydantic_core.to_json(value, serialize_unknown=True).decode()


@dataclass(frozen=True, slots=True)
class _Param:
    name: str
    field: str
    annotation: Any
    field_info: Any
    injected: str | None  # None: from the model; "": the ToolContext itself; else a context key


def _parse_signature(
    function: Callable[..., Any],
    tool_name: str,
    docs: Mapping[str, str],
    localns: Mapping[str, Any] | None,
) -> list[_Param]:
    try:
        hints = get_type_hints(function, localns=dict(localns or {}), include_extras=True)
    except Exception as error:
        raise UsageError(f"tool {tool_name!r}: cannot resolve type hints: {error}") from None
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise UsageError(f"cannot describe {tool_name} as a tool: {error}") from None
    params = []
    for index, parameter in enumerate(signature.parameters.values()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise UsageError(f"tool {tool_name!r}: *args and **kwargs cannot be described")
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise UsageError(f"tool {tool_name!r}: positional-only parameters are not supported")
        if parameter.name not in hints and parameter.name not in docs:
            _warn_undescribed(function, tool_name, parameter.name)
        annotation = hints.get(parameter.name, Any)
        injected = _injected_key(parameter.name, annotation)
        default = ... if parameter.default is parameter.empty else parameter.default
        # Fields get neutral names with the parameter name as alias, so a parameter may be called
        # anything (`json`, `copy`, `model_config`) without colliding with pydantic's own names.
        field_info = pydantic.Field(
            default=default, alias=parameter.name, description=docs.get(parameter.name)
        )
        params.append(_Param(parameter.name, f"p{index}", annotation, field_info, injected))
    return params


def _warn_undescribed(function: Callable[..., Any], tool_name: str, parameter: str) -> None:
    """The model would be told nothing about this parameter (its schema is `{}`): say so where
    the function is defined, once, at decoration time."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    warnings.warn_explicit(
        f"tool {tool_name!r}: parameter {parameter!r} has no type and no description, so the "
        "model is told nothing about it; annotate it or document it in the docstring",
        UserWarning,
        filename=code.co_filename if code else "<unknown>",
        lineno=code.co_firstlineno if code else 0,
        module=getattr(function, "__module__", None) or "toolwire",
    )


def _injected_key(name: str, annotation: Any) -> str | None:
    if annotation is ToolContext:
        return ""
    if get_origin(annotation) is Annotated:
        for marker in get_args(annotation)[1:]:
            if isinstance(marker, Injected):
                return marker.key or name
    return None


def _read_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """(the tool's description, each parameter's description) from a docstring."""
    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return doc, {}
    params = {p.arg_name: p.description for p in parsed.params if p.description}
    if not params:
        return doc, {}
    parts = [parsed.description or ""]
    if parsed.returns is not None and parsed.returns.description:
        parts.append(f"Returns: {parsed.returns.description}")
    return "\n\n".join(part.strip() for part in parts if part.strip()), params


def _error_path(location: tuple[int | str, ...]) -> str:
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _caller(function: Callable[..., Any], in_thread: bool) -> Callable[[dict[str, Any]], Any]:
    if inspect.iscoroutinefunction(function):

        async def call_async(kwargs: dict[str, Any]) -> Any:
            return await function(**kwargs)

        return call_async

    async def call_sync(kwargs: dict[str, Any]) -> Any:
        if not in_thread:
            return function(**kwargs)
        # A thread cannot be killed: on timeout the loop stops waiting and the thread runs out.
        return await anyio.to_thread.run_sync(
            functools.partial(_in_worker, function, kwargs), abandon_on_cancel=True
        )

    return call_sync


def _in_worker(function: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    try:
        return function(**kwargs)
    except Exception:
        raise
    except BaseException as raised:
        # No signal is ever delivered to a worker thread: whatever this is, the tool raised it.
        raise ToolExited(raised) from raised
