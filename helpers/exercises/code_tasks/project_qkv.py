"""Code task ``"project_qkv"`` (02_projections): ``fn(X, W_q, W_k, W_v) -> (Q, K, V)``.

One probe has d_v ≠ d_k, so that V = X W_v cannot pass for Q or K by its shape alone.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import W_K3, W_Q3, W_V3, W_V33, X3, X6

__all__ = ["TASK", "my_project_qkv"]


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
    cases=_cases,
    reference=project_qkv,
    solution=my_project_qkv,
    models=(
        ("wq_wk_swapped", lambda X, Wq, Wk, Wv: (X @ Wk, X @ Wq, X @ Wv)),
        ("qkv_order", lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wv, X @ Wk)),
        ("qkv_order", lambda X, Wq, Wk, Wv: (X @ Wv, X @ Wk, X @ Wq)),
        # W @ X: it runs only where d_k (d_v) equals n; the transposed products give Qᵀ, Kᵀ, Vᵀ.
        ("w_on_the_left", lambda X, Wq, Wk, Wv: (Wq @ X, Wk @ X, Wv @ X)),
        ("w_on_the_left", lambda X, Wq, Wk, Wv: (Wq.T @ X.T, Wk.T @ X.T, Wv.T @ X.T)),
    ),
)
