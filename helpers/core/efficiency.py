"""Making attention cheaper: what n² costs, and four ways round it (notebooks 13 and 14's math, pure numpy).

* :func:`attention_cost` counts the multiply-adds of one head and the bytes of its n × n matrix;
  :func:`time_attention` measures the time; :func:`fit_exponent` reads the power of n off a log-log line;
  :func:`peak_memory` measures the bytes a call allocates.
* The key/value cache: :func:`decode_with_kv_cache` generates token by token with a cache of keys and values, for
  multi-head, grouped-query or multi-query attention; :func:`kv_cache_size` counts the numbers it holds.
* Sparse attention as masks: :func:`sliding_window_mask`, :func:`strided_mask`, :func:`global_mask` (each a boolean
  "may attend" mask, from :mod:`helpers.core.masks`, where every mask lives), :func:`kept_fraction` and
  :func:`two_hop_reach` (which keys a query reaches through two layers of such a mask).
* Linear attention: :func:`elu_plus_one`, :func:`linear_attention` (the O(n) order of the products) and
  :func:`linear_attention_weights` (the n × n weights it implies, for comparison only).
* FlashAttention, step by step: :func:`flash_trace` records the state after every tile of keys.
* LoRA: :func:`lora_parameters`, :func:`best_low_rank` and the seeded head of :func:`lora_example`.

The widgets that show them (the timing panel, the FlashAttention stepper, the LoRA demo) are in
:mod:`helpers.demos.efficiency`.
"""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import as_matrix, positive_int, whole_number
from helpers.core.attention import (
    _check_gqa,
    _check_qkv,
    online_softmax_step,
    scaled_dot_product_attention,
    softmax,
)

# The sparse patterns live in helpers.core.masks with every other mask; they stay importable from here.
from helpers.core.masks import global_mask, sliding_window_mask, strided_mask

__all__ = [
    "attention_cost",
    "fit_exponent",
    "time_attention",
    "peak_memory",
    "kv_cache_size",
    "CachedDecode",
    "decode_with_kv_cache",
    "sliding_window_mask",
    "strided_mask",
    "global_mask",
    "kept_fraction",
    "two_hop_reach",
    "elu_plus_one",
    "linear_attention",
    "linear_attention_weights",
    "one_head_qkv",
    "FlashStep",
    "flash_trace",
    "lora_parameters",
    "best_low_rank",
    "LoraExample",
    "lora_example",
]


# ---------------------------------------------------------------------------------
# The n² cost
# ---------------------------------------------------------------------------------

def attention_cost(n: int, d_model: int, d_k: int, d_v: int | None = None) -> dict:
    """Multiply-adds of one self-attention head on ``n`` tokens, and the size of its n × n matrix.

    Returns
    -------
    dict with
        ``"projections"``: n · d_model · (2 d_k + d_v), for Q = XW^Q, K = XW^K, V = XW^V;
        ``"scores"``: n² · d_k, for Q Kᵀ;
        ``"weighted sum"``: n² · d_v, for weights · V;
        ``"matrix bytes"``: n² · 8, one float64 n × n matrix (the scores; the weights are another).
    """
    n, d_model, d_k = (positive_int(v, k) for v, k in ((n, "n"), (d_model, "d_model"), (d_k, "d_k")))
    d_v = d_k if d_v is None else positive_int(d_v, "d_v")
    return {"projections": n * d_model * (2 * d_k + d_v), "scores": n * n * d_k,
            "weighted sum": n * n * d_v, "matrix bytes": n * n * 8}


def fit_exponent(ns, values) -> float:
    """The slope of log(values) against log(ns) (least squares): values ≈ c · n^slope."""
    ns, values = np.asarray(ns, dtype=float), np.asarray(values, dtype=float)
    if ns.shape != values.shape or ns.ndim != 1 or ns.size < 2:
        raise ValueError(f"ns and values need the same 1-D shape with at least 2 points; got {ns.shape} and "
                         f"{values.shape}")
    if (ns <= 0).any() or (values <= 0).any():
        raise ValueError("ns and values must be positive to take their logarithms")
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def time_attention(ns, d_model: int = 128, repeats: int = 3, seed: int = 0) -> dict:
    """Seconds (best of ``repeats``) for the projections and for the attention itself, per ``n``.

    Returns
    -------
    dict: ``"n"`` list of int; ``"projections"``, ``"attention"`` lists of seconds, one per n.
    """
    d_model = positive_int(d_model, "d_model")
    repeats = positive_int(repeats, "repeats")
    rng = np.random.default_rng(seed)
    W_q, W_k, W_v = (rng.standard_normal((d_model, d_model)) / np.sqrt(d_model) for _ in range(3))
    out = {"n": [], "projections": [], "attention": []}

    def project(X):
        return X @ W_q, X @ W_k, X @ W_v

    def attend(QKV):
        return scaled_dot_product_attention(*QKV)

    ns = [positive_int(n, "n") for n in ns]
    warm = rng.standard_normal((min(ns), d_model))
    attend(project(warm))  # the first call starts the BLAS threads: not part of any measurement
    for n in ns:
        X = rng.standard_normal((n, d_model))
        QKV = project(X)
        out["n"].append(n)
        out["projections"].append(_best_time(project, X, repeats))
        out["attention"].append(_best_time(attend, QKV, repeats))
    return out


def _best_time(fn, arg, repeats: int, at_least: float = 2e-3) -> float:
    """Seconds per call of ``fn(arg)``: the best of ``repeats`` runs, each long enough (``at_least``) to time."""
    t0 = time.perf_counter()
    fn(arg)
    once = max(time.perf_counter() - t0, 1e-7)
    number = max(1, min(1000, int(at_least / once)))  # short calls are timed in loops
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn(arg)
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def peak_memory(fn) -> int:
    """Peak bytes allocated while ``fn()`` runs, beyond what was allocated before it started (``tracemalloc``, which
    sees numpy's arrays); ``fn``'s result is dropped."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------------------
# The key/value cache, and key/value heads shared between query heads
# ---------------------------------------------------------------------------------

def kv_cache_size(n: int, h_kv: int, d_k: int, layers: int = 1) -> int:
    """The numbers a key/value cache holds after ``n`` tokens: 2 · layers · n · h_kv · d_k.

    Each layer keeps one key and one value of width ``d_k`` per token for each of its ``h_kv`` key/value heads
    (``h_kv = h`` in multi-head attention, fewer in grouped-query attention, 1 in multi-query attention).
    """
    n = whole_number(n, "n (tokens)", low=0)
    h_kv, d_k, layers = (positive_int(v, k) for v, k in ((h_kv, "h_kv"), (d_k, "d_k"), (layers, "layers")))
    return 2 * layers * n * h_kv * d_k


@dataclass(frozen=True)
class CachedDecode:
    """What :func:`decode_with_kv_cache` leaves behind.

    output : (n, d_model), row t computed when token t arrived, from tokens 0..t only
    K, V : (h_kv, n, d_k), the cache: every key and value of every key/value head, one row per token
    """

    output: np.ndarray
    K: np.ndarray
    V: np.ndarray

    @property
    def numbers(self) -> int:
        """The numbers the cache holds, counted on its arrays: ``K.size + V.size``."""
        return int(self.K.size + self.V.size)


def decode_with_kv_cache(X, W_q, W_k, W_v, W_o, h: int, h_kv: int) -> CachedDecode:
    """Grouped-query self-attention run as a decoder generates: one token at a time, with a key/value cache.

    At step t only token t is projected: its key and value are appended to the cache of each of the ``h_kv``
    key/value heads, and its ``h`` queries are compared with the cached keys of tokens 0..t (query head i with
    key/value head ``i // (h // h_kv)``), with no mask: nothing later is in the cache. The outputs equal
    :func:`helpers.core.attention.grouped_query_attention` with the causal mask, row by row.

    Parameters
    ----------
    X : array_like, shape (n, d_model), the tokens in the order they arrive
    W_q, W_o : array_like, shape (d_model, d_model)
    W_k, W_v : array_like, shape (d_model, h_kv * d_k), with d_k = d_model // h
    h, h_kv : int, query heads (dividing d_model) and key/value heads (dividing h)

    Returns
    -------
    CachedDecode with ``output`` (n, d_model) and the cache ``K``, ``V`` (h_kv, n, d_k).
    """
    X, mats, h, h_kv, d_k = _check_gqa(X, W_q, W_k, W_v, W_o, h, h_kv)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape (n, d_model), one sequence of at least one token; got shape {X.shape}")
    n = X.shape[0]
    K_cache, V_cache = np.zeros((h_kv, 0, d_k)), np.zeros((h_kv, 0, d_k))
    outputs = []
    for t in range(n):
        x = X[t]                                                     # (d_model,): only the new token
        K_cache = np.concatenate([K_cache, (x @ mats["W_k"]).reshape(h_kv, 1, d_k)], axis=1)
        V_cache = np.concatenate([V_cache, (x @ mats["W_v"]).reshape(h_kv, 1, d_k)], axis=1)
        q = (x @ mats["W_q"]).reshape(h, 1, d_k)                     # (h, 1, d_k): one query per head
        group = h // h_kv
        heads, _ = scaled_dot_product_attention(q, np.repeat(K_cache, group, axis=0),
                                                np.repeat(V_cache, group, axis=0))   # (h, 1, d_k), no mask
        outputs.append(heads.reshape(h * d_k) @ mats["W_o"])
    return CachedDecode(np.array(outputs), K_cache, V_cache)


# ---------------------------------------------------------------------------------
# Sparse attention as masks
# ---------------------------------------------------------------------------------

def kept_fraction(mask) -> float:
    """The fraction of the n_q × n_k query-key pairs a mask keeps (the fraction of the score work done)."""
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.ndim != 2:
        raise ValueError(f"mask must be a 2-D boolean array; got dtype {mask.dtype} and shape {mask.shape}")
    return float(mask.mean())


def two_hop_reach(mask) -> np.ndarray:
    """Which keys each query reaches through two layers that both use ``mask``: bool (n, n).

    Query i reaches key j when i may attend to some k in the upper layer and k may attend to j in the lower one
    (k = i or k = j included when the mask keeps the diagonal): the boolean matrix product of the mask with itself.
    """
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be a square 2-D boolean array; got dtype {mask.dtype} and shape {mask.shape}")
    m = mask.astype(np.int64)
    return (m @ m) > 0


# ---------------------------------------------------------------------------------
# Linear attention
# ---------------------------------------------------------------------------------

def elu_plus_one(x) -> np.ndarray:
    """φ(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise. Always positive, so weights stay positive."""
    x = np.asarray(x, dtype=float)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_attention(Q, K, V, phi=elu_plus_one) -> np.ndarray:
    """Linear attention (Katharopoulos et al. 2020), computed in the O(n) order.

    output_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z with S = Σ_j φ(k_j) v_jᵀ (d_k × d_v) and z = Σ_j φ(k_j) (d_k):
    by associativity, (φ(Q) φ(K)ᵀ) V = φ(Q) (φ(K)ᵀ V), and the right-hand side never forms an n × n matrix.

    Parameters
    ----------
    Q : array_like (n_q, d_k);  K : array_like (n_k, d_k);  V : array_like (n_k, d_v)
    phi : callable, a positive feature map applied entrywise

    Returns
    -------
    ndarray (n_q, d_v)
    """
    Q, K, V = one_head_qkv(Q, K, V)
    fQ, fK = phi(Q), phi(K)
    S = fK.T @ V            # (d_k, d_v): all keys and values summarised once
    z = fK.sum(axis=0)      # (d_k,)
    return (fQ @ S) / (fQ @ z)[:, None]


def linear_attention_weights(Q, K, phi=elu_plus_one) -> np.ndarray:
    """The (n_q, n_k) weights linear attention implies: φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'). For comparison only."""
    Q, K, _ = one_head_qkv(Q, K, K)
    sims = phi(Q) @ phi(K).T
    return sims / sims.sum(axis=1, keepdims=True)


def one_head_qkv(Q, K, V):
    """Q, K, V as finite 2-D float arrays (one head, no batch) whose shapes fit, as attention checks them.

    Parameters
    ----------
    Q : array_like (n_q, d_k);  K : array_like (n_k, d_k);  V : array_like (n_k, d_v)

    Returns
    -------
    Q, K, V : float ndarrays of those shapes

    Raises
    ------
    ValueError
        Naming the argument that is not a finite matrix, or the shapes that do not fit.
    """
    return _check_qkv(as_matrix(Q, "Q", "(n_q, d_k)", finite=True), as_matrix(K, "K", "(n_k, d_k)", finite=True),
                      as_matrix(V, "V", "(n_k, d_v)", finite=True))


# ---------------------------------------------------------------------------------
# FlashAttention, one tile at a time
# ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class FlashStep:
    """The running state after ``tile`` tiles of keys (tile 0: before any).

    keys : range of the key indices of this tile (empty for tile 0)
    scores : (n_q, len(keys)) this tile's scaled scores
    m, l : (n_q,) running max and running sum;  o : (n_q, d_v) running unnormalised output
    rescale : (n_q,) exp(m_old - m_new), the factor the old l and o were multiplied by
    """

    tile: int
    keys: range
    scores: np.ndarray
    m: np.ndarray
    l: np.ndarray  # noqa: E741 - the paper's name
    o: np.ndarray
    rescale: np.ndarray

    @property
    def output(self) -> np.ndarray:
        """o / l: the output if the keys seen so far were all the keys (nan before the first tile)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.o / self.l[:, None]


def flash_trace(Q, K, V, block_size: int) -> list[FlashStep]:
    """Every state of :func:`helpers.core.attention.flash_attention` (no mask): tile 0 (empty) then one per tile."""
    Q, K, V = one_head_qkv(Q, K, V)
    b = positive_int(block_size, "block_size")
    n_q, d_v = Q.shape[0], V.shape[1]
    m, l, o = np.full(n_q, -np.inf), np.zeros(n_q), np.zeros((n_q, d_v))
    steps = [FlashStep(0, range(0), np.zeros((n_q, 0)), m, l, o, np.ones(n_q))]
    for t, start in enumerate(range(0, K.shape[0], b), start=1):
        keys = range(start, min(start + b, K.shape[0]))
        S = Q @ K[keys.start:keys.stop].T / np.sqrt(Q.shape[1])
        m_new, l, o = online_softmax_step(m, l, o, S, V[keys.start:keys.stop])
        rescale = np.exp(m - m_new)
        m = m_new
        steps.append(FlashStep(t, keys, S, m, l, o, rescale))
    return steps


# ---------------------------------------------------------------------------------
# LoRA
# ---------------------------------------------------------------------------------

def lora_parameters(d_in: int, d_out: int, rank: int) -> int:
    """Trainable numbers of a rank-``rank`` update ΔW = B A of a (d_in, d_out) matrix: B (d_in, r), A (r, d_out)."""
    d_in, d_out = positive_int(d_in, "d_in"), positive_int(d_out, "d_out")
    rank = whole_number(rank, "rank", low=0)
    return int(rank) * (d_in + d_out)


def best_low_rank(delta, rank: int):
    """The rank-``rank`` matrices B (d_in, r), A (r, d_out) whose product B A is closest to ``delta``
    (truncated SVD, Eckart–Young). Returns (B, A)."""
    delta = as_matrix(delta, "delta", "(d_in, d_out)", finite=True)
    rank = whole_number(rank, f"rank (for delta of shape {delta.shape})", 0, min(delta.shape))
    U, s, Vt = np.linalg.svd(delta, full_matrices=False)
    return U[:, :rank] * s[:rank], Vt[:rank]


@dataclass(frozen=True)
class LoraExample:
    """A frozen head and the full update of W^Q that would make it a previous-token head.

    tokens : list of str (n);  X : (n, d) token vectors with positions added
    W_q, W_k : (d, d) frozen;  delta_q : (d, d) the full update;  target : (n, n) the scores it aims for
    """

    tokens: list
    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    delta_q: np.ndarray

    def weights(self, rank: int) -> np.ndarray:
        """The head's (n, n) weights with the best rank-``rank`` part of ``delta_q`` added to W^Q."""
        B, A = best_low_rank(self.delta_q, rank)
        Q, K = self.X @ (self.W_q + B @ A), self.X @ self.W_k
        return softmax(Q @ K.T / np.sqrt(K.shape[1]))


def _positions(n: int, d: int) -> np.ndarray:
    p = np.arange(n)[:, None]
    freq = 10000.0 ** (-2 * np.arange(d // 2)[None, :] / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(p * freq), np.cos(p * freq)
    return P


def lora_example(seed: int = 3) -> LoraExample:
    """Eight tokens, d = 16, a random frozen head, and the least-squares update of W^Q whose scores
    are +4 on the previous token (on itself for the first) and -4 elsewhere (times √d)."""
    tokens = "the cat sat on the mat and slept".split()
    n, d = len(tokens), 16
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, 1.0, (n, d)) + _positions(n, d)
    W_q, W_k = rng.normal(0.0, 0.4, (d, d)), rng.normal(0.0, 0.4, (d, d))
    target = np.full((n, n), -4.0)
    target[np.arange(1, n), np.arange(n - 1)] = 4.0
    target[0, 0] = 4.0
    Q, K = X @ W_q, X @ W_k
    # X ΔW Kᵀ = √d·target - Q Kᵀ, solved by least squares (X has full row rank: an exact solution).
    delta = np.linalg.pinv(X) @ (np.sqrt(d) * target - Q @ K.T) @ np.linalg.pinv(K.T)
    return LoraExample(tokens, X, W_q, W_k, delta)

