"""One GGUF model loaded in this process by llama-cpp-python, and generation on it.

Generation runs synchronously in a worker thread, one request at a time per engine, and hands each
piece of text to a callback as soon as its token is sampled. Between tokens it checks a
cancellation flag, so a cancelled run frees the model within one token.

The KV cache is never cleared between requests: llama-cpp-python evaluates only the tokens that
follow the longest prefix a new prompt shares with what is already in the cache, so a loop whose
history grows by appending pays only for the new turn. `Generation.cached_tokens` reports how much
of each prompt was served that way. A gate's contrast prompt is evaluated in a second context on
the same weights (created on first use), so it never displaces the conversation from the cache.
"""

from __future__ import annotations

import codecs
import ctypes
import dataclasses
import importlib
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ...errors import ProviderError, UsageError
from ._sampling import GrammarSampler, ValueTokens

__all__ = ["Engine", "GateReading", "Generation", "GenerationRequest", "GoOn"]

EngineFinish = Literal["stop", "length", "interrupted", "stop_sequence", "looping"]

LOOP_REPEATS = 16
"""Times output may repeat a stretch of itself (2 to 100 characters) back to back before the
generation is cut as a loop ("looping"): a small model stuck in a list ("0, 0, 0", the same four
amenities again and again), or in an answer (one line of a log again and again, where the log
it was shown was empty), runs on to the token limit, tens of seconds on a CPU. A call the user
meant repeats a stretch a few times at most (three equal numbers in a list), as does an answer
(a table's rule, "| --- " once per column)."""


@dataclass(frozen=True, slots=True)
class Contrast:
    """How much likelier a stretch of the prompt is than the same tokens in another prompt that
    lacks something (the tools, say): the log-probability of `tokens[span]` in the request's
    prompt minus that of `baseline[baseline_span]`, in nats, each token given all before it."""

    span: tuple[int, int]
    baseline: tuple[int, ...]
    baseline_span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Gate:
    """Decides whether the reply starts with one of `tokens`: it opens when the model gives them
    together at least `threshold` probability there. With `contrast`, its nats beyond `neutral`,
    times `weight`, are added to the log-odds of that probability first. Open,
    the reply starts with the likeliest of them (the evidence may have opened it for a model
    that, left to itself, would start otherwise); shut, none of them may start it, nor a token
    that ends the reply (whitespace aside)."""

    tokens: tuple[int, ...]
    threshold: float
    contrast: Contrast | None = None
    weight: float = 0.0
    neutral: float = 0.0

    def opens(self, probability: float, contrast_nats: float | None) -> bool:
        evidence = 0.0
        if contrast_nats is not None:
            evidence = self.weight * (contrast_nats - self.neutral)
        if not evidence or self.threshold > 1:
            return probability >= self.threshold
        return _log_odds(probability) + evidence >= _log_odds(self.threshold)


@dataclass(frozen=True, slots=True)
class GoOn:
    """Each time the output ends with `after`, it goes on only if the model gives `tokens`
    together at least `threshold` probability next (a grammar that allows more, another call,
    would force it at once; this asks the model, unconstrained, first). With `evidence`, what it
    says of the output so far is added to the log-odds of that probability first."""

    after: str
    tokens: tuple[int, ...]
    threshold: float
    evidence: Callable[[str], float] | None = None
    trial: Callable[[str, str], bool] | None = None
    """With it, output the check would end goes on on trial: what it writes up to the next
    `after` (or the end of the reply) is held back and kept only if `trial(output before it,
    it)` says so; if not, the output ends where the trial began."""

    def goes_on(self, probability: float, output: str) -> bool:
        lift = self.evidence(output) if self.evidence is not None else 0.0
        if not lift or self.threshold > 1:
            return probability >= self.threshold
        return _log_odds(probability) + lift >= _log_odds(self.threshold)


def _log_odds(probability: float) -> float:
    p = min(max(probability, 1e-12), 1 - 1e-12)
    return math.log(p) - math.log1p(-p)


@dataclass(frozen=True, kw_only=True, slots=True)
class GenerationRequest:
    tokens: Sequence[int]
    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 40
    min_p: float = 0.0
    seed: int | None = None
    grammar: str | None = None
    """A GBNF grammar the output must follow (llama.cpp format), or None for free text."""
    stop: tuple[str, ...] = ()
    banned_tokens: tuple[int, ...] = ()
    """Tokens that may not be sampled (e.g. a tool-call marker when tool_choice is none)."""
    gate: Gate | None = None
    """Unless it opens, none of its tokens may start the reply (whitespace aside)."""
    go_on: GoOn | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Generation:
    text: str
    prompt_tokens: int
    cached_tokens: int
    output_tokens: int
    finish: EngineFinish
    gate: GateReading | None = None
    """What the gate read, for a gated request (benchmarks fit the gate on these)."""


@dataclass(frozen=True, slots=True)
class GateReading:
    probability: float
    """The probability the model gave the gate's tokens."""
    nats: float | None
    """The contrast's nats, where the gate had one."""
    opened: bool


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Engine:
    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_batch: int = 512,
        n_gpu_layers: int = 0,
    ) -> None:
        try:
            import llama_cpp
        except ImportError:
            raise UsageError(
                "local models need llama-cpp-python: pip install 'toolwire[local]'"
            ) from None
        threads = n_threads or default_threads()
        try:
            self.llm: Any = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_batch=n_batch,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=n_gpu_layers,
                verbose=False,
            )
        except (ValueError, RuntimeError) as error:
            raise UsageError(f"llama.cpp cannot load {path}: {error}") from None
        self._llama_cpp: Any = llama_cpp
        self._sampler_type: Any = importlib.import_module("llama_cpp._internals").LlamaSampler
        self._vocab = self.llm._model.vocab
        self._lock = threading.Lock()
        self._buffer = ctypes.create_string_buffer(64)
        self._texts: list[str] | None = None
        self._value_token_sets: ValueTokens | None = None
        self._side: _SideContext | None = None
        self._prompt: list[int] = []
        """The prompt last evaluated."""
        self._written: list[int] = []
        """The tokens the model wrote after `_prompt`, whether evaluated or not."""
        # Control tokens (`<|im_start|>`, `<|endoftext|>`…) are never part of a reply's text: a
        # model that samples one is starting another turn or has finished.
        self.reply_enders = tuple(
            token
            for token in range(self.llm.n_vocab())
            if llama_cpp.llama_vocab_is_eog(self._vocab, token)
            or llama_cpp.llama_vocab_get_attr(self._vocab, token)
            & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL
        )
        """Every token that ends a reply when sampled (end of generation, control tokens)."""
        self._ends_reply = frozenset(self.reply_enders).__contains__
        self.path = path
        self.n_ctx = self.llm.n_ctx()

    @property
    def metadata(self) -> dict[str, str]:
        return dict(self.llm.metadata)

    def token_text(self, token: int) -> str:
        return str(self.llm._model.token_get_text(token))

    @property
    def bos_token(self) -> int:
        return int(self.llm.token_bos())

    @property
    def eos_token(self) -> int:
        return int(self.llm.token_eos())

    def tokenize(self, text: str, *, add_bos: bool = False) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def tokenize_after_output(self, text: str, *, add_bos: bool = False) -> list[int]:
        """`text` tokenized, but where it goes on from the last prompt with what the model wrote
        after it, with the tokens the model wrote: rendered again as history, its output
        tokenizes otherwise where pieces merge (two braces and a newline become one token), and
        the cache would serve nothing of it from there. The bytes are the same either way."""
        tokens = self.tokenize(text, add_bos=add_bos)
        llm, prompt = self.llm, len(self._prompt)
        if not prompt or not self._written or tokens[:prompt] != self._prompt:
            return tokens
        encoded = text.encode("utf-8")
        offset = len(llm.detokenize(tokens[:prompt], special=True))
        kept = 0
        for token in self._written:
            piece = llm.detokenize([token], special=True)
            if not piece or not encoded.startswith(piece, offset):
                break
            offset += len(piece)
            kept += 1
        written = [
            *self._prompt,
            *self._written[:kept],
            *llm.tokenize(encoded[offset:], add_bos=False, special=True),
        ]
        same = llm.detokenize(written, special=True) == llm.detokenize(tokens, special=True)
        return written if same else tokens

    def tokens_where(self, predicate: Callable[[str], bool]) -> tuple[int, ...]:
        """Every token of the vocabulary whose text satisfies `predicate`."""
        return tuple(token for token, text in enumerate(self._token_texts()) if predicate(text))

    def _token_texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [
                self._piece(token).decode("utf-8", errors="ignore")
                for token in range(self.llm.n_vocab())
            ]
        return self._texts

    def _value_tokens(self) -> ValueTokens:
        if self._value_token_sets is None:
            self._value_token_sets = ValueTokens.of(self._token_texts())
        return self._value_token_sets

    def token_ids(self, text: str) -> list[int]:
        """The ids of `text` when it is a single token of the vocabulary (special or not)."""
        ids = self.tokenize(text)
        return ids if len(ids) == 1 else []

    def special_token(self, text: str) -> int | None:
        """The id of `text` when it is one special token (added to the vocabulary whole, as
        chat and call markers are), which a grammar's string literal cannot match."""
        ids = self.token_ids(text)
        if not ids:
            return None
        llama_cpp = self._llama_cpp
        special = llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED | llama_cpp.LLAMA_TOKEN_ATTR_CONTROL
        return ids[0] if llama_cpp.llama_vocab_get_attr(self._vocab, ids[0]) & special else None

    def adds_bos(self) -> bool:
        return bool(self.llm._model.add_bos_token())

    def _piece(self, token: int) -> bytes:
        buffer = self._buffer
        size = self._llama_cpp.llama_token_to_piece(
            self._vocab, token, buffer, len(buffer), 0, False
        )
        if size < 0:  # a piece longer than the buffer: grow it and ask again
            self._buffer = buffer = ctypes.create_string_buffer(-size)
            size = self._llama_cpp.llama_token_to_piece(
                self._vocab, token, buffer, len(buffer), 0, False
            )
        return buffer.raw[:size]

    def generate(
        self,
        request: GenerationRequest,
        emit: Callable[[str], None],
        should_stop: Callable[[], bool],
    ) -> Generation:
        """Generate a reply, calling `emit` with each new piece of text; `should_stop` is asked
        between tokens (cancellation, or a caller that has seen enough). Blocking: run it in a
        worker thread. Requests on one engine are served one at a time."""
        with self._lock:
            return self._generate(request, emit, should_stop)

    def _generate(
        self,
        request: GenerationRequest,
        emit: Callable[[str], None],
        should_stop: Callable[[], bool],
    ) -> Generation:
        tokens = list(request.tokens)
        if not tokens:
            raise UsageError("cannot generate from an empty prompt")
        if request.gate is not None and request.grammar is not None:
            raise UsageError("a gated reply cannot also follow a grammar")
        room = self.n_ctx - len(tokens)
        if room <= 0:
            raise ProviderError(
                f"the prompt is {len(tokens)} tokens and the context window {self.n_ctx}: "
                "shorten the conversation or load the model with a larger n_ctx"
            )
        samplers = [self._sampler(request, request.banned_tokens)]
        gate = request.gate
        contrast = gate.contrast if gate is not None else None
        if contrast is not None and len(contrast.baseline) > self.n_ctx:
            contrast = None  # the gate goes by the probability alone
        try:
            evaluated = self._evaluate_prompt(
                tokens, should_stop, scored=range(*contrast.span) if contrast else range(0)
            )
            if evaluated is None:
                return _interrupted(len(tokens))
            cached, scores = evaluated
            nats = None
            if contrast is not None:
                nats = self._contrast_nats(contrast, scores, should_stop)
                if nats is None:
                    return _interrupted(len(tokens))
            opening = reading = None
            if gate is not None:
                probability = self._probability(gate.tokens)
                reading = GateReading(probability, nats, gate.opens(probability, nats))
                if reading.opened:
                    opening = _likeliest(self.llm._ctx, -1, gate.tokens)
                else:
                    # Shut, the reply is text: not a call, nor ended before it says anything.
                    shut = (*request.banned_tokens, *gate.tokens, *self.reply_enders)
                    samplers.append(self._sampler(request, shut))
            generation = self._sample(
                request,
                samplers,
                len(tokens),
                cached,
                min(request.max_tokens, room),
                emit,
                should_stop,
                opening=opening,
            )
            if generation.finish == "interrupted":
                self._forget_the_unfinished()
            return dataclasses.replace(generation, gate=reading)
        finally:
            for sampler in samplers:
                sampler.close()

    def _evaluate_prompt(
        self, tokens: list[int], should_stop: Callable[[], bool], scored: range = range(0)
    ) -> tuple[int, list[float]] | None:
        """Evaluate `tokens` after the longest prefix already in the KV cache. Returns how many
        tokens came from the cache and the log-probability of each token in `scored`, or None
        when stopped part way."""
        llm = self.llm
        self._prompt, self._written = tokens, []
        reuse = _keep_prefix(llm._ctx, llm.input_ids[: llm.n_tokens], tokens, scored)
        llm.n_tokens = reuse

        def evaluated(start: int, chunk: Sequence[int]) -> None:
            llm.input_ids[start : start + len(chunk)] = chunk
            llm.n_tokens = start + len(chunk)

        scores = _evaluate(
            llm._ctx, llm._batch, llm.n_batch, tokens, reuse, scored, evaluated, should_stop
        )
        if scores is None:
            # However many batches were done before the stop, none is kept: see
            # `_forget_the_unfinished`.
            llm.n_tokens = reuse
            return None
        return reuse, scores

    def _forget_the_unfinished(self) -> None:
        """Leave only the prompt in the cache. A caller in another thread stops a generation
        some tokens after the one it decided on, as many as the worker wrote meanwhile; kept,
        they would decide how much of the next prompt the cache serves, so where its
        evaluation is split into batches, and so (kernels round batches and single tokens
        differently) which of two near-equal tokens the model picks next: a run's calls would
        depend on the machine's load."""
        self.llm.n_tokens = len(self._prompt)

    def _contrast_nats(
        self, contrast: Contrast, scores: list[float], should_stop: Callable[[], bool]
    ) -> float | None:
        """The contrast's nats: the baseline is evaluated in a second context on the same
        weights, so the main context's cache keeps the conversation."""
        side = self._side_context()
        baseline = list(contrast.baseline)
        scored = range(*contrast.baseline_span)
        reuse = _keep_prefix(side.context, side.tokens, baseline, scored)
        del side.tokens[reuse:]

        def evaluated(start: int, chunk: Sequence[int]) -> None:
            side.tokens[start:] = chunk

        base = _evaluate(
            side.context,
            side.batch,
            self.llm.n_batch,
            baseline,
            reuse,
            scored,
            evaluated,
            should_stop,
        )
        return None if base is None else math.fsum(scores) - math.fsum(base)

    def _side_context(self) -> _SideContext:
        if self._side is None:
            internals = importlib.import_module("llama_cpp._internals")
            params = self._llama_cpp.llama_context_params.from_buffer_copy(self.llm.context_params)
            self._side = _SideContext(
                internals.LlamaContext(model=self.llm._model, params=params, verbose=False),
                internals.LlamaBatch(n_tokens=self.llm.n_batch, embd=0, n_seq_max=1, verbose=False),
            )
        return self._side

    def _probability(self, tokens: Sequence[int]) -> float:
        """The probability of sampling any of `tokens` next (from the last logits)."""
        return math.exp(_log_probability(self.llm._ctx, -1, tokens))

    def _sample(
        self,
        request: GenerationRequest,
        samplers: list[Any],
        prompt_tokens: int,
        cached: int,
        limit: int,
        emit: Callable[[str], None],
        should_stop: Callable[[], bool],
        *,
        opening: int | None = None,
    ) -> Generation:
        llm = self.llm
        context = llm._ctx
        to_piece = self._piece
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        stops = _StopMatcher(request.stop)
        pieces: list[str] = []
        produced = 0
        finish: EngineFinish = "length"
        # The last sampler (the gated one, if any) serves until the reply has begun in earnest.
        sampler = samplers[-1]
        go_on, recent = request.go_on, ""
        window = ""
        on_trial: int | None = None  # where the output held back on trial begins
        while produced < limit:
            if go_on is not None and recent.endswith(go_on.after):
                recent = ""
                output = "".join(pieces)
                if on_trial is not None:
                    if not _kept(go_on, output, on_trial):
                        pieces, on_trial, finish = [output[:on_trial]], None, "stop"
                        break
                    emit(output[on_trial:])
                    on_trial = None
                if not go_on.goes_on(self._probability(go_on.tokens), output):
                    if go_on.trial is None:
                        finish = "stop"
                        break
                    on_trial = len(output)
            token = sampler.sample(context, -1) if opening is None else opening
            opening = None
            if self._ends_reply(token):
                finish = "stop"
                break
            produced += 1
            self._written.append(token)
            text, hit = stops.feed(decoder.decode(to_piece(token)))
            if text:
                pieces.append(text)
                if on_trial is None:
                    emit(text)
                if go_on is not None:
                    recent = (recent + text)[-len(go_on.after) :]
                if not text.isspace():
                    sampler = samplers[0]
                window = (window + text)[-_LOOP_REACH:]
                if _looping(window):
                    finish = "looping"
                    break
            if hit:
                finish = "stop_sequence"
                break
            if should_stop():
                finish = "interrupted"
                break
            if produced < limit:
                llm.eval([token])
        if finish != "stop_sequence":
            tail = stops.flush(decoder.decode(b"", final=True))
            if tail:
                pieces.append(tail)
                if on_trial is None:
                    emit(tail)
        if on_trial is not None:
            output = "".join(pieces)
            # Cut off by the limit, a loop or the caller, what is on trial is unfinished: never
            # kept, and the reply ends as it was before the trial.
            if finish == "stop" and go_on is not None and _kept(go_on, output, on_trial):
                emit(output[on_trial:])
            else:
                pieces = [output[:on_trial]]
                finish = "stop" if finish in ("length", "looping") else finish
        return Generation(
            text="".join(pieces),
            prompt_tokens=prompt_tokens,
            cached_tokens=cached,
            output_tokens=produced,
            finish=finish,
        )

    def _sampler(self, request: GenerationRequest, banned: Sequence[int]) -> Any:
        llama_cpp = self._llama_cpp
        chain = self._sampler_type()
        if banned:
            chain.add_logit_bias(self.llm.n_vocab(), dict.fromkeys(banned, -math.inf))
        seed = request.seed if request.seed is not None else llama_cpp.LLAMA_DEFAULT_SEED
        if request.temperature <= 0:
            chain.add_greedy()
        else:
            chain.add_top_k(request.top_k)
            chain.add_top_p(request.top_p, 1)
            chain.add_min_p(request.min_p, 1)
            chain.add_temp(request.temperature)
            chain.add_dist(seed)
        if request.grammar is None:
            return chain
        return GrammarSampler(
            llama_cpp,
            self._vocab,
            self.llm.n_vocab(),
            request.grammar,
            chain,
            temperature=request.temperature,
            seed=seed,
            banned=banned,
            value_tokens=self._value_tokens(),
        )


_LONGEST_LOOP = 100
_LOOP_REACH = _LONGEST_LOOP * LOOP_REPEATS
_LONGEST_RUN = 256
"""Times one character may be written back to back before the generation is cut as a loop: a
number, a rule or padding is a run of one character far shorter (an address of 40 zeros, a
rule of 200 dashes), while a small model stuck on "0" fills a calculator's expression with
zeros to the token limit."""


def _looping(text: str) -> bool:
    """Whether `text` ends with a stretch of 2 to `_LONGEST_LOOP` characters, not all one
    character (a run of zeros is a number, of dashes a rule), written LOOP_REPEATS times over, or
    with one character written `_LONGEST_RUN` times."""
    if len(text) >= _LONGEST_RUN and text.endswith(text[-1] * _LONGEST_RUN):
        return True
    longest = min(_LONGEST_LOOP, len(text) // LOOP_REPEATS)
    return any(
        len(set(stretch := text[-size:])) > 1 and text.endswith(stretch * LOOP_REPEATS)
        for size in range(2, longest + 1)
    )


def _kept(go_on: GoOn, output: str, on_trial: int) -> bool:
    return go_on.trial is not None and go_on.trial(output[:on_trial], output[on_trial:])


def _interrupted(prompt_tokens: int) -> Generation:
    return Generation(
        text="", prompt_tokens=prompt_tokens, cached_tokens=0, output_tokens=0, finish="interrupted"
    )


@dataclass(slots=True)
class _SideContext:
    """A second llama.cpp context on the loaded weights, with its own KV cache."""

    context: Any
    batch: Any
    tokens: list[int] = field(default_factory=list)


def _keep_prefix(context: Any, cached: Sequence[int], tokens: Sequence[int], scored: range) -> int:
    """Keep in `context`'s KV cache the longest prefix of `tokens` it already holds (`cached`),
    short of the last token and of any logits `scored` needs; returns its length."""
    reuse = min(_common_prefix(cached, tokens), len(tokens) - 1)
    if scored:
        reuse = min(reuse, scored.start - 1)  # the logits that score them are not kept
    # Drop whatever follows the shared prefix; a model whose memory cannot be cut part way
    # (recurrent architectures) starts over.
    if not context.kv_cache_seq_rm(-1, reuse, -1):
        context.kv_cache_clear()
        return 0
    return reuse


def _evaluate(
    context: Any,
    batch: Any,
    n_batch: int,
    tokens: Sequence[int],
    start: int,
    scored: range,
    evaluated: Callable[[int, Sequence[int]], None],
    should_stop: Callable[[], bool],
) -> list[float] | None:
    """Evaluate `tokens[start:]` in `context` (whose cache holds the first `start`), telling
    `evaluated` of each batch done. Returns the log-probability of each token in `scored` given
    those before it, or None when stopped part way."""
    scores: list[float] = []
    for begin in range(start, len(tokens), n_batch):
        if begin > start and should_stop():
            return None
        chunk = tokens[begin : begin + n_batch]
        batch.set_batch(chunk, begin, False)
        # The logits at position i are the model's prediction of token i + 1.
        predicting = [i for i in range(len(chunk)) if begin + i + 1 in scored]
        for i in predicting:
            batch.batch.logits[i] = True
        context.decode(batch)
        evaluated(begin, chunk)
        scores.extend(_log_probability(context, i, (tokens[begin + i + 1],)) for i in predicting)
    return scores


def _log_probability(context: Any, output: int, tokens: Sequence[int]) -> float:
    """The log-probability of any of `tokens` by the logits of the batch's `output`th token."""
    import numpy as np

    logits = _logits(context, output).astype(np.float64)
    return float(np.logaddexp.reduce(logits[list(tokens)]) - np.logaddexp.reduce(logits))


def _likeliest(context: Any, output: int, tokens: Sequence[int]) -> int:
    """The one of `tokens` the logits of the batch's `output`th token favour."""
    import numpy as np

    return tokens[int(np.argmax(_logits(context, output)[list(tokens)]))]


def _logits(context: Any, output: int) -> Any:
    """The batch's `output`th row of logits, over the whole vocabulary (a view, not a copy)."""
    import numpy as np

    return np.ctypeslib.as_array(context.get_logits_ith(output), shape=(context.model.n_vocab(),))


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


class _StopMatcher:
    """Cuts the output at the first stop string, holding back a tail that may still become one
    so that no fragment of a stop string is ever emitted."""

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = [s for s in stops if s]
        self._held = ""

    def feed(self, text: str) -> tuple[str, bool]:
        if not self._stops:
            return text, False
        buffer = self._held + text
        first = min((i for i in (buffer.find(s) for s in self._stops) if i >= 0), default=-1)
        if first >= 0:
            self._held = ""
            return buffer[:first], True
        keep = max((_overlap(buffer, s) for s in self._stops), default=0)
        self._held = buffer[len(buffer) - keep :] if keep else ""
        return buffer[: len(buffer) - keep], False

    def flush(self, text: str) -> str:
        rest, hit = self.feed(text)
        held, self._held = self._held, ""
        return rest if hit else rest + held


def _overlap(text: str, stop: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `stop`."""
    for size in range(min(len(text), len(stop) - 1), 0, -1):
        if text.endswith(stop[:size]):
            return size
    return 0
