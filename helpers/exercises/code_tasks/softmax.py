"""Code task ``"softmax"`` (01_intuition): ``fn(x)``, softmax along the last axis, any shape.

Probes: a 1-d row, a matrix, a batch (so the axis matters), and huge scores (so the max subtraction matters).
The mistakes it names are also the softmax slips of the attention tasks, which import them from here.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import softmax
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake
from helpers.exercises.code_tasks.examples import LOOKUP_SCORES, X6, small_ints
from helpers.exercises.code_tasks.learner_math import nan_softmax

__all__ = ["TASK", "my_softmax", "WRONG_AXIS", "MIXED_AXES", "NO_KEEPDIMS", "GLOBAL_MAX", "SUM_ALL", "NO_MAX",
           "NO_NORMALISE", "softmax_no_keepdims", "softmax_max_no_keepdims", "softmax_global_max", "softmax_mixed_axes"]

WRONG_AXIS = Mistake(
    "wrong_axis", "softmax along the wrong axis",
    "Each row (one query) must sum to 1: use axis=-1 in the max and in the sum, with keepdims=True.",
    '02_projections, "Step 3: softmax, row by row"')
MIXED_AXES = Mistake(
    "softmax_mixed_axes", "the max taken along the last axis but the sum along axis 0",
    "Subtracting each row's max is right; the sum must be each row's too. Summed along axis 0, the exponentials are "
    "divided by their column's total, so each column adds up to 1 and the rows do not: sum along the same axis as "
    "the max, the last one, keeping its dimension.",
    '02_projections, "Step 3: softmax, row by row"')
NO_KEEPDIMS = Mistake(
    "no_keepdims", "the row sums without keepdims=True",
    "e.sum(axis=-1) drops the last axis, so the division runs down the columns: "
    "np.sum(e, axis=-1, keepdims=True) keeps one sum per row, shaped to divide its own row.",
    '02_projections, "Step 3: softmax, row by row"')
GLOBAL_MAX = Mistake(
    "global_max", "the maximum of the whole array subtracted, not each row's",
    "A row whose scores are all far below the largest score of the array underflows to 0/0 = nan: "
    "subtract each row's own maximum, np.max(x, axis=-1, keepdims=True).",
    '08_pitfalls, "Numerical stability: the max trick"')
SUM_ALL = Mistake(
    "sum_all", "the sum taken over the whole array",
    "Divide by the sum of each row, np.sum(e, axis=-1, keepdims=True), not by the sum of every entry.",
    '02_projections, "Step 3: softmax, row by row"')
NO_MAX = Mistake(
    "no_max", "no max subtraction: exp overflows at large scores",
    "exp(1000) is inf in float64. Subtract each row's maximum (along the last axis, keeping its dimension) before "
    "np.exp: softmax does not change, and exp stays ≤ 1.",
    '08_pitfalls, "Numerical stability: the max trick"')
NO_NORMALISE = Mistake(
    "no_normalise", "exp without dividing by the sum",
    "Weights must sum to 1: divide the exponentials by their sum along the last axis.",
    '01_intuition, "Soft retrieval: softmax turns scores into weights"')


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
    order=10,
    idea=("Turn each row of scores (along the last axis) into weights: exponentiate every score and divide by the "
          "sum of its own row's exponentials, so that each row adds up to 1 and a larger score gets a larger "
          "weight. Taking each row's maximum off before exponentiating leaves the weights as they are and keeps the "
          "exponentials from overflowing."),
    outputs=(("the weights", "the same as x"),),
    cases=_cases,
    reference=softmax,
    solution=my_softmax,
    models=(
        (WRONG_AXIS, lambda x: nan_softmax(x, axis=0)),
        (MIXED_AXES, softmax_mixed_axes),
        (SUM_ALL, _softmax_sum_all),
        (NO_KEEPDIMS, softmax_no_keepdims),
        (NO_KEEPDIMS, softmax_max_no_keepdims),
        (GLOBAL_MAX, softmax_global_max),
        (NO_NORMALISE, lambda x: np.exp(x - np.max(x, axis=-1, keepdims=True))),
        (NO_NORMALISE, lambda x: np.exp(np.asarray(x, dtype=float))),
    ),
    overflow_mistake=NO_MAX,
)
