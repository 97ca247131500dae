"""Sampling under a grammar without paying for the whole vocabulary on every token.

llama.cpp's grammar sampler checks every candidate token against the grammar: with a 150 000
token vocabulary that costs far more than the model's forward pass. Like llama.cpp's own server,
this sampler first lets the ordinary chain pick a token, checks only that token against the
grammar, and applies the grammar to the whole vocabulary only when it is rejected.

A token the grammar rejects is replaced by the likeliest one it allows, except inside a number.
There the rejected token meant to end or qualify the number (the comma of "a loan term of 15, 20
and 30 years" where the value ends the object, a decimal point in an integer, "$50.00") and the
likeliest digit allowed changes its size: 1520, or 500000 for $50. So a number the grammar lets
end there ends, with the likeliest of `,` `}` `]` it allows; one that must still have a fraction
(strict grammars write a JSON Schema `number` as `3.0`) goes on with its decimal point.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import UsageError

__all__ = ["GrammarSampler", "ValueTokens"]

_VALUE_ENDERS = frozenset(",}]")


@dataclass(frozen=True, slots=True)
class ValueTokens:
    """The tokens of a vocabulary that tell a sampler where it is in a JSON value."""

    enders: tuple[int, ...]
    """Tokens that begin by ending a value: `,` `}` `]`."""
    points: tuple[int, ...]
    """Tokens that begin with a decimal point."""
    quotes: tuple[int, ...]
    """Tokens that begin with a quote (where one is allowed, the output is not inside a number)."""
    digit_final: frozenset[int]
    """Tokens whose text ends with a digit."""

    @classmethod
    def of(cls, texts: Sequence[str]) -> ValueTokens:
        """From each token's text, in id order."""
        return cls(
            enders=tuple(token for token, text in enumerate(texts) if text[:1] in _VALUE_ENDERS),
            points=tuple(token for token, text in enumerate(texts) if text.startswith(".")),
            quotes=tuple(token for token, text in enumerate(texts) if text.startswith('"')),
            digit_final=frozenset(token for token, text in enumerate(texts) if text[-1:].isdigit()),
        )


class GrammarSampler:
    def __init__(
        self,
        llama_cpp: Any,
        vocab: Any,
        n_vocab: int,
        grammar: str,
        chain: Any,
        *,
        temperature: float,
        seed: int,
        banned: Sequence[int],
        value_tokens: ValueTokens,
    ) -> None:
        self._llama_cpp = llama_cpp
        self._grammar = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar.encode("utf-8"), b"root"
        )
        if not self._grammar:
            raise UsageError("llama.cpp rejected the generated grammar")
        self._chain = chain
        self._n_vocab = n_vocab
        self._temperature = temperature
        self._banned = list(banned)
        self._seed = seed
        self._value_tokens = value_tokens
        self._previous: int | None = None
        self._rng: Any = None
        token_data = llama_cpp.llama_token_data
        self._one = (token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(self._one, 1, -1, False)
        self._all = (token_data * n_vocab)()
        self._all_array = llama_cpp.llama_token_data_array(self._all, n_vocab, -1, False)

    def sample(self, context: Any, index: int) -> int:
        llama_cpp = self._llama_cpp
        token = int(self._chain.sample(context, index))
        candidate = self._one[0]
        candidate.id, candidate.logit, candidate.p = token, 0.0, 0.0
        self._one_array.size, self._one_array.selected = 1, -1
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(self._one_array))
        if math.isinf(candidate.logit):
            token = self._resample(context.ctx, index)
        llama_cpp.llama_sampler_accept(self._grammar, token)
        self._previous = token
        return token

    def _resample(self, raw_context: Any, index: int) -> int:
        import numpy as np

        llama_cpp = self._llama_cpp
        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(raw_context, index), shape=(self._n_vocab,)
        )
        table = np.ctypeslib.as_array(self._all)
        table["id"] = np.arange(self._n_vocab, dtype=np.int32)
        table["logit"] = logits
        table["logit"][self._banned] = -np.inf
        self._all_array.size, self._all_array.selected, self._all_array.sorted = (
            self._n_vocab,
            -1,
            False,
        )
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(self._all_array))
        allowed = table["logit"].astype(np.float64)
        if not np.isfinite(allowed).any():
            raise UsageError("the grammar allows no token here")
        if self._inside_number(allowed):
            for kind in (self._value_tokens.enders, self._value_tokens.points):
                tokens = list(kind)
                going_on = allowed[tokens]
                if np.isfinite(going_on).any():
                    allowed = np.full(self._n_vocab, -np.inf)
                    allowed[tokens] = going_on
                    break
        if self._temperature <= 0:
            return int(np.argmax(allowed))
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        weights = np.exp((allowed - allowed.max()) / self._temperature)
        return int(self._rng.choice(self._n_vocab, p=weights / weights.sum()))

    def _inside_number(self, allowed: Any) -> bool:
        import numpy as np

        value_tokens = self._value_tokens
        return self._previous in value_tokens.digit_final and not bool(
            np.isfinite(allowed[list(value_tokens.quotes)]).any()
        )

    def close(self) -> None:
        if self._grammar:
            self._llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None
        self._chain.close()
