"""A run's answer to a tool asking the person for input: routed like an approval (the
application's elicitor, sync or async, within the approval timeout; declined with nobody to ask),
completed with the form's defaults, and recorded."""

from __future__ import annotations

import anyio

from ._pause import PausableDeadline
from ._state import RunState
from ._sync import answer_of
from .elicitation import Check, ElicitationAnswer, ElicitationRequest, Elicitor
from .errors import UsageError
from .events import ElicitationAnswered


async def elicit(
    state: RunState,
    step: int,
    deadline: PausableDeadline,
    request: ElicitationRequest,
    check: Check | None = None,
) -> ElicitationAnswer:
    asked = state.clock.now()
    wait = state.bounded(state.limits.approval_timeout)
    with deadline.paused():
        answer = await ask_elicitor(state.elicitor, request, wait, check)
    seconds = state.clock.now() - asked
    state.emit(ElicitationAnswered(request=request, answer=answer, step=step, seconds=seconds))
    return answer


NO_ELICITOR = ElicitationAnswer(action="decline", by="policy:no-elicitor")
TIMED_OUT = ElicitationAnswer(action="cancel", by="policy:elicitation-timeout")


async def ask_elicitor(
    elicitor: Elicitor | None,
    request: ElicitationRequest,
    wait: float | None,
    check: Check | None = None,
) -> ElicitationAnswer:
    """The elicitor's answer, completed with the form's defaults; the policy's when there is no
    elicitor or no answer in time; `cancel` when the content fails `check` (the asker cannot
    use it, and nobody is left to correct it)."""
    if elicitor is None:
        return NO_ELICITOR
    answer = TIMED_OUT
    with anyio.move_on_after(float("inf") if wait is None else wait):
        answer = await answer_of(elicitor, request)
    if not isinstance(answer, ElicitationAnswer):
        raise UsageError(f"an elicitor must return an ElicitationAnswer, not {answer!r}")
    if answer.action != "accept" or request.mode != "form":
        return ElicitationAnswer(action=answer.action, by=answer.by)
    content = {**request.defaults, **(answer.content or {})}
    if check is not None:
        try:
            check(content)
        except ValueError as problem:
            return ElicitationAnswer(action="cancel", by=f"{answer.by} (invalid answer: {problem})")
    return ElicitationAnswer(action="accept", content=content, by=answer.by)
