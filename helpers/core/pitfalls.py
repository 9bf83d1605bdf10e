"""Why scores are divided by √d_k, and why softmax subtracts the maximum (notebook 08's math).

* :func:`saturation` draws one query against a few keys and measures how peaked its softmax is (largest weight,
  entropy, the size of the softmax gradient); :func:`saturation_table` averages that over many rows, with and
  without the division by √d_k.
* :func:`naive_softmax` is the textbook softmax without the max trick, which overflows to ``nan``;
  :func:`parse_scores` reads a row of scores as the learner types it.
* :func:`running_example` is the notebook's four-token example; :func:`saturated_query` the saturation demo's
  query and keys as matrices, for the design task; :data:`SHIFT` and :data:`LARGE_SCORES` the rows of the shift and
  overflow experiments.

They return plain numbers and arrays; the two demos of :mod:`helpers.demos.pitfalls` only display them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import whole_number
from helpers.core.attention import softmax
from helpers.core.parsing import parse_numbers

__all__ = [
    "MAX_D_K",
    "SHIFT",
    "LARGE_SCORES",
    "running_example",
    "saturated_query",
    "check_d_k",
    "entropy",
    "softmax_jacobian_norm",
    "Saturation",
    "saturation",
    "saturation_table",
    "naive_softmax",
    "parse_scores",
]

MAX_D_K = 512
SHIFT = 1000.0  # the constant added to a whole row of scores in the shift-invariance experiment
LARGE_SCORES = (1000.0, 999.0, 998.0)  # a row whose textbook softmax overflows


def running_example():
    """The notebook's running example: four tokens and small seeded integers.

    Returns
    -------
    tokens : tuple of str, 4 tokens
    X : ndarray (4, 4), (n, d_model)
    W_q, W_k, W_v : ndarray (4, 2) each, (d_model, d_k) and (d_model, d_v)
    """
    rng = np.random.default_rng(6)
    X = rng.integers(-2, 3, size=(4, 4)).astype(float)
    W_q, W_k, W_v = (rng.integers(-1, 2, size=(4, 2)).astype(float) for _ in range(3))
    return ("the", "cat", "sat", "down"), X, W_q, W_k, W_v


def check_d_k(d_k) -> int:
    """``d_k`` as an int if it is a whole number of at least 1 (a bool is not), else a ValueError."""
    d_k = whole_number(d_k, "d_k")
    return int(d_k)


def entropy(p) -> float:
    """Entropy in nats of a probability vector ``p`` (0·log 0 counts as 0)."""
    p = np.asarray(p, dtype=float)
    nz = p[p > 0]
    return float(-(nz * np.log(nz)).sum())


def softmax_jacobian_norm(p) -> float:
    """Frobenius norm of the softmax Jacobian ``diag(p) - p pᵀ`` at weights ``p``.

    It measures how much the weights can still move when the scores move: it is
    largest for uniform weights and falls to 0 as one weight goes to 1 (saturation).
    """
    p = np.asarray(p, dtype=float).ravel()
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


def _draw(d_k: int, n_keys: int, seed: int):
    # Draw at the full width and keep the first d_k columns, so that going
    # from d_k to d_k + 1 adds one dimension to the same q and K instead of redrawing.
    rng = np.random.default_rng(seed)
    full = rng.standard_normal((n_keys + 1, max(d_k, MAX_D_K)))
    return full[0, :d_k], full[1:, :d_k]


@dataclass
class Saturation:
    """One query's scores and weights, and how saturated its softmax is (what :func:`saturation` returns).

    Attributes
    ----------
    q : ndarray (d_k,);  K : ndarray (n_keys, d_k)
    scores : ndarray (n_keys,), ``K q``, divided by sqrt(d_k) when scaled
    weights : ndarray (n_keys,), the softmax of ``scores``
    max_weight : float, the largest weight
    entropy : float, of the weights in nats (uniform would be ln n_keys)
    grad_norm : float, :func:`softmax_jacobian_norm` of the weights
    """

    q: np.ndarray
    K: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    max_weight: float
    entropy: float
    grad_norm: float


def saturation(d_k: int, scale: bool = True, n_keys: int = 8, seed: int = 0) -> Saturation:
    """One query against ``n_keys`` keys, all entries drawn from N(0, 1) (seeded).

    Going from ``d_k`` to ``d_k + 1`` keeps the same draws and adds one dimension (up to :data:`MAX_D_K`).

    Returns
    -------
    Saturation with ``q`` (d_k,), ``K`` (n_keys, d_k), ``scores`` and ``weights`` (n_keys,) and the three
    measures of how peaked the weights are
    """
    d_k = check_d_k(d_k)
    n_keys = whole_number(n_keys, "n_keys")
    q, K = _draw(d_k, int(n_keys), seed)
    scores = K @ q
    if scale:
        scores = scores / math.sqrt(d_k)
    w = softmax(scores)
    return Saturation(
        q=q,
        K=K,
        scores=scores,
        weights=w,
        max_weight=float(w.max()),
        entropy=entropy(w),
        grad_norm=softmax_jacobian_norm(w),
    )


def saturated_query(d_k: int = MAX_D_K, n_keys: int = 8, seed: int = 0):
    """The query and keys of :func:`saturation` as matrices: ``q`` (1, d_k) and ``K`` (n_keys, d_k).

    The scores are ``q @ K.T`` (1, n_keys), not scaled; at the default d_k = 512 their softmax is saturated.
    """
    r = saturation(d_k, scale=False, n_keys=n_keys, seed=seed)
    return r.q[None, :].copy(), r.K.copy()


def saturation_table(d_ks=(1, 4, 16, 64, 256, 512), n_rows: int = 1000, n_keys: int = 8, seed: int = 0):
    """Average saturation over many random rows, with and without scaling.

    Returns
    -------
    list of dicts, one per d_k, with ``d_k``, ``std_raw`` (the spread of the unscaled scores, about √d_k),
    ``max_raw``, ``max_scaled`` (mean largest weight per row) and ``grad_raw``, ``grad_scaled`` (mean
    :func:`softmax_jacobian_norm`).
    """
    d_ks = tuple(check_d_k(d_k) for d_k in d_ks)
    # Fresh dicts each call (a caller may change them); the draws are made once per process (6.8 million normals:
    # the notebook's cell, its prediction's truth and the tests all ask for the same table).
    draw = _saturation_rows if isinstance(seed, int) else _saturation_rows.__wrapped__  # seed=None: new draws
    return [dict(row) for row in draw(d_ks, int(n_rows), int(n_keys), seed)]


@functools.lru_cache(maxsize=8)
def _saturation_rows(d_ks: tuple, n_rows: int, n_keys: int, seed) -> tuple[dict, ...]:
    rng = np.random.default_rng(seed)
    rows = []
    for d_k in d_ks:
        q = rng.standard_normal((n_rows, 1, d_k))
        K = rng.standard_normal((n_rows, n_keys, d_k))
        raw = np.sum(q * K, axis=-1)  # (n_rows, n_keys)
        entry = {"d_k": d_k, "std_raw": float(raw.std())}
        for tag, s in (("raw", raw), ("scaled", raw / math.sqrt(d_k))):
            w = softmax(s, axis=-1)
            # Frobenius norm of diag(p) - p pᵀ, for every row at once.
            jac = np.einsum("ri,ij->rij", w, np.eye(n_keys)) - w[:, :, None] * w[:, None, :]
            entry[f"max_{tag}"] = float(w.max(axis=-1).mean())
            entry[f"grad_{tag}"] = float(np.linalg.norm(jac, axis=(1, 2)).mean())
        rows.append(entry)
    return tuple(rows)


def naive_softmax(x) -> np.ndarray:
    """The textbook ``exp(x) / sum(exp(x))`` without the max trick.

    Overflow is silenced (``np.errstate``) so the result can be shown: a score above
    about 709 makes ``exp`` return ``inf`` and ``inf / inf`` is ``nan``.
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)


def parse_scores(text: str) -> np.ndarray:
    """The scores typed into the overflow demo: ``"1000, 999, 998"`` -> a 1-D float array.

    Read by :func:`helpers.core.parsing.parse_numbers`: commas followed by a space, spaces or
    semicolons separate; ``"1,5"`` is refused with a hint (a decimal comma), not split.

    Raises
    ------
    ValueError
        Starting with "scores: " and naming the entry that is not a finite number, or
        saying the row is empty.
    """
    try:
        return np.array(parse_numbers(text, "score"))
    except ValueError as err:
        raise ValueError(f"scores: {err}") from None
