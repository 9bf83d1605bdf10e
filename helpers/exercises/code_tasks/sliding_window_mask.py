"""Code task ``"sliding_window_mask"`` (14_efficiency): ``fn(n, window)`` -> bool (n, n), a causal sliding window.

Query i may attend to key j when j is not after i and at most ``window - 1`` positions before it:
``j <= i and i - j < window``. Probes: a window of 1 (the diagonal alone), a window wider than the sequence (the causal
mask), and 12's 16 tokens with a window of 4.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask
from helpers.core.masks import sliding_window_mask
from helpers.exercises.code_tasks.engine import Case, CodeTask

__all__ = ["TASK", "my_sliding_window_mask"]


def my_sliding_window_mask(n, window):
    """Bool (n, n): True where query i may attend to key j, within a causal window of `window` keys ending at i."""
    i = np.arange(n)[:, None]                  # query positions, a column
    j = np.arange(n)[None, :]                  # key positions, a row
    return (j <= i) & (i - j < window)         # not after the query, and fewer than `window` positions back


def _cases() -> list[Case]:
    return [
        Case("n = 6, window = 3", (6, 3)),
        Case("n = 5, window = 1: each query sees only itself", (5, 1)),
        Case("n = 4, window = 6: wider than the sequence", (4, 6)),
        Case("n = 7, window = 2", (7, 2)),
        Case("14's figure: n = 16, window = 4", (16, 4)),
    ]


def _offsets(n):
    """(n, n): i - j, the offset of key j behind query i."""
    return np.arange(n)[:, None] - np.arange(n)[None, :]


TASK = CodeTask(
    name="sliding_window_mask",
    cases=_cases,
    reference=sliding_window_mask,
    solution=my_sliding_window_mask,
    models=(
        ("window_off_by_one", lambda n, w: causal_mask(n) & (_offsets(n) <= w)),
        ("window_off_by_one", lambda n, w: causal_mask(n) & (_offsets(n) < w - 1)),
        ("window_both_sides", lambda n, w: np.abs(_offsets(n)) < w),
        ("window_not_causal", lambda n, w: _offsets(n) < w),
        ("window_ahead", lambda n, w: (_offsets(n) <= 0) & (-_offsets(n) < w)),
        ("window_ignored", lambda n, w: causal_mask(n)),
        ("window_inverted", lambda n, w: ~sliding_window_mask(n, w)),
        ("window_from_start", lambda n, w: causal_mask(n) & (np.arange(n)[None, :] < w)),
        ("causal_additive", lambda n, w: np.where(sliding_window_mask(n, w), 0.0, -np.inf)),
        ("mask_not_bool", lambda n, w: sliding_window_mask(n, w).astype(int)),
        ("mask_not_bool", lambda n, w: sliding_window_mask(n, w).astype(float)),
    ),
)
