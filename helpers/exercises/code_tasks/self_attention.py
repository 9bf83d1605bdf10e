"""Code task ``"self_attention"`` (02_projections, "Find the bug"): ``fn(X, W_q, W_k, W_v) -> (output, weights)``.

The whole pipeline from the token vectors: the projections, the scores scaled by 1/√d_k, the row-wise softmax and
the weighted sum of the values. The embeddings' width d_model differs from d_k in most cases, so that a scale by
√d_model gives numbers of its own; one case has n = d_k (square Q and K), so that ``Q @ K`` without the transpose
runs and gives its own wrong numbers. Not a "Your turn": the find-the-bug cells check their functions as this task.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv, scaled_dot_product_attention
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import W_K3, W_Q3, W_V3, W_V33, X3, X6, near_30, small_ints
from helpers.exercises.code_tasks.learner_math import attend, nan_softmax
from helpers.exercises.code_tasks.softmax import softmax_global_max

__all__ = ["TASK", "my_self_attention"]


def my_self_attention(X, W_q, W_k, W_v):
    """X (n, d_model); W_q, W_k (d_model, d_k); W_v (d_model, d_v). Returns (output (n, d_v), weights (n, n))."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v                            # (n, d_k), (n, d_k), (n, d_v)
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)                                # (n, n)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)                # each row sums to 1
    return weights @ V, weights                                    # (n, d_v), (n, n)


def _cases() -> list[Case]:
    rng = np.random.default_rng(18)  # 02_projections' live example: the six tokens, W's from seed 18
    W6 = [rng.integers(-1, 2, size=(4, 4)).astype(float) for _ in range(3)]
    return [
        Case('"The cat sat" (02), X 3×4, W 4×2', (X3, W_Q3, W_K3, W_V3)),
        Case('"The cat sat" with d_v = 3 (02), W_v 4×3', (X3, W_Q3, W_K3, W_V33)),
        Case("the six-token example (02), X 6×4, W 4×4", (X6, *W6)),
        Case("n = d_k: X 3×5, W 5×3", (small_ints(71, (3, 5)), small_ints(72, (5, 3), -1, 2),
                                        small_ints(73, (5, 3), -1, 2), small_ints(74, (5, 2), -1, 2))),
        Case("large scores: X 2×4 with entries near 30, W 4×3",
             (near_30(75, (2, 4)), small_ints(76, (4, 3), 1, 3), small_ints(77, (4, 3), 1, 3),
              small_ints(78, (4, 2))), large=True),
    ]


def _reference(X, W_q, W_k, W_v):
    return scaled_dot_product_attention(*project_qkv(X, W_q, W_k, W_v))


def _scores_model(scores_of):
    """A model whose scaled scores are ``scores_of(Q, K, X)``, the softmax and the output as they should be."""
    def model(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        return attend(scores_of(Q, K, X), V)
    return model


def _weights_model(weights_of, output_of=lambda w, V, K: w @ V):
    """A model whose weights are ``weights_of(Q Kᵀ / √d_k)`` and whose output is ``output_of(weights, V, K)``."""
    def model(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        w = weights_of(Q @ K.T / np.sqrt(Q.shape[-1]))
        return output_of(w, V, K), w
    return model


def _keys_for_queries(X, W_q, W_k, W_v):
    """W^Q and W^K swapped: the queries made with W_k and the keys with W_q."""
    return _reference(X, W_k, W_q, W_v)


TASK = CodeTask(
    name="self_attention",
    cases=_cases,
    reference=_reference,
    solution=my_self_attention,
    models=(
        ("order_swapped", lambda X, W_q, W_k, W_v: _reference(X, W_q, W_k, W_v)[::-1]),
        ("no_scale", _scores_model(lambda Q, K, X: Q @ K.T)),
        ("scale_dk", _scores_model(lambda Q, K, X: Q @ K.T / Q.shape[-1])),
        ("scale_dmodel", _scores_model(lambda Q, K, X: Q @ K.T / np.sqrt(X.shape[-1]))),
        ("softmax_over_queries", _weights_model(lambda s: nan_softmax(s, axis=0))),
        ("weights_transposed", lambda X, W_q, W_k, W_v: (_reference(X, W_q, W_k, W_v)[0],
                                                         _reference(X, W_q, W_k, W_v)[1].T)),
        ("wq_wk_swapped", _keys_for_queries),
        ("weights_at_K", _weights_model(nan_softmax, lambda w, V, K: w @ K)),
        ("k_not_transposed", _scores_model(lambda Q, K, X: Q @ K / np.sqrt(Q.shape[-1]))),
        ("no_softmax", _weights_model(lambda s: s)),
        ("global_max", _weights_model(softmax_global_max)),
        ("no_normalise", _weights_model(np.exp)),
        ("no_keepdims", _weights_model(lambda s: np.exp(s - s.max(axis=-1, keepdims=True))
                                       / np.exp(s - s.max(axis=-1, keepdims=True)).sum(axis=-1))),
        ("scale_tokens", _scores_model(lambda Q, K, X: Q @ K.T / np.sqrt(X.shape[0]))),
    ),
    overflow_mistake="no_max",
)
