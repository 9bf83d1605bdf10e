"""Generated problems of kind ``"masked"``: attention under a causal, padding or random mask.

The answer, the checker and the worked solution are the ``"attention"`` kind's (:mod:`.attention`); this
module adds the mask, shown as its additive form (0 and −∞) with Queries ↓ and Keys → on its axes.
"""

from __future__ import annotations

import numpy as np

from helpers.core import questions as text
from helpers.core.attention import additive_mask, causal_mask, scaled_dot_product_attention
from helpers.exercises.fields import Given, labels, matrix_text
from helpers.exercises.problems.attention import (
    attention_given,
    attention_sizes,
    attention_solution,
    check_generated_attention,
    random_qkv,
)
from helpers.exercises.registry import Generated, Kind

__all__ = ["KIND"]


def _generate(rng, difficulty) -> Generated:
    Q, K, V = random_qkv(rng, "medium" if difficulty == "easy" else difficulty)
    n_q, n_k = Q.shape[0], K.shape[0]
    if difficulty == "easy" or (difficulty == "medium" and rng.random() < 0.5):
        mask, which = causal_mask(n_q), "causal"
    elif difficulty == "medium":
        mask = np.ones((n_q, n_k), dtype=bool)
        mask[:, n_k - 1:] = False
        which = "padding"
    else:
        mask = rng.random((n_q, n_k)) < 0.6
        # Every query keeps at least one key (else its softmax is undefined); two, so that
        # no row is a trivial "all weight on the only key".
        for i in range(n_q):
            while mask[i].sum() < 2:
                mask[i, rng.integers(n_k)] = True
        which = "random"
    out, W = scaled_dot_product_attention(Q, K, V, mask=mask)
    words = text.KINDS["masked"]
    instruction = words["instruction"].format(mask=words["masks"][which], rounding=text.ROUNDING,
                                              **attention_sizes(Q, K, V))
    shown_mask = Given(words["mask_title"], additive_mask(mask), labels("query", n_q), labels("key", n_k),
                       matrix_text("mask", mask), row_axis="Queries ↓", col_axis="Keys →")
    return Generated({"Q": Q, "K": K, "V": V, "mask": mask}, {"weights": W, "output": out}, instruction,
                     attention_solution(Q, K, V, mask), (*attention_given(Q, K, V), shown_mask))


KIND = Kind("masked", _generate, check_generated_attention, order=3)
