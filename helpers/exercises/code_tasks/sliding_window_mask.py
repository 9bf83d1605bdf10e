"""Code task ``"sliding_window_mask"`` (14_efficiency): ``fn(n, window)`` -> bool (n, n), a causal sliding window.

Query i may attend to key j when j is not after i and at most ``window - 1`` positions before it:
``j <= i and i - j < window``. Probes: a window of 1 (the diagonal alone), a window wider than the sequence (the causal
mask), and 12's 16 tokens with a window of 4.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask
from helpers.core.masks import sliding_window_mask
from helpers.exercises.code_tasks.causal_mask import CAUSAL_ADDITIVE, MASK_NOT_BOOL
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake

__all__ = ["TASK", "my_sliding_window_mask", "WHERE", "WINDOW_OFF_BY_ONE", "WINDOW_BOTH_SIDES", "WINDOW_NOT_CAUSAL",
           "WINDOW_AHEAD", "WINDOW_IGNORED", "WINDOW_INVERTED", "WINDOW_FROM_START"]

WHERE = '14_efficiency, "Sparse attention: masks that skip most pairs"'

WINDOW_OFF_BY_ONE = Mistake(
    "window_off_by_one", "a window one key too wide or too narrow",
    "A window of w keys ending at the query holds the offsets i − j = 0, 1, ..., w − 1: the query itself and the "
    "w − 1 keys before it. Count them on a row of your mask.",
    WHERE)
WINDOW_BOTH_SIDES = Mistake(
    "window_both_sides", "a window on both sides of the query",
    "A decoder's window looks back only: key j may be up to w − 1 positions before the query, never after it.",
    WHERE)
WINDOW_NOT_CAUSAL = Mistake(
    "window_not_causal", "the window's lower edge without the causal one: every later key passes",
    "i − j < w holds for every later key too (i − j is then negative): the key must also not come after the query.",
    WHERE)
WINDOW_AHEAD = Mistake(
    "window_ahead", "a window ahead of the query instead of behind it",
    "The window ends at the query and reaches back: key j comes before or at query i. Rows are queries, columns "
    "keys: True on and below the diagonal.",
    '04_masking, "The causal mask in two forms"')
WINDOW_IGNORED = Mistake(
    "window_ignored", "the causal mask alone: the window is not applied",
    "Besides not coming after the query, a key must be one of the last w positions: block the keys more than "
    "w − 1 positions back.",
    WHERE)
WINDOW_INVERTED = Mistake(
    "window_inverted", "True where the query may not attend (the mask inverted)",
    "True means 'may attend': the keys inside the window. Your True marks the pairs to block.",
    WHERE)
WINDOW_FROM_START = Mistake(
    "window_from_start", "the first w keys of the sequence instead of the last w before the query",
    "The window slides with the query: query i sees keys i − w + 1 to i, so every row has its own window.",
    WHERE)


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
    order=120,
    idea=("Each query i may read the keys from i − window + 1 up to i itself: not after it, and fewer than window "
          "positions back. Write both conditions as arrays over (query, key) pairs, for instance with the positions "
          "as a column and as a row, and combine them; the result is True/False, n × n."),
    outputs=(("the mask", "n × n"),),
    cases=_cases,
    reference=sliding_window_mask,
    solution=my_sliding_window_mask,
    models=(
        (WINDOW_OFF_BY_ONE, lambda n, w: causal_mask(n) & (_offsets(n) <= w)),
        (WINDOW_OFF_BY_ONE, lambda n, w: causal_mask(n) & (_offsets(n) < w - 1)),
        (WINDOW_BOTH_SIDES, lambda n, w: np.abs(_offsets(n)) < w),
        (WINDOW_NOT_CAUSAL, lambda n, w: _offsets(n) < w),
        (WINDOW_AHEAD, lambda n, w: (_offsets(n) <= 0) & (-_offsets(n) < w)),
        (WINDOW_IGNORED, lambda n, w: causal_mask(n)),
        (WINDOW_INVERTED, lambda n, w: ~sliding_window_mask(n, w)),
        (WINDOW_FROM_START, lambda n, w: causal_mask(n) & (np.arange(n)[None, :] < w)),
        (CAUSAL_ADDITIVE, lambda n, w: np.where(sliding_window_mask(n, w), 0.0, -np.inf)),
        (MASK_NOT_BOOL, lambda n, w: sliding_window_mask(n, w).astype(int)),
        (MASK_NOT_BOOL, lambda n, w: sliding_window_mask(n, w).astype(float)),
    ),
)
