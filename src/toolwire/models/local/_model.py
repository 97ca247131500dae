"""`LocalModel`: a GGUF model in this process, speaking the `Model` contract.

Each request is rendered with the model's own chat template into one prompt. Because the
conversation only ever grows by appending, each prompt starts with the previous one, and the
engine evaluates only what was added (see `_engine`). The reply streams through the text
tool-call scanner, told the family's own call format first.

A model whose template cannot lay out tools (SmolLM2, many base-chat models) gets them in prompted
mode: `toolwire.textcalls.PromptedTools` writes the catalogue into the system prompt and reads
the calls; generation (grammars, the call gate) is planned here all the same.

Tool choice:
- `auto`: the model writes freely, but may open its reply with a call only if it gives that
  opening at least `call_threshold` probability (small models otherwise call a tool for
  questions no tool fits), weighed, for a new request with native tools, with how much likelier
  the tools make the request (`_relevance`, scaled by `relevance_weight`; 0 leaves it out). A
  reply that opens a call, in whatever format the model chose (fenced or bare JSON are common),
  is generated again from its start under a grammar, so the call is in the family's own format,
  may be followed by more calls, and names a real tool; with `strict` (the default) its
  arguments also match the tool's JSON Schema. A reply that opens with prose stays free text,
  unless it is only a call written out as text, or, with `describes_calls` (for models that
  tell the user which tool to use and show its call in a code fence), shows a call in a fence:
  that reply is written as the call (`_written`); with it too, text after results that talks of
  the tools rather than what they returned is written again as the answer from the results.
- `required` / a named tool: a grammar forces a call (to that tool); its arguments follow the
  schema with `strict`, and are any JSON object without.
In both, a reply goes on to another call only if the model would (`ANOTHER_CALL_THRESHOLD`), or
if a call it writes on trial uses a value of the request no call has used (`CALLS_ON_TRIAL`); it
stops at a call it has already made (small models repeat one until the token limit) or is stuck
in (`_engine.LOOP_REPEATS`), and with
`drop_guessed_arguments` (the default) a call's arguments get the checks that rest on its
schema, each reported as a `CallCorrected` event, and a later call that goes on past what the
conversation asks is dropped (`_grounding`).
- `none`: the tools stay in the prompt (so the cache still matches) but the family's call marker
  cannot be sampled and nothing is read as a call.

With `resolve_dates` (the default) and tools offered, the request a conversation ends with, where
it names days by their relation to the date the conversation states ("tomorrow", "next
Tuesday"), is rendered with their dates after it (`_dates`): small models cannot count days.
With `recall_results` (the default), a request that follows a short answer made from tool
results is rendered with it after it (`_recall`): small models read a follow-up ("add 6") on
its own.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio.to_thread

from ...errors import UsageError
from ...events import ModelEvent
from ...messages import Message, ToolCall, ToolResult
from ...textcalls import ModelEventReader, PromptedTools, profile_for_model
from ...tools import ToolDefinition
from .._base import ModelProfile, ModelRequest, ModelSettings, NamedToolChoice
from ._answering import found_nothing
from ._calls import ScannerFactory, default_scanner
from ._coverage import RequestValues
from ._dates import stated_today, with_dates
from ._engine import Engine, GenerationRequest
from ._formats import PROMPTED, CallFormat, call_key, detect_format
from ._grammar import calls_grammar
from ._grounding import Grounding
from ._recall import with_last_answer
from ._relevance import (
    RELEVANCE_NEUTRAL,
    RELEVANCE_WEIGHT,
    last_question,
    last_request,
    request_contrast,
)
from ._reply import PartLeft, Plan, Reply, Steering
from ._schema_reading import identified, takes_a_file, without_examples
from ._template import ChatTemplate, template_messages, template_tools

__all__ = ["LocalModel"]

DEFAULT_MAX_OUTPUT_TOKENS = 1024
DEFAULT_GUIDANCE = (
    "If one of the functions does what the user asks, call it with the values from the "
    "request. If none of them fits, answer in plain text. When the request asks for several "
    "things, make one call for each."
)
"""Added to the system message whenever tools are offered (so it stays in the cached prefix). A
conversation without a system message gets the template's default one before it (Qwen's "You
are Qwen, created by Alibaba Cloud..."), since small models write worse calls without it. Its
sentences ask for a call only where a function fits, for plain text otherwise, and for one call
per thing asked, which is what makes a small model go on to a second call at all."""
DEFAULT_CALL_THRESHOLD = 0.1
"""A reply may open with a call only if the model gives the tokens that open one at least this
probability together, its log-odds moved first by the request's relevance (see `_relevance`);
below it, the reply starts as text. Small models give a call's opening some probability for
nearly any request once tools are listed, and much less for questions no tool fits: the
threshold sits between the two, fitted with the relevance weight on the dev half of the
everyday-requests suite (`bench/local_gate.py --fit`; results in `bench/results/`)."""

DEFAULT_AFTER_RESULTS_THRESHOLD = 0.87
"""The call gate's threshold for a reply that follows tool results rather than a new request:
having the results, a small model that still gives a call's opening some probability mostly
calls again with what it got (`calculate "338"` after `82 + 91 + 77 + 88 = 338`) instead of
answering. A call it is confident of (a step that needs an earlier result) still opens. 0.87 is
what the gate asked of every reply before it was refitted for new requests."""

ANOTHER_CALL_THRESHOLD = 0.001
"""After a call, the reply goes on to another only if the model gives the tokens that open one at
least this probability (with the evidence of unused values, below); the call grammar alone would
force a second call, which small models write as the first again."""

UNUSED_VALUE_WEIGHT = 2.0
UNUSED_VALUES_COUNTED = 2
"""After a call, each number or quoted string of the user's request that no call has used yet
(at most UNUSED_VALUES_COUNTED of them) adds UNUSED_VALUE_WEIGHT to the log-odds of the
probability the model gives another call, before it is held to ANOTHER_CALL_THRESHOLD (see
`_coverage`): values left over are parts of the request not yet asked for."""

CALLS_ON_TRIAL = True
"""Where the go-on check ends a reply that could hold more calls, the model writes one more all the
same, kept only if it uses a value of the request no earlier call has used: asking a tool an
earlier call asked, a value the request lists with one that has; asking another tool, only values
holding pieces of the request (see `_coverage`). Small models give a second call of a parallel
request as little as 2e-05 after the first, and write it right when made to."""

ANSWER_FROM_RESULTS = (
    "Answer the question from the results above, in plain text, with the details they give."
)
"""Asks for the answer when the model would only repeat a call. Asked for one sentence, a small
model answers a list with "the events are listed in the response"; asked for the details, with
the events (chosen on the dev half of the everyday-requests suite)."""

ANSWER_EACH_RESULT = "Answer in one sentence, in plain text."
"""Asks for one result's sentence where each result is answered in turn (`EACH_RESULT_ANSWERED`):
told to give the details, a small model writes a sentence about the request instead ("the team
is split between Dubai and São Paulo")."""

EACH_RESULT_ANSWERED = True
"""Where the calls answering a request returned several results, the answer is a sentence from
each result in turn, the request and that result folded into one message (as `ANSWER_EACH_RESULT`
asks): told everything at once, a small model reports one result ("the time in Tokyo is ..."
for four cities) or merges them ("ORD-10501 and ORD-10522 are shipped")."""

ASK_FOR_VALUE = (
    "You cannot do this yet: the request does not say {what}. "
    "Write one short question to the user asking for {what}."
)
"""Follows the request where a call lacked a required value the user has not given (see
`Grounding.missing`): told only that the value is missing, a small model writes the call it
wanted as text, or answers with the value it made up."""

_PLAN = "toolwire.local.plan"
"""Where a prompted-mode request carries its plan through `PromptedTools` to the inner call."""


@dataclass(frozen=True, slots=True)
class _Loaded:
    engine: Engine
    template: ChatTemplate
    native: bool
    """The template lays out tools itself (else: prompted mode)."""
    call_format: CallFormat
    profile: str
    banned_in_none: tuple[int, ...]
    call_openers: tuple[int, ...]
    answer_openers_banned: tuple[int, ...]
    prose_only: tuple[int, ...]
    marker_tokens: dict[str, int]
    """The call format's markers that are special tokens, by their text."""
    default_system: str
    """The system message the template writes when a conversation has none."""


class LocalModel:
    """A GGUF model run by llama.cpp in this process.

    `source` is the GGUF file, or a function that produces it on first use (assembling a
    packaged model, downloading from the Hub), called once, in a worker thread.
    """

    def __init__(
        self,
        source: Path | str | Callable[[], Path],
        *,
        name: str | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        strict: bool = True,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        guidance: str | None = DEFAULT_GUIDANCE,
        call_threshold: float | None = DEFAULT_CALL_THRESHOLD,
        after_results_threshold: float | None = DEFAULT_AFTER_RESULTS_THRESHOLD,
        relevance_weight: float = RELEVANCE_WEIGHT,
        relevance_neutral: float = RELEVANCE_NEUTRAL,
        drop_guessed_arguments: bool = True,
        resolve_dates: bool = True,
        recall_results: bool = True,
        describes_calls: bool = False,
        scanner: ScannerFactory = default_scanner,
    ) -> None:
        if callable(source):
            self._locate: Callable[[], Path] = source
        else:
            path = Path(source).expanduser()
            if not path.is_file():
                raise UsageError(f"no GGUF model file at {path}")
            self._locate = lambda: path
        thresholds = {
            "call_threshold": call_threshold,
            "after_results_threshold": after_results_threshold,
        }
        for option, threshold in thresholds.items():
            if threshold is not None and not 0.0 <= threshold <= 1.0:
                raise UsageError(f"{option} is a probability, from 0 to 1")
        if not 0.0 <= relevance_weight < math.inf:
            raise UsageError("relevance_weight is 0 (the request's relevance left out) or more")
        if not math.isfinite(relevance_neutral):
            raise UsageError("relevance_neutral is a number of nats")
        self._name = name or f"local:{source}"
        self._engine_options = (n_ctx, n_threads, n_gpu_layers)
        self.strict = strict
        self.max_output_tokens = max_output_tokens
        self.guidance = guidance
        self.call_threshold = call_threshold
        self.after_results_threshold = after_results_threshold
        self.relevance_weight = relevance_weight
        self.relevance_neutral = relevance_neutral
        self.drop_guessed_arguments = drop_guessed_arguments
        self.resolve_dates = resolve_dates
        self.recall_results = recall_results
        self.describes_calls = describes_calls
        self._scanner = scanner
        self._loaded: _Loaded | None = None
        self._load_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def profile(self) -> ModelProfile:
        return ModelProfile(
            native_tools=False,
            parallel_tool_calls=True,
            strict_schemas=self.strict,
            text_tool_format=self._loaded.profile if self._loaded else None,
        )

    @property
    def engine(self) -> Engine:
        """The loaded engine (loading it now if needed)."""
        return self.load().engine

    def load(self) -> _Loaded:
        """Locate, verify and load the model. Blocking; done once."""
        with self._load_lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> _Loaded:
        n_ctx, n_threads, n_gpu_layers = self._engine_options
        engine = Engine(self._locate(), n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=n_gpu_layers)
        source = engine.metadata.get("tokenizer.chat_template")
        if not source:
            raise UsageError(
                f"{engine.path} has no chat template: toolwire needs an instruction-tuned model "
                "whose GGUF carries its template"
            )
        template = ChatTemplate(
            source,
            bos_token=engine.token_text(engine.bos_token),
            eos_token=engine.token_text(engine.eos_token),
        )
        native = template.supports_tools
        call_format = detect_format(source) if native else PROMPTED
        family = engine.metadata.get("general.basename") or engine.metadata.get("general.name")
        profile = call_format.profile or profile_for_model(family or self._name).name
        marker = call_format.start.strip()
        banned_in_none = tuple(engine.token_ids(marker)) if marker else ()
        call_openers = engine.tokens_where(call_format.may_open_call)
        return _Loaded(
            engine=engine,
            template=template,
            native=native,
            call_format=call_format,
            profile=profile,
            banned_in_none=banned_in_none,
            call_openers=call_openers,
            answer_openers_banned=(*call_openers, *engine.reply_enders),
            prose_only=(*banned_in_none, *engine.tokens_where(lambda text: "{" in text)),
            marker_tokens={
                marker: token
                for marker in (call_format.start.strip(), call_format.end.strip())
                if marker and (token := engine.special_token(marker)) is not None
            },
            default_system=template.default_system(),
        )

    def render(self, request: ModelRequest, *, dated: bool = True, recalled: bool = True) -> str:
        """The prompt text this request becomes (with the model's chat template); `dated`
        False leaves out the notes after the request (the dates of its day words, the answer
        before it: see `resolve_dates`, `recall_results`), which an answer has no use for;
        `recalled` False leaves out the answer before it only."""
        loaded = self.load()
        tools = template_tools(request.tools) if request.tools else None
        if tools and not loaded.native:
            raise UsageError(f"{self.name}: its chat template lays out no tools")
        guided = self._guided(request, dated, recalled=recalled)
        return loaded.template.render(template_messages(guided), tools)

    def _guided(
        self, request: ModelRequest, dated: bool = True, *, recalled: bool = True
    ) -> Sequence[Message]:
        messages = request.messages
        if request.tools and dated and self.resolve_dates:
            messages = with_dates(messages)
        if request.tools and dated and recalled and self.recall_results:
            messages = with_last_answer(messages)
        if not (request.tools and self.guidance):
            return messages
        if messages and messages[0].role == "system":
            return (Message.system(f"{messages[0].text}\n\n{self.guidance}"), *messages[1:])
        default = self.load().default_system
        system = f"{default}\n\n{self.guidance}" if default else self.guidance
        return (Message.system(system), *messages)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        loaded = await anyio.to_thread.run_sync(self.load)
        if request.tools and not loaded.native:
            events = self._prompted(loaded, request)
        else:
            events = self._native(loaded, request)
        async for event in events:
            yield event

    def _prompted(self, loaded: _Loaded, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Tools through the prompt: PromptedTools renders the catalogue and reads the calls;
        the inner request (no tools) carries the generation plan."""
        plan = self._plan(loaded, request)
        settings = request.settings
        planned = dataclasses.replace(
            request,
            messages=tuple(self._guided(request)),
            settings=dataclasses.replace(settings, extra={**settings.extra, _PLAN: plan}),
        )
        return PromptedTools(self, profile=loaded.profile).stream(planned)

    async def _native(self, loaded: _Loaded, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        planned = request.settings.extra.get(_PLAN)
        plan = planned if isinstance(planned, Plan) else self._plan(loaded, request)
        reader = prose_reader = None
        if request.tools and request.tool_choice != "none":
            reader = ModelEventReader(self._scanner(request.tools, loaded.profile))
            # Knowing no tools, it reads only calls behind the family's own marker: JSON that
            # names a tool in a fence or bare needs the tools to count.
            prose_reader = ModelEventReader(self._scanner((), loaded.profile))
        prompt = self.render(request)
        engine = loaded.engine
        add_bos = engine.adds_bos() and not prompt.startswith(loaded.template.bos_token)
        # After tool results, the conversation goes on from the model's own output: its tokens
        # keep the cache serving it. A new request is tokenized plainly, as the gate's
        # relevance contrast needs it.
        new_request = last_request(request.messages) is not None
        tokenize = engine.tokenize if new_request else engine.tokenize_after_output
        base = _generation(tokenize(prompt, add_bos=add_bos), request.settings, self)
        # Whether to call is the model's to say from the conversation as it is: shown the
        # answer a follow-up leans on, a small model answers "what about Auckland?" with it.
        gate_prompt = self.render(request, recalled=False) if plan.mode == "decide" else prompt
        gate_tokens = base.tokens
        if gate_prompt != prompt:
            gate_tokens = tokenize(gate_prompt, add_bos=add_bos)
        relevance = None
        # Prompted mode's catalogue is in the messages by now, so there is no prompt without
        # the tools to compare with.
        if plan.mode == "decide" and request.tools and self.relevance_weight:
            relevance = request_contrast(
                request.messages,
                gate_prompt,
                gate_tokens,
                lambda: loaded.template.render(template_messages(request.messages), None),
                functools.partial(engine.tokenize, add_bos=add_bos),
            )

        def folded_prompt(messages: Sequence[Message]) -> list[int]:
            folded = dataclasses.replace(request, messages=tuple(messages))
            return engine.tokenize(self.render(folded, dated=False), add_bos=add_bos)

        answer_prompt = None
        if plan.answer is not None:
            answer_prompt = functools.partial(folded_prompt, plan.answer)
        each_result_prompts = None
        if plan.each_result:

            def each_result_prompts() -> list[list[int]]:
                return [folded_prompt(messages) for messages in plan.each_result]

        part_prompt = None
        # Prompted mode's catalogue is in the messages by now: the part left has no prompt.
        if plan.part_left is not None and request.tools:
            part = dataclasses.replace(
                request, messages=plan.part_left.messages, tools=plan.part_left.tools
            )

            def part_prompt() -> list[int]:
                return engine.tokenize(self.render(part), add_bos=add_bos)

        def grammar_of(tools: Sequence[ToolDefinition]) -> str:
            return self._grammar(loaded, request, tools)

        def ask_prompt(tool: str, parameter: str) -> tuple[list[int], str]:
            reference = plan.grounding.unreferenced if plan.grounding is not None else None
            asking = _asking(request, _what_is_missing(request, tool, parameter, reference))
            prompt = self.render(asking, dated=False)
            opening = _question_opening(parameter, reference)
            return engine.tokenize(prompt + opening, add_bos=add_bos), opening

        values = _request_values(request) if plan.grammar is not None else None
        reply = Reply(
            engine,
            loaded.call_format,
            plan,
            base,
            reader,
            Steering(
                call_openers=loaded.call_openers,
                call_threshold=(
                    self.call_threshold if new_request else self.after_results_threshold
                ),
                answer_openers_banned=loaded.answer_openers_banned,
                prose_only=loaded.prose_only,
                another_call_threshold=ANOTHER_CALL_THRESHOLD,
                relevance_weight=self.relevance_weight,
                relevance_neutral=self.relevance_neutral,
                unused_value_weight=UNUSED_VALUE_WEIGHT,
                unused_values_counted=UNUSED_VALUES_COUNTED,
                calls_on_trial=CALLS_ON_TRIAL,
                describes_calls=self.describes_calls,
            ),
            answer_prompt=answer_prompt,
            each_result_prompts=each_result_prompts,
            part_prompt=part_prompt,
            grammar_of=grammar_of,
            ask_prompt=ask_prompt,
            relevance=relevance,
            request_values=values,
            prose_reader=prose_reader,
            gate_tokens=gate_tokens,
        )
        async for event in reply.events():
            yield event

    def _plan(self, loaded: _Loaded, request: ModelRequest) -> Plan:
        choice = request.tool_choice
        if not request.tools or choice == "none":
            return Plan("text", banned=loaded.banned_in_none if request.tools else ())
        grounding = None
        if self.drop_guessed_arguments:
            grounding = Grounding.of(request.messages, request.tools)
        if choice == "auto":
            answered = frozenset(
                call_key(part.name, part.arguments)
                for message in request.messages
                for part in message.parts
                if isinstance(part, ToolCall)
            )
            grammar = self._grammar(loaded, request, request.tools)
            # The question the conversation's calls answer, where it has any.
            asked = last_question(request.messages) if answered else None
            return Plan(
                "decide",
                grammar=grammar,
                answered=answered,
                answer=(
                    None
                    if asked is None
                    else _results_folded(request.messages, asked, loaded.call_format)
                ),
                each_result=(
                    ()
                    if asked is None or not EACH_RESULT_ANSWERED
                    else _each_result_folded(request, asked, loaded.call_format, grounding)
                ),
                grounding=grounding,
                part_left=self._part_left(request, grounding, asked),
                fewer_words=tuple(grounding.fewer_words(request.tools)) if grounding else (),
                question=None if asked is None else request.messages[asked].text,
                tools=tuple(request.tools),
                follow_up=_follow_up(request, grounding),
            )
        tools: Sequence[ToolDefinition] = request.tools
        if isinstance(choice, NamedToolChoice):
            tools = [t for t in request.tools if t.name == choice.name]
            if not tools:
                raise UsageError(f"tool_choice names {choice.name!r}, which is not among the tools")
        return Plan("forced", grammar=self._grammar(loaded, request, tools), grounding=grounding)

    def _part_left(
        self, request: ModelRequest, grounding: Grounding | None, asked: int | None
    ) -> PartLeft | None:
        if grounding is None or asked is None:
            return None
        text = request.messages[asked].text
        tools = [*grounding.listed_left(text, request.tools), *grounding.tools_left(request.tools)]
        if tools:
            part = grounding.part_left(text, tools)
        elif named := grounding.named_left(text, request.tools):
            part, tools = named
        else:
            return None
        return PartLeft((*request.messages[:asked], Message.user(part)), tuple(tools))

    def _grammar(
        self, loaded: _Loaded, request: ModelRequest, tools: Sequence[ToolDefinition]
    ) -> str:
        return calls_grammar(
            loaded.call_format,
            tools,
            strict=self.strict,
            parallel=request.parallel_tool_calls,
            marker_tokens=loaded.marker_tokens,
        )


def _follow_up(request: ModelRequest, grounding: Grounding | None) -> tuple[ToolDefinition, ...]:
    """The tools a new request's conversation called before, and where it holds results, those
    the request names; where it called none, those the request names that change nothing; in
    either, those reading a file the request names, held to the files it names (see
    `Plan.follow_up`)."""
    if grounding is None or grounding.request is None:
        return ()

    def offered(tool: ToolDefinition) -> bool:
        if grounding.reads_a_file_named(tool.name):
            return True
        if not grounding.called:
            return tool.name not in grounding.changing and grounding.names(tool.name)
        return tool.name in grounding.called or bool(
            grounding.returned and grounding.names(tool.name)
        )

    return tuple(grounding.held_to_files(tool) for tool in request.tools if offered(tool))


def _asking(request: ModelRequest, what: str) -> ModelRequest:
    """The conversation up to the user's last request, with a note after it: it does not say
    `what` (see `_what_is_missing`), which the reply is to ask for."""
    asked = last_question(request.messages)
    assert asked is not None, "a value is missing only from a request the conversation has"
    question = request.messages[asked].text
    note = ASK_FOR_VALUE.format(what=what)
    messages = (*request.messages[:asked], Message.user(f"{question}\n\n{note}"))
    return dataclasses.replace(request, messages=messages)


def _question_opening(parameter: str, reference: str | None) -> str:
    """What the question asking for `parameter` begins with: for an identifier, "Which" and
    the thing it identifies ("Which order"), the words of the note asking for it; for a file's
    path, "Which file"; where the request refers to a thing nothing names (`reference`),
    "Which" and that thing ("Which test" for "that test"), or what a pronoun is ('What is
    "it"'). Told the request does not say which order, a small model still asks "What order do
    you want to refund?", or for a shipment "What is your order?"; told it does not say what
    "it" refers to, it asks "What is 15% of it?" or "What is the current time?"."""
    if reference is not None:
        thing = _thing_referred_to(reference)
        return f"Which {thing}" if thing else f'What is "{reference}"'
    thing = identified(parameter) or ("file" if takes_a_file(parameter) else None)
    return f"Which {thing}" if thing else ""


def _what_is_missing(
    request: ModelRequest, tool: str, parameter: str, reference: str | None
) -> str:
    """The value of the tool's `parameter`, as the note asking for it names it: where the
    request refers to a thing nothing names (`reference`), that thing; which thing an
    identifier identifies (nobody knows an id by heart: told the request does not say "the
    order's id", a small model asks for the id), else the parameter's description."""
    if reference is not None:
        thing = _thing_referred_to(reference)
        return f"which {thing}" if thing else f'what "{reference}" refers to'
    if thing := identified(parameter):
        return f"which {thing}"
    schema = next((t.parameters for t in request.tools if t.name == tool), {})
    described = (schema.get("properties") or {}).get(parameter, {}).get("description")
    # The description's example is no value of the user's: told it, a small model asks
    # whether the value is the example.
    described = without_examples(described) if isinstance(described, str) else None
    if isinstance(described, str) and described.strip():
        return described.strip().rstrip(".")
    return f"the {parameter}"


def _thing_referred_to(reference: str) -> str | None:
    """The thing a reference names ("test" of "that test"), None for a pronoun ("it")."""
    words = reference.split()
    return words[-1] if len(words) > 1 else None


def _request_values(request: ModelRequest) -> RequestValues | None:
    """The literal values of the user's last request, when the conversation ends with it."""
    last = last_request(request.messages)
    if last is None:
        return None
    names = [tool.name for tool in request.tools]
    return RequestValues.of(last.text, names, stated_today(request.messages))


def _results_folded(
    messages: Sequence[Message], last: int, call_format: CallFormat
) -> tuple[Message, ...] | None:
    """The conversation with the tool results since the last user message (at `last`) folded
    into that message: small models that keep calling for a result they hold answer from this
    form."""
    results = [result.content for m in messages[last + 1 :] for result in m.tool_results]
    if not results:
        return None
    return _folded(messages, last, results, call_format, ANSWER_FROM_RESULTS)


def _each_result_folded(
    request: ModelRequest, last: int, call_format: CallFormat, grounding: Grounding | None
) -> tuple[tuple[Message, ...], ...]:
    """For each result since the last user message (at `last`), the conversation with that
    result alone folded into the message, which keeps only the part of the question its call
    took up (`Grounding.part_taken_up`; see `EACH_RESULT_ANSWERED`): told the whole question,
    a small model answers the part another result answers from this one ("15% of 80 is 120"
    beside the time). Results that are errors are left out where any call succeeded, as are
    those that found nothing where a later call of their tool found something (asked
    `query="unread"`, then `query=""`, the mailbox has unread mail: "no unread emails" is no
    part of the answer), and a result repeated counts once. None where that leaves one result
    of them all, which is answered as it is, unless every result found nothing."""
    messages = request.messages
    since = messages[last + 1 :]
    calls = {call.id: call for message in since for call in message.tool_calls}
    results = [result for message in since for result in message.tool_results]
    succeeded = [result for result in results if not result.is_error] or results
    superseded = {
        result.call_id
        for at, result in enumerate(results)
        if not result.is_error
        and found_nothing(result)
        and any(later.name == result.name and not found_nothing(later) for later in results[at:])
    }
    distinct: dict[str, ToolResult] = {}
    for result in succeeded:
        if result.call_id not in superseded:
            distinct.setdefault(result.content, result)
    # Shown the conversation, a small model answers a look-up that found nothing with what it
    # makes up ("the commits that touched cache.py are: ..." after `[]`).
    nothing = bool(results) and not any(r.is_error or not found_nothing(r) for r in results)
    if len(distinct) < 2 and not superseded and not nothing:
        return ()
    question, names = messages[last].text, [tool.name for tool in request.tools]
    folded = []
    for content, result in distinct.items():
        call = calls.get(result.call_id)
        part = question
        if grounding is not None and call is not None:
            part = grounding.part_taken_up(question, call.name, call.arguments, names)
        folded.append(_folded(messages, last, [content], call_format, ANSWER_EACH_RESULT, part))
    return tuple(folded)


def _folded(
    messages: Sequence[Message],
    last: int,
    results: Sequence[str],
    call_format: CallFormat,
    instruction: str,
    question: str | None = None,
) -> tuple[Message, ...]:
    blocks = "\n\n".join(
        f"{call_format.result_start}{content}{call_format.result_end}" for content in results
    )
    asked = messages[last].text if question is None else question
    return (*messages[:last], Message.user(f"{asked}\n\n{blocks}\n\n{instruction}"))


def _generation(tokens: list[int], settings: ModelSettings, model: LocalModel) -> GenerationRequest:
    return GenerationRequest(
        tokens=tokens,
        max_tokens=settings.max_output_tokens or model.max_output_tokens,
        temperature=settings.temperature or 0.0,
        top_p=settings.top_p if settings.top_p is not None else 1.0,
        seed=settings.seed,
        stop=tuple(settings.stop),
    )
