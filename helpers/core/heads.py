"""The math and data of 03_heads: "The cat sat" with two heads, every shape small enough to check by hand.

The layer has ``d_model = 4`` and ``h = 2`` heads of width ``d_k = d_model / h = 2``. Its ``W^Q``, ``W^K``, ``W^V``
are each (4, 4): head 1 owns columns 0 and 1, which are 02_projections' worked example (so head 1's weights are the
weights of 02), head 2 owns columns 2 and 3. ``W^O`` (4, 4) adds the two heads' outputs in its first two columns and
subtracts them in the last two. :func:`head_columns` takes one head's block of columns, :func:`heads_layer` runs the
layer head by head, every stage kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import as_matrix
from helpers.core.attention import softmax
from helpers.core.multihead import check_layer

__all__ = ["TOKENS", "H", "two_head_layer", "head_columns", "HeadsLayer", "heads_layer"]

TOKENS = ("The", "cat", "sat")
H = 2

# "The cat sat", (3, 4): the first three of the six tokens of 01 and 02.
_X = np.array([[1.0, 0.0, 0.0, 2.0],
               [2.0, 1.0, 0.0, 0.0],
               [0.0, 2.0, 1.0, 0.0]])
# Columns 0-1: 02's W^Q, W^K, W^V (head 1). Columns 2-3: head 2.
_W_Q = np.array([[0.0, 1.0, 1.0, 0.0],
                 [1.0, 0.0, -1.0, -1.0],
                 [1.0, 1.0, 0.0, 0.0],
                 [-1.0, -1.0, 0.0, 1.0]])
_W_K = np.array([[0.0, 0.0, 1.0, 0.0],
                 [0.0, 0.0, -1.0, 0.0],
                 [1.0, 0.0, 0.0, 0.0],
                 [1.0, -1.0, 0.0, 1.0]])
_W_V = np.array([[0.0, -1.0, 1.0, 0.0],
                 [1.0, 1.0, 0.0, 1.0],
                 [-1.0, -1.0, 0.0, 0.0],
                 [0.0, 1.0, 0.0, 0.0]])
# Output columns: head 1 + head 2 (two columns), then head 1 - head 2 (two columns).
_W_O = np.array([[1.0, 0.0, 1.0, 0.0],
                 [0.0, 1.0, 0.0, 1.0],
                 [1.0, 0.0, -1.0, 0.0],
                 [0.0, 1.0, 0.0, -1.0]])


def two_head_layer() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """03's example: ``X`` (3, 4) and ``W_q``, ``W_k``, ``W_v``, ``W_o``, each (4, 4), as new arrays.

    Returns
    -------
    (X, W_q, W_k, W_v, W_o)
        Head ``i`` (0-based) owns columns ``2i`` and ``2i + 1`` of ``W_q``, ``W_k``, ``W_v``.
    """
    return _X.copy(), _W_Q.copy(), _W_K.copy(), _W_V.copy(), _W_O.copy()


def head_columns(W, i: int, h: int) -> np.ndarray:
    """Head ``i``'s block of columns of ``W``: columns ``i*d_k`` to ``(i+1)*d_k - 1``, with ``d_k = d_model // h``.

    Parameters
    ----------
    W : array_like (d_model, d_model), or any (m, d_model) such as Q = XW^Q
    i : int, 0 ≤ i < h, the head (0-based)
    h : int, the number of heads; it must divide the number of columns

    Returns
    -------
    ndarray (m, d_k)

    Raises
    ------
    ValueError
        If ``h`` does not divide the number of columns, or ``i`` is not a head.
    """
    W = as_matrix(W, "W", "(m, d_model)")
    d_model = W.shape[1]
    if not isinstance(h, int) or isinstance(h, bool) or h < 1 or d_model % h:
        raise ValueError(f"h = {h!r} must be a whole number that divides the {d_model} columns of W")
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < h:
        raise ValueError(f"i = {i!r} is not a head: with h = {h} the heads are 0 to {h - 1}")
    d_k = d_model // h
    return W[:, i * d_k:(i + 1) * d_k].copy()


@dataclass
class HeadsLayer:
    """Every stage of one multi-head layer computed head by head (03_heads' loop).

    Attributes
    ----------
    Q, K, V : ndarray (n, d_model), X W^Q, X W^K, X W^V (all heads' columns)
    weights : list of h ndarrays (n, n), each head's softmax(Q_i K_iᵀ / √d_k)
    heads : list of h ndarrays (n, d_k), each head's weights · V_i
    concat : ndarray (n, h·d_k), the heads side by side in head order
    output : ndarray (n, d_model), concat · W^O
    residual : ndarray (n, d_model), X + output: what the next layer reads
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    weights: list
    heads: list
    concat: np.ndarray
    output: np.ndarray
    residual: np.ndarray


def heads_layer(X, W_q, W_k, W_v, W_o, h: int) -> HeadsLayer:
    """One multi-head self-attention layer, head by head, and the residual ``X + output``.

    Parameters
    ----------
    X : array_like (n, d_model)
    W_q, W_k, W_v, W_o : array_like (d_model, d_model)
    h : int, dividing d_model

    Returns
    -------
    HeadsLayer; its ``output`` and stacked ``weights`` are :func:`helpers.core.attention.multi_head_attention`'s.

    Raises
    ------
    ValueError
        For the arguments :func:`helpers.core.multihead.check_layer` refuses (shapes, non-finite entries, h).
    """
    X, W = check_layer(X, W_q, W_k, W_v, W_o, h)
    Q, K, V = X @ W["W_q"], X @ W["W_k"], X @ W["W_v"]
    d_k = X.shape[1] // h
    weights, heads = [], []
    for i in range(h):
        Q_i, K_i, V_i = (head_columns(M, i, h) for M in (Q, K, V))
        A_i = softmax(Q_i @ K_i.T / np.sqrt(d_k))
        weights.append(A_i)
        heads.append(A_i @ V_i)
    concat = np.concatenate(heads, axis=1)
    output = concat @ W["W_o"]
    return HeadsLayer(Q=Q, K=K, V=V, weights=weights, heads=heads, concat=concat, output=output,
                      residual=X + output)
