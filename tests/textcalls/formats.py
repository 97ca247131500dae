"""Writers for every format: a call (name and arguments) as each model family writes it.

Used by the property tests to compose replies of calls, prose and noise in any mix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

Writer = Callable[[str, Mapping[str, Any]], str]


def ds(words: str) -> str:
    """A DeepSeek special token (fullwidth bars, U+2581 between words)."""
    return "<\uff5c" + "\u2581".join(words.split()) + "\uff5c>"


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _py(arguments: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in arguments.items())


def _xml_values(arguments: Mapping[str, Any]) -> bool:
    return all(isinstance(v, str) for v in arguments.values())


WRITERS: dict[str, Writer] = {
    "fence": lambda n, a: f"```tool_call\n{_j({'name': n, 'arguments': a})}\n```",
    "fence_json": lambda n, a: f"```json\n{_j({'name': n, 'arguments': a})}\n```",
    "hermes": lambda n, a: f"<tool_call>\n{_j({'name': n, 'arguments': a})}\n</tool_call>",
    "hermes_python_dict": lambda n, a: (
        f"<tool_call>{ {'name': n, 'arguments': dict(a)}!r}</tool_call>"
    ),
    "function_call_tag": lambda n, a: (
        f"<function_call>{_j({'name': n, 'arguments': a})}</function_call>"
    ),
    "llama_tag": lambda n, a: f"<|python_tag|>{_j({'name': n, 'parameters': a})}<|eom_id|>",
    "pythonic": lambda n, a: f"[{n}({_py(a)})]",
    "llama4": lambda n, a: f"<|python_start|>[{n}({_py(a)})]<|python_end|>",
    "lfm2": lambda n, a: f"<|tool_call_start|>[{n}({_py(a)})]<|tool_call_end|>",
    "olmo3": lambda n, a: f"<function_calls>{n}({_py(a)})</function_calls>",
    "tool_code": lambda n, a: f"```tool_code\n{n}({_py(a)})\n```",
    "mistral": lambda n, a: f"[TOOL_CALLS] [{_j({'name': n, 'arguments': a})}]",
    "mistral_v11": lambda n, a: f"[TOOL_CALLS]{n}[ARGS]{_j(a)}",
    "granite": lambda n, a: f"<|tool_call|>[{_j({'name': n, 'arguments': a})}]",
    "internlm": lambda n, a: (
        f"<|action_start|><|plugin|>\n{_j({'name': n, 'parameters': a})}<|action_end|>"
    ),
    "jamba": lambda n, a: f"<tool_calls>[{_j({'name': n, 'arguments': a})}]</tool_calls>",
    "phi4": lambda n, a: f"functools[{_j({'name': n, 'arguments': a})}]",
    "command_r": lambda n, a: (
        f"<|START_ACTION|>[{_j({'tool_call_id': '0', 'tool_name': n, 'parameters': a})}]<|END_ACTION|>"
    ),
    "functionary31": lambda n, a: f"<function={n}>{_j(a)}</function>",
    "functionary32": lambda n, a: f">>>{n}\n{_j(a)}",
    "deepseek_v3": lambda n, a: (
        f"{ds('tool calls begin')}{ds('tool call begin')}function{ds('tool sep')}{n}\n```json\n"
        f"{_j(a)}\n```{ds('tool call end')}{ds('tool calls end')}"
    ),
    "deepseek_v31": lambda n, a: (
        f"{ds('tool calls begin')}{ds('tool call begin')}{n}{ds('tool sep')}{_j(a)}"
        f"{ds('tool call end')}{ds('tool calls end')}"
    ),
    "kimi": lambda n, a: (
        f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{n}:0"
        f"<|tool_call_argument_begin|>{_j(a)}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "harmony": lambda n, a: (
        f"<|start|>assistant<|channel|>commentary to=functions.{n} <|constrain|>json"
        f"<|message|>{_j(a)}<|call|>"
    ),
    "openai_shape": lambda n, a: (
        f"<tool_call>{_j({'type': 'function', 'function': {'name': n, 'arguments': _j(a)}})}</tool_call>"
    ),
    "generic": lambda n, a: (
        f"<tool_call>{_j({'tool_calls': [{'name': n, 'arguments': a, 'id': 'call_1'}]})}</tool_call>"
    ),
}

# XML-style formats carry strings only (values stay strings without a schema).
XML_WRITERS: dict[str, Writer] = {
    "qwen3_coder": lambda n, a: (
        f"<tool_call>\n<function={n}>\n"
        + "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in a.items())
        + "</function>\n</tool_call>"
    ),
    "glm": lambda n, a: (
        f"<tool_call>{n}\n"
        + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in a.items())
        + "</tool_call>"
    ),
    "minimax": lambda n, a: (
        f'<minimax:tool_call>\n<invoke name="{n}">\n'
        + "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in a.items())
        + "</invoke>\n</minimax:tool_call>"
    ),
}
