"""The predictions of 02_projections.

Each truth is computed from the course's own examples (:mod:`helpers.exercises.code_tasks.examples`: the worked
example "The cat sat" and the six tokens of the explorer) with :mod:`helpers.core.attention`, as the notebook computes
it.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.explain import fmt, format_matrix
from helpers.exercises.code_tasks.examples import SIX_TOKENS, W_K3, W_Q3, W_V3, X3, X6, six_token_weights
from helpers.exercises.predictions.prediction import Prediction, region_of

__all__ = ["PREDICTIONS", "THREE_TOKENS", "LABELS6", "scores_after_edit"]

THREE_TOKENS = ("The", "cat", "sat")

# --------------------------------------------------------------------------- the zero key of "cat"

_CAT, _THE = THREE_TOKENS.index("cat"), THREE_TOKENS.index("The")
_Q3, _K3 = X3 @ W_Q3, X3 @ W_K3
_SCORES_THE = _Q3[_THE] @ _K3.T  # the scores of the query "The", unscaled
_ZERO_ROWS = [r for r in range(W_K3.shape[0]) if not W_K3[r].any()]
_NONE, _SOME, _MOST = "none: weight 0", "some, but less than another token", "more than any other token"


def _attention_the_gives_cat() -> str:
    """How the weight of "cat" in the row of "The" compares: none, some, or the most."""
    weights = scaled_dot_product_attention(*(X3 @ W for W in (W_Q3, W_K3, W_V3)))[1][_THE]
    if weights[_CAT] <= 0:
        return _NONE
    others = np.delete(weights, _CAT)
    return _MOST if weights[_CAT] > others.max() else _SOME


# --------------------------------------------------------------------------- one entry of W^Q or W^K, six tokens

_W_Q6, _W_K6, _W_V6 = six_token_weights()[:3]


def _labels(tokens) -> tuple[str, ...]:
    """The tokens as labels that differ ignoring case: a token that repeats an earlier one (any case) gets its
    1-based position, "the (5)"."""
    seen, labels = set(), []
    for k, token in enumerate(tokens):
        labels.append(token if token.casefold() not in seen else f"{token} ({k + 1})")
        seen.add(token.casefold())
    return tuple(labels)


LABELS6 = _labels(SIX_TOKENS)


def scores_after_edit(which: str, row: int, col: int, value: float) -> tuple[np.ndarray, np.ndarray]:
    """The scores QKᵀ of the six tokens before and after entry (row, col) of W^Q (``which="W_q"``) or W^K
    (``"W_k"``) is set to ``value``.

    Parameters
    ----------
    which : {"W_q", "W_k"}
    row, col : int
        0-based: row ``row`` is the explorer's d{row + 1}, column ``col`` its q{col + 1} or k{col + 1}.
    value : float

    Returns
    -------
    (ndarray (6, 6), ndarray (6, 6))
        The scores before and after, Queries ↓, Keys →.
    """
    W = {"W_q": _W_Q6.copy(), "W_k": _W_K6.copy()}
    before = (X6 @ W["W_q"]) @ (X6 @ W["W_k"]).T
    W[which][row, col] = value
    return before, (X6 @ W["W_q"]) @ (X6 @ W["W_k"]).T


def _tokens_using(row: int) -> list[str]:
    """The tokens whose embedding has a non-zero entry in dimension ``row`` (0-based)."""
    return [t for t, x in zip(LABELS6, X6) if x[row] != 0]


def _quoted(tokens) -> str:
    return ", ".join(f"'{t}'" for t in tokens)


def _edit_options(row: int) -> tuple[str, ...]:
    tokens = _quoted(_tokens_using(row))
    return f"rows {tokens}", f"columns {tokens}", "the whole matrix", "nothing"


# W^Q, row d1, column q4: 1 -> 0.  W^K, row d2, column k1: 1 -> 0.
_Q_EDIT = ("W_q", 0, 3, 0.0)
_K_EDIT = ("W_k", 1, 0, 0.0)


def _region(edit) -> str:
    before, after = scores_after_edit(*edit)
    return region_of(~np.isclose(before, after), LABELS6, LABELS6)


def _dim(edit) -> str:
    """The explorer's name of the row of W an edit changes: "d1" for row 0."""
    return f"d{edit[1] + 1}"


def _entry(edit) -> str:
    which, row, col, value = edit
    W = _W_Q6 if which == "W_q" else _W_K6
    return (f"{'W^Q' if which == 'W_q' else 'W^K'} row {_dim(edit)}, column {'q' if which == 'W_q' else 'k'}{col + 1} "
            f"from {fmt(W[row, col])} to {fmt(value)}")


def _edit_region(name: str, edit, setting: str, made: str, makes: str, mistaken: dict) -> Prediction:
    """The prediction "which part of the scores does this edit change?", for an edit of W^Q or of W^K.

    ``setting`` says where the learner makes the edit (``{entry}`` stands for it), ``made`` one of what the matrix
    makes (``"query"``), ``makes`` those and where they sit in the scores (``"the queries, and query i is row i"``);
    ``mistaken`` is the thought of the region the other matrix would change.
    """
    matrix = "W^Q" if edit[0] == "W_q" else "W^K"
    return Prediction(
        name=name,
        notebook="02_projections",
        question=f"{setting.format(entry=_entry(edit))} Which part of the scores does this {matrix} edit change?",
        form="region",
        row_labels=LABELS6,
        col_labels=LABELS6,
        options=_edit_options(edit[1]),
        truth=lambda: _region(edit),
        why=(f"{matrix} makes {makes} of the scores; only the tokens with a non-zero {_dim(edit)} "
             f"({_quoted(_tokens_using(edit[1]))}) get a new {made}."),
        thought={
            **mistaken,
            "whole": (f"every score uses {matrix}, so every score moves; but only tokens whose x is non-zero in "
                      f"{_dim(edit)} meet that row of {matrix}"),
            "nothing": (f"one entry is too small to matter; it changes the {made} of every token with a non-zero "
                        f"{_dim(edit)}"),
        },
    )


# --------------------------------------------------------------------------- the shape of the output

_N, _D_MODEL_SHAPE, _D_K, _D_V = 10, 512, 64, 32


def _shape_text(shape) -> str:
    return " × ".join(str(int(s)) for s in shape)


def _output_shape() -> str:
    """The shape of softmax(QKᵀ/√d_k)V for Q, K (n, d_k) and V (n, d_v), computed."""
    Q, K, V = np.zeros((_N, _D_K)), np.zeros((_N, _D_K)), np.zeros((_N, _D_V))
    return _shape_text(scaled_dot_product_attention(Q, K, V)[0].shape)


PREDICTIONS = [
    Prediction(
        name="02-cat-zero-key",
        notebook="02_projections",
        question=(f"Before K is computed: 'cat' is x = {format_matrix(X3[_CAT])[1:-1]}, and rows "
                  f"{' and '.join(str(r) for r in _ZERO_ROWS)} of W^K are zero (rows counted from 0). "
                  "How much attention will the query of 'The' give 'cat'?"),
        form="choice",
        options=(_NONE, _SOME, _MOST),
        truth=_attention_the_gives_cat,
        why=(f"x_cat falls only on zero rows of W^K, so k_cat = {format_matrix(_K3[_CAT])[1:-1]} and every query "
             f"scores 'cat' 0; the query of 'The' scores the keys of {', '.join(THREE_TOKENS)} "
             f"{', '.join(fmt(s) for s in _SCORES_THE)}: 0 is its largest score, so 'cat' gets its largest weight."),
        thought={
            _NONE: "a zero key, or a score of 0, gets no attention; softmax gives it e^0 = 1, never 0",
            _SOME: (f"a score of 0 is low; but the other scores of 'The' are "
                    f"{' and '.join(fmt(s) for s in np.delete(_SCORES_THE, _CAT))}, so 0 is its largest"),
        },
    ),
    Prediction(
        name="02-output-shape",
        notebook="02_projections",
        question=(f"n = {_N} tokens, d_model = {_D_MODEL_SHAPE}, d_k = {_D_K}, d_v = {_D_V}. What shape is the "
                  "output softmax(QKᵀ/√d_k)V?"),
        form="choice",
        options=tuple(_shape_text(s) for s in ((_N, _N), (_N, _D_V), (_N, _D_K), (_N, _D_MODEL_SHAPE))),
        truth=_output_shape,
        why=(f"The weights are n × n = {_N} × {_N}, and (n × n)(n × d_v) gives one row per query with the values' "
             f"width: {_N} × {_D_V}."),
        thought={
            _shape_text((_N, _N)): "the output is the weights; they are multiplied by V next",
            _shape_text((_N, _D_K)): ("the output has the width of the queries and keys; it is a weighted sum of "
                                      "values, so it has their width d_v"),
            _shape_text((_N, _D_MODEL_SHAPE)): ("the output has the width of X; it has the width of the values, "
                                                "d_v (03 shows how a layer gets back to d_model)"),
        },
    ),
    _edit_region("02-wq-entry-region", _Q_EDIT, setting="In the explorer below, you set {entry}.", made="query",
                 makes="the queries, and query i is row i",
                 mistaken={"columns": "W^Q moves the columns; a column is a key (Keys →), and W^Q makes queries, the "
                                      "rows"}),
    _edit_region("02-wk-entry-region", _K_EDIT, setting="Back at the start, you set {entry} instead.", made="key",
                 makes="the keys, and key j is column j",
                 mistaken={"rows": "any change to a weight matrix moves rows, as W^Q did; W^K makes keys, and a key is "
                                   "a column"}),
]
