"""Code task ``"attention"`` (02_projections, 06_cross_attention): ``fn(Q, K, V) -> (output, weights)``.

Scaled by 1/√d_k; n_q may differ from n_k (the cross-attention case), and one probe has n_k = d_k so that
``Q @ K`` (K not transposed) runs and gives its own wrong numbers. The masked task builds on its mistakes.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv, scaled_dot_product_attention
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import (
    W_K3,
    W_Q3,
    W_V3,
    W_V33,
    X3,
    cross_qkv,
    near_30,
    six_token_qkv,
    small_ints,
)
from helpers.exercises.code_tasks.learner_math import attend, nan_softmax, scaled_scores
from helpers.exercises.code_tasks.softmax import (
    softmax_global_max,
    softmax_max_no_keepdims,
    softmax_mixed_axes,
    softmax_no_keepdims,
)

__all__ = ["TASK", "my_attention"]


def my_attention(Q, K, V):
    """Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v). Returns (output (n_q, d_v), weights (n_q, n_k))."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)                               # (n_q, n_k)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)               # each row sums to 1
    return weights @ V, weights                                   # (n_q, d_v), (n_q, n_k)


def _cases() -> list[Case]:
    Q3, K3, V3 = project_qkv(X3, W_Q3, W_K3, W_V3)
    return [
        Case('"The cat sat" (02), Q 3×2, K 3×2, V 3×2', (Q3, K3, V3)),
        Case('"The cat sat" with d_v = 3 (02), V 3×3', (Q3, K3, X3 @ W_V33)),
        Case("the six-token example (02), Q 6×4, K 6×4, V 6×4", six_token_qkv()),
        Case("cross-attention (06): 6 queries, 4 keys, Q 6×2, K 4×2, V 4×2", cross_qkv()),
        Case("n_k = d_k: Q 2×3, K 3×3, V 3×2", (small_ints(11, (2, 3)), small_ints(12, (3, 3)),
                                                small_ints(13, (3, 2)))),
        Case("large scores: Q 2×4, K 3×4 with entries near 30",
             (near_30(21, (2, 4)), near_30(22, (3, 4)), small_ints(23, (3, 2))),
             large=True),
    ]


def _weights_then_v(weights_of):
    """A model ``(Q, K, V) -> (weights @ V, weights)`` whose weights are ``weights_of(scaled scores)``."""
    def model(Q, K, V):
        w = weights_of(scaled_scores(Q, K))
        return w @ V, w
    return model


def _scaled_by_token_count(count_of):
    """A model that divides Q Kᵀ by √(a number of tokens, ``count_of(Q, K)``) instead of √d_k."""
    return lambda Q, K, V: attend(Q @ K.T / np.sqrt(count_of(Q, K)), V)


TASK = CodeTask(
    name="attention",
    cases=_cases,
    reference=scaled_dot_product_attention,
    solution=my_attention,
    models=(
        ("order_swapped", lambda Q, K, V: attend(scaled_scores(Q, K), V)[::-1]),
        ("no_scale", lambda Q, K, V: attend(Q @ K.T, V)),
        ("scale_dk", lambda Q, K, V: attend(Q @ K.T / Q.shape[-1], V)),
        ("softmax_over_queries", _weights_then_v(lambda s: nan_softmax(s, axis=0))),
        # The right output, its weights returned transposed; or the softmax taken over K Qᵀ, along the queries.
        ("weights_transposed", lambda Q, K, V: (attend(scaled_scores(Q, K), V)[0],
                                                attend(scaled_scores(Q, K), V)[1].T)),
        ("weights_transposed", lambda Q, K, V: (nan_softmax(scaled_scores(K, Q)).T @ V,
                                                nan_softmax(scaled_scores(K, Q)))),
        ("weights_at_K", lambda Q, K, V: (nan_softmax(scaled_scores(Q, K)) @ K, nan_softmax(scaled_scores(Q, K)))),
        ("k_not_transposed", lambda Q, K, V: attend(Q @ K / np.sqrt(Q.shape[-1]), V)),
        ("no_softmax", _weights_then_v(lambda s: s)),
        ("softmax_mixed_axes", _weights_then_v(softmax_mixed_axes)),
        # Key j blocked for query i when j > i, as in a decoder's self-attention, on the n_q × n_k scores.
        ("causal_mask_added", _weights_then_v(lambda s: nan_softmax(np.where(np.tri(*s.shape, dtype=bool), s,
                                                                               -np.inf)))),
        ("global_max", _weights_then_v(softmax_global_max)),
        ("no_normalise", _weights_then_v(np.exp)),
        ("no_keepdims", _weights_then_v(softmax_no_keepdims)),
        ("no_keepdims", _weights_then_v(softmax_max_no_keepdims)),
        ("scale_tokens", _scaled_by_token_count(lambda Q, K: K.shape[0])),
        ("scale_tokens", _scaled_by_token_count(lambda Q, K: Q.shape[0])),
    ),
    overflow_mistake="no_max",
)
