"""A streaming transducer: lenient JSON (and Python literals) in, strict JSON out, one pass.

Strict JSON passes through unchanged, character for character, so argument deltas are the model's
own text. What models get wrong is rewritten locally, with at most one token held back, so nothing
emitted ever has to change: single-quoted and triple-quoted strings, raw control characters and
Python escapes inside strings, `True`/`False`/`None`, Python number forms, unquoted keys, tuples,
and trailing commas (the comma is held until the next item shows it is not trailing).

With `call_args=True` a root `(` opens a Python argument list `(a, b=1)`, written out as an
object; positional arguments take their names from `positional` (the schema's property order).

The listener learns the structure as it streams: a key is complete (`on_key`), a value begins
(`on_begin`, before its first output) or ends (`on_end`, after its last). It chooses where output
goes by setting `sink`, and can stop the transducer by returning False.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Literal, Protocol, TypeAlias

__all__ = ["JsonListener", "LenientJson", "ValueKind", "normalize_object"]

ValueKind: TypeAlias = Literal["object", "array", "string", "literal"]


class JsonListener(Protocol):
    def on_key(self, key: str) -> bool: ...
    def on_begin(self, key: str | int | None, kind: ValueKind) -> bool: ...
    def on_end(self) -> bool: ...


# States.
_VALUE, _KEY, _COLON, _AFTER, _STR, _ESC, _HEX, _BARE, _BAREKEY = range(9)
_Q1, _Q2, _CITEM, _CNAME, _DONE, _ERROR = range(9, 15)

_WS = frozenset(" \t\r\n")
_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
_BARE_CHARS = re.compile(r"[A-Za-z0-9_.+\-$]+")
_KEY_CHARS = re.compile(r"[A-Za-z0-9_\-$]+")
_NAME_CHARS = re.compile(r"[A-Za-z0-9_]+")
_WS_RUN = re.compile(r"[ \t\r\n]+")
_DQ_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_OTHER_RUN = re.compile(r"[^'\"\\\x00-\x1f]+")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SIMPLE_ESCAPES = {
    '"': '\\"',
    "'": "'",
    "\\": "\\\\",
    "/": "\\/",
    "b": "\\b",
    "f": "\\f",
    "n": "\\n",
    "r": "\\r",
    "t": "\\t",
    "\n": "",  # a Python line continuation
}
_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_CLOSERS = {"{": "}", "[": "]", "t": ")", "c": ")"}
_OUTPUT_CLOSERS = {"{": "}", "[": "]", "t": "]", "c": "}"}
_LITERALS = {
    "true": "true",
    "false": "false",
    "null": "null",
    "True": "true",
    "False": "false",
    "None": "null",
}


def _control(char: str) -> str:
    return _CONTROL.get(char) or f"\\u{ord(char):04x}"


def _code_point(digits: str) -> str:
    """A `\\u`, `\\x` or `\\U` escape's code point, as JSON string text."""
    if len(digits) <= 4:
        return "\\u" + digits.rjust(4, "0")
    code = int(digits, 16)
    if code > 0x10FFFF:
        return "\\\\U" + digits  # not a character: the backslash was literal
    return json.dumps(chr(code), ensure_ascii=False)[1:-1]


def _literal(token: str) -> str | None:
    """A bare token as strict JSON, or None when it is not a value (a variable, a call...)."""
    if token in _LITERALS:
        return _LITERALS[token]
    if _JSON_NUMBER.fullmatch(token):
        return token
    if not token or not (token[0].isdigit() or token[0] in "+-."):
        return None
    try:
        return str(int(token, 0))
    except ValueError:
        pass
    try:
        number = float(token)
    except ValueError:
        return None
    return json.dumps(number) if math.isfinite(number) else None


class LenientJson:
    """Feed text with `feed(buf, i)`; it consumes up to the end of the root value and returns the
    index after what it consumed. Then exactly one of `done`, `error`, `stopped` is set, or it
    consumed everything and waits for more."""

    def __init__(
        self,
        listener: JsonListener,
        *,
        call_args: bool = False,
        positional: Sequence[str] = (),
    ) -> None:
        self.listener = listener
        self.sink: list[str] | None = None
        self.error: str | None = None
        self.stopped = False
        self._state = _VALUE
        self._call_args = call_args
        self._positional = positional
        self._stack: list[str] = []
        self._keys: list[str | int | None] = []
        self._positions: list[int] = []  # positional arguments seen, per call container
        self._pending: list[str] | None = None  # a comma (and what follows) not yet known useful
        self._quote = '"'
        self._triple = False
        self._quotes_held = 0
        self._is_key = False
        self._key_capture: list[str] | None = None
        self._token: list[str] = []
        self._token_closed = False  # a call's keyword name ended at a space
        self._hex: list[str] = []
        self._hex_size = 0
        self._consumed = 0
        self._located = False
        self._limit = 0

    @property
    def done(self) -> bool:
        return self._state == _DONE

    @property
    def depth(self) -> int:
        return len(self._stack)

    # --- output and structure --------------------------------------------------------------

    def _out(self, text: str) -> None:
        if self.sink is not None:
            self.sink.append(text)
        if self._key_capture is not None:
            self._key_capture.append(text)

    def _flush_pending(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._out("".join(pending))

    def _ws(self, text: str) -> None:
        if self._pending is not None:
            self._pending.append(text)
        else:
            self._out(text)

    def _current_key(self) -> str | int | None:
        if not self._keys:
            return None
        key = self._keys[-1]
        if self._stack[-1] in "[t":
            assert isinstance(key, int)
            self._keys[-1] = key + 1
        return key

    def _begin(self, kind: ValueKind) -> bool:
        self._flush_pending()
        if not self.listener.on_begin(self._current_key(), kind):
            self.stopped = True
        return not self.stopped

    def _end(self) -> bool:
        if not self.listener.on_end():
            self.stopped = True
        if not self._stack:
            self._state = _DONE
        return not self.stopped

    def _open(self, container: str, output: str) -> bool:
        kind: ValueKind = "object" if container in "{c" else "array"
        if not self._begin(kind):
            return False
        self._out(output)
        self._stack.append(container)
        self._keys.append(0 if container in "[t" else None)
        if container == "c":
            self._positions.append(0)
        self._state = _KEY if container == "{" else _CITEM if container == "c" else _VALUE
        return True

    def _close(self) -> bool:
        self._pending = None  # a trailing comma: dropped with what followed it
        container = self._stack.pop()
        self._keys.pop()
        if container == "c":
            self._positions.pop()
        self._out(_OUTPUT_CLOSERS[container])
        self._state = _AFTER
        return self._end()

    def _fail(self, message: str, char: str) -> None:
        self.error = f"{message}, found {char!r}"
        self._state = _ERROR

    def _after_value(self) -> None:
        self._state = _AFTER
        if not self._stack:
            self._state = _DONE

    # --- the machine -------------------------------------------------------------------------

    def feed(self, buf: str, i: int, end: int | None = None) -> int:
        start = i
        n = self._limit = len(buf) if end is None else end
        while i < n and self._state < _DONE and not self.stopped:
            state = self._state
            char = buf[i]
            if state == _STR:
                i = self._string(buf, i, char)
            elif state in (_VALUE, _KEY, _AFTER, _COLON, _CITEM) and char in _WS:
                match = _WS_RUN.match(buf, i, n)
                assert match is not None
                self._ws(match.group())
                i = match.end()
            elif state == _VALUE:
                i = self._value(buf, i, char)
            elif state == _AFTER:
                i = self._after(i, char)
            elif state == _KEY:
                i = self._key(buf, i, char)
            elif state == _COLON:
                if char == ":":
                    self._out(":")
                    self._state = _VALUE
                    i += 1
                else:
                    self._fail("expected ':' after a key", char)
            elif state in (_BARE, _BAREKEY, _CNAME):
                i = self._token_char(buf, i, char)
            elif state == _ESC:
                i = self._escape(i, char)
            elif state == _HEX:
                i = self._hex_char(i, char)
            elif state in (_Q1, _Q2):
                i = self._quote_open(i, char)
            else:  # _CITEM
                i = self._call_item(buf, i, char)
        if self._state == _ERROR and self.error is not None and not self._located:
            self._located = True
            self.error += f" at character {self._consumed + i - start + 1} of the value"
        self._consumed += i - start
        return i

    def _value(self, buf: str, i: int, char: str) -> int:
        top = self._stack[-1] if self._stack else ""
        if char == "{":
            return i + 1 if self._open("{", "{") else i
        if char == "[":
            return i + 1 if self._open("[", "[") else i
        if char == "(":
            container = "c" if self._call_args and not self._stack else "t"
            return i + 1 if self._open(container, "{" if container == "c" else "[") else i
        if char in "\"'":
            return i + 1 if self._start_string(char, is_key=False) else i
        if (char == "]" and top == "[") or (char == ")" and top == "t"):
            self._close()
            return i + 1
        if char in _IDENT_START or char.isdigit() or char in "+-.":
            if not self._begin("literal"):
                return i
            self._start_token(_BARE)
            return self._token_char(buf, i, char)
        self._fail("expected a value", char)
        return i

    def _after(self, i: int, char: str) -> int:
        if not self._stack:
            self._state = _DONE
            return i
        top = self._stack[-1]
        if char == ",":
            self._pending = [","]
            self._state = _KEY if top == "{" else _CITEM if top == "c" else _VALUE
            return i + 1
        if char == _CLOSERS[top]:
            self._close()
            return i + 1
        self._fail(f"expected ',' or {_CLOSERS[top]!r}", char)
        return i

    def _key(self, buf: str, i: int, char: str) -> int:
        if char == "}":
            self._close()
            return i + 1
        if char in "\"'":
            self._flush_pending()
            self._key_capture = []
            self._start_string(char, is_key=True)
            return i + 1
        if _KEY_CHARS.match(char):
            self._flush_pending()
            self._start_token(_BAREKEY)
            return self._token_char(buf, i, char)
        self._fail("expected a key or '}'", char)
        return i

    def _call_item(self, buf: str, i: int, char: str) -> int:
        if char == ")":
            self._close()
            return i + 1
        if char in _IDENT_START:
            self._start_token(_CNAME)
            return self._token_char(buf, i, char)
        if not self._positional_key():
            self._fail("a positional argument with no parameter to map it to", char)
            return i
        self._state = _VALUE
        return i

    def _positional_key(self) -> bool:
        index = self._positions[-1]
        if index >= len(self._positional):
            return False
        self._positions[-1] = index + 1
        self._name_key(self._positional[index])
        return True

    def _name_key(self, name: str) -> None:
        self._flush_pending()
        self._out(json.dumps(name, ensure_ascii=False) + ": ")
        self._keys[-1] = name
        if not self.listener.on_key(name):
            self.stopped = True

    def _start_token(self, state: int) -> None:
        self._token = []
        self._token_closed = False
        self._state = state

    def _token_char(self, buf: str, i: int, char: str) -> int:
        state = self._state
        pattern = _KEY_CHARS if state == _BAREKEY else _NAME_CHARS if state == _CNAME else None
        match = (pattern or _BARE_CHARS).match(buf, i, self._limit)
        if match is not None and not self._token_closed:
            self._token.append(match.group())
            return match.end()
        token = "".join(self._token)
        if state == _BAREKEY:
            self._out(json.dumps(token))
            self._keys[-1] = token
            self._state = _COLON
            if not self.listener.on_key(token):
                self.stopped = True
            return i
        if state == _CNAME:
            if match is not None:
                self._fail("expected '=' or ',' after a name", char)
                return i
            if char in " \t":  # `name =`: keep looking for the '='
                self._token_closed = True
                return i + 1
            if char == "=" and not buf.startswith("==", i):
                self._name_key(token)
                self._state = _VALUE
                return i + 1
            # Not a keyword: the name was a positional literal (`f(True)`).
            if not self._positional_key():
                self._fail("a positional argument with no parameter to map it to", char)
                return i
            if self.stopped or not self._begin("literal"):
                return i
        converted = _literal(token)
        if converted is None:
            self._fail(f"{token!r} is not a JSON or Python literal", char)
            return i
        self._out(converted)
        self._after_value()
        self._end()
        return i

    # --- strings -------------------------------------------------------------------------------

    def _start_string(self, quote: str, *, is_key: bool) -> bool:
        if not is_key and not self._begin("string"):
            return False
        self._out('"')
        self._quote = quote
        self._is_key = is_key
        self._triple = False
        self._quotes_held = 0
        self._state = _Q1
        return True

    def _quote_open(self, i: int, char: str) -> int:
        # After one opening quote a second one makes `""`, the empty string, unless a third
        # follows and opens a triple-quoted string.
        if self._state == _Q1:
            self._state = _Q2 if char == self._quote else _STR
            return i + 1 if char == self._quote else i
        if char == self._quote:
            self._triple = True
            self._state = _STR
            return i + 1
        self._end_string()
        return i

    def _string(self, buf: str, i: int, char: str) -> int:
        quote = self._quote
        if self._quotes_held and char != quote:
            self._release_quotes()
        run = (_DQ_RUN if quote == '"' and not self._triple else _OTHER_RUN).match(
            buf, i, self._limit
        )
        if run is not None:
            self._out(run.group())
            return run.end()
        if char == quote:
            if not self._triple:
                self._end_string()
                return i + 1
            self._quotes_held += 1
            if self._quotes_held == 3:
                self._quotes_held = 0
                self._end_string()
            return i + 1
        if char == "\\":
            self._state = _ESC
        elif char == '"':
            self._out('\\"')
        elif char == "'":
            self._out("'")
        else:
            self._out(_control(char))
        return i + 1

    def _release_quotes(self) -> None:
        self._out(('\\"' if self._quote == '"' else "'") * self._quotes_held)
        self._quotes_held = 0

    def _end_string(self) -> None:
        self._out('"')
        if self._is_key:
            capture, self._key_capture = self._key_capture, None
            key = json.loads("".join(capture or ['""']))
            self._keys[-1] = key
            self._state = _COLON
            if not self.listener.on_key(key):
                self.stopped = True
            return
        self._after_value()
        self._end()

    def _escape(self, i: int, char: str) -> int:
        self._state = _STR
        simple = _SIMPLE_ESCAPES.get(char)
        if simple is not None:
            self._out(simple)
            return i + 1
        if char in "uxU":
            self._hex = []
            self._hex_size = {"u": 4, "x": 2, "U": 8}[char]
            self._state = _HEX
            return i + 1
        # An escape JSON does not know (`\d` in a regex): the backslash was meant literally.
        self._out("\\\\")
        return i

    def _hex_char(self, i: int, char: str) -> int:
        if char in _HEX_DIGITS:
            self._hex.append(char)
            if len(self._hex) == self._hex_size:
                self._out(_code_point("".join(self._hex)))
                self._state = _STR
            return i + 1
        letter = {4: "u", 2: "x", 8: "U"}[self._hex_size]
        self._out("\\\\" + letter + "".join(self._hex))
        self._state = _STR
        return i


class _Whole:
    """Listens to nothing: the whole value goes to one sink."""

    def on_key(self, key: str) -> bool:
        return True

    def on_begin(self, key: str | int | None, kind: ValueKind) -> bool:
        return True

    def on_end(self) -> bool:
        return True


def normalize_object(text: str) -> str | None:
    """Lenient text of one object, as strict JSON; None if it is not exactly one object."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    output: list[str] = []
    transducer = LenientJson(_Whole())
    transducer.sink = output
    end = transducer.feed(stripped, 0)
    if not transducer.done or stripped[end:].strip():
        return None
    return "".join(output)
