"""Code task ``"merge_heads"`` (10_multi_head): ``fn(Xh)`` -> (..., n, h * d_k), the inverse of ``split_heads``.

Concat(head_1, ..., head_h): each token's row holds head 1's d_k numbers, then head 2's, and so on (as
:func:`helpers.core.attention.merge_heads`). The classic mistake, a reshape to (n, h * d_k) without transposing back,
has the right shape and the wrong numbers; a case with a batch axis in front tells a transpose that counts the axes from
the front apart.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import merge_heads, multi_head_attention, split_heads
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import X6, six_token_weights, small_ints
from helpers.exercises.code_tasks.split_heads import one_sequence, with_one_sequence_variants

__all__ = ["TASK", "my_merge_heads"]


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
    cases=_cases,
    reference=merge_heads,
    solution=my_merge_heads,
    models=with_one_sequence_variants(
        ("merge_no_transpose", lambda Xh: Xh.reshape(_width(Xh))),
        ("merge_no_transpose", lambda Xh: Xh.reshape(Xh.shape[-2], -1)),
        ("merge_interleaved", lambda Xh: np.moveaxis(Xh, -3, -1).reshape(_width(Xh))),
        ("merge_stacked", lambda Xh: np.concatenate(Xh, axis=0)),
        ("merge_stacked", lambda Xh: Xh.reshape(-1, Xh.shape[-1])),
        # Right for one sequence (h, n, d_k), wrong with a batch in front.
        ("merge_axes_from_front", lambda Xh: np.swapaxes(Xh, 0, 1).reshape(_width(Xh))),
        ("merge_axes_from_front", lambda Xh: np.concatenate(list(Xh), axis=-1)),
        ndim=3,
    ) + (
        # The right merge written for one sequence only: it raises on a batch.
        ("merge_axes_from_front", one_sequence(my_merge_heads, 3)),
    ),
)
