"""Whether the tools bear on the request: how much likelier the user's message is with them.

A small model's own confidence in opening a call (the call gate) is a noisy signal: it calls a
weather tool for a question about the sea because the tool is there. The request itself says more:
a model that has just read a tool's description finds a request that tool serves much less
surprising than it would without it. The gate's evidence is that difference, in nats: the
log-probability of the last user message's tokens in the prompt with the tools, minus the same
in the prompt the conversation makes without them (evaluated in a second context, so the main
cache keeps the conversation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...messages import Message
from ._engine import Contrast

__all__ = [
    "RELEVANCE_NEUTRAL",
    "RELEVANCE_WEIGHT",
    "last_question",
    "last_request",
    "request_contrast",
]

RELEVANCE_WEIGHT = 0.15
"""Log-odds added to the call gate per nat the tools make the request likelier (past the neutral
point). Fitted with the call threshold (see `_model.DEFAULT_CALL_THRESHOLD`)."""
RELEVANCE_NEUTRAL = 5.0
"""Nats of lift at which the evidence neither raises nor lowers the call gate's log-odds."""

RELEVANCE_MAX_TOKENS = 128
"""How much of a long request is scored: each scored token costs an output row over the whole
vocabulary, in both prompts."""


def request_contrast(
    messages: Sequence[Message],
    prompt: str,
    tokens: Sequence[int],
    render_baseline: Callable[[], str],
    tokenize: Callable[[str], list[int]],
) -> Contrast | None:
    """The contrast between the last user message in `prompt` (whose tokens are `tokens`) and
    in the prompt `render_baseline` gives (the conversation without the tools, rendered only
    when there is a request to score); None when the conversation does not end with a user's
    request, or its text does not tokenize the same in both."""
    last = last_request(messages)
    if last is None:
        return None
    span = _span(prompt, tokens, last.text, tokenize)
    if span is None:
        return None
    baseline_prompt = render_baseline()
    baseline = tokenize(baseline_prompt)
    baseline_span = _span(baseline_prompt, baseline, last.text, tokenize)
    if baseline_span is None:
        return None
    if tokens[slice(*span)] != baseline[slice(*baseline_span)]:
        return None
    return Contrast(span=span, baseline=tuple(baseline), baseline_span=baseline_span)


def last_question(messages: Sequence[Message]) -> int | None:
    """Where the user's last message (not tool results) stands in `messages`, if there is one:
    what the tool results after it answer."""
    asked = [i for i, m in enumerate(messages) if m.role == "user" and not m.tool_results]
    return asked[-1] if asked else None


def last_request(messages: Sequence[Message]) -> Message | None:
    """The user's request the conversation ends with, if it ends with one (not tool results)."""
    last = messages[-1] if messages else None
    if last is None or last.role != "user" or last.tool_results or not last.text.strip():
        return None
    return last


def _span(
    prompt: str, tokens: Sequence[int], text: str, tokenize: Callable[[str], list[int]]
) -> tuple[int, int] | None:
    """Where `text`'s last occurrence in `prompt` lies among its tokens (capped at
    RELEVANCE_MAX_TOKENS), when it starts and ends on token boundaries after the first token."""
    at = prompt.rfind(text)
    if at <= 0:
        return None
    before = tokenize(prompt[:at])
    through = tokenize(prompt[: at + len(text)])
    start, end = len(before), len(through)
    if not 0 < start < end or list(tokens[:end]) != through or through[:start] != before:
        return None
    return start, min(end, start + RELEVANCE_MAX_TOKENS)
