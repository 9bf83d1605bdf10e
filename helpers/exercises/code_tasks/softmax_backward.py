"""Code task ``"softmax_backward"`` (15_learning): ``fn(weights, grad_weights)`` -> dL/dscores.

weights = softmax(scores) along the last axis; grad_weights (dL/dweights) has the same shape. Probes: one row,
a matrix, a batch, and 01's six-token weights.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import softmax
from helpers.core.learning import softmax_backward
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import LOOKUP_SCORES, X6, small_ints

__all__ = ["TASK", "my_softmax_backward"]


def my_softmax_backward(weights, grad_weights):
    """weights = softmax(scores) along the last axis; grad_weights the same shape. Returns dL/dscores."""
    inner = np.sum(grad_weights * weights, axis=-1, keepdims=True)   # one number per row
    return weights * (grad_weights - inner)


def _cases() -> list[Case]:
    rng = np.random.default_rng(80)
    W6 = softmax((X6 @ X6.T) / 2)
    W23 = softmax(np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 2.0]]))
    W234 = softmax(rng.normal(size=(2, 3, 4)))
    return [
        Case("the six-token weights (01), shape (6, 6)", (W6, small_ints(81, (6, 6)))),
        Case("weights of shape (2, 3)", (W23, np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]))),
        Case("one row of 4 weights", (softmax(LOOKUP_SCORES), np.array([1.0, -2.0, 0.5, 0.0]))),
        Case("a batch of shape (2, 3, 4)", (W234, small_ints(82, (2, 3, 4)))),
    ]


TASK = CodeTask(
    name="softmax_backward",
    cases=_cases,
    reference=softmax_backward,
    solution=my_softmax_backward,
    models=(
        ("backward_no_subtraction", lambda w, g: w * g),
        ("backward_wrong_axis", lambda w, g: w * (g - np.sum(g * w, axis=0, keepdims=True))),
        ("backward_no_keepdims", lambda w, g: w * (g - np.sum(g * w, axis=-1))),
        ("backward_global_sum", lambda w, g: w * (g - np.sum(g * w))),
        ("backward_diagonal", lambda w, g: w * (1 - w) * g),
    ),
)
