"""Code task ``"merge_heads"`` (10_multi_head): ``fn(Xh)`` -> (..., n, h * d_k), the inverse of ``split_heads``.

Concat(head_1, ..., head_h): each token's row holds head 1's d_k numbers, then head 2's, and so on (as
:func:`helpers.core.attention.merge_heads`). The classic mistake, a reshape to (n, h * d_k) without transposing back,
has the right shape and the wrong numbers; a case with a batch axis in front tells a transpose that counts the axes from
the front apart.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import merge_heads, multi_head_attention, split_heads
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake
from helpers.exercises.code_tasks.examples import X6, six_token_weights, small_ints
from helpers.exercises.code_tasks.split_heads import WHERE, one_sequence, with_one_sequence_variants

__all__ = ["TASK", "my_merge_heads", "MERGE_NO_TRANSPOSE", "MERGE_INTERLEAVED", "MERGE_STACKED",
           "MERGE_AXES_FROM_FRONT"]

MERGE_NO_TRANSPOSE = Mistake(
    "merge_no_transpose", "heads merged by a reshape without transposing back",
    "In row order, (h, n, d_k) is all of head 1's rows, then head 2's: reshaped straight to (n, h*d_k) a row holds "
    "several tokens of one head. Swap the head axis and the token axis back first (np.swapaxes), then reshape to "
    "(..., n, h*d_k).",
    WHERE)
MERGE_INTERLEAVED = Mistake(
    "merge_interleaved", "the heads' columns interleaved (transposed to (n, d_k, h))",
    "Concat puts head 1's d_k columns first, then head 2's: bring the axes to (..., n, h, d_k), not "
    "(..., n, d_k, h), before the reshape.",
    WHERE)
MERGE_STACKED = Mistake(
    "merge_stacked", "the heads stacked along the tokens instead of side by side",
    "Concat(head_1, ..., head_h) joins the heads' columns: token i's row holds all h heads, so the result is "
    "n × (h·d_k); np.concatenate(Xh, axis=0) puts the heads under each other, (h·n) × d_k.",
    WHERE)
MERGE_AXES_FROM_FRONT = Mistake(
    "merge_axes_from_front", "axes counted from the front: right for one sequence, wrong with a batch axis",
    "Xh may have a batch axis in front, (B, h, n, d_k): count the axes from the end (the head axis is −3, the "
    "token axis −2) and reshape to (*lead, n, h*d_k), not transpose(1, 0, 2) or swapaxes(0, 1).",
    WHERE)


def my_merge_heads(Xh):
    """Xh (..., h, n, d_k). Returns (..., n, h * d_k): Concat(head_1, ..., head_h), head k in columns
    k*d_k:(k+1)*d_k. No loop."""
    *lead, h, n, d_k = Xh.shape
    tokens_first = np.swapaxes(Xh, -3, -2)           # (..., n, h, d_k)
    return tokens_first.reshape(*lead, n, h * d_k)   # each token's heads side by side


def _six_token_head_outputs() -> np.ndarray:
    """The heads' outputs of the six-token example (10), (2, 6, 2): head i's weights times its columns of V."""
    W_q, W_k, W_v, W_o = six_token_weights()
    weights = multi_head_attention(X6, W_q, W_k, W_v, W_o, 2)[1]
    return weights @ split_heads(X6 @ W_v, 2)


def _cases() -> list[Case]:
    return [
        Case("the heads' outputs of the six-token example (10), 2 heads × 6 tokens × 2", (_six_token_head_outputs(),)),
        Case("3 heads × 5 tokens × 2", (small_ints(90, (3, 5, 2)),)),
        Case("2 heads × 5 tokens × 3", (small_ints(91, (2, 5, 3)),)),
        Case("1 head × 4 tokens × 6", (small_ints(92, (1, 4, 6)),)),
        Case("a batch of 2: 3 heads × 4 tokens × 2 each", (small_ints(93, (2, 3, 4, 2)),)),
    ]


def _width(Xh) -> tuple:
    """(lead axes..., n, h * d_k): the merged shape of ``Xh`` (..., h, n, d_k)."""
    *lead, h, n, d_k = Xh.shape
    return (*lead, n, h * d_k)


TASK = CodeTask(
    name="merge_heads",
    order=110,
    idea=("The reverse of the split: move the token axis back in front of the head axis, (..., h, n, d_k) to (..., "
          "n, h, d_k), then join each token's h blocks into one row, head 0's columns first. Count the axes from "
          "the end."),
    outputs=(("the merged heads", "... × n × (h·d_k)"),),
    cases=_cases,
    reference=merge_heads,
    solution=my_merge_heads,
    models=with_one_sequence_variants(
        (MERGE_NO_TRANSPOSE, lambda Xh: Xh.reshape(_width(Xh))),
        (MERGE_NO_TRANSPOSE, lambda Xh: Xh.reshape(Xh.shape[-2], -1)),
        (MERGE_INTERLEAVED, lambda Xh: np.moveaxis(Xh, -3, -1).reshape(_width(Xh))),
        (MERGE_STACKED, lambda Xh: np.concatenate(Xh, axis=0)),
        (MERGE_STACKED, lambda Xh: Xh.reshape(-1, Xh.shape[-1])),
        # Right for one sequence (h, n, d_k), wrong with a batch in front.
        (MERGE_AXES_FROM_FRONT, lambda Xh: np.swapaxes(Xh, 0, 1).reshape(_width(Xh))),
        (MERGE_AXES_FROM_FRONT, lambda Xh: np.concatenate(list(Xh), axis=-1)),
        ndim=3,
    ) + (
        # The right merge written for one sequence only: it raises on a batch.
        (MERGE_AXES_FROM_FRONT, one_sequence(my_merge_heads, 3)),
    ),
)
