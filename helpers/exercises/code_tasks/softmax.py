"""Code task ``"softmax"`` (01_intuition): ``fn(x)``, softmax along the last axis, any shape.

Probes: a 1-d row, a matrix, a batch (so the axis matters), and huge scores (so the max subtraction matters).
The mistakes it names are also the softmax slips of the attention tasks, which import them from here.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import softmax
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import LOOKUP_SCORES, X6, small_ints
from helpers.exercises.code_tasks.learner_math import nan_softmax

__all__ = ["TASK", "my_softmax", "softmax_no_keepdims", "softmax_max_no_keepdims", "softmax_global_max",
           "softmax_mixed_axes"]


def my_softmax(x):
    """Softmax along the last axis. x: array of any shape (..., n). Returns the same shape, rows summing to 1."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))   # minus the row max: exp cannot overflow
    return e / np.sum(e, axis=-1, keepdims=True)


def _cases() -> list[Case]:
    return [
        Case("the look-up scores [2.5, 1.5, 2, 0] (01)", (LOOKUP_SCORES.copy(),)),
        Case("a 6 × 6 matrix of scores, one row per query", ((X6 @ X6.T) / 2,)),
        Case("a 2 × 3 matrix", (np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 3.0]]),)),
        Case("a batch of shape (2, 3, 4)", (small_ints(3, (2, 3, 4)),)),
        Case("large scores [[1000, 1001, 1002], [-1000, 0, 5], [0, 0, 2000]]",
             (np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 5.0], [0.0, 0.0, 2000.0]]),), large=True),
    ]


# The wrong softmaxes, (..., n) -> (..., n); the attention tasks reuse them inside their own mistake models.
def softmax_no_keepdims(x):
    """The row sums without keepdims: the division broadcasts down the columns."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def softmax_max_no_keepdims(x):
    """The row maxima without keepdims: the subtraction broadcasts down the columns."""
    e = np.exp(x - np.max(x, axis=-1))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_mixed_axes(x):
    """Each row's max subtracted (right), then each column's sum divided by (axis 0): the columns sum to 1."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def softmax_global_max(x):
    """The largest entry of the whole array subtracted instead of each row's."""
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=-1, keepdims=True)


def _softmax_sum_all(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


TASK = CodeTask(
    name="softmax",
    cases=_cases,
    reference=softmax,
    solution=my_softmax,
    models=(
        ("wrong_axis", lambda x: nan_softmax(x, axis=0)),
        ("softmax_mixed_axes", softmax_mixed_axes),
        ("sum_all", _softmax_sum_all),
        ("no_keepdims", softmax_no_keepdims),
        ("no_keepdims", softmax_max_no_keepdims),
        ("global_max", softmax_global_max),
        ("no_normalise", lambda x: np.exp(x - np.max(x, axis=-1, keepdims=True))),
        ("no_normalise", lambda x: np.exp(np.asarray(x, dtype=float))),
    ),
    overflow_mistake="no_max",
)
