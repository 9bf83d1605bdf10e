"""The predictions of 03_heads.

Each truth is computed from the course's data: the head width with :func:`helpers.core.attention.head_dim`, what a head
reads and the concatenation's shape from 03's two-head layer (:mod:`helpers.core.heads`) and its arrays.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import head_dim
from helpers.core.explain import fmt
from helpers.core.heads import TOKENS, head_columns, two_head_layer
from helpers.exercises.predictions.prediction import Prediction

__all__ = ["PREDICTIONS"]

# --------------------------------------------------------------------------- d_k = d_model / h (BERT-base)

_D_MODEL, _HEADS = 768, 12


def _head_width() -> float:
    return float(head_dim(_D_MODEL, _HEADS))


# --------------------------------------------------------------------------- which features of x a head reads

_X, _W_Q = two_head_layer()[:2]
_H = 2
_CAT = TOKENS.index("cat")
_FEATURES = tuple(f"d{m + 1}" for m in range(_X.shape[1]))
_FIRST_HALF = f"only {' and '.join(_FEATURES[:2])}: head 1 reads the first half of x"
_ANY = f"any of {_FEATURES[0]} to {_FEATURES[-1]}"
_SECOND_HALF = f"only {' and '.join(_FEATURES[2:])}"
_NONE = "none: head 1's query is made from Q, not from x"


def _features_moving_head_1() -> list[int]:
    """The features m of x_cat for which adding 1 to x_cat[m] changes head 1's query of 'cat', x_cat W^Q_1."""
    W_q1 = head_columns(_W_Q, 0, _H)
    before = _X[_CAT] @ W_q1
    moved = []
    for m in range(_X.shape[1]):
        x = _X[_CAT].copy()
        x[m] += 1.0
        if not np.allclose(x @ W_q1, before):
            moved.append(m)
    return moved


def _reads_truth() -> str:
    moved = tuple(_features_moving_head_1())
    options = {(0, 1): _FIRST_HALF, tuple(range(len(_FEATURES))): _ANY, (2, 3): _SECOND_HALF, (): _NONE}
    if moved not in options:
        raise ValueError(f"head 1's query moves with the features {moved}: no option says so")
    return options[moved]


# --------------------------------------------------------------------------- the shape after the concatenation

_N, _D_MODEL_CONCAT, _H_CONCAT = 10, 512, 8
_D_K = _D_MODEL_CONCAT // _H_CONCAT


def _shape_text(shape) -> str:
    return " × ".join(str(int(s)) for s in shape)


def _concat_shape() -> str:
    """The shape of Concat(head_1, ..., head_h) for h head outputs of shape (n, d_k), computed."""
    heads = [np.zeros((_N, _D_K)) for _ in range(_H_CONCAT)]
    return _shape_text(np.concatenate(heads, axis=1).shape)


PREDICTIONS = [
    Prediction(
        name="03-head-width",
        notebook="03_heads",
        question=(f"With d_model = {_D_MODEL} and h = {_HEADS} heads (BERT-base), what is each head's width d_k?"),
        form="number",
        quantity="width",
        truth=_head_width,
        tolerance=0.0,
        why=(f"The heads split the model's width: d_k = d_model / h = {_D_MODEL} / {_HEADS} = "
             f"{fmt(_head_width())}, so all {_HEADS} heads side by side are {_D_MODEL} wide again."),
        thought={
            float(_D_MODEL): "every head works at the full width d_model",
            float(_HEADS): "d_k is the number of heads",
            float(_D_MODEL * _HEADS): "d_k = d_model × h, each head adding its own width",
            "*": "the heads share d_model some other way; each gets an equal part, d_model / h",
        },
    ),
    Prediction(
        name="03-head-reads-all-features",
        notebook="03_heads",
        question=(f"Head 1 owns columns 0 and 1 of W^Q, so its query of 'cat' is x_cat W^Q_1, where W^Q_1 is those "
                  f"two columns ({_X.shape[1]} × 2). Change one feature of x_cat: which features can move head 1's "
                  "query?"),
        form="choice",
        options=(_FIRST_HALF, _ANY, _SECOND_HALF, _NONE),
        truth=_reads_truth,
        why=(f"W^Q_1 keeps all {_X.shape[1]} rows of W^Q and only 2 of its columns: each of the query's 2 numbers "
             f"sums {_X.shape[1]} products, one per feature of x, so every feature with a non-zero row of W^Q_1 "
             "moves it."),
        thought={
            _FIRST_HALF: ("the split cuts each token's vector x into pieces; it cuts W^Q's columns, and every "
                          "column is made from the whole of x"),
            _SECOND_HALF: "head 1 reads what head 2 does not; both read the whole of x, through their own columns",
            _NONE: ("Q = XW^Q is made first, and head 1 takes its columns 0 and 1, which are exactly x W^Q_1: a "
                    "change of x moves them"),
        },
    ),
    Prediction(
        name="03-concat-shape",
        notebook="03_heads",
        question=(f"n = {_N} tokens, d_model = {_D_MODEL_CONCAT}, h = {_H_CONCAT} heads: each head's output is "
                  f"{_N} × {_D_K}. What shape is Concat(head_1, …, head_{_H_CONCAT})?"),
        form="choice",
        options=tuple(_shape_text(s) for s in ((_N, _D_K), (_N, _D_MODEL_CONCAT), (_H_CONCAT, _N, _D_K),
                                               (_N, _H_CONCAT * _D_MODEL_CONCAT))),
        truth=_concat_shape,
        why=(f"The heads are put side by side, one block of {_D_K} columns each: {_N} × ({_H_CONCAT} · {_D_K}) = "
             f"{_N} × {_D_MODEL_CONCAT}, the width of X again."),
        thought={
            _shape_text((_N, _D_K)): "the heads are averaged into one; they are put side by side, none is lost",
            _shape_text((_H_CONCAT, _N, _D_K)): ("the heads are stacked on a new axis; that is the split form, and "
                                                 "concatenating puts them side by side in the columns"),
            _shape_text((_N, _H_CONCAT * _D_MODEL_CONCAT)): ("each head gives back d_model columns; each gives d_k "
                                                             "= d_model / h"),
        },
    ),
]
