"""One GGUF model loaded in this process by llama-cpp-python, and generation on it.

Generation runs synchronously in a worker thread, one request at a time per engine, and hands each
piece of text to a callback as soon as its token is sampled. Between tokens it checks a
cancellation flag, so a cancelled run frees the model within one token.

The KV cache is never cleared between requests: llama-cpp-python evaluates only the tokens that
follow the longest prefix a new prompt shares with what is already in the cache, so a loop whose
history grows by appending pays only for the new turn. `Generation.cached_tokens` reports how much
of each prompt was served that way.
"""

from __future__ import annotations

import codecs
import ctypes
import importlib
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...errors import ProviderError, UsageError
from ._sampling import GrammarSampler

__all__ = ["Engine", "Generation", "GenerationRequest"]

EngineFinish = Literal["stop", "length", "interrupted", "stop_sequence"]


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
    gate: tuple[tuple[int, ...], float] | None = None
    """(tokens, threshold): unless the model gives these tokens together at least this
    probability as the start of its reply, none of them may start it (whitespace aside)."""
    go_on_after: tuple[str, tuple[int, ...], float] | None = None
    """(text, tokens, threshold): each time the output ends with this text, it goes on only if
    the model gives these tokens together at least this probability next. A grammar that allows
    more (another call) forces it at once; this asks the model, unconstrained, first."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Generation:
    text: str
    prompt_tokens: int
    cached_tokens: int
    output_tokens: int
    finish: EngineFinish


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

    def tokens_where(self, predicate: Callable[[str], bool]) -> tuple[int, ...]:
        """Every token of the vocabulary whose text satisfies `predicate`."""
        if self._texts is None:
            self._texts = [
                self._piece(token).decode("utf-8", errors="ignore")
                for token in range(self.llm.n_vocab())
            ]
        return tuple(token for token, text in enumerate(self._texts) if predicate(text))

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
        try:
            cached = self._evaluate_prompt(tokens, should_stop)
            if cached is None:
                return Generation(
                    text="",
                    prompt_tokens=len(tokens),
                    cached_tokens=0,
                    output_tokens=0,
                    finish="interrupted",
                )
            if request.gate is not None:
                gated, threshold = request.gate
                if self._probability(gated) < threshold:
                    samplers.append(self._sampler(request, (*request.banned_tokens, *gated)))
            return self._sample(
                request,
                samplers,
                len(tokens),
                cached,
                min(request.max_tokens, room),
                emit,
                should_stop,
            )
        finally:
            for sampler in samplers:
                sampler.close()

    def _evaluate_prompt(self, tokens: list[int], should_stop: Callable[[], bool]) -> int | None:
        """Evaluate `tokens` after the longest prefix already in the KV cache. Returns how many
        tokens came from the cache, or None when stopped part way."""
        llm = self.llm
        reuse = min(_common_prefix(llm.input_ids[: llm.n_tokens], tokens), len(tokens) - 1)
        # Drop whatever follows the shared prefix; a model whose memory cannot be cut part way
        # (recurrent architectures) starts over.
        if not llm._ctx.kv_cache_seq_rm(-1, reuse, -1):
            llm._ctx.kv_cache_clear()
            reuse = 0
        llm.n_tokens = reuse
        for start in range(reuse, len(tokens), llm.n_batch):
            if start > reuse and should_stop():
                return None
            llm.eval(tokens[start : start + llm.n_batch])
        return reuse

    def _probability(self, tokens: Sequence[int]) -> float:
        """The probability of sampling any of `tokens` next (from the last logits)."""
        import numpy as np

        logits = np.ctypeslib.as_array(
            self.llm._ctx.get_logits_ith(-1), shape=(self.llm.n_vocab(),)
        ).astype(np.float64)
        total = np.logaddexp.reduce(logits)
        return float(np.exp(np.logaddexp.reduce(logits[list(tokens)]) - total))

    def _sample(
        self,
        request: GenerationRequest,
        samplers: list[Any],
        prompt_tokens: int,
        cached: int,
        limit: int,
        emit: Callable[[str], None],
        should_stop: Callable[[], bool],
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
        checkpoint, recent = request.go_on_after, ""
        while produced < limit:
            if checkpoint is not None and recent.endswith(checkpoint[0]):
                recent = ""
                _, go_on_tokens, go_on_threshold = checkpoint
                if self._probability(go_on_tokens) < go_on_threshold:
                    finish = "stop"
                    break
            token = sampler.sample(context, -1)
            if self._ends_reply(token):
                finish = "stop"
                break
            produced += 1
            text, hit = stops.feed(decoder.decode(to_piece(token)))
            if text:
                pieces.append(text)
                emit(text)
                if checkpoint is not None:
                    recent = (recent + text)[-len(checkpoint[0]) :]
                if not text.isspace():
                    sampler = samplers[0]
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
                emit(tail)
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
        )


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
