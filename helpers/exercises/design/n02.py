"""The design tasks of 02_projections."""

from __future__ import annotations

import numpy as np

from helpers.core.numbers import number_text
from helpers.exercises.code_tasks.examples import SIX_TOKENS, X6, six_token_weights
from helpers.exercises.design.goals import attends_most, self_attention
from helpers.exercises.design.task import DesignTask

__all__ = ["TASKS", "LARGEST_SCORE", "changed_entries"]

_W_Q6, _W_K6, _W_V6 = six_token_weights()[:3]
_START = {"W_q": _W_Q6, "W_k": _W_K6}
_SOLUTION = {"W_q": _W_Q6.copy(), "W_k": _W_K6.copy()}
# W^Q, row d3, column q2: 1 -> 0. The query of 'sat' (x = [0, 2, 1, 0]) loses 1 in feature 2, where the key of 'The'
# (2) is larger than that of 'cat' (-1): 'The' loses more score than 'cat', and 'cat' comes out on top.
_SOLUTION["W_q"][2, 1] = 0.0
_SAT = SIX_TOKENS.index("sat")
_SAT_ROWS = " or ".join(f"d{r + 1}" for r in np.flatnonzero(X6[_SAT]))  # the rows of W^Q that x_sat meets
_SAT_NOW = SIX_TOKENS[int(self_attention({"X": X6, "W_q": _W_Q6, "W_k": _W_K6, "W_v": _W_V6})[1][_SAT].argmax())]


# Beyond this size float64 cannot tell two scores 1 apart (its spacing near 1e16 is 2), so weights computed from such
# scores say nothing about the design: a learner's huge entries get "cannot be judged" instead of a verdict.
LARGEST_SCORE = 1e15


def changed_entries(arrays: dict, start: dict) -> int:
    """How many entries of the arrays named in ``start`` differ from ``start``'s."""
    return sum(int(np.count_nonzero(~np.isclose(arrays[k], v))) for k, v in start.items())


def _sat_attends_cat_one_entry(arrays) -> tuple[bool, str]:
    scores = (arrays["X"] @ arrays["W_q"]) @ (arrays["X"] @ arrays["W_k"]).T
    largest = float(np.max(np.abs(scores)))
    if not largest <= LARGEST_SCORE:
        raise ValueError(f"the scores reach {number_text(largest, None, sig=2)}, and beyond "
                         f"{number_text(LARGEST_SCORE, None, sig=1)} float64 cannot tell two "
                         "scores 1 apart")
    weights = self_attention(arrays)[1]
    met, detail = attends_most(weights, SIX_TOKENS, SIX_TOKENS, "sat", "cat", at_least=0.5)
    changed = changed_entries(arrays, _START)
    if changed <= 1:
        return met, detail
    return False, (f"{detail.rstrip('.')}; but {changed} entries of W^Q and W^K differ from the start, and the task "
                   "allows one (Reset puts a matrix back).")


TASKS = [
    DesignTask(
        name="02-sat-cat-one-entry",
        notebook="02_projections",
        goal=("Make 'sat' give 'cat' more attention than any other token, and at least 0.5, by changing one entry "
              "of W^Q or W^K (X and W^V stay as they are)."),
        start=_START,
        solution=_SOLUTION,
        given={"X": X6, "W_v": _W_V6},
        settings={"causal": False, "scale": True},
        judge=_sat_attends_cat_one_entry,
        hint=(f"At the start 'sat' prefers '{_SAT_NOW}'. Find a column of K where k_cat and k_{_SAT_NOW} differ, "
              f"then change W^Q in that column, in a row where x_sat is not zero ({_SAT_ROWS})."),
    ),
]
