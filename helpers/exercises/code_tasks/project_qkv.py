"""Code task ``"project_qkv"`` (02_projections): ``fn(X, W_q, W_k, W_v) -> (Q, K, V)``.

One probe has d_v ≠ d_k, so that V = X W_v cannot pass for Q or K by its shape alone.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake
from helpers.exercises.code_tasks.examples import W_K3, W_Q3, W_V3, W_V33, X3, X6

__all__ = ["TASK", "my_project_qkv", "WQ_WK_SWAPPED", "QKV_ORDER", "W_ON_THE_LEFT"]

WQ_WK_SWAPPED = Mistake(
    "wq_wk_swapped", "W^Q and W^K swapped",
    "Q = X @ W_q and K = X @ W_k: the two roles are not interchangeable.",
    '08_pitfalls, "Pitfall 1: Q, K and V are not arbitrary names"')
QKV_ORDER = Mistake(
    "qkv_order", "Q, K and V returned in another order",
    "Return Q, K, V in that order.",
    '02_projections, "Three projections of the same X"')
W_ON_THE_LEFT = Mistake(
    "w_on_the_left", "the weight matrix on the left: W_q @ X instead of X times W^Q",
    "X is n × d_model: multiply X on the left, X @ W^Q. Each row of X (one token, d_model numbers) meets the "
    "d_model rows of W^Q, which gives one row per token, n × d_k. W_q @ X pairs the d_k columns of W_q with the n "
    "rows of X: numpy refuses it unless d_k happens to equal n, and then it mixes the tokens.",
    '02_projections, "Three projections of the same X"')


def my_project_qkv(X, W_q, W_k, W_v):
    """X (n, d_model); W_q, W_k (d_model, d_k); W_v (d_model, d_v). Returns (Q, K, V)."""
    Q = X @ W_q   # (n, d_k)
    K = X @ W_k   # (n, d_k)
    V = X @ W_v   # (n, d_v)
    return Q, K, V


def _cases() -> list[Case]:
    rng = np.random.default_rng(5)
    return [
        Case('"The cat sat" (02), X 3×4, W 4×2', (X3, W_Q3, W_K3, W_V3)),
        Case("the six-token example with d_v = 3, X 6×4, W_v 4×3", (X6, W_Q3, W_K3, W_V33)),
        Case("X 2×3, W 3×2", tuple(rng.integers(-2, 3, size=s).astype(float)
                                    for s in ((2, 3), (3, 2), (3, 2), (3, 2)))),
    ]


TASK = CodeTask(
    name="project_qkv",
    order=20,
    idea=("Q, K and V are three views of the same tokens: each row of X (one token) is multiplied by W^Q, by W^K "
          "and by W^V in turn. Every result keeps one row per token, with as many columns as its matrix."),
    outputs=(("Q", "n × d_k"), ("K", "n × d_k"), ("V", "n × d_v")),
    cases=_cases,
    reference=project_qkv,
    solution=my_project_qkv,
    models=(
        (WQ_WK_SWAPPED, lambda X, Wq, Wk, Wv: (X @ Wk, X @ Wq, X @ Wv)),
        (QKV_ORDER, lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wv, X @ Wk)),
        (QKV_ORDER, lambda X, Wq, Wk, Wv: (X @ Wv, X @ Wk, X @ Wq)),
        # W @ X: it runs only where d_k (d_v) equals n; the transposed products give Qᵀ, Kᵀ, Vᵀ.
        (W_ON_THE_LEFT, lambda X, Wq, Wk, Wv: (Wq @ X, Wk @ X, Wv @ X)),
        (W_ON_THE_LEFT, lambda X, Wq, Wk, Wv: (Wq.T @ X.T, Wk.T @ X.T, Wv.T @ X.T)),
    ),
)
