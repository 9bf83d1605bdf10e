"""The predictions of 05_decoding.

Every truth is computed from the notebook's own data: section 1's target and its shifted input
(:data:`helpers.core.decoding.TARGET`, :func:`helpers.core.decoding.shift_right`), section 2's tiny next-token models
(:func:`helpers.core.decoding.train` on :func:`helpers.core.decoding.corpus_sentences`) and, in section 3, 04's four
tokens (:func:`helpers.core.masking.decoder_example`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention
from helpers.core.decoding import BOS, LOOK_OFFSETS, TARGET, corpus_sentences, shift_right, train
from helpers.core.masking import DECODER_TOKENS, decoder_example
from helpers.exercises.predictions.prediction import Prediction, region_of

# --------------------------------------------------------------------------- section 1: the row that produces a word

_INPUTS = tuple(shift_right(TARGET))
_WORD = "noir"


def _row_that_produces(word: str) -> str:
    """The input token of the decoder row that produces ``word``."""
    return _INPUTS[TARGET.index(word)]


# --------------------------------------------------------------------------- section 2: the two models


@cache
def _models():
    """(without the mask, with the causal mask), trained on the corpus."""
    return train(causal=False), train(causal=True)


def _delta_text(delta: int) -> str:
    """An offset as the lesson writes it: ``−2``, ``−1``, ``0``, ``+1``, ``+2`` (the true minus sign)."""
    return "0" if delta == 0 else f"{delta:+d}".replace("-", "\u2212")


_NO_MASK, _CAUSAL, _TIE = "no mask", "causal", "tie"
# (the better model in training, the better model when generating) -> the option that says so
_OUTCOMES = {
    (_NO_MASK, _NO_MASK): "the model without the mask, in both",
    (_NO_MASK, _CAUSAL): "without the mask in training, the causal model when generating",
    (_CAUSAL, _CAUSAL): "the causal model, in both",
    (_TIE, _TIE): "they tie, in both",
}


def _winner(no_mask: float, causal: float) -> str:
    if np.isclose(no_mask, causal):
        return _TIE
    return _NO_MASK if no_mask > causal else _CAUSAL


def _who_wins() -> str:
    cheat, honest = _models()
    data = corpus_sentences()
    outcome = (_winner(cheat.accuracy(data), honest.accuracy(data)),
               _winner(cheat.accuracy(data, future_visible=False), honest.accuracy(data, future_visible=False)))
    return _OUTCOMES.get(outcome, f"training: {outcome[0]}; generating: {outcome[1]}")


_PLANTED = (BOS, "the", "cat", "barked", ".")
_AFTER = _PLANTED.index("cat")


def _planted_prediction() -> str:
    return _models()[0].predict(list(_PLANTED))[_AFTER]


# --------------------------------------------------------------------------- section 3: appending a token

_TOKENS = DECODER_TOKENS
_LAST = _TOKENS[-1]


def _q(*tokens) -> str:
    return ", ".join(f"'{t}'" for t in tokens)


def _earlier_outputs_after_appending() -> str:
    Q, K, V = project_qkv(*decoder_example())
    n = len(_TOKENS)
    before = scaled_dot_product_attention(Q[:-1], K[:-1], V[:-1], mask=causal_mask(n - 1))[0]
    after = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))[0]
    return region_of(~np.isclose(before, after[:-1]), _TOKENS[:-1], ("dim 0", "dim 1"))


PREDICTIONS = [
    Prediction(
        name="05-row-that-produces-noir",
        notebook="05_decoding",
        question=(f"The decoder must produce {' '.join(TARGET)}; its input is {' '.join(_INPUTS)}, one token per row. "
                  f"Which input token does the row that produces '{_WORD}' read?"),
        form="choice",
        options=_INPUTS,
        truth=lambda: _row_that_produces(_WORD),
        why=(f"The input is the target shifted one place right: row t reads target token t − 1 and produces target "
             f"token t, so '{_WORD}' comes from the row whose input is '{_row_that_produces(_WORD)}'."),
        thought={
            _WORD: (f"each row reads the word it produces; then '{_WORD}' would be handed its own answer, and at "
                    "generation time that word does not exist yet"),
            "*": (f"a row reads further back; the shift is one place: the row just before '{_WORD}' in the target "
                  "is the one that produces it"),
        },
    ),
    Prediction(
        name="05-cheating-head",
        notebook="05_decoding",
        question=("Trained without the mask, the model keeps, of five heads that look δ = "
                  f"{', '.join(_delta_text(d) for d in LOOK_OFFSETS)} positions away, the one with the smallest "
                  "training error. Which δ will the model without the mask choose?"),
        form="choice",
        options=tuple(_delta_text(d) for d in LOOK_OFFSETS),
        truth=lambda: _delta_text(_models()[0].delta),
        why=("With the whole sentence in view, the head at δ = +1 reads token t + 1, the very word to predict: its "
             "training error is 0."),
        thought={
            "\u22121": ("the previous token is a clue to the next, and the masked model keeps δ = −1, if only by a "
                   "hair; without the mask the next token itself is in view, and copying it is never wrong"),
            "0": ("a token's own word is the best clue; the read-out already has it, and the next word itself is in "
                  "view"),
            "*": ("a head looking further gives more context; the head at δ = +1 reads the answer itself, since "
                  "nothing hides it"),
        },
    ),
    Prediction(
        name="05-who-wins",
        notebook="05_decoding",
        question=("Both models predict every next token of the training sentences. In training each sentence goes "
                  "in whole; when generating, position t gets only tokens 0..t, since token t + 1 does not exist "
                  "yet. Which model is right more often, in training and when generating?"),
        form="choice",
        options=tuple(_OUTCOMES.values()),
        truth=_who_wins,
        why=("In training the unmasked model copies the next token and is always right; when generating that token "
             "is missing, and the copier falls far below the causal model, which sees the same past in both."),
        thought={
            _OUTCOMES[_NO_MASK, _NO_MASK]: (
                "the better training score carries over; it was earned by copying a token that generation "
                "does not have"),
            _OUTCOMES[_TIE, _TIE]: (
                "the mask changes nothing the read-out can use; without it the next token is in view, and copying "
                "it is never wrong"),
            _OUTCOMES[_CAUSAL, _CAUSAL]: (
                "the mask makes the model better everywhere; in training the unmasked model can copy the answer "
                "and wins there"),
        },
    ),
    Prediction(
        name="05-planted-word",
        notebook="05_decoding",
        question=(f"Cats never bark in the training data. The model trained without the mask is given "
                  f"{' '.join(_PLANTED)} whole. What does it predict after 'cat'?"),
        form="choice",
        options=("sat", "slept", "barked", "ran", "."),
        truth=_planted_prediction,
        why=("It learned to read the next token through its δ = +1 head, so it predicts whatever word is planted "
             "there, even one it never saw after 'cat'."),
        thought={
            "sat": ("it predicts from what it learned about cats; it learned to copy the next token, and that token "
                    "is 'barked'"),
            "slept": "it predicts from the training data after 'cat'; it copies the next token instead",
            "*": "it reads the token after 'cat' and copies it: 'barked'",
        },
    ),
    Prediction(
        name="05-append-a-token",
        notebook="05_decoding",
        question=(f"The decoder (causal mask) has run {_q(*_TOKENS[:-1])}. Now '{_LAST}' is appended and all four "
                  f"run again. Which part of the outputs of {_q(*_TOKENS[:-1])} (3 × 2) changes?"),
        form="region",
        row_labels=_TOKENS[:-1],
        col_labels=("dim 0", "dim 1"),
        options=("nothing", f"row '{_TOKENS[-2]}'", f"rows {_q(*_TOKENS[1:-1])}", "the whole matrix"),
        truth=_earlier_outputs_after_appending,
        why=(f"'{_LAST}' is a later key for every earlier query, so the mask blocks it: their scores, weights and "
             "outputs are the numbers they were."),
        thought={
            "the whole matrix": (f"every query gets one more key to share its attention with, as it would without "
                                 f"the mask; with it, '{_LAST}' is blocked for every earlier query"),
            f"row '{_TOKENS[-2]}'": (f"the new token touches its neighbour; '{_LAST}' comes after '{_TOKENS[-2]}' too, "
                                     "so it is blocked there as well"),
            "rows": ("the later queries see more of the text; but a query sees only keys at or before its own "
                     "position, and the new one is after all three"),
        },
    ),
]
