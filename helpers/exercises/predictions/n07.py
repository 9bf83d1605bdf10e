"""The predictions of 07_patterns: what a stronger W does, which pattern a W pair makes, position vs content, and
the two outputs of "bank".

Every truth is computed from :mod:`helpers.core.patterns` (the token features, each pattern's weights, the shuffled
sentence and the "bank" embeddings), as the notebook computes what it shows.
"""

from __future__ import annotations

import numpy as np

from helpers.core.explain import fmt
from helpers.core.patterns import (
    BANK_SENTENCES,
    PHRASES,
    SHUFFLE_ORDER,
    TOKENS,
    bank_attention,
    bank_embeddings,
    pattern_attention,
    pattern_of,
    pattern_weights,
)
from helpers.exercises.predictions.prediction import Prediction

_N = len(TOKENS)

# --------------------------------------------------------------------------- a stronger W

WEAK, STRONG = 1.5, 3.0  # the strength before and after; STRONG is the notebook's s


def _self_weight(strength: float) -> float:
    """The weight each token gives itself in the diagonal head of this strength."""
    return float(pattern_attention(TOKENS, PHRASES, pattern="diagonal", strength=strength).weights[0, 0])


def _self_weight_of_score(score: float) -> float:
    """The self-weight when the matching score (after 1/√d_k) is ``score`` and the other n - 1 scores are 0."""
    return float(np.exp(score) / (np.exp(score) + _N - 1))


_SCORE_WEAK = WEAK**2 / np.sqrt(_N)
_SCORE_STRONG = STRONG**2 / np.sqrt(_N)

# --------------------------------------------------------------------------- which pattern a W pair makes

PATTERN_OPTIONS = {
    "diagonal": "diagonal (each token to itself)",
    "previous": "previous token",
    "vertical": "vertical (every token to one token)",
    "block": "block (within each phrase)",
    "long_range": "long-range (distant words that match)",
}
MYSTERY_PATTERN = "vertical"  # the W pair the question shows, written out in the notebook without its name


def _mystery_pattern() -> str:
    W_q, W_k = pattern_weights(MYSTERY_PATTERN, _N, STRONG)
    weights = pattern_attention(TOKENS, PHRASES, W_q=W_q, W_k=W_k).weights
    return PATTERN_OPTIONS[pattern_of(weights, TOKENS, PHRASES)]


# --------------------------------------------------------------------------- position or content

SHUFFLED = [TOKENS[i] for i in SHUFFLE_ORDER]
SHUFFLED_PHRASES = [PHRASES[i] for i in SHUFFLE_ORDER]
SHUFFLE_OPTIONS = {
    (True, True): "both stay the same",
    (False, False): "both move with the words",
    (True, False): "the previous-token head's stays the same; the long-range head's moves",
    (False, True): "the previous-token head's moves; the long-range head's stays the same",
}


def _stays(pattern: str) -> bool:
    """Whether a pattern head's weight matrix is the same after the shuffle."""
    before = pattern_attention(TOKENS, PHRASES, pattern=pattern).weights
    after = pattern_attention(SHUFFLED, SHUFFLED_PHRASES, pattern=pattern).weights
    return bool(np.allclose(before, after))


def _after_the_shuffle() -> str:
    return SHUFFLE_OPTIONS[(_stays("previous"), _stays("long_range"))]


# --------------------------------------------------------------------------- the two outputs of "bank"

BANK_OPTIONS = {
    "same": "the same in both sentences",
    ("finance", "finance"): "along finance in both",
    ("finance", "nature"): "along finance in the money sentence, along nature in the river sentence",
    ("nature", "nature"): "along nature in both",
}


def _bank_outputs() -> list[np.ndarray]:
    """The output [finance, nature] of "bank" in each sentence of ``BANK_SENTENCES``."""
    return [bank_attention(s)[1][s.split().index("bank")] for s in BANK_SENTENCES]


def _bank_truth() -> str:
    money, river = _bank_outputs()
    if np.allclose(money, river):
        return BANK_OPTIONS["same"]
    features = bank_embeddings()["features"]
    return BANK_OPTIONS[(features[int(money.argmax())], features[int(river.argmax())])]


_BANK = bank_embeddings()["vocab"]["bank"]

PREDICTIONS = [
    Prediction(
        name="07-stronger-head",
        notebook="07_patterns",
        question=(f"The diagonal head with strength s = {fmt(WEAK)} gives each token {fmt(_self_weight(WEAK), 2)} of "
                  f"its attention on itself (d_k = {_N}). Double every non-zero weight of W^Q and W^K (s = "
                  f"{fmt(STRONG)}). What weight does each token give itself now?"),
        form="number",
        quantity="weight",
        truth=lambda: _self_weight(STRONG),
        tolerance=0.05,  # e^3.4 / (e^3.4 + 6) with e^3.4 taken as 27 to 33 is 0.82 to 0.85
        why=(f"Both W^Q and W^K double, so the score s²/√d_k grows four times ({fmt(_SCORE_WEAK, 2)} → "
             f"{fmt(_SCORE_STRONG, 2)}) and the weight e^{fmt(_SCORE_STRONG, 2)} / (e^{fmt(_SCORE_STRONG, 2)} + "
             f"{_N - 1}) = {fmt(_self_weight(STRONG), 2)}: a stronger W sharpens the same pattern."),
        thought={
            round(_self_weight(WEAK), 3): ("the softmax normalises each row, so scaling the weights changes nothing; "
                                           "it fixes only the sum, and the gaps between the scores grow"),
            round(2 * _self_weight(WEAK), 3): ("twice the weights give twice the attention; the weight is e^score over "
                                               "a sum, not proportional to W"),
            round(_self_weight_of_score(2 * _SCORE_WEAK), 3): (
                "doubling s doubles the score; W^Q and W^K both double, so q·k = s² grows four times"),
            "higher": (f"the match now takes (almost) all the attention; e^{fmt(_SCORE_STRONG, 2)} still shares with "
                       f"{_N - 1} keys scoring e^0, which keep {fmt(1 - _self_weight(STRONG), 2)}"),
            "lower": (f"the weight grows only a little; the score grows four times ({fmt(_SCORE_WEAK, 2)} → "
                      f"{fmt(_SCORE_STRONG, 2)}), and the weight with e^score"),
        },
    ),
    Prediction(
        name="07-which-pattern",
        notebook="07_patterns",
        question=(f"W^Q puts s in every position row (pos0 … pos{_N - 1}) of its one column; W^K puts s in the sink "
                  "row only (only [CLS] has the sink feature). Which pattern do these weights make?"),
        form="choice",
        options=tuple(PATTERN_OPTIONS.values()),
        truth=_mystery_pattern,
        why=("Every token has exactly one position feature, so every query is the same number s; only the key of "
             "[CLS] is non-zero, so every query scores s² on [CLS] and 0 elsewhere: one bright column."),
        thought={
            PATTERN_OPTIONS["diagonal"]: ("reading the position rows makes each token find itself; but all positions "
                                          "go into one direction, so every query is the same"),
            PATTERN_OPTIONS["previous"]: ("a head that reads positions attends by position; but W^K reads no "
                                          "position at all, only the sink feature"),
            PATTERN_OPTIONS["long_range"]: ("a feature one token has links it to distant tokens; it does, but every "
                                            "query asks for it, so every token goes to that one key"),
            "*": "the query and the key read the same feature; here they read different ones",
        },
    ),
    Prediction(
        name="07-shuffle",
        notebook="07_patterns",
        question=(f"Shuffle the words to \"{' '.join(SHUFFLED)}\" and keep the positions. What happens to the weight "
                  "matrices of the previous-token head (reads pos) and the long-range head (reads noun)?"),
        form="choice",
        options=tuple(SHUFFLE_OPTIONS.values()),
        truth=_after_the_shuffle,
        why=("The previous-token head reads only the position features, which the shuffle leaves in place; the "
             "long-range head reads the noun feature, which moves with 'cat' and 'mat'."),
        thought={
            SHUFFLE_OPTIONS[(False, False)]: ("every head follows the words; the previous-token head never looks at "
                                              "a word, only at where it is"),
            SHUFFLE_OPTIONS[(True, True)]: ("W^Q and W^K fix the matrix; they stay, but X changes: the noun feature "
                                            "moves with 'cat' and 'mat'"),
            SHUFFLE_OPTIONS[(False, True)]: ("the two heads swap roles; the previous-token head reads where a token "
                                             "is, the long-range head what it is"),
        },
    ),
    Prediction(
        name="07-bank-output",
        notebook="07_patterns",
        question=(f"\"bank\" has the same embedding, {list(map(float, _BANK))}, and so the same query, in \""
                  f"{BANK_SENTENCES[0]}\" and \"{BANK_SENTENCES[1]}\". Which way does its attention output "
                  "[finance, nature] point?"),
        form="choice",
        options=tuple(BANK_OPTIONS.values()),
        truth=_bank_truth,
        why=("The output is the average of the values 'bank' attends to: 'deposit' and 'money' carry finance, "
             "'river' carries nature; the same query finds different keys in each sentence."),
        thought={
            BANK_OPTIONS["same"]: ("a token's output depends only on its own embedding; it is a weighted average of "
                                   "the other tokens' values, and those differ between the sentences"),
            BANK_OPTIONS[("finance", "finance")]: ("'bank' keeps a default, financial meaning; it has as much nature "
                                                   "as finance (0.3 each), and the river sentence has no finance key"),
            BANK_OPTIONS[("nature", "nature")]: ("the last content word wins; the output follows the keys the query "
                                                 "matches, and 'deposit' and 'money' carry finance"),
        },
    ),
]
