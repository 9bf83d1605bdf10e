"""The predictions of 04_masking.

Every truth is computed from the notebook's own examples: section 1's four tokens
(:func:`helpers.core.masking.decoder_example`) and the worked example of section 3
(:mod:`helpers.exercises.code_tasks.examples`).
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention, softmax
from helpers.core.explain import fmt
from helpers.core.masking import DECODER_TOKENS, decoder_example
from helpers.exercises.code_tasks.examples import K_M, Q_M
from helpers.exercises.predictions.prediction import Prediction, region_of

_TOKENS = DECODER_TOKENS
_LAST = _TOKENS[-1]


def _qkv():
    """Section 1's Q, K, V (4, 2) of "<s> the cat sat"."""
    return project_qkv(*decoder_example())


# --------------------------------------------------------------------------- section 1: which rows the mask changes


def _rows_the_mask_changes() -> str:
    Q, K, V = _qkv()
    encoder = scaled_dot_product_attention(Q, K, V)[1]
    decoder = scaled_dot_product_attention(Q, K, V, mask=causal_mask(len(_TOKENS)))[1]
    return region_of(~np.isclose(encoder, decoder), _TOKENS, _TOKENS)


def _q(*tokens) -> str:
    return ", ".join(f"'{t}'" for t in tokens)


# --------------------------------------------------------------------------- section 3: a row of the worked example

_TOKS3 = ("The", "cat", "sat")
_SCALED = Q_M @ K_M.T / np.sqrt(Q_M.shape[1])      # (3, 3), before the mask
_CAT = _TOKS3.index("cat")


def _cat_weight_on_the() -> float:
    """The weight 'cat' gives 'The' in the worked example, with the causal mask."""
    scores = np.where(causal_mask(3), _SCALED, -np.inf)
    return float(softmax(scores)[_CAT, 0])


_ROW = [fmt(v) for v in np.where(causal_mask(3), _SCALED, -np.inf)[_CAT]]
_UNMASKED = float(softmax(_SCALED)[_CAT, 0])
_RATIO = fmt(np.exp(_SCALED[_CAT, _CAT] - _SCALED[_CAT, 0]), 2)  # e^score(cat) / e^score(The)


PREDICTIONS = [
    Prediction(
        name="04-rows-the-mask-changes",
        notebook="04_masking",
        question=(f"The encoder and the decoder get the same Q, K and V of {_q(*_TOKENS)}; only the decoder adds the "
                  "causal mask. Which rows of the weights will differ between encoder and decoder?"),
        form="region",
        row_labels=_TOKENS,
        col_labels=_TOKENS,
        options=(f"row '{_TOKENS[0]}'", f"rows {_q(*_TOKENS[:-1])}", f"rows {_q(*_TOKENS[1:])}",
                 f"row '{_LAST}'", "the whole matrix"),
        truth=_rows_the_mask_changes,
        why=(f"Each row but the last loses its later keys and shares its weight over the ones left ('{_TOKENS[0]}' "
             f"keeps only itself, weight 1); '{_LAST}' has no later key, so its row is the encoder's."),
        thought={
            "the whole matrix": (f"the mask changes every row; but '{_LAST}', the last token, may see every key "
                                 "anyway, so the mask takes nothing from it"),
            f"rows {_q(*_TOKENS[1:])}": (f"'{_TOKENS[0]}' is left alone, as nothing comes before it; it loses the "
                                         "most, every key but itself, and gives itself weight 1"),
            f"row '{_TOKENS[0]}'": ("only the first token is affected; every token but the last has later keys to "
                                    "lose, and its weight moves to the keys it keeps"),
            f"row '{_LAST}'": ("the mask works on the last token; it is the other way round: the last token has no "
                               "future to hide, the first has the most"),
        },
    ),
    Prediction(
        name="04-weight-after-the-mask",
        notebook="04_masking",
        question=(f"Row 'cat' of the scaled, masked scores is [{', '.join(_ROW)}] (keys {_q(*_TOKS3)}). What weight "
                  "will row 'cat' give 'The' after the softmax?"),
        form="number",
        quantity="weight",
        truth=_cat_weight_on_the,
        # 1 / (1 + e) with e taken as 2.7 or 3 is 0.27 or 0.25, both right; the thoughts at 0.212 (the blocked key
        # kept) and 1/3 lie beyond twice the tolerance.
        tolerance=0.025,
        why=(f"The blocked 'sat' gets e^−∞ = 0, exactly 0, and drops out of the sum: 'The' gets "
             f"e^{_ROW[0]} / (e^{_ROW[0]} + e^{_ROW[1]}) = {fmt(_cat_weight_on_the(), 3)}, and the row still sums "
             "to 1."),
        thought={
            _UNMASKED: (f"the blocked key still takes its share, as without the mask (e^{_ROW[0]} / (e^{_ROW[0]} + "
                        f"e^{_ROW[1]} + e^{fmt(_SCALED[_CAT, 2])}) = {fmt(_UNMASKED, 3)}); e^−∞ = 0 takes it out "
                        "of the sum"),
            0.5: ("the two keys 'cat' may see share its attention evenly; the softmax still weighs them by e^score, "
                  f"and e^{_ROW[1]} is {_RATIO} times e^{_ROW[0]}"),
            1 / 3: "the three keys share evenly; the blocked one gets nothing, and the scores are not equal",
            0.0: f"a score of {_ROW[0]} gives weight 0; it is e^{_ROW[0]} = 1 that goes into the softmax",
            "higher": (f"the softmax shares more evenly than it does; e^score widens the gap between {_ROW[0]} and "
                       f"{_ROW[1]}: e^{_ROW[1]} is {_RATIO} times e^{_ROW[0]}"),
        },
    ),
]
