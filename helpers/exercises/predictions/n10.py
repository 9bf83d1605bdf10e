"""The predictions of 10_multi_head."""

from __future__ import annotations

import numpy as np

from helpers.core.attention import multi_head_attention, softmax
from helpers.core.explain import fmt
from helpers.core.multihead import multi_head_cost
from helpers.core.patterns import TOKENS, feature_names, pattern_weights, token_features
from helpers.exercises.code_tasks.examples import SIX_TOKENS, X6, six_token_weights
from helpers.exercises.predictions.prediction import Prediction

H = 2  # the heads of the six-token example
_CAT = SIX_TOKENS.index("cat")


# --------------------------------------------------------------------------- what a head sees of X

_COLUMNS_OPTIONS = ("columns 0 and 1 only", "columns 2 and 3 only", "any of the 4 columns",
                    "none: only W^Q and W^K matter")


def _head_1_moved_by() -> list[int]:
    """The columns j of X for which adding 1 to the entry ('cat', j) changes head 1's weights (six-token layer)."""
    W = six_token_weights()
    before = multi_head_attention(X6, *W, H)[1][0]
    moved = []
    for j in range(X6.shape[1]):
        X = X6.copy()
        X[_CAT, j] += 1.0
        if not np.allclose(multi_head_attention(X, *W, H)[1][0], before):
            moved.append(j)
    return moved


def _columns_truth() -> str:
    moved = _head_1_moved_by()
    by_columns = {(0, 1): 0, (2, 3): 1, tuple(range(X6.shape[1])): 2, (): 3}
    if tuple(moved) not in by_columns:
        raise ValueError(f"head 1's weights move with X's columns {moved}: no option says so")
    return _COLUMNS_OPTIONS[by_columns[tuple(moved)]]


# --------------------------------------------------------------------------- 07's two heads in one layer

_OPTIONS_TOKENS = tuple(dict.fromkeys(TOKENS))  # each token once ("the" appears twice)


def _two_heads_outputs() -> np.ndarray:
    """(7, 2): what the previous-token head (column 0) and the noun head (column 1) pass on, the value being the
    `noun` feature (as 10's section "Two heads with two jobs" computes them)."""
    X = token_features(TOKENS)
    n = len(TOKENS)
    W_v = np.zeros((X.shape[1], 1))
    W_v[feature_names(n).index("noun"), 0] = 1.0      # the value is the `noun` feature
    columns = []
    for kind in ("previous", "long_range"):
        W_q, W_k = pattern_weights(kind, n)
        weights = softmax((X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1]))
        columns.append(weights @ X @ W_v)
    return np.hstack(columns)


def _head_1_most() -> str:
    return TOKENS[int(np.argmax(_two_heads_outputs()[:, 0]))]


def _head_1_why() -> str:
    X = token_features(TOKENS)
    W_q, W_k = pattern_weights("previous", len(TOKENS))
    weights = softmax((X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1]))
    best = int(np.argmax(_two_heads_outputs()[:, 0]))
    read = int(np.argmax(weights[best]))
    output = _two_heads_outputs()[best, 0]
    return (f"Head 1's row for '{TOKENS[best]}' puts {fmt(weights[best, read], 2)} on '{TOKENS[read]}', the token "
            f"before it, so its output, the weighted sum of the noun feature, is {fmt(output, 2)}: a head moves "
            "information from the token it reads to the token that reads.")


# --------------------------------------------------------------------------- the cost of more heads

_COST_OPTIONS = ("they grow about 4 times", "they grow a little", "they stay exactly the same", "they shrink")


def _cost_ratio() -> float:
    n, d_model = X6.shape
    return multi_head_cost(n, d_model, 4)["total"] / multi_head_cost(n, d_model, 1)["total"]


def _cost_truth() -> str:
    ratio = _cost_ratio()
    if ratio == 1:
        return _COST_OPTIONS[2]
    return _COST_OPTIONS[3] if ratio < 1 else _COST_OPTIONS[0] if ratio >= 3 else _COST_OPTIONS[1]


def _cost_why() -> str:
    n, d_model = X6.shape
    total = multi_head_cost(n, d_model, 1)["total"]
    return (f"h heads of width d_k = d_model / h: the scores take h · n² · d_k = n² · d_model multiply-adds, the "
            f"weighted sums as many, and the projections and W^O do not depend on h ({total} for every h here).")


PREDICTIONS = [
    Prediction(
        name="10-head-reads-all-of-x",
        notebook="10_multi_head",
        question=(f"With h = {H}, head 1 takes columns 0 and 1 of Q = XW^Q and of K = XW^K (d_k = 2). You add 1 to "
                  "one entry of the token 'cat' in X (6 × 4, one column per feature). In which of X's columns can "
                  "that change move head 1's weights?"),
        form="choice",
        options=_COLUMNS_OPTIONS,
        truth=_columns_truth,
        why=("Head 1's queries are X W^Q_1, where W^Q_1 is the d_model × d_k block of columns 0 and 1 of W^Q (its "
             "keys likewise): every feature of X feeds every head. The split is of Q, K and V, not of X."),
        thought={
            _COLUMNS_OPTIONS[0]: ("each head reads its own slice of the token features; it reads all of them, "
                                  "through its own d_model × d_k block of W^Q and W^K"),
            _COLUMNS_OPTIONS[1]: "the heads share out the features of X; every head reads all of them",
            _COLUMNS_OPTIONS[3]: "the weights depend on the learned matrices alone; Q = XW^Q changes with X too",
        },
    ),
    Prediction(
        name="10-head-1-finding",
        notebook="10_multi_head",
        question=("Head 1 (previous token) and head 2 (content) both pass on the value v = the \"noun\" feature (1 "
                  "for 'cat' and 'mat', 0 for the others). Which token gets the largest output from head 1?"),
        form="choice",
        options=_OPTIONS_TOKENS,
        truth=_head_1_most,
        why=_head_1_why(),
        thought={
            **dict.fromkeys(("cat", "mat"), "a token's head output is its own value; it is the weighted sum of the "
                                            "values of the tokens it reads, and head 1 reads the token before"),
            "*": "another token reads a noun; only one token comes right after a noun here",
        },
    ),
    Prediction(
        name="10-cost-more-heads",
        notebook="10_multi_head",
        question=(f"The six tokens, d_model = {X6.shape[1]}: from h = 1 head to h = 4 heads (d_k from {X6.shape[1]} to "
                  f"{X6.shape[1] // 4}). How do the multiply-adds of the layer's matrix products change?"),
        form="choice",
        options=_COST_OPTIONS,
        truth=_cost_truth,
        why=_cost_why(),
        thought={
            _COST_OPTIONS[0]: ("each head costs as much as one whole head; a head works on d_k = d_model / h "
                               "columns, so h heads do the work of one head of width d_model"),
            _COST_OPTIONS[1]: ("the extra heads add some work to the products; they add none there: only the softmax "
                               "runs over h · n² weights instead of n²"),
            _COST_OPTIONS[3]: "narrower heads are cheaper; each one is, but there are h of them",
        },
    ),
]
