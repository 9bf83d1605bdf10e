"""Generated problems of kind ``"softmax"``: turn one row of scores into weights.

The checker names the usual slips: scores divided by their sum, exponentials not normalised, weights that
do not sum to 1, or a larger score given a smaller weight.
"""

from __future__ import annotations

import numpy as np

from helpers.core import questions as text
from helpers.core.attention import softmax
from helpers.core.explain import fmt, format_matrix, softmax_lines
from helpers.exercises.answers import ROUNDED_TOL, all_close, first_wrong, read_matrix_part
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Field, Given, labels
from helpers.exercises.problems.friendly import friendly_ints
from helpers.exercises.registry import Generated, Kind, Problem

__all__ = ["KIND", "check_softmax"]


def check_softmax(answer, scores, tol) -> Feedback:
    """Check weights (n,) (bare, or as ``{"weights": ...}``) against the softmax of ``scores`` (n,)."""
    scores = np.asarray(scores, dtype=float)
    exp_w = softmax(scores)
    words = text.SOFTMAX_MISTAKES
    if not isinstance(answer, dict):
        answer = {"weights": answer}
    got, err = read_matrix_part(answer, "weights", exp_w.shape)
    if err:
        return Feedback(False, err[2:])
    if all_close(got, exp_w, tol):
        return Feedback(True, text.VERDICTS["softmax_right"])
    total = float(got.sum())
    if scores.sum() and all_close(got, scores / scores.sum(), tol):
        return Feedback(False, words["divided_by_sum"])
    if all_close(got, np.exp(scores), max(tol, 0.005 * float(np.exp(scores).max()))):
        return Feedback(False, words["exps"])
    if abs(total - 1) > tol * got.size:
        return Feedback(False, words["sum"].format(total=fmt(total, 3)))
    for j in range(scores.size):
        for k in range(scores.size):
            if scores[j] > scores[k] and got[j] < got[k] - tol:
                return Feedback(False, words["order"].format(j=j, k=k, score_j=fmt(scores[j]),
                                                             score_k=fmt(scores[k])))
    (j,) = first_wrong(got, exp_w, tol)
    return Feedback(False, words["entry"].format(j=j, score_j=fmt(scores[j])))


def _generate(rng, difficulty) -> Generated:
    if difficulty == "easy":
        scores = friendly_ints(rng, 0, 3, 3)
    elif difficulty == "medium":
        scores = friendly_ints(rng, -2, 3, 4)
    else:
        scores = friendly_ints(rng, -20, 20, 5) / 10  # one decimal
    W = softmax(scores)
    words = text.KINDS["softmax"]
    lines = softmax_lines(scores, labels=[f"key {j}" for j in range(scores.size)])
    lines.append(words["solution_end"].format(weights=format_matrix(W, 2)[1:-1]))
    shown = Given(None, scores.reshape(1, -1), (text.SCORES_ROW,), labels("key", scores.size),
                  "scores = [" + ", ".join(fmt(s) for s in scores) + "]")
    return Generated({"scores": scores}, {"weights": W}, words["instruction"].format(n=scores.size,
                                                                                     rounding=text.ROUNDING),
                     "\n".join(lines), (shown,))


def _fields(p: Problem) -> tuple[Field, ...]:
    """One row of n cells, named by key."""
    n = p.inputs["scores"].size
    return (Field("weights", "matrix", label="weights", shape=(1, n), row_labels=(text.WEIGHTS_ROW,),
                  col_labels=labels("key", n)),)


KIND = Kind("softmax", _generate, lambda p, a: check_softmax(a, p.inputs["scores"], ROUNDED_TOL), _fields,
            order=4)
