"""Every marker the scanner knows, and what it does where it is found in text."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from ._blocks import Block, BlockSpec, ItemFactory
from ._special import (
    DEEPSEEK_CALL_BEGIN,
    DEEPSEEK_CALLS_BEGIN,
    DEEPSEEK_CALLS_END,
    DEEPSEEK_END_OF_SENTENCE,
    HARMONY_HEADERS,
    DeepSeekCall,
    GemmaCall,
    KimiCall,
    functionary_action,
    harmony_action,
)
from ._text import Action, MarkerTable, TextMode
from ._xml import FUNCTION_OPENERS, FunctionReader

if TYPE_CHECKING:
    from ._machine import Machine, Owner

__all__ = ["MARKERS", "REASONING_CLOSERS"]

_REASONING = {
    "<think>": "</think>",
    "<thinking>": "</thinking>",
    "<seed:think>": "</seed:think>",
    "[THINK]": "[/THINK]",
    "<|START_THINKING|>": "<|END_THINKING|>",
}
REASONING_CLOSERS = tuple(_REASONING.values())

# Special tokens that leak into text when a server does not skip them: never content.
_NOISE = (
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "</s>",
    "<end_of_turn>",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    DEEPSEEK_END_OF_SENTENCE,
    "<|python_end|>",
)


def _block(spec: BlockSpec) -> Action:
    def action(m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool) -> int:
        m.begin_candidate(i, reasoning=reasoning)
        m.push(Block(spec))
        return i + len(marker)

    return action


def _item(factory: ItemFactory) -> Action:
    def action(m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool) -> int:
        m.begin_candidate(i, reasoning=reasoning)
        m.push(factory(m, owner, i, marker))
        return i

    return action


def _reasoning(closer: str) -> Action:
    def action(m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool) -> int:
        m.push(TextMode(reasoning=True, closers=(closer,), calls=m.profile.calls_in_reasoning))
        return i + len(marker)

    return action


def _drop(m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool) -> int:
    return i + len(marker)


def _tags(
    closer: str, *, inner: Sequence[str] = (), explicit: bool = True, glm: bool = False
) -> Action:
    return _block(BlockSpec(closers=(closer,), inner=tuple(inner), explicit=explicit, glm=glm))


def _gemma(quote: str) -> ItemFactory:
    return partial(GemmaCall, quote=quote)


def _table() -> MarkerTable:
    entries: list[tuple[str, Action]] = []
    entries += [(opener, _reasoning(closer)) for opener, closer in _REASONING.items()]
    entries += [(token, _drop) for token in (*REASONING_CLOSERS, *_NOISE)]
    entries += [
        ("<tool_call>", _tags("</tool_call>", glm=True)),
        ("<tool_calls>", _tags("</tool_calls>", inner=("<tool_call>", "</tool_call>"))),
        ("<function_call>", _tags("</function_call>", inner=("<function_call>",))),
        ("<function_calls>", _tags("</function_calls>")),
        ("<seed:tool_call>", _tags("</seed:tool_call>")),
        ("<minimax:tool_call>", _tags("</minimax:tool_call>")),
        ("<|python_start|>", _tags("<|python_end|>")),
        ("<|tool_call_start|>", _tags("<|tool_call_end|>")),
        ("<|action_start|><|plugin|>", _tags("<|action_end|>")),
        ("<|START_ACTION|>", _tags("<|END_ACTION|>")),
        ("<|python_tag|>", _block(BlockSpec(closers=("<|eom_id|>", "<|eot_id|>")))),
        ("<|tool_call|>", _block(BlockSpec(single=True))),
        ("[TOOL_CALLS]", _block(BlockSpec(single=True, mistral=True))),
        ("functools", _block(BlockSpec(single=True, lists_only=True))),
        (
            "<|tool_calls_section_begin|>",
            _block(
                BlockSpec(
                    closers=("<|tool_calls_section_end|>",),
                    item_markers=(("<|tool_call_begin|>", KimiCall),),
                )
            ),
        ),
        ("<|tool_call_begin|>", _item(KimiCall)),
        (
            "<start_function_call>",
            _block(
                BlockSpec(
                    closers=("<end_function_call>",), item_markers=(("call:", _gemma("<escape>")),)
                )
            ),
        ),
        (
            "<|tool_call>",
            _block(
                BlockSpec(closers=("<tool_call|>",), item_markers=(("call:", _gemma('<|"|>')),))
            ),
        ),
        ("<code>", _tags("</code>", explicit=False)),
        (">>>", functionary_action),
    ]
    # Wrappers models drift to (llama.cpp's list of "good bad outputs"): weak, a known name needed.
    entries += [
        (f"<{tag}>", _tags(f"</{tag}>", explicit=False))
        for tag in ("tools", "tool", "response", "json", "JSON", "xml")
    ]
    deepseek_section = BlockSpec(
        closers=DEEPSEEK_CALLS_END,
        item_markers=tuple((token, DeepSeekCall) for token in DEEPSEEK_CALL_BEGIN),
    )
    entries += [(token, _block(deepseek_section)) for token in DEEPSEEK_CALLS_BEGIN]
    entries += [(token, _item(DeepSeekCall)) for token in DEEPSEEK_CALL_BEGIN]
    entries += [(opener, _item(FunctionReader)) for opener in FUNCTION_OPENERS]
    entries += [(token, harmony_action) for token in HARMONY_HEADERS]
    return MarkerTable(entries)


MARKERS = _table()
