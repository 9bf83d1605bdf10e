"""Attention's pieces as a learner writes them, for the wrong implementations (mistake models) to build on.

A mistake model must fail where the learner's code fails and give NaN where it gives NaN, so these are
deliberately not the library's functions: :func:`helpers.core.attention.softmax` raises ``ValueError`` on a row with
nothing allowed, where a hand-written softmax quietly returns NaN.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nan_softmax", "scaled_scores", "attend"]


def nan_softmax(x, axis=-1):
    """Softmax along ``axis`` with the max subtracted; a row with nothing allowed (all −inf) gives NaN."""
    x = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)


def scaled_scores(Q, K):
    """Q (n_q, d_k) against K (n_k, d_k): Q Kᵀ / √d_k, (n_q, n_k)."""
    return Q @ K.T / np.sqrt(Q.shape[-1])


def attend(scores, V):
    """(output (n_q, d_v), weights (n_q, n_k)) from scores (n_q, n_k) and V (n_k, d_v), softmax along the keys."""
    w = nan_softmax(scores)
    return w @ V, w
