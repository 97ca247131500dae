"""Sampling under a grammar without paying for the whole vocabulary on every token.

llama.cpp's grammar sampler checks every candidate token against the grammar: with a 150 000
token vocabulary that costs far more than the model's forward pass. Like llama.cpp's own server,
this sampler first lets the ordinary chain pick a token, checks only that token against the
grammar, and applies the grammar to the whole vocabulary only when it is rejected.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import Any

from ...errors import UsageError

__all__ = ["GrammarSampler"]


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
        if not math.isinf(candidate.logit):
            llama_cpp.llama_sampler_accept(self._grammar, token)
            return token
        token = self._resample(context.ctx, index)
        llama_cpp.llama_sampler_accept(self._grammar, token)
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
        if self._temperature <= 0:
            return int(np.argmax(allowed))
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        weights = np.exp((allowed - allowed.max()) / self._temperature)
        return int(self._rng.choice(self._n_vocab, p=weights / weights.sum()))

    def close(self) -> None:
        if self._grammar:
            self._llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None
        self._chain.close()
