"""Code task ``"online_softmax"`` (14_efficiency): one step of FlashAttention's running softmax.

``fn(m, l, o, scores_block, V_block) -> (m_new, l_new, o_new)``. The three cases are three blocks in a row:
the first (from m = −inf), one whose scores beat the running max (the rescale matters), and one whose
scores stay below it (the block's own max would be wrong).
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import online_softmax_step
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import small_ints

__all__ = ["TASK", "my_online_softmax"]


def my_online_softmax(m, l, o, scores_block, V_block):
    """One block: m, l (n_q,); o (n_q, d_v); scores_block (n_q, b); V_block (b, d_v). Returns (m_new, l_new, o_new)."""
    m_new = np.maximum(m, np.max(scores_block, axis=-1))   # the running max, over every block so far
    alpha = np.exp(m - m_new)                              # shrinks what was summed against the old max
    p = np.exp(scores_block - m_new[:, None])              # (n_q, b)
    l_new = alpha * l + np.sum(p, axis=-1)
    o_new = alpha[:, None] * o + p @ V_block
    return m_new, l_new, o_new


def _cases() -> list[Case]:
    scores = np.array([[1.0, 3.0, 0.0, 2.0, 5.0], [2.0, -1.0, 4.0, 0.0, 1.0]])
    V = small_ints(70, (5, 2))
    first = (np.full(2, -np.inf), np.zeros(2), np.zeros((2, 2)), scores[:, :2], V[:2])
    m1, l1, o1 = online_softmax_step(*first)
    second = (m1, l1, o1, scores[:, 2:], V[2:])  # row 0's max grows (5 > 3), row 1's too (4 > 2)
    m2, l2, o2 = online_softmax_step(*second)
    s3 = np.array([[0.5, 1.0], [3.0, -2.0]])  # both rows' block max is below the running max
    third = (m2, l2, o2, s3, small_ints(71, (2, 2)))
    return [
        Case("the first block (m = -inf, l = 0, o = 0), 2 queries × 2 keys", first),
        Case("a second block whose scores beat the running max", second),
        Case("a third block whose scores stay below the running max", third),
    ]


def _step_variant(rescale_l=True, rescale_o=True, inverted=False, block_max=False):
    """A wrong version of the step: each flag leaves one part out or turns it around. (The library's
    online_softmax_step has no such switches, and its guard for an all-masked row is not what a learner writes.)"""
    def model(m, l, o, s, Vb):
        m_new = s.max(axis=-1) if block_max else np.maximum(m, s.max(axis=-1))
        with np.errstate(all="ignore"):
            alpha = np.exp(m_new - m) if inverted else np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l_new = (alpha * l if rescale_l else l) + p.sum(axis=-1)
            o_new = (alpha[:, None] * o if rescale_o else o) + p @ Vb
        return m_new, l_new, o_new
    return model


TASK = CodeTask(
    name="online_softmax",
    cases=_cases,
    reference=online_softmax_step,
    solution=my_online_softmax,
    models=(
        ("no_rescale", _step_variant(rescale_l=False, rescale_o=False)),
        ("no_rescale_l", _step_variant(rescale_l=False)),
        ("no_rescale_o", _step_variant(rescale_o=False)),
        ("rescale_inverted", _step_variant(inverted=True)),
        ("block_max", _step_variant(block_max=True)),
    ),
)
