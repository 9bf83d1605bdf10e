"""The design tasks of 04_masking.

The padding task works on sentence 2 of section 4's batch, "birds sing" padded to 5 tokens
(:func:`helpers.core.masking.batch_example`), projected by section 1's W^Q, W^K, W^V
(:func:`helpers.core.masking.decoder_example`), as the notebook computes it.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv, scaled_dot_product_attention
from helpers.core.masking import batch_example, decoder_example
from helpers.exercises.design.goals import hides_keys
from helpers.exercises.design.task import DesignTask

_SENTENCE = 2
_PADDED, _LENGTHS, _XB = batch_example()
_LABELS = tuple(f"{j}:{t}" for j, t in enumerate(_PADDED[_SENTENCE]))
_N = len(_LABELS)
_REAL = np.arange(_N) < _LENGTHS[_SENTENCE]            # (n,): True = a real token
_PADS = np.flatnonzero(~_REAL)
_Q, _K, _V = project_qkv(_XB[_SENTENCE], *decoder_example()[1:])
# The padding mask: every query may attend to every real key, and to no pad key.
_PADDING_MASK = np.broadcast_to(_REAL, (_N, _N)).copy()


def _as_mask(mask) -> np.ndarray:
    """The learner's mask as booleans; ValueError unless every entry is True/False (or 1/0)."""
    mask = np.asarray(mask, dtype=float)
    odd = np.argwhere((mask != 0) & (mask != 1))
    if odd.size:
        where = tuple(int(i) for i in odd[0])
        raise ValueError(f"a mask holds True (may attend) or False (blocked), or 1 and 0; entry {where} is "
                         f"{mask[where]:g}")
    return mask == 1


def _hides_pad_keys(arrays) -> tuple[bool, str]:
    mask = _as_mask(arrays["mask"])
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        return False, (f"query '{_LABELS[empty[0]]}' may attend to no key at all, so its softmax has nothing to "
                       "share; every query, a pad's too, needs a key it may attend to.")
    Q, K, V = arrays["Q"], arrays["K"], arrays["V"]
    weights = scaled_dot_product_attention(Q, K, V, mask=mask)[1]
    reference = scaled_dot_product_attention(Q, K, V, mask=_PADDING_MASK)[1]
    return hides_keys(weights, reference, _PADS, _LABELS, _LABELS, kind="pad")


TASKS = [
    DesignTask(
        name="04-hide-pad-keys",
        notebook="04_masking",
        goal=(f"Build the mask of \"{' '.join(_PADDED[_SENTENCE][:_LENGTHS[_SENTENCE]])}\" padded to {_N} tokens "
              f"({_N} × {_N}, True = may attend) so that no query gives a pad key any weight and every query shares "
              "its attention over the real tokens by their scores."),
        start={"mask": np.ones((_N, _N))},
        solution={"mask": _PADDING_MASK},
        given={"Q": _Q, "K": _K, "V": _V},
        judge=_hides_pad_keys,
        hint="A key is a column of the weights: which columns are pads, and which rows need them hidden?",
    ),
]
