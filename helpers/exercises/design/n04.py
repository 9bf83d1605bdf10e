"""The design tasks of 04_cross_attention.

``04-repair-alignment``: the toy translation (:mod:`helpers.translation`) with one entry of W^K changed, so that
"cat" offers a colour as well as an animal; "noir" then splits its attention between "black" and "cat". The learner
repairs the alignment by editing W^Q or W^K, in the notebook's cross-attention explorer (``goal=``). The goal is
judged on the weights, so every repair counts: the 3 taken out again, or a query of "noir" that asks for a colour
and against an animal. The break is in W^K, the source side, which stays whatever the decoder's rows stand for.
"""

from __future__ import annotations

import numpy as np

from helpers.attention import softmax
from helpers.exercises.design.goals import attends_most
from helpers.exercises.design.task import DesignTask
from helpers.translation import MEANINGS, REFERENCE_ALIGNMENT, input_dim, toy_translation

_TOY = toy_translation()
_CAT, _COLOUR = input_dim("cat", "en"), MEANINGS.index("colour")
_BROKEN_W_K = _TOY.W_k.copy()
_BROKEN_W_K[_CAT, _COLOUR] = _TOY.W_k[input_dim("black", "en"), _COLOUR]  # 'cat' offers a colour, as 'black' does
AT_LEAST = 0.5
# No design needs scores beyond this; at such sizes float64 (about 16 digits) leaves close keys to rounding.
_LARGEST_SCORE = 1e100


def _weights(arrays) -> np.ndarray:
    """The cross-attention weights (target × source) of the arrays: queries from X_dec, keys from X_enc, scaled."""
    Q, K = arrays["X_dec"] @ arrays["W_q"], arrays["X_enc"] @ arrays["W_k"]
    scores = Q @ K.T
    largest = float(np.max(np.abs(scores)))
    if not largest <= _LARGEST_SCORE:
        raise ValueError(f"the scores reach {largest:.1e}; this goal is judged on scores up to {_LARGEST_SCORE:.0e}")
    return softmax(scores / np.sqrt(Q.shape[1]))


def _every_word_reads_its_translation(arrays) -> tuple[bool, str]:
    weights = _weights(arrays)
    target, source = _TOY.target, _TOY.source
    verdicts = {fr: attends_most(weights, target, source, fr, en, at_least=AT_LEAST)[0]
                for fr, en in REFERENCE_ALIGNMENT.items()}
    off = [fr for fr, met in verdicts.items() if not met]
    if not off:
        low = min(REFERENCE_ALIGNMENT, key=lambda fr: weights[target.index(fr), source.index(REFERENCE_ALIGNMENT[fr])])
        w = weights[target.index(low), source.index(REFERENCE_ALIGNMENT[low])]
        return True, (f"every French token reads the English word it translates, more than any other key (the "
                      f"lowest: '{low}' gives '{REFERENCE_ALIGNMENT[low]}' {w:.2f}).")
    fr = off[0]
    row = weights[target.index(fr)]
    en = REFERENCE_ALIGNMENT[fr]
    best = max((k for k in source if k != en), key=lambda k: row[source.index(k)])
    more = f" Also off: {', '.join(repr(o) for o in off[1:])}." if len(off) > 1 else ""
    return False, (f"'{fr}' gives '{en}' {row[source.index(en)]:.2f} and '{best}' {row[source.index(best)]:.2f}; each "
                   f"French token should give the word it translates more than any other key and at least "
                   f"{AT_LEAST:g}.{more}")


_PAIRS = ", ".join(f"{fr} → {en}" for fr, en in REFERENCE_ALIGNMENT.items())

TASKS = [
    DesignTask(
        name="04-repair-alignment",
        notebook="04_cross_attention",
        goal=(f"Make every French token give the English word it translates ({_PAIRS}) more weight than any other "
              f"key, and at least {AT_LEAST:g}, by changing W^Q or W^K."),
        start={"W_q": _TOY.W_q, "W_k": _BROKEN_W_K},
        solution={"W_q": _TOY.W_q, "W_k": _TOY.W_k},
        given={"X_dec": _TOY.X_dec, "X_enc": _TOY.X_enc},
        settings={"scale": True},
        judge=_every_word_reads_its_translation,
        hint=("Which row of the weights is split, and between which keys? Then read what those keys offer in their "
              "rows of W^K."),
    ),
]
