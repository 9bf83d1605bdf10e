"""Code task ``"causal_mask"`` (04_masking): ``fn(n)`` -> bool (n, n), True where the query may attend.

n = 1 is a probe of its own: a mask without the diagonal leaves its only query nothing to read. Not a "Your turn":
04 asks for ``"padding_causal_mask"``, whose causal part this is; its mistakes are that task's too.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake

__all__ = ["TASK", "my_causal_mask", "CAUSAL_UPPER", "CAUSAL_NO_DIAGONAL", "CAUSAL_BLOCKED", "CAUSAL_ADDITIVE",
           "MASK_NOT_BOOL"]

CAUSAL_UPPER = Mistake(
    "causal_upper", "the causal mask as the upper triangle",
    "True must be on and below the diagonal (key j ≤ query i): np.tril, not np.triu.",
    '04_masking, "The causal mask in two forms"')
CAUSAL_NO_DIAGONAL = Mistake(
    "causal_no_diagonal", "the causal mask without the diagonal",
    "A token may attend to itself: keep the diagonal (np.tril's k=0, its default, not k=-1).",
    '04_masking, "The causal mask in two forms"')
CAUSAL_BLOCKED = Mistake(
    "causal_blocked", "the blocked entries marked True (the mask inverted)",
    "True means 'may attend': on and below the diagonal. True above it is the blocked triangle, "
    "the additive form's −∞ entries.",
    '04_masking, "The causal mask in two forms"')
CAUSAL_ADDITIVE = Mistake(
    "causal_additive", "the additive form (0 and −inf) instead of the boolean one",
    "This task wants booleans, True where the query may attend: start from an array of True (dtype=bool), not "
    "from 0 and −inf.",
    '04_masking, "The causal mask in two forms"')
MASK_NOT_BOOL = Mistake(
    "mask_not_bool", "a mask of numbers instead of True/False",
    "Give the mask dtype=bool: with 0/1 numbers, ~mask is −1/−2 and indexing with it goes wrong.",
    '04_masking, "The causal mask in two forms"')


def my_causal_mask(n):
    """Boolean (n, n): True where query i may attend to key j (j <= i)."""
    return np.tril(np.ones((n, n), dtype=bool))   # on and below the diagonal


def _cases() -> list[Case]:
    return [Case(f"n = {n}", (n,)) for n in (3, 1, 6)]


TASK = CodeTask(
    name="causal_mask",
    order=40,
    idea=("Query i may read key j when j comes no later than i: the diagonal and everything below it may attend, "
          "everything above it may not. The answer is True/False, one entry per (query, key) pair."),
    outputs=(("the mask", "n × n"),),
    cases=_cases,
    reference=causal_mask,
    solution=my_causal_mask,
    models=(
        (CAUSAL_UPPER, lambda n: np.triu(np.ones((n, n), dtype=bool))),
        (CAUSAL_NO_DIAGONAL, lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1)),
        (CAUSAL_BLOCKED, lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
        (CAUSAL_ADDITIVE, lambda n: np.triu(np.full((n, n), -np.inf), k=1)),
        (MASK_NOT_BOOL, lambda n: np.tril(np.ones((n, n)))),
    ),
    your_turn=False,
)
