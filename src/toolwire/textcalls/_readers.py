"""Readers for one call item: a JSON call object, or a name followed by its arguments.

JSON call objects come in many shapes: `{"name", "arguments"|"parameters"}`, Command-R's
`{"tool_name", "parameters"}`, OpenAI's `{"type": "function", "function": {...}}`, llama.cpp's
`{"tool_call": {...}}` and `{"tool_calls": [...]}`; arguments may come before the name, or as a JSON
string. Behind a marker the arguments' text streams as soon as the name is known, and their closing
brace is held back until the whole call object has closed, so a call that breaks later never has
parsable arguments. With no marker (or a weak one) a call starts only once it is whole: until
then it may still turn out to be text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._args import ArgsReader
from ._json import LenientJson, ValueKind, normalize_object
from ._util import PARTIAL, match_token
from ._xml import XmlParams

if TYPE_CHECKING:
    from ._machine import Machine, Owner, Recorder

__all__ = ["JsonCallReader", "NamedCallReader"]

NAME_KEYS = frozenset({"name", "tool_name", "function_name", "tool"})
ARGUMENT_KEYS = frozenset({"arguments", "parameters", "args", "input", "tool_input", "params"})
CALL_KEYS = (
    NAME_KEYS
    | ARGUMENT_KEYS
    | {
        "type",
        "id",
        "tool_call_id",
        "call_id",
        "index",
        "function",
        "tool_call",
        "tool_calls",
    }
)
_CALL, _ARGS, _ARGS_TEXT, _NAME, _CALLS, _PASS = range(6)


@dataclass(slots=True)
class _CallState:
    name: str | None = None
    index: int | None = None
    arguments: list[str] = field(default_factory=list)
    argument_form: str | None = None  # "object", "string", "other"
    tail: str = ""
    failure: str | None = None
    wrapper: bool = False


@dataclass(slots=True)
class _Frame:
    role: int
    sink: list[str] | None
    call: _CallState


class JsonCallReader:
    def __init__(self, m: Machine, owner: Owner, at: int) -> None:
        self.owner = owner
        self._m = m
        self._json = LenientJson(self)
        self._frames: list[_Frame] = []
        self._open: list[_CallState] = []  # started or not, not yet finished
        self._item = m.begin_item(at)
        self._item_used = False
        self._pause: str | None = None  # "reject" or "finish", acted on between feeds
        self._finished: _CallState | None = None

    # --- structure -----------------------------------------------------------------------------

    def on_key(self, key: str) -> bool:
        frame = self._frames[-1]
        if frame.role == _CALL and self._m.undecided and key not in CALL_KEYS:
            self._pause = "reject"  # an object, but not a call
            return False
        return True

    def on_begin(self, key: str | int | None, kind: ValueKind) -> bool:
        parent = self._frames[-1] if self._frames else None
        if parent is None:
            frame = self._new_call()
        elif parent.role == _CALL:
            frame = self._member(parent.call, key, kind)
        elif parent.role == _CALLS and kind == "object":
            frame = self._new_call()
        else:
            frame = _Frame(_PASS, parent.sink if parent.role != _CALLS else None, parent.call)
        self._frames.append(frame)
        self._json.sink = frame.sink
        return True

    def _new_call(self) -> _Frame:
        call = _CallState()
        self._open.append(call)
        return _Frame(_CALL, None, call)

    def _member(self, call: _CallState, key: str | int | None, kind: ValueKind) -> _Frame:
        if key in ARGUMENT_KEYS and call.argument_form is None:
            if kind == "object":
                call.argument_form = "object"
                return _Frame(_ARGS, call.arguments, call)
            call.argument_form = "string" if kind == "string" else "other"
            return _Frame(_ARGS_TEXT, [], call)
        if call.name is None and kind == "string" and (key in NAME_KEYS or key == "function"):
            return _Frame(_NAME, [], call)
        if (key in ("function", "tool_call") and kind == "object") or (
            key == "tool_calls" and kind == "array"
        ):
            call.wrapper = True
            return self._new_call() if kind == "object" else _Frame(_CALLS, None, call)
        return _Frame(_PASS, None, call)

    def on_end(self) -> bool:
        frame = self._frames.pop()
        self._json.sink = self._frames[-1].sink if self._frames else None
        call = frame.call
        if frame.role == _NAME:
            return self._named(call, json.loads("".join(frame.sink or ['""'])))
        if frame.role == _ARGS:
            # Hold the closing brace back until the call object closes.
            chunks = call.arguments
            while chunks and not chunks[-1]:
                chunks.pop()
            chunks[-1] = chunks[-1][:-1]
            call.tail = "}"
        elif frame.role == _ARGS_TEXT:
            self._arguments_text(call, "".join(frame.sink or []))
        elif frame.role == _CALL:
            self._finished = call
            self._pause = "finish"
            return False
        return True

    def _named(self, call: _CallState, written: str) -> bool:
        m = self._m
        call.name = m.resolve(written)
        if m.undecided:
            # No marker: a known tool's name, then a whole, well-formed call, or it was text.
            if not m.known(call.name):
                self._pause = "reject"
                return False
            return True
        self._start(m, call)
        return True

    def _start(self, m: Machine, call: _CallState) -> None:
        assert call.name is not None
        call.index = m.start_call(call.name, None if self._item_used else self._item)
        self._item_used = True

    def _arguments_text(self, call: _CallState, text: str) -> None:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            # An array nested too deep, or a number too long, for Python: not an object either.
            value = []
        if value is None:
            call.argument_form = None
        elif isinstance(value, str):
            # Arguments sent as a JSON string (Granite-4, OpenAI-shaped output): decoded once.
            normalized = normalize_object(value) if value.strip() else "{}"
            if normalized is None:
                call.failure = "the arguments string does not hold a JSON object"
            else:
                call.arguments[:] = [normalized[:-1]]
                call.tail = "}"
        else:
            call.failure = "the arguments are not an object"

    # --- driving -------------------------------------------------------------------------------

    def step(self, m: Machine, buf: str, i: int) -> int:
        j = self._json.feed(buf, i)
        self._stream(m)
        pause, self._pause = self._pause, None
        if pause == "reject":
            return m.reject(j)
        if pause == "finish":
            assert self._finished is not None
            call, self._finished = self._finished, None
            if not self._finish(m, call, j):
                return m.reject(j)
            self._json.stopped = False
        if self._json.error is not None:
            return self._broken(m, buf, j)
        if self._json.done:
            m.pop(self)
            m.drop_item(self._item)
            self.owner.item_done(m, "ok")
        return j

    def _stream(self, m: Machine) -> None:
        for call in self._open:
            if call.index is not None and call.arguments:
                m.arguments(call.index, "".join(call.arguments))
                call.arguments.clear()

    def _finish(self, m: Machine, call: _CallState, upto: int) -> bool:
        """The call object closed. False: it was no call (and the candidate is rejected)."""
        self._open.remove(call)
        if call.name is None:
            if call.wrapper:
                return True
            if m.undecided:
                return False
            m.invalid_call(None, "a call with no tool name", upto, self._take_item())
            return True
        if m.undecided:
            if call.failure is not None:
                return False
            m.confirm()
            self._start(m, call)
        assert call.index is not None
        if call.failure is not None:
            m.invalid_call(call.index, call.failure, upto)
            return True
        if call.argument_form is None:
            call.arguments[:] = ["{"]
            call.tail = "}"
        self._stream_one(m, call)
        m.complete_call(call.index, call.tail, upto)
        return True

    def _stream_one(self, m: Machine, call: _CallState) -> None:
        if call.index is not None and call.arguments:
            m.arguments(call.index, "".join(call.arguments))
            call.arguments.clear()

    def _take_item(self) -> Recorder | None:
        if self._item_used:
            return None
        self._item_used = True
        return self._item

    def _broken(self, m: Machine, buf: str, j: int) -> int:
        if m.undecided:
            return m.reject(j)
        m.pop(self)
        root = self._frames[0].call if len(self._frames) == 1 else None
        if (
            root is not None
            and root.name is not None
            and root.failure is None
            and j < len(buf)
            and buf[j] in "<`"
        ):
            # Only the call object's own closing brace is missing, right before a closing tag or
            # fence: the arguments are whole, the intent is clear.
            self._finish(m, root, j)
            self.owner.item_done(m, "ok")
            return j
        self._invalidate(m, f"invalid JSON: {self._json.error}", j)
        self.owner.item_done(m, "failed")
        return j

    def _invalidate(self, m: Machine, reason: str, upto: int | None) -> None:
        started = [call for call in self._open if call.index is not None]
        for call in started:
            assert call.index is not None
            m.invalid_call(call.index, reason, upto)
        if not started:
            m.invalid_call(None, reason, upto, self._take_item())
        self._open.clear()

    def eof(self, m: Machine) -> None:
        self._invalidate(m, "the text ended inside the call (truncated)", None)


_NAME_CHARS = re.compile(r"[A-Za-z0-9_\-]+")
_DOTTED = re.compile(r"\.[A-Za-z0-9_\-]+")
_NAME_LIMIT = 128
_SPACES = re.compile(r"[ \t]+")
_NEWLINES = re.compile(r"[ \t\r\n]+")


class NamedCallReader:
    """A name, then what makes it a call: `(` Python-style arguments, a JSON object (Functionary,
    `NAME\\n{...}`), GLM's `<arg_key>` parameters, or Mistral's `[ARGS]` / `[CALL_ID]`. Anything
    else means the name was just a word."""

    def __init__(
        self,
        m: Machine,
        owner: Owner,
        at: int,
        *,
        explicit: bool,
        json_args: bool,
        python: bool = True,
        glm: bool = False,
        mistral: bool = False,
    ) -> None:
        self.owner = owner
        self._explicit = explicit
        self._python = python
        self._json_args = json_args
        self._glm = glm
        self._mistral = mistral
        self._item = m.begin_item(at)
        self._name: list[str] = []
        self._length = 0
        self._text: list[str] = []  # everything consumed, given back if this is no call
        self._in_name = True
        self._newline = False
        self._call_id = False
        self._printed = False

    def step(self, m: Machine, buf: str, i: int) -> int:
        if self._in_name:
            # Bounded so that an over-long word is cut at the same place in any chunking.
            window = i + _NAME_LIMIT + 1 - self._length
            run = _NAME_CHARS.match(buf, i, window)
            if run is None and buf.startswith(".", i):
                # A dot joins two parts of a name (`functions.f`, `f.call`), or ends a sentence.
                if i + 1 >= len(buf) and not m.final:
                    return i
                run = _DOTTED.match(buf, i, window)
            if run is not None:
                self._name.append(run.group())
                self._text.append(run.group())
                self._length += run.end() - i
                if self._length > _NAME_LIMIT:
                    return self._no_call(m, run.end())
                return run.end()
            if i >= len(buf):
                return i
            self._in_name = False
        if self._call_id:  # Mistral's `[CALL_ID]abc123` before `[ARGS]`
            run = _NAME_CHARS.match(buf, i)
            if run is not None:
                self._text.append(run.group())
                return run.end()
            self._call_id = False
        gap = (_NEWLINES if self._json_args or self._glm or self._mistral else _SPACES).match(
            buf, i
        )
        if gap is not None:
            self._newline = self._newline or "\n" in gap.group()
            self._text.append(gap.group())
            return gap.end()
        if i >= len(buf):
            return i
        return self._continuation(m, buf, i)

    def _continuation(self, m: Machine, buf: str, i: int) -> int:
        char = buf[i]
        if char == "(" and self._python and not self._newline:
            if "".join(self._name) == "print" and not self._printed:
                # `print(get_weather(...))`, as Gemma writes tool code: the call is inside.
                self._printed = True
                self._name, self._length, self._in_name = [], 0, True
                self._text.append("(")
                return i + 1
            return self._call(m, i, "python")
        if char == "{" and (self._json_args or self._mistral):
            return self._call(m, i, "json")
        if self._mistral:
            length, token = match_token(buf, i, ("[ARGS]", "[CALL_ID]"), m.final)
            if length == PARTIAL:
                return i
            if length > 0:
                self._text.append(token)
                self._call_id = token == "[CALL_ID]"
                return i + length
        if self._glm:
            length, _ = match_token(buf, i, ("<arg_key>",), m.final)
            closer = self.owner.closer_at(m, buf, i)
            if length == PARTIAL or closer == PARTIAL:
                return i
            if length > 0:
                return self._call(m, i, "glm")
            if closer > 0:
                return self._call(m, i, "none")
        return self._no_call(m, i)

    def _call(self, m: Machine, i: int, form: str) -> int:
        name = m.resolve("".join(self._name))
        spec = m.spec(name)
        positional = spec.parameter_names if spec else ()
        if m.undecided and not self._explicit:
            # No marker: a known tool's name and whole, well-formed arguments, or it was text.
            if not m.known(name) or form not in ("python", "json"):
                return m.reject(i)
            m.pop(self)
            m.push(
                ArgsReader(
                    self.owner,
                    None,
                    tentative=(name, self._item),
                    trailers=self._trailers(),
                    call_args=form == "python",
                    positional=positional,
                )
            )
            return i
        m.confirm()
        m.pop(self)
        index = m.start_call(name, self._item)
        if form == "none":  # GLM: a call with no parameters
            m.arguments(index, "{")
            m.complete_call(index, "}", i)
            self.owner.item_done(m, "ok")
        elif form == "glm":
            m.push(XmlParams(m, self.owner, index, name, "glm"))
        else:
            m.push(
                ArgsReader(
                    self.owner,
                    index,
                    trailers=self._trailers(),
                    call_args=form == "python",
                    positional=positional,
                )
            )
        return i

    def _trailers(self) -> tuple[tuple[str, ...], ...]:
        return ((")",),) if self._printed else ()

    def _no_call(self, m: Machine, i: int) -> int:
        if m.undecided:
            return m.reject(i)
        m.pop(self)
        m.drop_item(self._item)
        m.content("".join(self._text))
        self.owner.item_done(m, "text")
        return i

    def eof(self, m: Machine) -> None:
        m.drop_item(self._item)
        m.content("".join(self._text))
