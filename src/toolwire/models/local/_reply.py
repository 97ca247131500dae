"""One reply of a local model: which generation(s) it takes, and the events they become.

A `Plan` says how the reply is generated, from the tool choice and strictness:
- `text`: free text (tool choice none, or no tools), optionally with some tokens banned;
- `decide`: free text whose opening may be a call only if the model is confident of it; a reply
  that does open a call is generated again from its start under the call grammar; one that
  opens with text makes a call only behind the family's own marker (small models that answer in
  prose often show a call they decided against as JSON in a fence: it stays text, except for a
  model that shows the calls it means that way, `Steering.describes_calls`), or where the text is
  only a call (see `_written`); such a reply is written again under the grammar;
- `forced`: under the call grammar from the first token (tool choice required or named).

Under the grammar, calls are passed on only once written out whole, so that a call the reply
has already made, or (with `decide`) one the conversation already has the result of or asks
again for what the calls before it asked, hands a tool back its own number or strays to a tool
with values nobody gave (`Grounding.asks_nothing_new`), can be dropped before anyone sees it:
small models otherwise repeat a call until the token limit, or call again for a result they
already hold; a call cut off as a loop (see `_engine`) is dropped too. A call that asks a tool
for part of what an earlier call of the reply asked it counts as made already (having asked for
the restaurants of Paris that serve Italian food, a small model goes on to ask for those of
Paris). A call the model writes only on trial (see `_coverage`, `PartLeft` and
`Plan.follow_up`) reaches the reply only if the trial keeps it. A later call that goes on past
what the conversation asks (a tool the request does not name, asked for nothing new of the
request; made-up values where the tool's earlier calls took theirs from the request; an earlier
call again with a flag turned off: see `Grounding.made_up`) is dropped while the model writes
on, as is a call passing an identifier copied from the tools' documentation
(`Grounding.copied_example`); where that leaves a reply to a new request with no call, one call
to a tool that changes nothing is written on trial instead (`Reply._look_up_instead`), as it is
where the first call passes an identifier nobody gave (`Grounding.missing`), before the reply
asks for it; a first call passing free text that is its parameter's description is written
again held to the request's words (`Reply._in_request_words`), before the reply asks for it. A
`decide` reply left with no new call is written again as text.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..._untrusted import load_json
from ...events import (
    CallCorrected,
    FinishReason,
    ModelEvent,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFailed,
    ToolCallStarted,
    UsageReported,
)
from ...messages import Message, Usage
from ...textcalls import ModelEventReader, tool_specs
from ...tools import ToolDefinition
from ._bridge import start
from ._coverage import RequestValues
from ._engine import Contrast, Engine, Gate, Generation, GenerationRequest, GoOn
from ._formats import CALL_ON_A_LINE, CallFormat, call_key
from ._grounding import Grounding, changes
from ._records import RecordsNamed
from ._wording import folded
from ._written import CallAsText, FencedCall, call_as_text, may_become_call_as_text

__all__ = ["ANSWER_ATTEMPTS", "TRIALS", "PartLeft", "Plan", "Reply", "Steering"]

TRIALS = 3
"""How many calls a part of the request left may be tried with, each to a tool not tried yet."""
ANSWER_ATTEMPTS = 3
"""How many times an answer is written while it only says the question again (`_answer`)."""


@dataclass(frozen=True, slots=True)
class Plan:
    mode: Literal["text", "decide", "forced"]
    grammar: str | None = None
    banned: tuple[int, ...] = ()
    answered: frozenset[str] = field(default=frozenset())
    """Calls (`call_key`) the conversation already holds results for."""
    answer: tuple[Message, ...] | None = None
    """The conversation to answer from as text when the model only repeats answered calls."""
    each_result: tuple[tuple[Message, ...], ...] = ()
    """After several results, a conversation for each to answer from, the answer being their
    sentences in turn (see `_model.EACH_RESULT_ANSWERED`); empty for one result."""
    grounding: Grounding | None = None
    """With it, a call loses the optional arguments it made up (see `_grounding`)."""
    part_left: PartLeft | None = None
    """After tool results, a part of the request no call took up."""
    fewer_words: tuple[ToolDefinition, ...] = ()
    """After tool results, the tools whose call found nothing for several words of free
    text, that text held to fewer of them (`Grounding.fewer_words`): a call to one of them is
    written on trial first, and is the reply."""
    question: str | None = None
    """The question the conversation's tool results answer, which an answer must not only
    say again."""
    tools: tuple[ToolDefinition, ...] = ()
    """The tools a reply deciding may call."""
    follow_up: tuple[ToolDefinition, ...] = ()
    """For a new request in a conversation that called tools, those tools, and where it holds
    results, the tools the request names; for one that called none, the tools it names that
    change nothing: where the reply would open with text, a call to one of them is written on
    trial, kept if it asks a tool again for what the request says, acts on what the results
    found, or looks up what the request says (`Grounding.follows_up`). Small models give a
    call little probability after a short follow-up ("and in London?", "change its shipping
    address to ...") and answer from the last result instead, and to a short question ("what
    does strict mode do in toolwire"), which they answer with what they make up."""


@dataclass(frozen=True, slots=True)
class PartLeft:
    """A part of the request that no call took up after its results (see
    `Grounding.tools_left`, `Grounding.named_left`): asked of the model alone, with those tools
    alone, since after results a small model hands its last tool its own result, or gives the
    tool its default ("UTC" for the time in Tokyo)."""

    messages: tuple[Message, ...]
    """The conversation up to the request, which ends with the part left of it (see
    `Grounding.part_left`)."""
    tools: tuple[ToolDefinition, ...]


@dataclass(frozen=True, slots=True)
class Steering:
    """Token sets that steer a reply towards or away from a call."""

    call_openers: tuple[int, ...]
    """Tokens that may begin a call, in the family's format or a neighbouring one."""
    call_threshold: float | None
    """The probability the model must give `call_openers` for a reply to open with a call."""
    answer_openers_banned: tuple[int, ...]
    """May not begin a reply written as text instead of a call: the call openers and every
    token that would end the reply at once."""
    prose_only: tuple[int, ...]
    """Banned from a reply written as text instead of a call: the call marker and every token
    with a brace, since a model set on calling writes the call inline otherwise."""
    another_call_threshold: float
    """After a whole call, the probability the model must give `call_openers` for the reply to
    go on to another call rather than end."""
    relevance_weight: float = 0.0
    relevance_neutral: float = 0.0
    """How the call gate weighs the reply's `relevance` (see `Gate`)."""
    unused_value_weight: float = 0.0
    unused_values_counted: int = 0
    """Log-odds added to the go-on check per value of the request no call has used yet, for at
    most this many values (see `_coverage`)."""
    calls_on_trial: bool = False
    """Where the go-on check ends the reply, write one more call all the same, kept only if it
    uses a value of the request no call has used yet (see `Reply._new_value_trial`)."""
    describes_calls: bool = False
    """The model, kept to text, describes calls instead of making them (see `_written`): a reply
    that shows a call to one of its tools in a code fence is written as that call, and after
    results, one about the tools as the answer from the results."""


class Reply:
    def __init__(
        self,
        engine: Engine,
        call_format: CallFormat,
        plan: Plan,
        base: GenerationRequest,
        reader: ModelEventReader | None,
        steering: Steering,
        *,
        answer_prompt: Callable[[], Sequence[int]] | None = None,
        each_result_prompts: Callable[[], Sequence[Sequence[int]]] | None = None,
        part_prompt: Callable[[], Sequence[int]] | None = None,
        grammar_of: Callable[[Sequence[ToolDefinition]], str] | None = None,
        ask_prompt: Callable[[str, str], tuple[Sequence[int], str]] | None = None,
        relevance: Contrast | None = None,
        request_values: RequestValues | None = None,
        prose_reader: ModelEventReader | None = None,
        gate_tokens: Sequence[int] | None = None,
    ) -> None:
        self.engine = engine
        self.call_format = call_format
        self.plan = plan
        self.base = dataclasses.replace(base, banned_tokens=plan.banned)
        threshold = steering.call_threshold
        # The reply begins from `gate_tokens` (the prompt without notes that only a call's
        # arguments need); a call it opens is written from `base`.
        begun = (
            self.base if gate_tokens is None else dataclasses.replace(self.base, tokens=gate_tokens)
        )
        self.gated = (
            begun
            if threshold is None
            else dataclasses.replace(
                begun,
                gate=Gate(
                    steering.call_openers,
                    threshold,
                    relevance,
                    weight=steering.relevance_weight,
                    neutral=steering.relevance_neutral,
                ),
            )
        )
        self.steering = steering
        self.answer_prompt = answer_prompt
        self.each_result_prompts = each_result_prompts
        self.part_prompt = part_prompt
        self.grammar_of = grammar_of
        self.ask_prompt = ask_prompt
        self.asking: tuple[str, str] | None = None
        """The tool and the required value the user has not given, which the reply asks for."""
        self.refused: _Call | None = None
        """The last call `_calls` stopped at rather than pass on."""
        self.dropped: set[str] = set()
        """The calls (`call_key` of what the model wrote) dropped from the reply."""
        self.unfounded: set[str] = set()
        """The tools whose first call in the reply passed an identifier nobody gave (copied
        from the documentation's example, or made up), or went on past what the request asks
        (`Grounding.made_up`): another tool may look up what the request wants."""
        self.worded: tuple[str, list[str]] | None = None
        """The tool whose first call in the reply passed free text that is its parameters'
        description, and those parameters (see `_in_request_words`)."""
        self.held_to_named: ToolDefinition | None = None
        """The tool whose first call in the reply passed a record other than those the request
        names, held to those (see `Grounding.held_to_records_named`)."""
        self.request_values = request_values
        self.reader = reader
        self.prose_reader = prose_reader
        self.generations: list[Generation] = []
        self.kept = 0
        self.prose_calls: _ProseCalls | None = None

    async def events(self) -> AsyncIterator[ModelEvent]:
        plan = self.plan
        if plan.mode == "decide":
            body = self._decide()
        elif plan.mode == "forced":
            body = self._calls(set(), self._under(plan.grammar))
        else:
            body = self._generate(self.base)
        async for event in body:
            yield event
        for event in self._close():
            yield event
        yield self._usage()
        yield ResponseCompleted(finish_reason=self._finish())

    async def _generate(self, request: GenerationRequest) -> AsyncIterator[ModelEvent]:
        run = start(self.engine, request)
        try:
            async for piece in run.pieces():
                for event in self._read(piece):
                    yield event
        finally:
            run.stop()
        self._record(run.result)

    async def _calls(
        self,
        seen: set[str],
        base: GenerationRequest,
        on_trial: Callable[[_Call], bool] | None = None,
    ) -> AsyncIterator[ModelEvent]:
        """Calls under the grammar, each passed on once whole (counted in `kept`); the
        generation stops at the first call already in `seen`. With `on_trial`, only the first
        call is written, and passed on only if `on_trial` keeps it."""
        steering, call_format = self.steering, self.call_format
        request = dataclasses.replace(
            base,
            go_on=GoOn(
                call_format.end + call_format.separator,
                steering.call_openers,
                steering.another_call_threshold,
                self._unused_values_evidence(),
                self._new_value_trial(),
            ),
        )
        run = start(self.engine, request)
        calls = _WholeCalls(call_format, self.plan.grounding)
        written: list[_Call] = []
        repeated = False
        try:
            async for piece in run.pieces():
                if repeated:
                    continue  # what the worker wrote before it saw the stop
                for call in calls.feed(piece):
                    if (
                        call.key in seen
                        or call.narrows(written)
                        # A call on trial is held to what its trial asks instead.
                        or (
                            self._asks_nothing_new(call) if on_trial is None else not on_trial(call)
                        )
                    ):
                        self.refused = call
                        repeated = True
                        run.stop()
                        break
                    seen.add(call.key)
                    if not written and (missing := self._missing(call)):
                        self.asking = (str(call.name), missing)
                        why = _missing_why(missing, self.plan.grounding)
                        if self._findable(call, missing):
                            self.unfounded.add(str(call.name))
                        elif missing in (described := self._copied_documentation(call)):
                            self.worded = (str(call.name), described)
                            why = _described_why(missing)
                        yield self._drop(call, why)
                        repeated = True
                        run.stop()
                        break
                    if not written and on_trial is None and (held := self._records_named(call)):
                        self.held_to_named, named = held
                        yield self._drop(call, _other_record_why(named))
                        repeated = True
                        run.stop()
                        break
                    if copied := self._copied_example(call):
                        if not written:
                            self.unfounded.add(str(call.name))
                        yield self._drop(call, _copied_why(copied))
                        continue
                    if self._made_up(call, written):
                        if not written:
                            self.unfounded.add(str(call.name))
                        yield self._drop(call, "it goes on past what the conversation asks")
                        continue
                    written.append(call)
                    self.kept += 1
                    events = self._read(call.text)
                    for event in events:
                        yield event
                    if call.written != call.arguments:
                        started = [e.index for e in events if isinstance(e, ToolCallStarted)]
                        if started:
                            yield CallCorrected(
                                name=call.name,
                                written=call.written,
                                index=started[0],
                                changes=changes(call.written, call.arguments),
                            )
                    if on_trial is not None:
                        repeated = True  # one call on trial, and no more
                        run.stop()
                        break
        finally:
            run.stop()
        self._record(run.result)
        # The call the model was stuck in (see `_engine.LOOP_REPEATS`) is no call: dropped.
        if repeated or (run.result is not None and run.result.finish == "looping"):
            calls.discard()
        # A call cut off by the length limit goes on as it is, to be reported as truncated; a
        # separator the model wrote before ending is nothing to report.
        rest = calls.rest()
        if rest.strip():
            for event in self._read(rest):
                yield event

    async def _decide(self) -> AsyncIterator[ModelEvent]:
        """Let the reply begin (gated); if it opens a call, write the call again from the start
        of the reply, under the grammar; if that makes no new call, write the reply as text.
        Where a look-up found nothing for several words (`Plan.fewer_words`), or a part of the
        request is left after results (`PartLeft`), a call on trial comes first, in that
        order, and is the reply if kept. A follow-up's reply that would open with text
        first writes its call on trial (`Plan.follow_up`), and is text only if that is not
        kept."""
        plan, part_prompt = self.plan, self.part_prompt
        if plan.fewer_words:
            async for event in self._on_trial(self.base.tokens, plan.fewer_words, _any_call):
                yield event
            if self.kept:
                return
        if plan.part_left is not None and part_prompt is not None:
            async for event in self._on_trial(
                part_prompt(),
                plan.part_left.tools,
                self._kept_by(Grounding.takes_up_part),
                held_to_words=True,
            ):
                yield event
            if self.kept:
                return
        follow_up = plan.follow_up if self.steering.calls_on_trial else ()
        async for event in self._gated(follow_up):
            yield event

    async def _on_trial(
        self,
        tokens: Sequence[int],
        tools: Sequence[ToolDefinition],
        keeps: Callable[[_Call], bool],
        *,
        held_to_words: bool = False,
    ) -> AsyncIterator[ModelEvent]:
        """One call to `tools`, written from `tokens` and passed on only if `keeps` keeps it;
        a call refused, its tool is left out and the model asked again, at most
        `TRIALS` times: the tool a small model reaches for first is often not the one
        ("15 km in miles" for "what is 15% of 80"). With `held_to_words`, a refused call that
        copied a parameter's description is asked again of its tool first, that parameter held
        to the request's words (`Grounding.in_request_words`)."""
        grammar_of, grounding = self.grammar_of, self.plan.grounding
        if grammar_of is None or not self.steering.calls_on_trial or not tools:
            return
        left = list(tools)
        held: set[str] = set()
        for _ in range(TRIALS):
            self.refused = None
            trial = dataclasses.replace(self.base, tokens=list(tokens), grammar=grammar_of(left))
            async for event in self._calls(set(self.plan.answered), trial, keeps):
                yield event
            refused = self.refused
            if self.kept or refused is None:
                return
            if (
                held_to_words
                and grounding is not None
                and refused.name not in held
                and (copied := self._copied_descriptions(refused))
            ):
                held.add(str(refused.name))
                left = [
                    grounding.in_request_words(tool, copied) if tool.name == refused.name else tool
                    for tool in left
                ]
                continue
            left = [tool for tool in left if tool.name != refused.name]
            if not left:
                return

    async def _gated(self, follow_up: Sequence[ToolDefinition] = ()) -> AsyncIterator[ModelEvent]:
        """The gated reply; one that opens with text, given the tools of a `follow_up`, is
        stopped there for the follow-up's call on trial, and begun again only if that is not
        kept."""
        opens_call = self.call_format.opens_call
        run = start(self.engine, self.gated, watch=opens_call)
        held: list[str] = []
        decided: bool | None = None
        shown = _ShownCalls(self.call_format.start)
        tools = [tool.name for tool in self.plan.tools]
        as_text = CallAsText(tools)
        fenced = None
        if self.steering.describes_calls:
            specs = tool_specs(self.plan.tools)
            fenced = FencedCall({spec.name: spec.parameter_names for spec in specs})

        def passed_on(text: str) -> str:
            """What of `text` the holders let through now."""
            text = as_text.feed(text)
            return text if fenced is None else fenced.feed(text)

        call_reader = self.reader
        try:
            async for piece in run.pieces():
                if decided is None:
                    held.append(piece)
                    decided = opens_call("".join(held))
                    if decided is False and (follow_up or self.each_result_prompts):
                        break
                    if decided is False:
                        self.reader = self.prose_reader
                        self.prose_calls = _ProseCalls(self.plan.grounding)
                        piece = "".join(held)
                if decided is False:
                    text, shows_call = shown.feed(piece)
                    text = passed_on(text)
                    if shows_call:
                        text += passed_on(as_text.release())
                    for event in self._read(text):
                        yield event
                    if shows_call:
                        break
            else:
                for event in self._read(passed_on(shown.rest())):
                    yield event
        finally:
            run.stop()
        self._record(run.result)
        if decided is False and (
            as_text.called() is not None or (fenced is not None and fenced.called() is not None)
        ):
            # The text is a call the gate kept from opening: written as one after all, under
            # the grammar and the checks on calls.
            self.reader, self.prose_calls, decided = call_reader, None, True
        elif (
            decided is False
            and fenced is not None
            and self.answer_prompt is not None
            and fenced.about_the_tools()
        ):
            # After results, text about the calls is no answer: it is written from the results.
            async for event in self._answer():
                yield event
            return
        elif decided is False:
            rest = passed_on(as_text.release())
            if fenced is not None:
                rest += fenced.release()
            for event in self._read(rest):
                yield event
        if decided is False and self.each_result_prompts is not None:
            async for event in self._each_result_answered(self.each_result_prompts):
                yield event
            return
        if not decided and follow_up:
            async for event in self._on_trial(
                self.base.tokens, follow_up, self._kept_by(Grounding.follows_up)
            ):
                yield event
            if not self.kept:
                async for event in self._gated():
                    yield event
            return
        if decided:
            answered = self.plan.answered
            self.refused = None
            async for event in self._calls(set(answered), self._under(self.plan.grammar)):
                yield event
            if (
                not self.kept
                and self.refused is not None
                and self.refused.key in answered
                and self.gated.tokens != self.base.tokens
            ):
                # Written beside the answer it leans on, the call only asked again what that
                # answer answered (the time in Sydney for "what about auckland"): the
                # conversation as it is says what is new.
                unnoted = dataclasses.replace(self.gated, gate=None, grammar=self.plan.grammar)
                async for event in self._calls(set(answered), unnoted):
                    yield event
            if not self.kept and self.held_to_named is not None:
                async for event in self._on_trial(
                    self.base.tokens, [self.held_to_named], _any_call
                ):
                    yield event
            if not self.kept and self.worded is not None:
                async for event in self._in_request_words(*self.worded):
                    yield event
            if not self.kept and self.unfounded and self.request_values is not None:
                async for event in self._look_up_instead():
                    yield event
            if not self.kept:
                # Written as text, it can still hold a call in a format the scanner reads; a
                # question asking for a value is text alone.
                if self.asking is not None:
                    self.reader = None
                self.prose_calls = _ProseCalls(self.plan.grounding)
                answer = (
                    self._answer()
                    if self.each_result_prompts is None or self.asking is not None
                    else self._each_result_answered(self.each_result_prompts)
                )
                async for event in answer:
                    yield event
        elif decided is None and held:
            for event in self._read("".join(held)):
                yield event

    def _look_up_instead(self) -> AsyncIterator[ModelEvent]:
        """A call on trial to another tool than those whose first call passed an identifier
        nobody gave, kept if it looks up something the request says beyond the action
        (`Grounding.looks_up`): a small model reaches for the tool that acts on an
        identifier ("cancel the dentist", "open Tom's email") before the one that finds it, or
        for the calculator's example where it knows no better. Only tools that change nothing
        are tried: a call nobody asked for must not create or send anything ("open Tom's email"
        names `send_email` as much as `read_email`); of those, where the call lacked a value,
        the tools that deal in it (`Grounding.finders`)."""
        tools = [
            tool
            for tool in self.plan.tools
            if tool.name not in self.unfounded and tool.side_effect == "read_only"
        ]
        grounding = self.plan.grounding
        if self.asking is not None and grounding is not None:
            tools = grounding.finders(tools, self.asking[1])
        keeps = self._looking_up_beyond(frozenset(self.unfounded))
        return self._on_trial(self.base.tokens, tools, keeps, held_to_words=True)

    async def _in_request_words(
        self, tool: str, described: Sequence[str]
    ) -> AsyncIterator[ModelEvent]:
        """The first call written again on trial, its `described` parameters (which it passed
        their own description: "what to look for, in a few words") held to the request's words,
        kept if it asks for something the request says beyond the tool's name (`looks_up`):
        the model chose its tool, and knows no better how to say what the request asks in it.
        Where the request says nothing more ("search the code"), the reply asks for the value."""
        grounding = self.plan.grounding
        if grounding is None:
            return
        held = [
            grounding.in_request_words(definition, described)
            for definition in self.plan.tools
            if definition.name == tool
        ]
        keeps = self._looking_up_beyond(frozenset([tool]))
        async for event in self._on_trial(self.base.tokens, held, keeps):
            yield event

    def _looking_up_beyond(self, acting: frozenset[str]) -> Callable[[_Call], bool]:
        """A trial that keeps a call looking up something the request says beyond the action
        of the `acting` tools (`Grounding.looks_up`)."""

        def looks_up(grounding: Grounding, tool: str, arguments: dict[str, Any]) -> bool:
            return grounding.looks_up(tool, arguments, acting)

        return self._kept_by(looks_up)

    def _under(self, grammar: str | None) -> GenerationRequest:
        return dataclasses.replace(self.base, grammar=grammar)

    def _kept_by(
        self, check: Callable[[Grounding, str, dict[str, Any]], bool]
    ) -> Callable[[_Call], bool]:
        """A trial that keeps a call where `check` of the plan's grounding holds for its tool
        and arguments (no call is kept without grounding)."""

        def keeps(call: _Call) -> bool:
            grounding = self.plan.grounding
            return (
                grounding is not None
                and isinstance(call.name, str)
                and isinstance(call.arguments, dict)
                and check(grounding, call.name, call.arguments)
            )

        return keeps

    def _made_up(self, call: _Call, written: Sequence[_Call]) -> bool:
        """Whether the call goes on past what the conversation asks (see
        `Grounding.made_up`): dropped, while the model writes on."""
        grounding = self.plan.grounding
        return (
            grounding is not None
            and isinstance(call.name, str)
            and isinstance(call.arguments, dict)
            and grounding.made_up(
                call.name, call.arguments, [(c.name, c.arguments) for c in written]
            )
        )

    def _drop(self, call: _Call, why: str) -> CallCorrected:
        """Leave the call out of the reply, and say so."""
        self.dropped.add(call_key(call.name, call.written))
        return _dropped(call.name, call.written, why)

    def _asks_nothing_new(self, call: _Call) -> bool:
        """Whether, after tool results, the call asks nothing the conversation has not answered
        (see `Grounding.asks_nothing_new`): as good as answered."""
        grounding = self.plan.grounding
        return (
            self.plan.mode == "decide"
            and grounding is not None
            and isinstance(call.arguments, dict)
            and grounding.asks_nothing_new(str(call.name), call.arguments)
        )

    def _missing(self, call: _Call) -> str | None:
        """The required value of the call the user has not given (`Grounding.missing`), where
        the reply may ask for it instead (not where the application requires a call)."""
        grounding = self.plan.grounding
        if self.plan.mode != "decide" or self.ask_prompt is None or grounding is None:
            return None
        if not isinstance(call.name, str) or not isinstance(call.arguments, dict):
            return None
        return grounding.missing(call.name, call.arguments)

    def _copied_descriptions(self, call: _Call) -> list[str]:
        """The call's free-text parameters passed their own description
        (`Grounding.copied_descriptions`)."""
        grounding = self.plan.grounding
        if grounding is None or not isinstance(call.written, dict):
            return []
        return grounding.copied_descriptions(str(call.name), call.written)

    def _copied_documentation(self, call: _Call) -> list[str]:
        """The call's free-text parameters passed their own description, or an example of
        it where the request says more (`Grounding.copied_examples`): the first call of a
        reply is written again with them held to the request's words. A call on trial to a
        tool of the reply's choosing is only held so for its description: its examples are
        no worse than the request's words there ("divide" as a unit for "divide this by 3")."""
        grounding = self.plan.grounding
        if grounding is None or not isinstance(call.written, dict):
            return []
        examples = grounding.copied_examples(str(call.name), call.written)
        return [*self._copied_descriptions(call), *examples]

    def _records_named(self, call: _Call) -> tuple[ToolDefinition, RecordsNamed] | None:
        """The call's tool held to the records the request names, where the call passes
        another record of their list (`Grounding.held_to_records_named`)."""
        grounding = self.plan.grounding
        if self.plan.mode != "decide" or grounding is None:
            return None
        tool = next((tool for tool in self.plan.tools if tool.name == call.name), None)
        if tool is None or not isinstance(call.arguments, dict):
            return None
        return grounding.held_to_records_named(tool, call.arguments)

    def _findable(self, call: _Call, parameter: str) -> bool:
        """Whether the value the call lacks may be looked up first (`Grounding.findable`)."""
        grounding = self.plan.grounding
        return grounding is not None and grounding.findable(str(call.name), parameter)

    def _copied_example(self, call: _Call) -> str | None:
        """The identifier the call copies from its tool's documentation (see
        `Grounding.copied_example`): no call of the user's."""
        grounding = self.plan.grounding
        if grounding is None or not isinstance(call.name, str):
            return None
        if not isinstance(call.written, dict):
            return None
        return grounding.copied_example(call.written)

    def _unused_values_evidence(self) -> Callable[[str], float] | None:
        values, steering = self.request_values, self.steering
        if values is None or not steering.unused_value_weight:
            return None
        written_calls = self.call_format.written_calls

        def evidence(output: str) -> float:
            arguments = [call.get("arguments") or {} for call in written_calls(output)]
            unused = min(values.unused(arguments), steering.unused_values_counted)
            return steering.unused_value_weight * unused

        return evidence

    def _new_value_trial(self) -> Callable[[str, str], bool] | None:
        """A call the model was unlikely to go on to is kept only if it uses a value of the
        request no earlier call has used: calling a tool an earlier call has, a value listed
        with one used (`RequestValues.adds`: the same thing asked again, for another value);
        calling another tool, only values holding pieces of the request
        (`RequestValues.extends`: another part of the request)."""
        values = self.request_values
        if values is None or not self.steering.calls_on_trial:
            return None
        written_calls = self.call_format.written_calls

        def uses_a_new_value(before: str, attempt: str) -> bool:
            # A call dropped from the reply asked for nothing: its part is still to take up.
            earlier = [
                call
                for call in written_calls(before)
                if call_key(call.get("name"), call.get("arguments") or {}) not in self.dropped
            ]
            tools = {call.get("name") for call in earlier}
            used = [call.get("arguments") or {} for call in earlier]
            for call in written_calls(attempt):
                arguments = call.get("arguments") or {}
                again = call.get("name") in tools
                if values.adds(arguments, used) if again else values.extends(arguments, used):
                    return True
            return False

        return uses_a_new_value

    async def _answer(self) -> AsyncIterator[ModelEvent]:
        """The reply written as text instead of a call (`_no_call`). An answer that only says
        the question again answers nothing (small models asked to answer from results, or to
        ask for a value, often copy the request), nor does one that is only a call or a tool's
        name (`call_as_text`): it is held back while it could be either, and written again, not
        opening as it did, when it is, up to `ANSWER_ATTEMPTS` times (the same words come back
        under another first token: "Where" banned, "Wh" + "ere")."""
        request, opening = self._no_call()
        if opening:
            for event in self._read(opening):
                yield event
        asked = self.plan.question
        if asked is None and self.request_values is not None:
            asked = self.request_values.text
        question = folded(asked or "").strip()
        tools = [tool.name for tool in self.plan.tools]
        for attempt in range(1, ANSWER_ATTEMPTS + 1):
            run = start(self.engine, request)
            held: str | None = ""
            try:
                async for piece in run.pieces():
                    if held is not None:
                        held += piece
                        if (question and question.startswith(folded(held).strip())) or (
                            may_become_call_as_text(held, tools)
                        ):
                            continue
                        piece, held = held, None
                    for event in self._read(piece):
                        yield event
            finally:
                run.stop()
            self._record(run.result)
            if held is None or not held.strip():
                return
            answers = folded(held).strip() != question and call_as_text(held, tools) is None
            if answers or attempt == ANSWER_ATTEMPTS:
                for event in self._read(held):
                    yield event
                return
            opener = self.engine.tokenize(held.lstrip())[:1]
            gate = request.gate
            banned = (*gate.tokens, *opener) if gate is not None else tuple(opener)
            request = dataclasses.replace(request, gate=Gate(banned, math.inf))

    async def _each_result_answered(
        self, prompts: Callable[[], Sequence[Sequence[int]]]
    ) -> AsyncIterator[ModelEvent]:
        """The answer as a sentence from each result in turn, one line each."""
        self.reader = self.prose_reader
        self.prose_calls = _ProseCalls(self.plan.grounding)
        for index, tokens in enumerate(prompts()):
            if index:
                for event in self._read("\n"):
                    yield event
            no_call, _ = self._no_call()
            async for event in self._generate(dataclasses.replace(no_call, tokens=tokens)):
                yield event

    def _no_call(self) -> tuple[GenerationRequest, str]:
        """The reply written as text instead of a call the model insists on, and the text it
        begins with, already in the prompt: from the answer prompt when there is one (the
        prompt asking for the value the user has not given, where the call lacked one, which
        may open the question), else from the prompt the reply began from, beginning with
        neither a call nor the reply's end."""
        steering = self.steering
        tokens, opening = self.gated.tokens, ""
        if self.asking is not None and self.ask_prompt is not None:
            asking, opening = self.ask_prompt(*self.asking)
            tokens = list(asking)
        elif self.answer_prompt is not None:
            tokens = list(self.answer_prompt())
        request = dataclasses.replace(
            self.base,
            tokens=tokens,
            banned_tokens=(*self.plan.banned, *steering.prose_only),
            gate=Gate(steering.answer_openers_banned, math.inf),
        )
        return request, opening

    def _read(self, text: str) -> list[ModelEvent]:
        if self.reader is None:
            return [TextDelta(text=text)]
        events = self.reader.feed(text)
        return events if self.prose_calls is None else self.prose_calls.hold(events)

    def _close(self) -> list[ModelEvent]:
        if self.reader is None:
            return []
        events = self.reader.close()
        if self.prose_calls is None:
            return events
        return [*self.prose_calls.hold(events), *self.prose_calls.release()]

    def _record(self, generation: Generation | None) -> None:
        if generation is not None:
            self.generations.append(generation)

    def _usage(self) -> UsageReported:
        first = self.generations[0] if self.generations else None
        return UsageReported(
            usage=Usage(
                input_tokens=first.prompt_tokens if first else len(self.base.tokens),
                output_tokens=sum(g.output_tokens for g in self.generations),
                cached_input_tokens=first.cached_tokens if first else 0,
                requests=1,
            )
        )

    def _finish(self) -> FinishReason:
        last = self.generations[-1] if self.generations else None
        finish: FinishReason = "length" if last is not None and last.finish == "length" else "stop"
        if self.reader is None:
            return finish
        if self.prose_calls is not None and not self.prose_calls.passed:
            return finish  # the reader saw calls, all of them dropped
        return self.reader.finish_reason(finish)


@dataclass(frozen=True, slots=True)
class _Call:
    """A whole call as the reply passes it on: its text, what it asks, and the arguments the
    model wrote (which grounding may have changed)."""

    text: str
    name: Any
    arguments: Any
    written: Any

    @property
    def key(self) -> str:
        return call_key(self.name, self.arguments)

    def narrows(self, earlier: Sequence[_Call]) -> bool:
        """Whether one of the `earlier` calls asked the same tool for all this one asks."""
        asked = self.arguments
        return isinstance(asked, dict) and any(
            call.name == self.name
            and isinstance(call.arguments, dict)
            and asked.items() <= call.arguments.items()
            for call in earlier
        )


class _WholeCalls:
    """Cuts grammar-constrained output into whole calls (the separator before a call belongs to
    it), holding back the call still being written; with `grounding`, a call that made up
    optional arguments is written again without them."""

    def __init__(self, call_format: CallFormat, grounding: Grounding | None = None) -> None:
        self._format = call_format
        self._grounding = grounding
        self._text = ""
        self._done = 0
        self._count = 0
        self._grounded: list[tuple[str, dict[str, Any]]] = []

    def feed(self, piece: str) -> Iterator[_Call]:
        self._text += piece
        while True:
            whole = self._format.whole_call(self._text, self._done, first=not self._count)
            if whole is None:
                return
            end, call = whole
            segment = self._text[self._done : end]
            name, arguments = call.get("name"), call.get("arguments")
            written = arguments
            grounding = self._grounding
            if grounding and isinstance(name, str) and isinstance(arguments, dict):
                grounded = grounding.arguments(name, arguments, self._grounded)
                if grounded != arguments:
                    segment = self._format.write(name, grounded, first=not self._count)
                    arguments = grounded
                self._grounded.append((name, arguments))
            self._done = end
            self._count += 1
            yield _Call(segment, name, arguments, written)

    def discard(self) -> None:
        """Forget the call being written."""
        self._text = self._text[: self._done]

    def rest(self) -> str:
        """The call being written, handed over as it is."""
        rest, self._text = self._text[self._done :], self._text[: self._done]
        return rest


class _ShownCalls:
    """The text of a reply up to a line that writes a call as a bare JSON object after prose
    (not behind the family's marker `marker`, where the reader takes it as a call, nor in a
    fence): a small model that answered in prose goes on to list the calls it did not make,
    one per line, until the token limit."""

    def __init__(self, marker: str) -> None:
        self._marker = marker.strip()
        self._text = ""
        self._passed = 0

    def feed(self, piece: str) -> tuple[str, bool]:
        """The text that may be passed on, and whether the reply should end there."""
        self._text += piece
        text = self._text
        at = text.find(CALL_ON_A_LINE, self._passed)
        while at >= 0 and self._opens_call(text[text.rfind("\n", 0, at) + 1 : at].strip()):
            at = text.find(CALL_ON_A_LINE, at + 1)
        if at >= 0:
            return self._pass(at), True
        line = text.rfind("\n")
        could_be_one = line >= 0 and CALL_ON_A_LINE.startswith(text[line:])
        return self._pass(line if could_be_one else len(text)), False

    def rest(self) -> str:
        return self._pass(len(self._text))

    def _opens_call(self, line: str) -> bool:
        return line.startswith("```") or (bool(self._marker) and line.endswith(self._marker))

    def _pass(self, end: int) -> str:
        passed, self._passed = self._text[self._passed : end], max(self._passed, end)
        return passed


_CallEvent = ToolCallStarted | ToolCallArgumentsDelta | ToolCallFailed


class _ProseCalls:
    """The calls of a reply that opened with prose (written behind the family's marker, so the
    grammar and the checks on calls never saw them), held to the reply's end: one passing an
    identifier copied from the tools' documentation is dropped (`Grounding.copied_example`),
    the others are passed on, numbered again."""

    def __init__(self, grounding: Grounding | None) -> None:
        self._grounding = grounding
        self._held: dict[int, list[_CallEvent]] = {}
        self.passed = 0

    def hold(self, events: list[ModelEvent]) -> list[ModelEvent]:
        passed: list[ModelEvent] = []
        for event in events:
            if isinstance(event, _CallEvent):
                self._held.setdefault(event.index, []).append(event)
            else:
                passed.append(event)
        return passed

    def release(self) -> list[ModelEvent]:
        released: list[ModelEvent] = []
        for _, events in sorted(self._held.items()):
            copied = self._copied(events)
            if copied is not None:
                released.append(copied)
                continue
            released += [dataclasses.replace(event, index=self.passed) for event in events]
            self.passed += 1
        self._held.clear()
        return released

    def _copied(self, events: list[_CallEvent]) -> CallCorrected | None:
        """The call's drop, where it passes an identifier copied from the documentation."""
        started = next((e for e in events if isinstance(e, ToolCallStarted)), None)
        if self._grounding is None or started is None:
            return None
        text = "".join(e.delta for e in events if isinstance(e, ToolCallArgumentsDelta))
        try:
            arguments = load_json(text)
        except ValueError:
            return None  # not read as arguments: the loop reports the call as malformed
        if not isinstance(arguments, dict):
            return None
        copied = self._grounding.copied_example(arguments)
        return None if copied is None else _dropped(started.name, arguments, _copied_why(copied))


def _dropped(name: Any, written: Any, why: str) -> CallCorrected:
    return CallCorrected(name=name, written=written, index=None, changes=(f"dropped: {why}",))


def _missing_why(parameter: str, grounding: Grounding | None) -> str:
    if grounding is not None and grounding.unreferenced is not None:
        return f"the request refers to {grounding.unreferenced!r}, which nothing before it names"
    return f"{parameter!r} is required, and the request gives no value for it"


def _described_why(parameter: str) -> str:
    return f"{parameter!r} copies the tool's documentation or default, not a value the user gave"


def _other_record_why(named: RecordsNamed) -> str:
    words = ", ".join(repr(word) for word in named.words)
    records = ", ".join(repr(found) for found in named.identifiers)
    those, do = ("that of", "does") if len(named.identifiers) == 1 else ("those of", "do")
    return (
        f"the request names {words}, which the record of {named.passed!r} does not hold"
        f" and {those} {records} {do}"
    )


def _copied_why(copied: str) -> str:
    return f"{copied!r} copies the tools' documented example, not the user's value"


def _any_call(call: _Call) -> bool:
    """Keeps the call on trial: its grammar has held it to what it may be."""
    return True
