"""Scaled dot-product attention, written out in numpy.

Every function here is pure numpy: no widgets, no plotting. The notebooks show the
same computations step by step; these functions are the reference they are checked
against.

Conventions (the same in every notebook):

* ``X``   (..., n, d_model)   one row per token
* ``W_q``, ``W_k`` (d_model, d_k);  ``W_v`` (d_model, d_v)
* ``Q`` (..., n_q, d_k), ``K`` (..., n_k, d_k), ``V`` (..., n_k, d_v)
* ``weights`` (..., n_q, n_k): row i is how query i spreads its attention over the keys
* boolean masks: ``True`` where the query *may* attend to the key
"""

from __future__ import annotations

import numpy as np

from helpers.core.arrays import as_float_array as _as_float_array, require_ndim as _require_ndim, whole_number

# The masks live in helpers.core.masks (math several notebooks share); they stay importable from here.
from helpers.core.masks import causal_mask, padding_mask

__all__ = [
    "softmax",
    "project_qkv",
    "attention_scores",
    "scaled_dot_product_attention",
    "AttentionResult",
    "attention_stages",
    "causal_mask",
    "padding_mask",
    "additive_mask",
    "head_dim",
    "split_heads",
    "merge_heads",
    "online_softmax_step",
    "flash_attention",
    "multi_head_attention",
    "sinusoidal_positions",
    "rotary_embedding",
    "grouped_query_attention",
]


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Parameters
    ----------
    x : array_like
        Scores of any shape. ``-inf`` entries are allowed and get weight exactly 0
        (that is how masked keys are dropped).
    axis : int
        The axis that sums to 1 (default: the last one, i.e. over the keys).

    Returns
    -------
    ndarray, same shape as ``x``; every slice along ``axis`` sums to 1.

    Raises
    ------
    ValueError
        If ``x`` holds NaN or ``+inf``, or a slice along ``axis`` is all ``-inf``
        (nothing to attend to), saying where.
    """
    x = _as_float_array(x, "x")
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension; got a scalar")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {x.shape}")
    axis %= x.ndim
    if np.isnan(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(x))[0])
        raise ValueError(f"x contains NaN at index {where} (x shape {x.shape}); softmax of NaN is undefined")
    if np.isposinf(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isposinf(x))[0])
        raise ValueError(f"x contains +inf at index {where} (x shape {x.shape}); softmax of +inf is undefined")
    if x.shape[axis] == 0:
        raise ValueError(f"x has no entries along axis {axis} (x shape {x.shape})")
    all_masked = np.all(np.isneginf(x), axis=axis)
    if all_masked.any():
        if x.ndim == 1:
            place = "every entry of x is -inf"
        else:
            where = tuple(int(i) for i in np.argwhere(all_masked)[0])
            place = f"every entry of x along axis {axis} is -inf at index {where}"
        raise ValueError(
            f"{place} (x shape {x.shape}): that slice has nothing to attend to, "
            "so its weights cannot sum to 1"
        )
    # Subtracting the maximum changes nothing mathematically (softmax is shift
    # invariant) but keeps exp() from overflowing for large scores.
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)  # exp(-inf) == 0: masked keys drop out
    return exps / np.sum(exps, axis=axis, keepdims=True)


def project_qkv(X, W_q, W_k, W_v):
    """Project token vectors into queries, keys and values.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    W_q, W_k : array_like, shape (d_model, d_k)
    W_v : array_like, shape (d_model, d_v)

    Returns
    -------
    Q : ndarray (..., n, d_k)
    K : ndarray (..., n, d_k)
    V : ndarray (..., n, d_v)
    """
    X = _check_tokens_matrix(X, "X")
    W_q, W_k, W_v = _check_weights(W_q, W_k, W_v, X, "X")
    return X @ W_q, X @ W_k, X @ W_v


def _check_tokens_matrix(X, name: str) -> np.ndarray:
    X = _as_float_array(X, name)
    _require_ndim(X, name, 2, "(..., n, d_model)")
    return X


def _check_weights(W_q, W_k, W_v, X, x_name: str):
    """The three projection matrices as float arrays that fit ``X`` (named ``x_name`` in messages)."""
    weights = {}
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        W = _as_float_array(W, name)
        if W.ndim != 2:
            raise ValueError(f"{name} must have shape (d_model, d); got shape {W.shape}")
        if W.shape[0] != X.shape[-1]:
            raise ValueError(
                f"{x_name} has shape {X.shape} (d_model = {X.shape[-1]}) but {name} has shape {W.shape}: "
                f"{name} needs {X.shape[-1]} rows, one per input dimension"
            )
        weights[name] = W
    if weights["W_q"].shape[1] != weights["W_k"].shape[1]:
        raise ValueError(
            f"W_q has shape {weights['W_q'].shape} and W_k has shape {weights['W_k'].shape}: "
            "queries and keys must have the same width d_k so that Q K^T is defined"
        )
    return weights["W_q"], weights["W_k"], weights["W_v"]


def _check_qkv(Q, K, V):
    Q = _as_float_array(Q, "Q")
    K = _as_float_array(K, "K")
    V = _as_float_array(V, "V")
    _require_ndim(Q, "Q", 2, "(..., n_q, d_k)")
    _require_ndim(K, "K", 2, "(..., n_k, d_k)")
    _require_ndim(V, "V", 2, "(..., n_k, d_v)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"Q has shape {Q.shape} and K has shape {K.shape}: their last dimensions (d_k) must match "
            "for the dot products Q K^T"
        )
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"K has shape {K.shape} and V has shape {V.shape}: they need the same number of rows "
            "(one key and one value per attended token)"
        )
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch dimensions of Q {Q.shape}, K {K.shape} and V {V.shape} do not broadcast"
        ) from None
    return Q, K, V


def attention_scores(Q, K, scale: bool = True) -> np.ndarray:
    """Scores ``Q K^T`` (divided by ``sqrt(d_k)`` when ``scale``), shape (..., n_q, n_k)."""
    Q, K, _ = _check_qkv(Q, K, K)
    scores = Q @ np.swapaxes(K, -1, -2)
    if scale:
        scores = scores / np.sqrt(Q.shape[-1])
    return scores


def scaled_dot_product_attention(Q, K, V, mask=None, scale: bool = True):
    """softmax(Q K^T / sqrt(d_k)) V, optionally masked.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
    K : array_like, shape (..., n_k, d_k)
    V : array_like, shape (..., n_k, d_v)
    mask : bool array_like, broadcastable to (..., n_q, n_k), optional
        ``True`` where query i may attend to key j. Blocked scores become ``-inf``
        before the softmax, so blocked keys get weight exactly 0.
    scale : bool
        Divide the scores by ``sqrt(d_k)`` (default). ``False`` uses raw dot products.

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
    weights : ndarray, shape (..., n_q, n_k); each row sums to 1.

    Raises
    ------
    ValueError
        On mismatched shapes, a non-boolean mask, or a query whose mask blocks every key.
    """
    Q, K, V = _check_qkv(Q, K, V)
    scores = attention_scores(Q, K, scale=scale)
    if mask is not None:
        scores = np.where(_check_mask(mask, scores.shape), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def _check_mask(mask, shape) -> np.ndarray:
    """``mask`` broadcast to the scores' ``shape`` (..., n_q, n_k), or a ValueError saying what is wrong."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(
            f"mask must be boolean (True = may attend); got dtype {mask.dtype} with shape {mask.shape}. "
            "An additive mask of 0 / -inf is a different convention: pass `additive == 0` instead"
        )
    try:
        full = np.broadcast_to(mask, shape)
    except ValueError:
        raise ValueError(
            f"mask has shape {mask.shape}, which does not broadcast to the scores' shape "
            f"{tuple(shape)} (..., n_q, n_k)"
        ) from None
    empty_rows = ~full.any(axis=-1)
    if empty_rows.any():
        where = tuple(int(i) for i in np.argwhere(empty_rows)[0])
        raise ValueError(
            f"mask blocks every key for query row {where[-1]} (index {where} of the mask's "
            f"(..., n_q) rows, mask shape {mask.shape}): that query has nothing to attend to"
        )
    return full


class AttentionResult:
    """Every stage of one attention computation (see :func:`attention_stages`).

    Attributes
    ----------
    Q : ndarray (..., n_q, d_k), ``X_q W_q``
    K : ndarray (..., n_k, d_k), ``X_kv W_k``
    V : ndarray (..., n_k, d_v), ``X_kv W_v``
    scores : ndarray (..., n_q, n_k), ``Q K^T``
    scaled : ndarray (..., n_q, n_k), ``scores / sqrt(d_k)`` (a copy of ``scores`` when scaling is off)
    mask : ndarray of bool (..., n_q, n_k), True where the query may attend (all True without a mask)
    masked : ndarray (..., n_q, n_k), ``scaled`` with ``-inf`` where the mask blocks
    weights : ndarray (..., n_q, n_k), softmax of ``masked`` along the keys; rows sum to 1
    output : ndarray (..., n_q, d_v), ``weights @ V``
    """

    __slots__ = ("Q", "K", "V", "scores", "scaled", "mask", "masked", "weights", "output")

    def __init__(self, **stages):
        missing = [k for k in self.__slots__ if k not in stages]
        if missing:
            raise ValueError(f"AttentionResult needs every stage; missing {missing}")
        for k in self.__slots__:
            setattr(self, k, stages[k])

    def __repr__(self) -> str:
        n_q, n_k = self.weights.shape[-2:]
        return f"AttentionResult(n_q={n_q}, n_k={n_k}, d_k={self.Q.shape[-1]}, d_v={self.V.shape[-1]})"



def _require_finite(M: np.ndarray, what: str) -> None:
    if not np.isfinite(M).all():
        raise ValueError(f"{what} overflowed (numbers too large to compute with): use smaller entries")


def attention_stages(X_q, X_kv, W_q, W_k, W_v, mask=None, scale: bool = True) -> AttentionResult:
    """Every stage of (cross- or self-) attention, each computed once.

    Parameters
    ----------
    X_q : array_like, shape (..., n_q, d_model)
        The tokens that ask: the queries come from here (the decoder in cross-attention).
    X_kv : array_like, shape (..., n_k, d_model), or None
        The tokens that are looked at: keys and values come from here (the encoder in
        cross-attention). ``None`` means ``X_q`` (self-attention).
    W_q, W_k : array_like, shape (d_model, d_k)
    W_v : array_like, shape (d_model, d_v)
    mask : None, "causal" or bool array_like broadcastable to (..., n_q, n_k)
        ``True`` where query i may attend to key j. ``"causal"`` is :func:`causal_mask`
        and needs ``n_q == n_k``.
    scale : bool
        Divide the scores by ``sqrt(d_k)`` (default).

    Returns
    -------
    AttentionResult
        ``Q, K, V, scores, scaled, mask, masked, weights, output`` with the shapes listed there.

    Raises
    ------
    ValueError
        On mismatched shapes (naming the arguments), a causal mask with ``n_q != n_k``, a
        mask that leaves a query nothing to attend to, or numbers so large that Q, K, V,
        the scores or the output are not finite (saying which, and to use smaller entries).
    """
    X_q = _check_tokens_matrix(X_q, "X_q")
    X_kv = X_q if X_kv is None else _check_tokens_matrix(X_kv, "X_kv")
    if X_kv.shape[-1] != X_q.shape[-1]:
        raise ValueError(f"X_q has shape {X_q.shape} and X_kv has shape {X_kv.shape}: both need the same d_model")
    W_q, W_k, W_v = _check_weights(W_q, W_k, W_v, X_q, "X_q")
    for name, M in (("X_q", X_q), ("X_kv", X_kv), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if not np.isfinite(M).all():
            raise ValueError(f"{name} must hold finite numbers (no NaN or inf)")
    if W_q.shape[1] == 0:
        raise ValueError(f"W_q has shape {W_q.shape}: d_k must be at least 1")
    with np.errstate(over="ignore", invalid="ignore"):
        Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
        for name, M in (("Q", Q), ("K", K), ("V", V)):
            _require_finite(M, name)
        scores = Q @ np.swapaxes(K, -1, -2)
        _require_finite(scores, "the scores")
        scaled = scores / np.sqrt(Q.shape[-1]) if scale else scores.copy()
    n_q, n_k = scores.shape[-2:]
    if mask is None:
        full = np.ones(scores.shape, dtype=bool)
    elif isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f'mask must be None, "causal" or a boolean array; got {mask!r}')
        if n_q != n_k:
            raise ValueError(f"a causal mask needs as many queries as keys; got {n_q} queries and {n_k} keys")
        full = np.broadcast_to(causal_mask(n_q), scores.shape).copy()
    else:
        full = _check_mask(mask, scores.shape).copy()
    masked = np.where(full, scaled, -np.inf)
    weights = softmax(masked, axis=-1)
    with np.errstate(over="ignore", invalid="ignore"):
        output = weights @ V
    _require_finite(output, "the output")
    return AttentionResult(Q=Q, K=K, V=V, scores=scores, scaled=scaled, mask=full, masked=masked,
                           weights=weights, output=output)


def additive_mask(mask) -> np.ndarray:
    """Turn a boolean "may attend" mask into the additive form: 0 where allowed, -inf where blocked."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(f"mask must be boolean (True = may attend); got dtype {mask.dtype}")
    return np.where(mask, 0.0, -np.inf)


def head_dim(d_model: int, h: int) -> int:
    """Per-head width d_k = d_model / h (e.g. 512 / 8 = 64)."""
    for name, value in (("d_model", d_model), ("h", h)):
        whole_number(value, name)
    if d_model % h:
        raise ValueError(f"d_model = {d_model} is not divisible by h = {h} heads")
    return d_model // h


def split_heads(X, h: int) -> np.ndarray:
    """Split the model dimension into ``h`` heads.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    h : int, number of heads; must divide d_model

    Returns
    -------
    ndarray, shape (..., h, n, d_model // h); head ``k`` holds columns
    ``k*d_k:(k+1)*d_k`` of ``X``.
    """
    X = _as_float_array(X, "X")
    _require_ndim(X, "X", 2, "(..., n, d_model)")
    h = whole_number(h, "h")
    if X.shape[-1] % h:
        raise ValueError(f"X has shape {X.shape}: d_model = {X.shape[-1]} is not divisible by h = {h} heads")
    *lead, n, d_model = X.shape
    return np.swapaxes(X.reshape(*lead, n, h, d_model // h), -3, -2)


def merge_heads(Xh) -> np.ndarray:
    """Inverse of :func:`split_heads`: (..., h, n, d_k) -> (..., n, h * d_k)."""
    Xh = _as_float_array(Xh, "Xh")
    _require_ndim(Xh, "Xh", 3, "(..., h, n, d_k)")
    *lead, h, n, d_k = Xh.shape
    return np.swapaxes(Xh, -3, -2).reshape(*lead, n, h * d_k)


# ---------------------------------------------------------------------------------
# FlashAttention (Dao et al. 2022, Algorithm 1): the same output, one tile of keys at a time
# ---------------------------------------------------------------------------------


def online_softmax_step(m, l, o, scores_block, V_block):
    """Fold one block of keys into the running softmax state of every query (one FlashAttention step).

    Parameters
    ----------
    m : ndarray (n_q,)
        Running maximum of the scores seen so far (``-inf`` before the first block).
    l : ndarray (n_q,)
        Running sum of ``exp(score - m)`` (0 before the first block).
    o : ndarray (n_q, d_v)
        Running *unnormalised* output, the sum of ``exp(score - m) * v`` (0 before the first block).
    scores_block : ndarray (n_q, b)
        The already-scaled scores of the next ``b`` keys; ``-inf`` where the mask blocks.
    V_block : ndarray (b, d_v)
        The values of those keys.

    Returns
    -------
    m_new, l_new, o_new : the state after the block, shapes as ``m``, ``l``, ``o``. After the last
    block, ``o / l[:, None]`` is the attention output.
    """
    m_new = np.maximum(m, np.max(scores_block, axis=1))
    # A query whose keys so far are all masked still has m_new = -inf: shift by 0 instead, so that
    # exp(-inf - 0) = 0 rather than exp(-inf + inf) = nan. Its l and o stay 0.
    shift = np.where(np.isneginf(m_new), 0.0, m_new)
    # The rescaling step: the old sums were taken relative to the old maximum m; relative to
    # m_new every old term is smaller by the factor exp(m - m_new) (<= 1, so nothing overflows).
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift[:, None])  # (n_q, b), every entry <= 1
    l_new = alpha * l + p.sum(axis=1)
    o_new = alpha[:, None] * o + p @ V_block
    return m_new, l_new, o_new


def _check_flash_args(Q, K, V, block_size, mask):
    Q = _as_float_array(Q, "Q")
    K = _as_float_array(K, "K")
    V = _as_float_array(V, "V")
    for name, M, layout in (("Q", Q, "(n_q, d_k)"), ("K", K, "(n_k, d_k)"), ("V", V, "(n_k, d_v)")):
        if M.ndim != 2:
            raise ValueError(f"{name} must have shape {layout} (flash_attention takes one head, no batch); "
                             f"got shape {M.shape}")
        if 0 in M.shape[:1]:
            raise ValueError(f"{name} has shape {M.shape}: it needs at least one row")
    Q, K, V = _check_qkv(Q, K, V)
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if not np.isfinite(M).all():
            raise ValueError(f"{name} must hold finite numbers (no NaN or inf); {name} shape {M.shape}")
    block_size = whole_number(block_size, "block_size (keys per tile)")
    if mask is not None:
        # A view (no copy) of shape (n_q, n_k); also refuses a query row with nothing to attend to,
        # with the same message as scaled_dot_product_attention.
        mask = _check_mask(mask, (Q.shape[0], K.shape[0]))
    return Q, K, V, int(block_size), mask


def flash_attention(Q, K, V, block_size: int = 64, mask=None) -> np.ndarray:
    """softmax(Q K^T / sqrt(d_k)) V computed one tile of keys at a time, never forming the n_q x n_k scores.

    Dao et al. (2022), Algorithm 1, with every query in one tile: for each block of ``block_size``
    keys, compute that block's scores, update each query's running maximum ``m`` and running sum
    ``l`` of ``exp(score - m)``, rescale the running output by ``exp(m_old - m_new)`` and add the
    block's contribution (:func:`online_softmax_step`). The result is exact (equal to
    :func:`scaled_dot_product_attention` up to rounding), and the extra memory is one
    (n_q, block_size) tile instead of the (n_q, n_k) matrix.

    Parameters
    ----------
    Q : array_like (n_q, d_k)
    K : array_like (n_k, d_k)
    V : array_like (n_k, d_v)
    block_size : int
        Keys per tile (the last tile may be shorter).
    mask : bool array_like broadcastable to (n_q, n_k), optional
        ``True`` where the query may attend to the key, as in :func:`scaled_dot_product_attention`.

    Returns
    -------
    output : ndarray (n_q, d_v)

    Raises
    ------
    ValueError
        On shapes that do not fit (naming the arguments and shapes), non-finite Q, K or V, a
        ``block_size`` that is not a positive integer, a non-boolean mask, a query whose mask
        blocks every key (the same message as :func:`scaled_dot_product_attention`), or scores so
        large that they overflow to infinity.
    """
    Q, K, V, b, mask = _check_flash_args(Q, K, V, block_size, mask)
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    root_d_k = np.sqrt(d_k)
    m = np.full(n_q, -np.inf)          # running max per query
    l = np.zeros(n_q)                  # running sum of exp(score - m) per query
    o = np.zeros((n_q, d_v))           # running unnormalised output per query
    for start in range(0, n_k, b):
        stop = min(start + b, n_k)
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused just below, in words
            S = (Q @ K[start:stop].T) / root_d_k     # (n_q, b): one tile, never the whole matrix
        if not np.isfinite(S).all():
            raise ValueError(f"the scores of keys {start}..{stop - 1} overflow (Q {Q.shape}, K {K.shape}): "
                             "use smaller entries")
        if mask is not None:
            S = np.where(mask[:, start:stop], S, -np.inf)
        m, l, o = online_softmax_step(m, l, o, S, V[start:stop])
    return o / l[:, None]



def multi_head_attention(X, W_q, W_k, W_v, W_o, h: int, mask=None):
    """Multi-head self-attention (Vaswani et al. 2017, section 3.2.2), head by head.

    ``Q = X W_q``, ``K = X W_k``, ``V = X W_v`` are each split by columns into ``h`` heads
    of width ``d_k = d_model / h`` (head ``i`` takes columns ``i*d_k:(i+1)*d_k``, as
    :func:`split_heads`); each head runs ``softmax(Q_i K_i^T / sqrt(d_k)) V_i``; the head
    outputs are concatenated in head order (:func:`merge_heads`) and multiplied by ``W_o``.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    W_q, W_k, W_v, W_o : array_like, shape (d_model, d_model)
    h : int
        Number of heads; must divide d_model.
    mask : bool array_like, broadcastable to (..., h, n, n), optional
        ``True`` where query i may attend to key j; an (n, n) mask applies to every head.

    Returns
    -------
    output : ndarray, shape (..., n, d_model), ``Concat(head_1, ..., head_h) W_o``
    weights : ndarray, shape (..., h, n, n); ``weights[..., i, :, :]`` is head i's attention.

    Raises
    ------
    ValueError
        If ``h`` is not a positive integer dividing d_model, or a matrix has the wrong shape
        (naming it and its shape), or the mask is not boolean or does not broadcast.
    """
    X = _check_tokens_matrix(X, "X")
    d_model = X.shape[-1]
    h = whole_number(h, "h (the number of heads)")
    if d_model % h:
        raise ValueError(
            f"h = {h} heads do not divide d_model = {d_model} (X has shape {X.shape}): "
            f"each head needs d_k = d_model / h columns; h must be one of "
            f"{[k for k in range(1, d_model + 1) if d_model % k == 0]}"
        )
    mats = {}
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        W = _as_float_array(W, name)
        if W.shape != (d_model, d_model):
            raise ValueError(
                f"{name} has shape {W.shape} but X has shape {X.shape}: {name} must be "
                f"(d_model, d_model) = ({d_model}, {d_model})"
            )
        mats[name] = W
    # One projection of full width, then a split by columns: the same numbers as h separate
    # (d_model, d_k) matrices, because column block i of X W is X times column block i of W.
    Qh = split_heads(X @ mats["W_q"], h)   # (..., h, n, d_k)
    Kh = split_heads(X @ mats["W_k"], h)
    Vh = split_heads(X @ mats["W_v"], h)
    heads, weights = scaled_dot_product_attention(Qh, Kh, Vh, mask=mask)   # scaled by 1/sqrt(d_k)
    return merge_heads(heads) @ mats["W_o"], weights


def sinusoidal_positions(n: int, d: int) -> np.ndarray:
    """The fixed sinusoidal position table of Vaswani et al. 2017, section 3.5.

    ``PE[p, 2i] = sin(p / 10000^(2i/d))`` and ``PE[p, 2i+1] = cos(p / 10000^(2i/d))``:
    column pair ``(2i, 2i+1)`` is one sine/cosine pair turning at angular speed
    ``10000^(-2i/d)`` per position, fast in the first columns, slow in the last.

    Parameters
    ----------
    n : int
        Number of positions (rows), p = 0 .. n-1.
    d : int
        Width (columns), normally d_model so that the table can be added to X.
        An odd ``d`` is allowed: its last column ``d - 1 = 2i`` is a sine whose
        cosine partner would be column ``d``, which does not exist, so it has no pair.

    Returns
    -------
    ndarray, shape (n, d). For even ``d`` every row has norm ``sqrt(d / 2)`` (each pair adds
    sin² + cos² = 1), and ``PE[p] · PE[p + k] = sum_i cos(k / 10000^(2i/d))`` depends only on
    the offset ``k``.
    """
    for name, value in (("n", n), ("d", d)):
        whole_number(value, name)
    p = np.arange(int(n), dtype=float)[:, None]            # (n, 1)
    two_i = np.arange(0, int(d), 2, dtype=float)[None, :]   # (1, ceil(d / 2)): the even columns 2i
    angles = p / 10000.0 ** (two_i / d)                     # (n, ceil(d / 2))
    PE = np.zeros((int(n), int(d)))
    PE[:, 0::2] = np.sin(angles)
    PE[:, 1::2] = np.cos(angles[:, : int(d) // 2])          # odd d: the last sine has no cosine
    return PE


def rotary_embedding(x, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding (RoPE, Su et al. 2021): rotate each pair of columns by an angle that grows with
    the position.

    For a row at position ``p``, the pair ``(x[2i], x[2i+1])`` is turned by the angle ``p * base**(-2i/d)`` (the
    angles of :func:`sinusoidal_positions`):
    ``(x[2i] cos a - x[2i+1] sin a, x[2i] sin a + x[2i+1] cos a)``. Applied to queries and keys (not values), the
    score of a query rotated at ``p`` with a key rotated at ``r`` depends on the positions only through ``r - p``:
    ``R(p a)^T R(r a) = R((r - p) a)``. Rotations keep lengths, and position 0 is no rotation.

    Parameters
    ----------
    x : array_like, shape (..., n, d)
        Queries or keys, one row per token; ``d`` must be even (the columns come in pairs).
    positions : array_like, shape (n,) or broadcastable to (..., n), optional
        The position of each row (any real numbers). Default ``arange(n)``.
    base : float
        The base of the angles, positive (10000 in RoFormer and most models).

    Returns
    -------
    ndarray, same shape as ``x``.

    Raises
    ------
    ValueError
        If ``x`` has fewer than two dimensions or an odd last dimension, ``positions`` does not broadcast to
        ``x.shape[:-1]`` or is not finite, or ``base`` is not a positive number (naming the argument and its shape).
    """
    x = _as_float_array(x, "x")
    _require_ndim(x, "x", 2, "(..., n, d)")
    *lead, n, d = x.shape
    if d % 2:
        raise ValueError(f"x has shape {x.shape}: its last dimension d = {d} must be even, since rotary "
                         "embedding turns the columns in pairs (2i, 2i + 1)")
    if positions is None:
        positions = np.arange(n, dtype=float)
    else:
        positions = _as_float_array(positions, "positions")
        try:
            positions = np.broadcast_to(positions, x.shape[:-1])
        except ValueError:
            raise ValueError(f"positions has shape {positions.shape} but x has shape {x.shape}: positions needs "
                             f"one entry per row, shape ({n},) or broadcastable to {tuple(x.shape[:-1])}") from None
        if not np.isfinite(positions).all():
            raise ValueError(f"positions must be finite numbers; got shape {positions.shape} with NaN or inf")
    try:
        base = float(base)
    except (TypeError, ValueError):
        raise ValueError(f"base must be a positive number; got {base!r}") from None
    if not (np.isfinite(base) and base > 0):
        raise ValueError(f"base must be a positive number; got {base!r}")
    speeds = base ** (-np.arange(0, d, 2, dtype=float) / d)       # (d/2,): pair i turns by base^(-2i/d) per step
    angles = positions[..., None] * speeds                          # (..., n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]                          # (..., n, d/2) each: the two halves of each pair
    out = np.empty(x.shape)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _check_gqa(X, W_q, W_k, W_v, W_o, h, h_kv):
    """The arguments of :func:`grouped_query_attention` checked: (X as floats, {name: matrix}, h, h_kv, d_k), or
    a ValueError naming what does not fit."""
    X = _check_tokens_matrix(X, "X")
    d_model = X.shape[-1]
    h = whole_number(h, "h (the number of query heads)")
    h_kv = whole_number(h_kv, "h_kv (the number of key/value heads)")
    if d_model % h:
        raise ValueError(
            f"h = {h} query heads do not divide d_model = {d_model} (X has shape {X.shape}): each head needs "
            f"d_k = d_model / h columns; h must be one of {[k for k in range(1, d_model + 1) if d_model % k == 0]}"
        )
    if h % h_kv:
        raise ValueError(
            f"h_kv = {h_kv} key/value heads do not divide h = {h} query heads: the query heads come in h_kv "
            f"groups of equal size; h_kv must be one of {[k for k in range(1, h + 1) if h % k == 0]}"
        )
    d_k = d_model // h
    shapes = {"W_q": (d_model, d_model), "W_k": (d_model, h_kv * d_k), "W_v": (d_model, h_kv * d_k),
              "W_o": (d_model, d_model)}
    mats = {}
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        W = _as_float_array(W, name)
        if W.shape != shapes[name]:
            wanted = "(d_model, d_model)" if name in ("W_q", "W_o") else "(d_model, h_kv * d_k)"
            raise ValueError(
                f"{name} has shape {W.shape} but must be {wanted} = {shapes[name]} (X has shape {X.shape}, "
                f"h = {h}, h_kv = {h_kv}, d_k = {d_k})"
            )
        mats[name] = W
    return X, mats, h, h_kv, d_k


def grouped_query_attention(X, W_q, W_k, W_v, W_o, h: int, h_kv: int, mask=None):
    """Grouped-query attention (Ainslie et al. 2023): ``h`` query heads share ``h_kv`` key/value heads.

    ``Q = X W_q`` is split into ``h`` heads of width ``d_k = d_model / h``; ``K = X W_k`` and ``V = X W_v`` are
    split into ``h_kv`` heads of the same width. Query head ``i`` reads key/value head ``i // (h // h_kv)``: the
    query heads come in ``h_kv`` groups of ``h // h_kv`` consecutive heads, one key/value head per group. The head
    outputs are concatenated in head order and multiplied by ``W_o``, as in :func:`multi_head_attention`, which
    this is when ``h_kv = h``; ``h_kv = 1`` is multi-query attention (Shazeer 2019), one key/value head for all.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    W_q, W_o : array_like, shape (d_model, d_model)
    W_k, W_v : array_like, shape (d_model, h_kv * d_k), with d_k = d_model // h
    h : int
        Query heads; must divide d_model.
    h_kv : int
        Key/value heads; must divide ``h``.
    mask : bool array_like, broadcastable to (..., h, n, n), optional
        ``True`` where query i may attend to key j; an (n, n) mask applies to every head.

    Returns
    -------
    output : ndarray, shape (..., n, d_model)
    weights : ndarray, shape (..., h, n, n); ``weights[..., i, :, :]`` is query head i's attention.

    Raises
    ------
    ValueError
        If ``h`` does not divide d_model, ``h_kv`` does not divide ``h``, or a matrix has the wrong shape (naming
        it and its shape), or the mask is not boolean or does not broadcast.
    """
    X, mats, h, h_kv, d_k = _check_gqa(X, W_q, W_k, W_v, W_o, h, h_kv)
    Qh = split_heads(X @ mats["W_q"], h)           # (..., h, n, d_k)
    Kh = split_heads(X @ mats["W_k"], h_kv)        # (..., h_kv, n, d_k)
    Vh = split_heads(X @ mats["W_v"], h_kv)
    group = h // h_kv
    # Query head i reads key/value head i // group: repeat each key/value head for the `group` query heads it serves.
    Kh = np.repeat(Kh, group, axis=-3)             # (..., h, n, d_k)
    Vh = np.repeat(Vh, group, axis=-3)
    heads, weights = scaled_dot_product_attention(Qh, Kh, Vh, mask=mask)
    return merge_heads(heads) @ mats["W_o"], weights
