"""Code task ``"attention"`` (02_projections, 06_cross_attention): ``fn(Q, K, V) -> (output, weights)``.

Scaled by 1/√d_k; n_q may differ from n_k (the cross-attention case), and one probe has n_k = d_k so that
``Q @ K`` (K not transposed) runs and gives its own wrong numbers. The masked task builds on its mistakes.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv, scaled_dot_product_attention
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake
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
    GLOBAL_MAX,
    MIXED_AXES,
    NO_KEEPDIMS,
    NO_MAX,
    NO_NORMALISE,
    softmax_global_max,
    softmax_max_no_keepdims,
    softmax_mixed_axes,
    softmax_no_keepdims,
)

__all__ = ["TASK", "my_attention", "NO_SOFTMAX", "NO_SCALE", "SCALE_DK", "SCALE_TOKENS", "WEIGHTS_TRANSPOSED",
           "ORDER_SWAPPED", "WEIGHTS_AT_K", "K_NOT_TRANSPOSED", "OVER_QUERIES", "CAUSAL_MASK_ADDED"]

NO_SOFTMAX = Mistake(
    "no_softmax", "no softmax: the scaled scores used as weights",
    "Turn each row of scaled scores into weights with a softmax before multiplying by V.",
    '02_projections, "The pipeline, one step at a time"')
NO_SCALE = Mistake(
    "no_scale", "no 1/√d_k: the scores are not scaled",
    "Divide Q Kᵀ by √d_k before the softmax; d_k is the width of a query or key, the last axis of Q.",
    '02_projections, "Step 2: scale by √d_k"; 08_pitfalls, "Why divide by √d_k?"')
SCALE_DK = Mistake(
    "scale_dk", "divided by d_k instead of √d_k",
    "The scale is 1/√d_k: np.sqrt(d_k), not d_k.",
    '08_pitfalls, "Why divide by √d_k?"')
SCALE_TOKENS = Mistake(
    "scale_tokens", "divided by √(number of tokens) instead of √d_k",
    "d_k is the width of a query or key, Q.shape[-1] (its number of columns), not the number of tokens "
    "Q.shape[0] or K.shape[0].",
    '02_projections, "Step 2: scale by √d_k"')
WEIGHTS_TRANSPOSED = Mistake(
    "weights_transposed", "the weights transposed (rows and columns swapped)",
    "Row i of the weights is query i, column j is key j: the weights are n_q × n_k and each row sums to 1.",
    '08_pitfalls, "Pitfall 3: rows sum to 1, columns do not"')
ORDER_SWAPPED = Mistake(
    "order_swapped", "(weights, output) returned in the wrong order",
    "Return output first, then the weights: return output, weights.",
    '02_projections, "The whole formula, with shapes"')
WEIGHTS_AT_K = Mistake(
    "weights_at_K", "weights @ K instead of weights @ V",
    "The output mixes the values: output = weights @ V. The keys only decide the weights.",
    '02_projections, "Step 4: output AV"')
OVER_QUERIES = Mistake(
    "softmax_over_queries", "the softmax taken over the queries (axis 0), not over the keys",
    "Row i of the weights is query i's share of attention over the keys, so each row must sum to 1: take the max "
    "and the sum along the keys, axis=-1 (with axis=0 each column sums to 1 instead).",
    '02_projections, "Step 3: softmax, row by row"')
K_NOT_TRANSPOSED = Mistake(
    "k_not_transposed", "K not transposed: Q @ K instead of Q @ K.T",
    "Entry (i, j) of the scores is q_i · k_j, so the scores are Q @ K.T, shape n_q × n_k.",
    '02_projections, "Step 1: scores S = QKᵀ"')
CAUSAL_MASK_ADDED = Mistake(
    "causal_mask_added", "a causal mask in attention that has none",
    "This attention lets every query read every key: no key is blocked. A causal mask belongs to a decoder's "
    "self-attention only; cross-attention reads a source that is complete before decoding starts, and an encoder "
    "reads its whole sentence. Leave the scores as they are.",
    '06_cross_attention, "Self-attention vs cross-attention"; 04_masking, "The causal mask in two forms"')


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
    order=30,
    idea=("Compare every query with every key (one dot product per pair: n_q × n_k scores), scale the scores by "
          "1/√d_k, turn each query's row of scores into weights that add up to 1, and give each query the weighted "
          "mix of the value rows."),
    outputs=(("output", "n_q × d_v"), ("weights", "n_q × n_k")),
    cases=_cases,
    reference=scaled_dot_product_attention,
    solution=my_attention,
    models=(
        (ORDER_SWAPPED, lambda Q, K, V: attend(scaled_scores(Q, K), V)[::-1]),
        (NO_SCALE, lambda Q, K, V: attend(Q @ K.T, V)),
        (SCALE_DK, lambda Q, K, V: attend(Q @ K.T / Q.shape[-1], V)),
        (OVER_QUERIES, _weights_then_v(lambda s: nan_softmax(s, axis=0))),
        # The right output, its weights returned transposed; or the softmax taken over K Qᵀ, along the queries.
        (WEIGHTS_TRANSPOSED, lambda Q, K, V: (attend(scaled_scores(Q, K), V)[0],
                                              attend(scaled_scores(Q, K), V)[1].T)),
        (WEIGHTS_TRANSPOSED, lambda Q, K, V: (nan_softmax(scaled_scores(K, Q)).T @ V,
                                              nan_softmax(scaled_scores(K, Q)))),
        (WEIGHTS_AT_K, lambda Q, K, V: (nan_softmax(scaled_scores(Q, K)) @ K, nan_softmax(scaled_scores(Q, K)))),
        (K_NOT_TRANSPOSED, lambda Q, K, V: attend(Q @ K / np.sqrt(Q.shape[-1]), V)),
        (NO_SOFTMAX, _weights_then_v(lambda s: s)),
        (MIXED_AXES, _weights_then_v(softmax_mixed_axes)),
        # Key j blocked for query i when j > i, as in a decoder's self-attention, on the n_q × n_k scores.
        (CAUSAL_MASK_ADDED, _weights_then_v(lambda s: nan_softmax(np.where(np.tri(*s.shape, dtype=bool), s,
                                                                             -np.inf)))),
        (GLOBAL_MAX, _weights_then_v(softmax_global_max)),
        (NO_NORMALISE, _weights_then_v(np.exp)),
        (NO_KEEPDIMS, _weights_then_v(softmax_no_keepdims)),
        (NO_KEEPDIMS, _weights_then_v(softmax_max_no_keepdims)),
        (SCALE_TOKENS, _scaled_by_token_count(lambda Q, K: K.shape[0])),
        (SCALE_TOKENS, _scaled_by_token_count(lambda Q, K: Q.shape[0])),
    ),
    overflow_mistake=NO_MAX,
)
