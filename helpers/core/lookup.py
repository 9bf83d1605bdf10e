"""A soft dictionary look-up: the search-engine picture of queries, keys and values.

A handful of "documents" each have a *key* (what the title is about, a small vector)
and a *value* (what the document contains, another vector). A *query* vector is
scored against every key with a dot product; the scores become weights, either

* hard: all weight on the best-scoring document (``argmax``), like a dictionary, or
* soft: ``softmax(scores / T)``, so every document contributes a little,

and the retrieved value is the weighted sum of the documents' values. Attention is
the soft version with ``T = sqrt(d_k)``.

:func:`lookup` is the math (pure numpy), with the small library of notebook 01 as data.
The live widget that shows it is in :mod:`helpers.demos.lookup`.
"""

from __future__ import annotations

import numpy as np

from helpers.core.arrays import as_matrix
from helpers.core.attention import softmax

__all__ = [
    "TITLES",
    "KEY_FEATURES",
    "KEYS",
    "VALUE_FEATURES",
    "VALUES",
    "QUERY",
    "check_temperature",
    "lookup",
]

# The small library used in notebook 01. Keys: how much each title is about
# animals / food / sport. Values: how often each content word appears in the text.
TITLES = ["Cat care", "Dog training", "Pasta recipes", "Football rules"]
KEY_FEATURES = ["animals", "food", "sport"]
KEYS = np.array(
    [
        [2.0, 0.5, 0.0],
        [1.5, 0.0, 1.0],
        [0.0, 2.0, 0.0],
        [0.0, 0.0, 2.0],
    ]
)
# The query "what should I feed my cat?": about animals and food, not sport.
QUERY = np.array([1.0, 1.0, 0.0])
VALUE_FEATURES = ["cat", "dog", "pasta", "ball"]
VALUES = np.array(
    [
        [3.0, 0.0, 0.0, 0.0],
        [0.0, 3.0, 0.0, 1.0],
        [0.0, 0.0, 3.0, 0.0],
        [0.0, 0.0, 0.0, 3.0],
    ]
)


def check_temperature(temperature) -> float:
    """``temperature`` as a float if it is a positive finite number, else a ValueError."""
    try:
        t = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"temperature must be a positive number; got {temperature!r}") from None
    if not np.isfinite(t) or t <= 0:
        raise ValueError(f"temperature must be a positive number; got {temperature!r}")
    return t


def lookup(query, keys, values, temperature: float = 1.0, hard: bool = False):
    """Score a query against every key and retrieve a blend of the values.

    Parameters
    ----------
    query : array_like, shape (d_k,)
    keys : array_like, shape (n, d_k), one row per document
    values : array_like, shape (n, d_v), one row per document
    temperature : float > 0
        Soft mode divides the scores by it before the softmax: small -> close to
        hard, large -> close to uniform. Ignored in hard mode.
    hard : bool
        ``True``: all weight on the highest score (the first one if several tie).

    Returns
    -------
    scores : ndarray (n,)   ``keys @ query``
    weights : ndarray (n,)  non-negative, sums to 1
    retrieved : ndarray (d_v,)  ``weights @ values``
    """
    q = np.asarray(query, dtype=float)
    if q.ndim != 1:
        raise ValueError(f"query must be a vector of shape (d_k,); got shape {q.shape}")
    K = as_matrix(keys, "keys", "(n, d_k)", finite=True)
    V = as_matrix(values, "values", "(n, d_v)", finite=True)
    if K.shape[1] != q.shape[0]:
        raise ValueError(f"query has shape {q.shape} but keys has shape {K.shape}: both need d_k = {K.shape[1]}")
    if K.shape[0] != V.shape[0]:
        raise ValueError(f"keys has shape {K.shape} and values has shape {V.shape}: one key and one value per document")
    t = check_temperature(temperature)
    scores = K @ q
    if hard:
        weights = np.zeros_like(scores)
        weights[int(np.argmax(scores))] = 1.0
    else:
        weights = softmax(scores / t)
    return scores, weights, weights @ V
