"""The course's own examples, as the code tasks run the learner's functions on them.

Each is written out in a notebook too, where the learner first meets it; ``tests/test_code_tasks.py`` reads
those notebook cells and fails if the numbers here and there drift apart.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import project_qkv
from helpers.core.masking import batch_example, decoder_example

__all__ = ["SIX_TOKENS", "X6", "X3", "W_Q3", "W_K3", "W_V3", "W_V33", "Q_M", "K_M", "V_M", "LOOKUP_SCORES",
           "small_ints", "near_30", "six_token_qkv", "cross_example", "cross_qkv", "six_token_weights",
           "padded_batch_qkv"]

# The six tokens "The cat sat on the mat", (6, 4) (01_intuition, 02_projections, 10_multi_head).
SIX_TOKENS = ("The", "cat", "sat", "on", "the", "mat")
X6 = np.array([[1.0, 0.0, 0.0, 2.0],
               [2.0, 1.0, 0.0, 0.0],
               [0.0, 2.0, 1.0, 0.0],
               [0.0, 1.0, 2.0, 0.0],
               [0.0, 0.0, 1.0, 2.0],
               [1.0, 0.0, 2.0, 0.0]])
# "The cat sat" (3, 4) and its projections W^Q, W^K, W^V, each (4, 2) (02_projections, the worked example).
X3 = X6[:3]
W_Q3 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [-1.0, -1.0]])
W_K3 = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, -1.0]])
W_V3 = np.array([[0.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [0.0, 1.0]])
# 02_projections' W^V with d_v = 3, (4, 3).
W_V33 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
# 04_masking's worked example: Q, K (3, 4), V (3, 2).
Q_M = np.array([[1, 0, 1, 0], [0, 2, 0, 0], [1, 1, 1, 1]], dtype=float)
K_M = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 0]], dtype=float)
V_M = np.array([[1, 0], [0, 1], [2, 2]], dtype=float)
# 01_intuition's library: the query "feed my cat" scored against four documents, q · k_j, (4,).
LOOKUP_SCORES = np.array([2.5, 1.5, 2.0, 0.0])


def small_ints(seed: int, shape, low: int = -2, high: int = 3) -> np.ndarray:
    """Seeded integers from ``low`` to ``high - 1`` as floats, of ``shape``: a probe with readable numbers."""
    return np.random.default_rng(seed).integers(low, high, size=shape).astype(float)


def near_30(seed: int, shape) -> np.ndarray:
    """Seeded entries 30, 60 or 90, of ``shape``: a "large scores" probe. Queries or keys made of them score in the
    thousands, where a softmax that does not subtract each row's max overflows."""
    return 30 * small_ints(seed, shape, 1, 4)


def six_token_qkv():
    """02_projections' live example: Q, K, V (6, 4) of the six tokens, with W's drawn from seed 18."""
    rng = np.random.default_rng(18)
    W_q, W_k, W_v = (rng.integers(-1, 2, size=(4, 4)).astype(float) for _ in range(3))
    return project_qkv(X6, W_q, W_k, W_v)


def cross_example():
    """06_cross_attention's first example: X_dec (6, 4), the decoder's 6 tokens, X_enc (4, 4), the source's 4, and
    W_q, W_k, W_v (4, 2), small integers (seed 0, drawn in the order X_enc, X_dec, W_q, W_k, W_v)."""
    rng = np.random.default_rng(0)
    X_enc = rng.integers(-2, 3, size=(4, 4)).astype(float)
    X_dec = rng.integers(-2, 3, size=(6, 4)).astype(float)
    W_q, W_k, W_v = (rng.integers(-1, 2, size=(4, 2)).astype(float) for _ in range(3))
    return X_dec, X_enc, W_q, W_k, W_v


def cross_qkv():
    """06_cross_attention's first example projected: 6 target tokens ask, 4 source tokens answer; Q (6, 2), K, V
    (4, 2)."""
    X_dec, X_enc, W_q, W_k, W_v = cross_example()
    return X_dec @ W_q, X_enc @ W_k, X_enc @ W_v


def six_token_weights():
    """The six tokens' layer: W^Q, W^K, W^V, W^O, each (4, 4), integers in {-1, 0, 1} drawn from seed 18 in that order.

    The first three are 02_projections' live example (the matrices :func:`six_token_qkv` projects with, and the
    explorer of 02 starts from); 10_multi_head adds W^O.
    """
    rng = np.random.default_rng(18)
    return tuple(rng.integers(-1, 2, size=(4, 4)).astype(float) for _ in range(4))


def padded_batch_qkv():
    """04_masking's padded batch (section 4): Q, K, V (3, 5, 2) of "the cat sat", "a dog ran home fast" and "birds
    sing", padded to 5 tokens and projected by section 1's W^Q, W^K, W^V; and the lengths (3, 5, 2)."""
    _padded, lengths, X = batch_example()
    _X, W_q, W_k, W_v = decoder_example()
    return (*project_qkv(X, W_q, W_k, W_v), np.array(lengths))
