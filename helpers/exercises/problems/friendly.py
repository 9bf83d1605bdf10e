"""Small whole numbers for generated problems: what a learner can multiply in their head."""

from __future__ import annotations

import numpy as np

__all__ = ["friendly_ints", "nonzero_rows"]


def friendly_ints(rng: np.random.Generator, low: int, high: int, shape) -> np.ndarray:
    """Integers from ``low`` to ``high`` (both included) as floats, of ``shape``."""
    return rng.integers(low, high + 1, size=shape).astype(float)


def nonzero_rows(rng: np.random.Generator, low: int, high: int, shape) -> np.ndarray:
    """Integers as :func:`friendly_ints`, (n_rows, n_cols), with no all-zero row (an all-zero token or query makes
    a dull problem)."""
    M = friendly_ints(rng, low, high, shape)
    for r in range(M.shape[0]):
        while not M[r].any():
            M[r] = friendly_ints(rng, low, high, M.shape[1])
    return M
