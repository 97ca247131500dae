"""Text and JSON from outside (a model's reply, a tool's result, a dataset line), made safe where
they enter, so every consumer downstream (the model, the run log, a JSON file) can use
them without failing."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["MAX_JSON_DEPTH", "load_json", "load_json_prefix", "safe_text"]

_T = TypeVar("_T")

MAX_JSON_DEPTH = 100

# A surrogate code point is not a character: UTF-8 cannot encode it, so any sink writing the
# text would fail. JSON's `\ud800` escape reaches Python as one; so do bytes a decoder let through.
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Unusable(ValueError):
    """Raised by the parser's hooks: the JSON is well formed but holds what no sink can use."""


def safe_text(text: str) -> str:
    """`text` with each surrogate code point written as its escape (`\\ud800`): nothing is lost,
    and in JSON text the escape means exactly what the code point did."""
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def load_json(text: str) -> Any:
    """The value of untrusted JSON text, or `ValueError` saying why not, phrased to follow "the
    arguments are": not valid JSON, nested too deeply, a number too long or not finite, or a
    string no encoder can write (a lone surrogate)."""
    value = _parsed(
        lambda: json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    )
    _check(value)
    return value


def load_json_prefix(text: str) -> tuple[Any, int]:
    """The value of the untrusted JSON `text` begins with, and where it ends (text may follow
    it); `ValueError` as for `load_json`."""
    value, end = _parsed(lambda: _DECODER.raw_decode(text))
    _check(value)
    return value, end


def _parsed(parse: Callable[[], _T]) -> _T:
    """What `parse` returns, its failures as `ValueError`s saying why."""
    try:
        return parse()
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON ({error.msg} at position {error.pos})") from None
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except _Unusable as error:
        raise ValueError(f"not usable JSON ({error})") from None
    except ValueError:
        # The one left: Python refuses to read an integer longer than its limit.
        limit = sys.get_int_max_str_digits()
        raise ValueError(f"not usable JSON (a number has more than {limit} digits)") from None


def _reject_constant(name: str) -> Any:
    raise _Unusable(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise _Unusable("a number is too large for a float")
    return number


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def _check(value: Any) -> None:
    """Depth and surrogates, walked without recursion (the value may be as deep as the parser
    allowed)."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found is not None:
                raise ValueError(
                    f"not usable JSON (a string holds \\u{ord(found.group()):04x}, a lone "
                    "surrogate, which is not a character)"
                )
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
