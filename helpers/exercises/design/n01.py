"""The design tasks of 01_intuition."""

from __future__ import annotations

import numpy as np

from helpers.exercises.code_tasks.examples import SIX_TOKENS, X6
from helpers.exercises.design.goals import attends_most, self_attention
from helpers.exercises.design.task import DesignTask

_IDENTITY = np.eye(X6.shape[1])
_SOLUTION_X = X6.copy()
_SOLUTION_X[SIX_TOKENS.index("cat")] = [0.0, 4.0, 2.0, 0.0]  # twice the query of 'sat': longer, same direction


def _sat_attends_cat(arrays) -> tuple[bool, str]:
    weights = self_attention(arrays)[1]
    return attends_most(weights, SIX_TOKENS, SIX_TOKENS, "sat", "cat", at_least=0.5)


TASKS = [
    DesignTask(
        name="01-sat-attends-cat",
        notebook="01_intuition",
        goal=("Make 'sat' give 'cat' more attention than any other token, and at least 0.5, by changing X "
              "(W^Q = W^K = W^V = I stay as they are)."),
        start={"X": X6},
        solution={"X": _SOLUTION_X},
        given={"W_q": _IDENTITY, "W_k": _IDENTITY, "W_v": _IDENTITY},
        settings={"causal": False, "scale": True},
        judge=_sat_attends_cat,
        hint=("With W = I the key of 'cat' is its row of X: make it point the way the query of 'sat' points, and "
              "longer (Cauchy–Schwarz)."),
    ),
]
