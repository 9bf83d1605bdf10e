"""The design tasks of 07_patterns: a previous-token head (in code) and a block pattern (in the pattern builder).

Both are judged on the weights of ``softmax((X W^Q)(X W^K)^T / sqrt(d_k))`` over the notebook's token features
(:func:`helpers.core.patterns.token_features`), which stay fixed; the learner changes ``W_q`` and ``W_k``. The
previous-token head starts from the diagonal head's W^Q and an empty W^K; the block pattern from the long-range head
(noun -> d1) with a second, empty direction.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.numbers import number_text
from helpers.core.patterns import PHRASES, TOKENS, pattern_weights, token_features
from helpers.exercises.design.goals import attends_previous, attends_within_groups
from helpers.exercises.design.task import DesignTask

_X = token_features(TOKENS, PHRASES)
_N = len(TOKENS)
STRENGTH = 3.0  # the notebook's s
PREVIOUS_AT_LEAST = 0.5
BLOCK_EACH_AT_LEAST = 0.2
BLOCK_OUTSIDE_BELOW = 0.1

_DIAGONAL_W_Q, _ = pattern_weights("diagonal", _N, STRENGTH)
_PREVIOUS_W_Q, _PREVIOUS_W_K = pattern_weights("previous", _N, STRENGTH)
_BLOCK_W_Q, _BLOCK_W_K = pattern_weights("block", _N, STRENGTH)
# The block task starts from the long-range head (noun -> d1) with a second, empty direction d2.
_LONG_RANGE_2 = np.hstack([pattern_weights("long_range", _N, STRENGTH)[0], np.zeros((_N + 4, 1))])
# No design needs scores beyond this; at such sizes float64 (about 16 digits) rounds close scores to equal.
_LARGEST_SCORE = 1e100


def weights(arrays) -> np.ndarray:
    """The attention weights (n, n) of ``arrays["X"]`` with ``arrays["W_q"]``, ``arrays["W_k"]``, scaled by 1/√d_k.

    Raises
    ------
    ValueError
        If a score Q·K is beyond ±1e100 (or not finite).
    """
    X = arrays["X"]
    Q, K = X @ arrays["W_q"], X @ arrays["W_k"]
    largest = float(np.max(np.abs(Q @ K.T)))
    if not largest <= _LARGEST_SCORE:
        raise ValueError(f"the scores reach {number_text(largest, None, sig=2)}; this goal is judged on scores up to "
                         f"{number_text(_LARGEST_SCORE, None, sig=1)}")
    return scaled_dot_product_attention(Q, K, X)[1]


def _previous_token(arrays) -> tuple[bool, str]:
    return attends_previous(weights(arrays), TOKENS, at_least=PREVIOUS_AT_LEAST)


def _phrase_blocks(arrays) -> tuple[bool, str]:
    return attends_within_groups(weights(arrays), TOKENS, PHRASES, each_at_least=BLOCK_EACH_AT_LEAST,
                                 outside_below=BLOCK_OUTSIDE_BELOW, word="phrase")


TASKS = [
    DesignTask(
        name="07-previous-token",
        notebook="07_patterns",
        goal=(f"Build a previous-token head: every token after [CLS] gives the token just before it more attention "
              f"than any other token, and at least {PREVIOUS_AT_LEAST:g}, by changing W_q and W_k (X stays)."),
        start={"W_k": np.zeros_like(_DIAGONAL_W_Q), "W_q": _DIAGONAL_W_Q},
        solution={"W_q": _PREVIOUS_W_Q, "W_k": _PREVIOUS_W_K},
        given={"X": _X},
        settings={"causal": False, "scale": True},
        judge=_previous_token,
        hint=("Query i points along direction i; write the key of token j into the direction that query j + 1 "
              "points along."),
    ),
    DesignTask(
        name="07-phrase-blocks",
        notebook="07_patterns",
        goal=(f"Make each phrase attend within itself: every token gives each token of its own phrase at least "
              f"{BLOCK_EACH_AT_LEAST:g} of its attention and the other phrase under {BLOCK_OUTSIDE_BELOW:g} in all, "
              f"by changing W_q and W_k (X stays)."),
        start={"W_q": _LONG_RANGE_2, "W_k": _LONG_RANGE_2},
        solution={"W_q": _BLOCK_W_Q, "W_k": _BLOCK_W_K},
        given={"X": _X},
        settings={"causal": False, "scale": True},
        judge=_phrase_blocks,
        hint=("Give the tokens of one phrase a direction of their own, in W^Q and in W^K alike: the rows "
              "'phrase A' and 'phrase B' say which phrase a token is in."),
    ),
]
