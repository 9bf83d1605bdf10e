"""Code task ``"causal_mask"`` (04_masking): ``fn(n)`` -> bool (n, n), True where the query may attend.

n = 1 is a probe of its own: a mask without the diagonal leaves its only query nothing to read. Not a "Your turn":
04 asks for ``"padding_causal_mask"``, whose causal part this is; its mistakes are that task's too.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask
from helpers.exercises.code_tasks.engine import Case, CodeTask

__all__ = ["TASK", "my_causal_mask"]


def my_causal_mask(n):
    """Boolean (n, n): True where query i may attend to key j (j <= i)."""
    return np.tril(np.ones((n, n), dtype=bool))   # on and below the diagonal


def _cases() -> list[Case]:
    return [Case(f"n = {n}", (n,)) for n in (3, 1, 6)]


TASK = CodeTask(
    name="causal_mask",
    cases=_cases,
    reference=causal_mask,
    solution=my_causal_mask,
    models=(
        ("causal_upper", lambda n: np.triu(np.ones((n, n), dtype=bool))),
        ("causal_no_diagonal", lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1)),
        ("causal_blocked", lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
        ("causal_additive", lambda n: np.triu(np.full((n, n), -np.inf), k=1)),
        ("mask_not_bool", lambda n: np.tril(np.ones((n, n)))),
    ),
)
