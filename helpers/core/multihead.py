"""Multi-head attention layer by layer (notebook 10's math): every tensor's shape, the stages, and the cost.

* :func:`multi_head_shapes` lists the shape of every tensor of one multi-head layer for a batch (the lesson's Q1).
* :func:`multi_head_cost` counts the multiply-adds of a layer: the same for every number of heads.
* :func:`rotary_example` is the query and key whose rotated score the rotary section follows.
* :func:`multi_head_stages` computes every stage of one layer on one example (Q, K, V, each head's weights and
  output, the concatenation, the output after W^O) once each, with the split and merge of
  :func:`helpers.core.attention.multi_head_attention`; the tests check it against that function.

The widgets that show them (the shapes table, the heads explorer) are in :mod:`helpers.demos.multihead`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import as_matrix, whole_number
from helpers.core.attention import merge_heads, softmax, split_heads
from helpers.core.efficiency import attention_cost

__all__ = [
    "MAX_SIZE",
    "divisors",
    "check_sizes",
    "multi_head_shapes",
    "multi_head_cost",
    "check_layer",
    "MultiHeadStages",
    "multi_head_stages",
    "rotary_example",
]

MAX_SIZE = 10**6  # a size beyond any real model's; keeps products like batch·h·n² readable


def divisors(d_model: int) -> list[int]:
    """The head counts a width ``d_model`` allows: every h with d_model % h == 0."""
    return [h for h in range(1, int(d_model) + 1) if d_model % h == 0]


def check_sizes(batch, heads, seq, d_model) -> None:
    """A ValueError unless every size is a whole number from 1 to :data:`MAX_SIZE` and ``heads`` divides ``d_model``."""
    for name, v in (("batch", batch), ("heads", heads), ("seq", seq), ("d_model", d_model)):
        whole_number(v, name, 1, MAX_SIZE)
    if d_model % heads:
        raise ValueError(f"heads = {heads} does not divide d_model = {d_model}: each head gets "
                         f"d_k = d_model / heads columns, so heads must be one of {divisors(d_model)[:12]}"
                         + (" ..." if len(divisors(d_model)) > 12 else ""))


def multi_head_shapes(batch: int, heads: int, seq: int, d_model: int) -> list[tuple[str, str, tuple]]:
    """The shape of every tensor of one multi-head self-attention layer, in the order they are computed.

    Parameters
    ----------
    batch, heads, seq, d_model : int, positive; ``heads`` must divide ``d_model``.

    Returns
    -------
    list of (name, how it is made, shape), e.g. ``("Q, K, V split into heads", "...", (8, 12, 20, 64))``.
    """
    check_sizes(batch, heads, seq, d_model)
    B, h, n, d = batch, heads, seq, d_model
    d_k = d // h
    return [
        ("X", "the tokens, one row each", (B, n, d)),
        ("W^Q, W^K, W^V", "learned; each head owns a block of d_k columns", (d, d)),
        ("Q, K, V", "X W^Q, X W^K, X W^V", (B, n, d)),
        ("Q, K, V split into heads", f"{h} heads of d_k = {d_k}; each head gets ({B}, {n}, {d_k})", (B, h, n, d_k)),
        ("scores, weights", "Q Kᵀ / √d_k, then softmax over the keys", (B, h, n, n)),
        ("head outputs", "weights · V", (B, h, n, d_k)),
        ("Concat(heads)", "heads side by side again", (B, n, h * d_k)),
        ("W^O", "learned", (h * d_k, d)),
        ("output", "Concat(heads) W^O", (B, n, d)),
    ]


def multi_head_cost(n: int, d_model: int, h: int) -> dict[str, int]:
    """Multiply-adds of one multi-head self-attention layer on ``n`` tokens (one sequence).

    A product of an (a × b) and a (b × c) matrix is a·b·c multiply-adds.

    Returns
    -------
    dict: ``"projections"`` (X W^Q, X W^K, X W^V: 3·n·d_model²), ``"scores"`` (h heads × n·n·d_k),
    ``"weighted sums"`` (h × n·n·d_k), ``"W^O"`` (n·d_model²) and ``"total"``. Since h·d_k = d_model,
    nothing but the split depends on h: the total is that of one head of width d_model.
    """
    check_sizes(1, h, n, d_model)
    head = attention_cost(n, d_model, d_model // h)   # one head of width d_k = d_model / h
    cost = {
        "projections": h * head["projections"],
        "scores": h * head["scores"],
        "weighted sums": h * head["weighted sum"],
        "W^O": n * d_model * d_model,
    }
    cost["total"] = sum(cost.values())
    return cost


def check_layer(X, W_q, W_k, W_v, W_o, h):
    """The arguments of one multi-head self-attention layer, checked.

    Parameters
    ----------
    X : array_like (n, d_model), finite
    W_q, W_k, W_v, W_o : array_like (d_model, d_model), finite
    h : int, the number of heads, a divisor of d_model

    Returns
    -------
    X : float ndarray (n, d_model);  weights : dict "W_q", "W_k", "W_v", "W_o" -> float ndarray (d_model, d_model)

    Raises
    ------
    ValueError
        Naming the argument that is not a finite matrix of its shape, or saying that h does not divide d_model.
    """
    X = as_matrix(X, "X", "(n, d_model)", finite=True)
    d_model = X.shape[1]
    weights = {}
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        W = as_matrix(W, name, "(d_model, d_model)", finite=True)
        if W.shape != (d_model, d_model):
            raise ValueError(f"{name} has shape {W.shape}; with X of shape {X.shape} it must be "
                             f"({d_model}, {d_model})")
        weights[name] = W
    if h not in divisors(d_model):
        raise ValueError(f"h = {h!r} does not divide d_model = {d_model}; choose one of {divisors(d_model)}")
    return X, weights


@dataclass
class MultiHeadStages:
    """Every stage of one multi-head self-attention layer on one example (n tokens, h heads of width d_k).

    Attributes
    ----------
    Q, K, V : ndarray (n, d_model), X W^Q, X W^K, X W^V
    weights : ndarray (h, n, n), each head's softmax(Q_i K_iᵀ / √d_k); each row sums to 1
    heads : ndarray (h, n, d_k), each head's weights · V_i
    concat : ndarray (n, d_model), the heads side by side again
    output : ndarray (n, d_model), concat · W^O
    cost : dict, the layer's multiply-adds (see :func:`multi_head_cost`)
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    weights: np.ndarray
    heads: np.ndarray
    concat: np.ndarray
    output: np.ndarray
    cost: dict


def multi_head_stages(X, W_q, W_k, W_v, W_o, h: int) -> MultiHeadStages:
    """The stages of :func:`helpers.core.attention.multi_head_attention` on ``X``, each computed once.

    Parameters
    ----------
    X : array_like (n, d_model);  W_q, W_k, W_v, W_o : array_like (d_model, d_model);  h : int dividing d_model

    Returns
    -------
    MultiHeadStages; its ``output`` and ``weights`` are multi_head_attention's.

    Raises
    ------
    ValueError
        For the arguments :func:`check_layer` refuses, and for values so large that Q, K, V, the scores or the
        output overflow: said in words, before the softmax would refuse the infinities.
    """
    X, W = check_layer(X, W_q, W_k, W_v, W_o, h)
    d_k = X.shape[1] // h
    with np.errstate(over="ignore", invalid="ignore"):
        Q, K, V = X @ W["W_q"], X @ W["W_k"], X @ W["W_v"]
        Qh, Kh, Vh = (split_heads(M, h) for M in (Q, K, V))      # (h, n, d_k) each
        scaled = Qh @ np.swapaxes(Kh, -1, -2) / np.sqrt(d_k)       # (h, n, n)
        finite = all(np.isfinite(M).all() for M in (Q, K, V, scaled))
    if not finite:
        raise ValueError("X: these values make Q, K, V or the scores too large to compute "
                         "(beyond about 1e308); use smaller entries")
    weights = softmax(scaled)                                      # each head's rows sum to 1
    with np.errstate(over="ignore", invalid="ignore"):
        heads = weights @ Vh                                       # (h, n, d_k)
        concat = merge_heads(heads)                                # (n, d_model)
        output = concat @ W["W_o"]
    if not np.isfinite(output).all():
        raise ValueError("X: these values make the output too large to compute; use smaller entries")
    return MultiHeadStages(Q=Q, K=K, V=V, weights=weights, heads=heads, concat=concat, output=output,
                           cost=multi_head_cost(X.shape[0], X.shape[1], h))


def rotary_example(d: int = 8, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """One query and one key, (d,) each, drawn from a seeded standard normal (query first): the pair whose score
    11_positions follows as rotary positions move them."""
    d = whole_number(d, "d")
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=d)
