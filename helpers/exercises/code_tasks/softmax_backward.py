"""Code task ``"softmax_backward"`` (15_learning): ``fn(weights, grad_weights)`` -> dL/dscores.

weights = softmax(scores) along the last axis; grad_weights (dL/dweights) has the same shape. Probes: one row,
a matrix, a batch, and 01's six-token weights.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import softmax
from helpers.core.learning import softmax_backward
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake
from helpers.exercises.code_tasks.examples import LOOKUP_SCORES, X6, small_ints

__all__ = ["TASK", "my_softmax_backward", "BACKWARD_NO_SUBTRACTION", "BACKWARD_WRONG_AXIS", "BACKWARD_NO_KEEPDIMS",
           "BACKWARD_DIAGONAL", "BACKWARD_GLOBAL_SUM"]

BACKWARD_NO_SUBTRACTION = Mistake(
    "backward_no_subtraction", "weights * grad without the subtraction",
    "Softmax couples the entries of a row: subtract each row's sum(grad * weights) before multiplying, "
    "weights * (grad - np.sum(grad * weights, axis=-1, keepdims=True)).",
    '15_learning, "The backward pass"')
BACKWARD_WRONG_AXIS = Mistake(
    "backward_wrong_axis", "the sum over the wrong axis",
    "The sum runs over the softmax's own axis, the last one: axis=-1, keepdims=True.",
    '15_learning, "The backward pass"')
BACKWARD_GLOBAL_SUM = Mistake(
    "backward_global_sum", "one sum over the whole array instead of one per row",
    "Each row is a softmax of its own: what is subtracted in a row is that row's sum of grad * weights, one number "
    "per row, kept as a column (axis=-1, keepdims=True) so that it lines up with its row. One number for the whole "
    "array mixes the rows together.",
    '15_learning, "The backward pass"')
BACKWARD_NO_KEEPDIMS = Mistake(
    "backward_no_keepdims", "the row sums without keepdims=True",
    "np.sum(..., axis=-1) drops the axis, and the subtraction then runs along the rows: add keepdims=True.",
    '15_learning, "The backward pass"')
BACKWARD_DIAGONAL = Mistake(
    "backward_diagonal", "only the diagonal of the Jacobian: weights * (1 - weights) * grad",
    "Every weight of a row depends on every score of it: "
    "weights * (grad - np.sum(grad * weights, axis=-1, keepdims=True)).",
    '15_learning, "The backward pass"')


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
    order=140,
    idea=("The softmax ties a row's weights together: raising one score takes weight from all the others. So the "
          "gradient of a score is its weight times how far its own upstream gradient is above the weighted average "
          "of its row's upstream gradients."),
    outputs=(("the gradient", "the same as weights"),),
    cases=_cases,
    reference=softmax_backward,
    solution=my_softmax_backward,
    models=(
        (BACKWARD_NO_SUBTRACTION, lambda w, g: w * g),
        (BACKWARD_WRONG_AXIS, lambda w, g: w * (g - np.sum(g * w, axis=0, keepdims=True))),
        (BACKWARD_NO_KEEPDIMS, lambda w, g: w * (g - np.sum(g * w, axis=-1))),
        (BACKWARD_GLOBAL_SUM, lambda w, g: w * (g - np.sum(g * w))),
        (BACKWARD_DIAGONAL, lambda w, g: w * (1 - w) * g),
    ),
)
