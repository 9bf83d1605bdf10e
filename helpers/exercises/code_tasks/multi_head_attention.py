"""Code task ``"multi_head_attention"`` (10_multi_head): ``fn(X, W_q, W_k, W_v, W_o, h)`` -> output (n, d_model).

Head i uses columns ``i*d_k:(i+1)*d_k`` of Q, K and V (as :func:`helpers.core.attention.split_heads`). Probes with
h = 2 and h = 3 on d_model 6 tell a reshape without a transpose (splitting the heads, or merging them back),
interleaved columns and one big head apart. The heads themselves are taught in 03_heads, where most mistakes point.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import multi_head_attention, split_heads
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import X6, small_ints
from helpers.exercises.code_tasks.learner_math import nan_softmax

__all__ = ["TASK", "my_multi_head_attention"]


def my_multi_head_attention(X, W_q, W_k, W_v, W_o, h):
    """X (n, d_model); W_q, W_k, W_v, W_o (d_model, d_model); h heads. Returns output (n, d_model)."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d_k = Q.shape[-1] // h
    heads = []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)                      # head i's columns
        scores = Q[:, cols] @ K[:, cols].T / np.sqrt(d_k)
        e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
        weights = e / np.sum(e, axis=-1, keepdims=True)
        heads.append(weights @ V[:, cols])                        # (n, d_k)
    return np.concatenate(heads, axis=-1) @ W_o                   # (n, d_model)


def _cases() -> list[Case]:
    W = [small_ints(40 + k, (4, 4), -1, 2) for k in range(4)]
    W6 = [small_ints(50 + k, (6, 6), -1, 2) for k in range(4)]
    X5 = small_ints(60, (5, 6))
    return [
        Case("the six-token example (02), d_model 4, h = 2", (X6, *W, 2)),
        Case("5 tokens, d_model 6, h = 3", (X5, *W6, 3)),
        Case("5 tokens, d_model 6, h = 2", (X5, *W6, 2)),
        Case("the six-token example, h = 1", (X6, *W, 1)),
    ]


def _reference(X, W_q, W_k, W_v, W_o, h):
    return multi_head_attention(X, W_q, W_k, W_v, W_o, h)[0]


def _heads_variant(X, W_q, W_k, W_v, W_o, h, split=None, scale=None, w_o=True, axis=-1, merge=None):
    """Multi-head attention with the split of Q, K, V into heads, the scale, W^O, the softmax's axis and the merge of
    the heads' outputs (a list of h arrays n × d_k) as parameters: each wrong version changes one of them. (The
    library's multi_head_attention takes none of them, so it cannot stand in for these.)"""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d_k = Q.shape[-1] // h
    split = split or (lambda M: split_heads(M, h))
    Qh, Kh, Vh = split(Q), split(K), split(V)
    s = scale if scale is not None else np.sqrt(d_k)
    heads = [nan_softmax(Qh[i] @ Kh[i].T / s, axis=axis) @ Vh[i] for i in range(h)]
    concat = np.concatenate(heads, axis=-1) if merge is None else merge(heads)
    return concat @ W_o if w_o else concat


def _model(**change):
    """The wrong version of multi-head attention that makes ``change`` to :func:`_heads_variant`'s defaults."""
    return lambda X, Wq, Wk, Wv, Wo, h: _heads_variant(X, Wq, Wk, Wv, Wo, h, **change)


TASK = CodeTask(
    name="multi_head_attention",
    cases=_cases,
    reference=_reference,
    solution=my_multi_head_attention,
    models=(
        ("no_wo", _model(w_o=False)),
        ("scale_dmodel", lambda X, Wq, Wk, Wv, Wo, h: _heads_variant(X, Wq, Wk, Wv, Wo, h, scale=np.sqrt(X.shape[-1]))),
        ("heads_reshape", lambda X, Wq, Wk, Wv, Wo, h: _heads_variant(X, Wq, Wk, Wv, Wo, h,
                                                                      split=lambda M: M.reshape(h, M.shape[0], -1))),
        ("heads_interleaved", lambda X, Wq, Wk, Wv, Wo, h: _heads_variant(
            X, Wq, Wk, Wv, Wo, h, split=lambda M: [M[:, i::h] for i in range(h)])),
        # h ignored: one head of width d_model, scaled by the √d_k of h heads, or by its own √d_model.
        ("one_head",
         lambda X, Wq, Wk, Wv, Wo, h: _heads_variant(X, Wq, Wk, Wv, Wo, 1, scale=np.sqrt(X.shape[-1] // h))),
        ("one_head", lambda X, Wq, Wk, Wv, Wo, h: _heads_variant(X, Wq, Wk, Wv, Wo, 1)),
        # The heads' outputs (h, n, d_k) reshaped straight to (n, d_model): a row holds several tokens of one head.
        ("merge_no_transpose", _model(merge=lambda heads: np.stack(heads).reshape(heads[0].shape[0], -1))),
        ("no_scale", _model(scale=1.0)),
        ("softmax_over_queries", _model(axis=0)),
    ),
)
