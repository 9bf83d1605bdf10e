"""Code task ``"split_heads"`` (10_multi_head): ``fn(X, h)`` -> (..., h, n, d_model // h), without a loop.

Head k holds columns ``k*d_k:(k+1)*d_k`` of X (as :func:`helpers.core.attention.split_heads`). A reshape keeps the
numbers in row order, so the classic mistake, ``X.reshape(h, n, d_k)`` without the transpose, has the right shape and
the wrong numbers; the cases with h = 2 and h = 3 show it. A case with a batch axis in front tells a transpose that
counts the axes from the front (right for one sequence only) apart.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import split_heads
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import six_token_qkv, small_ints

__all__ = ["TASK", "my_split_heads", "one_sequence", "with_one_sequence_variants"]


def my_split_heads(X, h):
    """X (..., n, d_model); h divides d_model. Returns (..., h, n, d_k), d_k = d_model // h: head k holds columns
    k*d_k:(k+1)*d_k of X. No loop."""
    *lead, n, d_model = X.shape
    d_k = d_model // h
    cut = X.reshape(*lead, n, h, d_k)       # each token's row cut into its h heads
    return np.swapaxes(cut, -3, -2)         # (..., h, n, d_k): the heads in front of the tokens


def _cases() -> list[Case]:
    Q6 = six_token_qkv()[0]
    X5 = small_ints(80, (5, 6))
    return [
        Case("Q of the six-token example (10), 6×4, h = 2", (Q6, 2)),
        Case("5 tokens, d_model 6, h = 3", (X5, 3)),
        Case("5 tokens, d_model 6, h = 2", (X5, 2)),
        Case("Q of the six-token example, h = 1", (Q6, 1)),
        Case("a batch of 2 sequences of 3 tokens, d_model 6, h = 3", (small_ints(81, (2, 3, 6)), 3)),
    ]


def one_sequence(model, ndim: int):
    """``model`` as code written for one sequence only (``n, d_model = X.shape``): it raises when its first argument
    has more than ``ndim`` axes (a batch in front), and runs ``model`` otherwise."""
    def for_one_sequence(first, *rest):
        if np.ndim(first) != ndim:
            raise ValueError(f"too many values to unpack (expected {ndim})")
        return model(first, *rest)
    return for_one_sequence


def with_one_sequence_variants(*models, ndim: int) -> tuple:
    """Each (mistake, model) followed by (mistake, the model written for one sequence only): a learner's code with
    the mistake may take a batch in front as the model does, or raise on it (it unpacks ``X.shape``)."""
    return tuple(pair for mistake, model in models for pair in ((mistake, model), (mistake, one_sequence(model, ndim))))


def _cut(X, h, order="n h d"):
    """X (..., n, d_model) reshaped to (..., n, h, d_k), or to (..., n, d_k, h) for ``order="n d h"``."""
    *lead, n, d_model = X.shape
    d_k = d_model // h
    return X.reshape(*lead, n, h, d_k) if order == "n h d" else X.reshape(*lead, n, d_k, h)


TASK = CodeTask(
    name="split_heads",
    cases=_cases,
    reference=split_heads,
    solution=my_split_heads,
    models=with_one_sequence_variants(
        ("split_no_transpose", lambda X, h: X.reshape(*X.shape[:-2], h, X.shape[-2], X.shape[-1] // h)),
        ("split_no_transpose", lambda X, h: X.reshape(h, X.shape[-2], -1)),
        ("split_interleaved", lambda X, h: np.moveaxis(_cut(X, h, "n d h"), -1, -3)),
        ("split_wrong_axes", lambda X, h: _cut(X, h).T),
        ("split_wrong_axes", lambda X, h: np.swapaxes(_cut(X, h), -2, -1)),
        # Right for one sequence (n, d_model), wrong with a batch in front.
        ("split_axes_from_front", lambda X, h: np.swapaxes(_cut(X, h), 0, 1)),
        ("split_axes_from_front", lambda X, h: np.stack(np.split(X, h, axis=-1))),
        ndim=2,
    ) + (
        # The right split written for one sequence only: it raises on a batch.
        ("split_axes_from_front", one_sequence(my_split_heads, 2)),
    ),
)
