"""Code task ``"kv_cache_decode"`` (05_decoding): ``fn(X, W_q, W_k, W_v)`` -> (n, d_v), decoding with a key/value cache.

The tokens arrive one at a time: each one's key and value are appended to a cache, and its query attends to the
cache. Row t of the result is token t's output, which equals row t of causal self-attention of X. Probes: 05's four
tokens, values wider than the keys (d_v = 3), a single token, embeddings wider than the keys (so that a scale by
√d_model gives numbers of its own), and large scores (the max subtraction).
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention
from helpers.core.masking import decoder_example
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import W_K3, W_Q3, W_V33, X3, near_30, small_ints
from helpers.exercises.code_tasks.learner_math import nan_softmax

__all__ = ["TASK", "my_kv_cache_decode"]


def my_kv_cache_decode(X, W_q, W_k, W_v):
    """X (n, d_model): the tokens, in the order they arrive; W_q, W_k (d_model, d_k); W_v (d_model, d_v).
    Returns (n, d_v): row t is token t's output, computed when token t arrives, from a cache of keys and values."""
    d_k = W_k.shape[1]
    K_cache = np.zeros((0, d_k))                       # one row per token so far
    V_cache = np.zeros((0, W_v.shape[1]))
    rows = []
    for t in range(len(X)):
        x = X[t:t + 1]                                 # (1, d_model): the new token only
        K_cache = np.vstack([K_cache, x @ W_k])        # append its key ...
        V_cache = np.vstack([V_cache, x @ W_v])        # ... and its value
        scores = (x @ W_q) @ K_cache.T / np.sqrt(d_k)  # (1, t + 1): its query against every key so far
        e = np.exp(scores - np.max(scores))
        weights = e / np.sum(e)
        rows.append(weights @ V_cache)                 # (1, d_v)
    return np.vstack(rows)                             # (n, d_v)


def _cases() -> list[Case]:
    return [
        Case('"<s> the cat sat" (04, 05), X 4×4, W 4×2', decoder_example()),
        Case('"The cat sat" (02) with d_v = 3, X 3×4, W_v 4×3', (X3, W_Q3, W_K3, W_V33)),
        Case("one token, X 1×4, W 4×2", (X3[:1], W_Q3, W_K3, W_Q3 + W_K3)),
        Case("X 5×6, W 6×2", (small_ints(91, (5, 6)), small_ints(92, (6, 2), -1, 2), small_ints(93, (6, 2), -1, 2),
                              small_ints(94, (6, 2), -1, 2))),
        Case("large scores: X 3×4 with entries near 30, W 4×3",
             (near_30(95, (3, 4)), small_ints(96, (4, 3), 1, 3), small_ints(97, (4, 3), 1, 3),
              small_ints(98, (4, 2))), large=True),
    ]


def _reference(X, W_q, W_k, W_v):
    return scaled_dot_product_attention(*project_qkv(X, W_q, W_k, W_v), mask=causal_mask(len(X)))[0]


def _per_token(reads, scale=None, axis=-1, output_of=lambda w, K, V: w @ V):
    """Decoding with a cache that token t reads as ``reads(t)`` (a slice of the tokens), scaled by ``scale(Q, X)``
    (√d_k if None), the softmax along ``axis`` and the output ``output_of(weights, K, V)``; a token that reads no key
    gives a row of zeros, as a softmax without the max subtraction gives on an empty cache."""
    def model(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        s = np.sqrt(Q.shape[-1]) if scale is None else scale(Q, X)
        rows = []
        for t in range(len(X)):
            keys = reads(t)
            if keys.stop - (keys.start or 0) <= 0:
                rows.append(np.zeros((1, V.shape[1])))
                continue
            w = nan_softmax(Q[t:t + 1] @ K[keys].T / s, axis=axis)
            rows.append(output_of(w, K[keys], V[keys]))
        return np.vstack(rows)
    return model


def _empty_first_nan(X, W_q, W_k, W_v):
    """The own key appended late, the first step's empty cache giving nan (a softmax that takes a max of nothing)."""
    out = _per_token(lambda t: slice(0, t))(X, W_q, W_k, W_v)
    out[0] = np.nan
    return out


TASK = CodeTask(
    name="kv_cache_decode",
    cases=_cases,
    reference=_reference,
    solution=my_kv_cache_decode,
    models=(
        ("kv_own_key_missing", _per_token(lambda t: slice(0, t))),
        ("kv_own_key_missing", _empty_first_nan),
        ("kv_cache_replaced", lambda X, W_q, W_k, W_v: X @ W_v),
        ("kv_all_keys", lambda X, W_q, W_k, W_v: scaled_dot_product_attention(*project_qkv(X, W_q, W_k, W_v))[0]),
        ("kv_last_row_only", lambda X, W_q, W_k, W_v: _reference(X, W_q, W_k, W_v)[-1:]),
        ("kv_last_row_only", lambda X, W_q, W_k, W_v: _reference(X, W_q, W_k, W_v)[-1]),
        ("no_scale", _per_token(lambda t: slice(0, t + 1), scale=lambda Q, X: 1.0)),
        ("scale_dk", _per_token(lambda t: slice(0, t + 1), scale=lambda Q, X: Q.shape[-1])),
        ("scale_dmodel", _per_token(lambda t: slice(0, t + 1), scale=lambda Q, X: np.sqrt(X.shape[-1]))),
        ("softmax_over_queries", _per_token(lambda t: slice(0, t + 1), axis=0)),
        ("weights_at_K", _per_token(lambda t: slice(0, t + 1), output_of=lambda w, K, V: w @ K)),
        ("wq_wk_swapped", lambda X, W_q, W_k, W_v: _reference(X, W_k, W_q, W_v)),
    ),
    overflow_mistake="no_max",
)
