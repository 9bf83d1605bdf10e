"""The design tasks of 06_cross_attention, on the toy translation (:mod:`helpers.core.translation`).

Both goals are the toy's whole alignment: every decoder position (its input is the target shifted right,
``<s> le chat noir s' est``) gives the English word behind the French word it writes more weight than any other key,
and at least 0.5. They are judged on the weights, so every design that meets them counts.

``06-le-reads-cat`` (in code, W^Q only): the row ``fr:le`` of W^Q asks for an article, what "le" itself is, instead
of what the word its position writes ("chat") needs; the position whose input is "le" then reads "the", exactly as
the one whose input is ``<s>`` does (their queries are equal, so no edit of W^K can tell them apart). The learner
makes that row ask for an animal.

``06-repair-alignment`` (in the notebook's cross-attention explorer, ``goal=``; W^Q or W^K): one entry of W^K
changed, so that "cat" offers a colour as well as an animal; the position whose input is "chat" (it writes "noir" and
asks for a colour) then splits its attention between "black" and "cat". Every repair counts: the 3 taken out again,
or a query of "chat" that asks for a colour and against an animal.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import softmax
from helpers.core.numbers import number_text
from helpers.core.translation import MEANINGS, REFERENCE_ALIGNMENT, input_dim, toy_translation
from helpers.exercises.design.goals import attends_most
from helpers.exercises.design.task import DesignTask

_TOY = toy_translation()
_CAT, _COLOUR = input_dim("cat", "en"), MEANINGS.index("colour")
_BROKEN_W_K = _TOY.W_k.copy()
_BROKEN_W_K[_CAT, _COLOUR] = _TOY.W_k[input_dim("black", "en"), _COLOUR]  # 'cat' offers a colour, as 'black' does
_LE = input_dim("le", "fr")
_SELF_DESCRIBING_W_Q = _TOY.W_q.copy()
_SELF_DESCRIBING_W_Q[_LE] = 0.0
_SELF_DESCRIBING_W_Q[_LE, MEANINGS.index("article")] = _TOY.W_q[_LE].max()  # 'le' asks for what it is: an article
AT_LEAST = 0.5
# No design needs scores beyond this; at such sizes float64 (about 16 digits) leaves close keys to rounding.
_LARGEST_SCORE = 1e100


def _weights(arrays) -> np.ndarray:
    """The cross-attention weights (decoder positions × source) of the arrays: queries from X_dec, keys from X_enc."""
    Q, K = arrays["X_dec"] @ arrays["W_q"], arrays["X_enc"] @ arrays["W_k"]
    scores = Q @ K.T
    largest = float(np.max(np.abs(scores)))
    if not largest <= _LARGEST_SCORE:
        raise ValueError(f"the scores reach {number_text(largest, None, sig=2)}; this goal is judged on scores up to "
                         f"{number_text(_LARGEST_SCORE, None, sig=1)}")
    return softmax(scores / np.sqrt(Q.shape[1]))


def _every_position_reads_its_word(arrays) -> tuple[bool, str]:
    """Met when each decoder position gives its reference English word the most weight, and at least 0.5."""
    weights = _weights(arrays)
    rows, source = _TOY.decoder_input, _TOY.source
    verdicts = {q: attends_most(weights, rows, source, q, en, at_least=AT_LEAST)[0]
                for q, en in REFERENCE_ALIGNMENT.items()}
    off = [q for q, met in verdicts.items() if not met]
    if not off:
        low = min(REFERENCE_ALIGNMENT, key=lambda q: weights[rows.index(q), source.index(REFERENCE_ALIGNMENT[q])])
        w = weights[rows.index(low), source.index(REFERENCE_ALIGNMENT[low])]
        return True, (f"every decoder position reads the English word behind the word it writes, more than any "
                      f"other key (the lowest: '{low}' gives '{REFERENCE_ALIGNMENT[low]}' "
                      f"{number_text(w, 2, trim=False)}).")
    q = off[0]
    row = weights[rows.index(q)]
    en = REFERENCE_ALIGNMENT[q]
    best = max((k for k in source if k != en), key=lambda k: row[source.index(k)])
    more = f" Also off: {', '.join(repr(o) for o in off[1:])}." if len(off) > 1 else ""
    on_en, on_best = (number_text(row[source.index(k)], 2, trim=False) for k in (en, best))
    return False, (f"'{q}' gives '{en}' {on_en} and '{best}' {on_best}; each "
                   f"position should give its English word more than any other key and at least {AT_LEAST:g}.{more}")


_PAIRS = ", ".join(f"{q} → {en}" for q, en in REFERENCE_ALIGNMENT.items())

TASKS = [
    DesignTask(
        name="06-le-reads-cat",
        notebook="06_cross_attention",
        goal=(f"Make the position whose input is 'le' give 'cat' more weight than any other key, and at least "
              f"{AT_LEAST:g}, every other position still reading its English word ({_PAIRS}), by changing W^Q."),
        start={"W_q": _SELF_DESCRIBING_W_Q},
        solution={"W_q": _TOY.W_q},
        given={"X_dec": _TOY.X_dec, "X_enc": _TOY.X_enc, "W_k": _TOY.W_k},
        settings={"scale": True},
        judge=_every_position_reads_its_word,
        hint=("The position whose input is 'le' writes 'chat'. What does that word need from the source? Row fr:le of "
              "W^Q says what the position asks for."),
    ),
    DesignTask(
        name="06-repair-alignment",
        notebook="06_cross_attention",
        goal=(f"Make every decoder position give the English word behind the word it writes ({_PAIRS}) more weight "
              f"than any other key, and at least {AT_LEAST:g}, by changing W^Q or W^K."),
        start={"W_q": _TOY.W_q, "W_k": _BROKEN_W_K},
        solution={"W_q": _TOY.W_q, "W_k": _TOY.W_k},
        given={"X_dec": _TOY.X_dec, "X_enc": _TOY.X_enc},
        settings={"scale": True},
        judge=_every_position_reads_its_word,
        hint=("Which row of the weights is split, and between which keys? Then read what those keys offer in their "
              "rows of W^K."),
    ),
]
