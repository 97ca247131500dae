"""Per-model profiles: the format a model writes first, and the switches its format needs.

Every format is recognised whatever the profile (models drift to their neighbours' formats); a
profile sets what the text alone cannot tell: whether the reply starts inside a reasoning block
(templates that open `<think>` in the prompt), whether calls written inside reasoning are real
(Qwen3.5 writes its real call there), and whether a bare `all` line opens plain text (Functionary).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UsageError

__all__ = ["PROFILES", "Profile", "get_profile", "profile_for_model"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Profile:
    name: str = "generic"
    format: str = "tool_call_fence"
    """The format the model writes first (documentation, and the prompt convention to use)."""
    reasoning_open: bool = False
    """The reply starts inside reasoning, closed by `</think>` (the template opened it)."""
    calls_in_reasoning: bool = False
    """Calls inside reasoning are real calls, not drafts."""
    functionary: bool = False
    """A reply may begin with `all` + newline, meaning: plain text follows."""


def _profiles(*profiles: Profile) -> dict[str, Profile]:
    return {profile.name: profile for profile in profiles}


PROFILES: dict[str, Profile] = _profiles(
    Profile(),
    Profile(name="prompted", format="tool_call_fence"),
    Profile(name="hermes", format="tool_call_tag"),
    Profile(name="qwen3", format="tool_call_tag"),
    Profile(name="qwen3-thinking", format="tool_call_tag", reasoning_open=True),
    Profile(name="qwen3-coder", format="xml_function"),
    Profile(name="qwen3.5", format="xml_function", calls_in_reasoning=True),
    Profile(name="glm", format="glm_xml"),
    Profile(name="minimax-m2", format="minimax_xml"),
    Profile(name="seed-oss", format="xml_function"),
    Profile(name="llama3", format="json_bare"),
    Profile(name="llama4", format="pythonic"),
    Profile(name="pythonic", format="pythonic"),
    Profile(name="xlam", format="json_list"),
    Profile(name="mistral", format="mistral"),
    Profile(name="magistral", format="mistral"),
    Profile(name="gemma3", format="tool_code_fence"),
    Profile(name="gemma4", format="gemma4"),
    Profile(name="functiongemma", format="functiongemma"),
    Profile(name="granite", format="tool_call_tag"),
    Profile(name="phi4-mini", format="functools"),
    Profile(name="functionary", format="functionary", functionary=True),
    Profile(name="deepseek-v3", format="deepseek"),
    Profile(name="deepseek-r1", format="deepseek", reasoning_open=True),
    Profile(name="kimi-k2", format="kimi"),
    Profile(name="gpt-oss", format="harmony"),
    Profile(name="command-r7b", format="command_r"),
    Profile(name="lfm2", format="pythonic"),
    Profile(name="olmo3", format="pythonic"),
    Profile(name="smollm", format="tool_call_tag"),
    Profile(name="internlm", format="internlm"),
)

# Model-name patterns, most specific first (a DeepSeek-R1 distill of Qwen is an R1).
_BY_MODEL: tuple[tuple[str, str], ...] = (
    (r"deepseek.*r1", "deepseek-r1"),
    (r"deepseek", "deepseek-v3"),
    (r"qwen3[.-]?5", "qwen3.5"),
    (r"qwen3.*coder", "qwen3-coder"),
    (r"qwen3.*thinking", "qwen3-thinking"),
    (r"qwen|qwq|hermes", "hermes"),
    (r"glm", "glm"),
    (r"minimax", "minimax-m2"),
    (r"seed", "seed-oss"),
    (r"llama.?4", "llama4"),
    (r"llama", "llama3"),
    (r"xlam", "xlam"),
    (r"magistral|devstral|ministral|mistral|mixtral", "mistral"),
    (r"functiongemma", "functiongemma"),
    (r"gemma.?4", "gemma4"),
    (r"gemma", "gemma3"),
    (r"granite", "granite"),
    (r"phi.?4", "phi4-mini"),
    (r"functionary", "functionary"),
    (r"kimi", "kimi-k2"),
    (r"gpt-oss", "gpt-oss"),
    (r"command-r", "command-r7b"),
    (r"lfm", "lfm2"),
    (r"olmo", "olmo3"),
    (r"smollm", "smollm"),
    (r"internlm", "internlm"),
)


# vLLM's and SGLang's tool-parser names (`--tool-call-parser`), for the profile they imply.
_PARSERS = {
    "qwen25": "hermes",
    "qwen3_coder": "qwen3-coder",
    "qwen3_xml": "qwen3-coder",
    "llama3_json": "llama3",
    "llama4_json": "llama3",
    "llama4_pythonic": "llama4",
    "glm45": "glm",
    "glm47": "glm",
    "minimax_m2": "minimax-m2",
    "seed_oss": "seed-oss",
    "phi4_mini_json": "phi4-mini",
    "deepseek_v3": "deepseek-v3",
    "deepseek_v31": "deepseek-v3",
    "kimi_k2": "kimi-k2",
    "openai": "gpt-oss",
    "granite-20b-fc": "granite",
    "jamba": "generic",
    "hunyuan_a13b": "generic",
    "internlm": "internlm",
}


def get_profile(profile: Profile | str | None) -> Profile:
    """A profile by its name, a vLLM/SGLang tool-parser name, or a model's name."""
    if profile is None:
        return PROFILES["generic"]
    if isinstance(profile, Profile):
        return profile
    found = PROFILES.get(_PARSERS.get(profile, profile))
    if found is None:
        found = profile_for_model(profile)
        if found.name == "generic":
            raise UsageError(
                f"unknown text tool-call profile {profile!r}: give a model name, a vLLM "
                f"tool-parser name, or one of {', '.join(sorted(PROFILES))}"
            )
    return found


def profile_for_model(model_name: str) -> Profile:
    """The profile for a model name such as `Qwen/Qwen3-Coder-30B` (generic when unknown)."""
    lowered = model_name.lower()
    for pattern, name in _BY_MODEL:
        if re.search(pattern, lowered):
            return PROFILES[name]
    return PROFILES["generic"]
