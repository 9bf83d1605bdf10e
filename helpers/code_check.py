"""Checking code a learner writes: ``check_code(task, fn)`` and ``show_solution(task)``.

In a "Your turn" cell the learner fills in a function and checks it::

    def my_softmax(x):
        \"\"\"Softmax along the last axis. ...\"\"\"
        ...

    check_code("softmax", my_softmax)

:func:`check_code` runs the function on the course's own small examples and on probes
built so that the classic mistakes give results of their own (a softmax along the wrong
axis, no max subtraction, no 1/√d_k, the mask applied after the softmax, ...). It returns a
:class:`helpers.exercises.Feedback`: correct, or what went wrong on which example, and,
when the wrong results are exactly those of a known mistake, the mistake's name, what to
change and where the course explains it. Whatever the function does (raises, returns
None or a text, loops forever, changes its input), the learner gets a Feedback, never a
traceback; only an unknown task raises ``ValueError``. A function whose body is still
only a docstring and ``...`` gets the friendly "not written yet" verdict.

The data lives in tables: :data:`MISTAKES` (every mistake's name, advice and place in
the course), :data:`SOLUTIONS` (the reference solutions, as source text written the way a
learner would write them) and :data:`SKELETONS` (what a "Your turn" cell starts from).
Each task lists its examples, its reference and the wrong implementations it tells apart.

Tasks (the learner's function):

* ``"softmax"``: ``fn(x)``: softmax along the last axis, any shape
* ``"project_qkv"``: ``fn(X, W_q, W_k, W_v) -> (Q, K, V)``
* ``"attention"``: ``fn(Q, K, V) -> (output, weights)``, scaled by 1/√d_k; n_q may differ from n_k
* ``"causal_mask"``: ``fn(n)`` -> bool (n, n), True where the query may attend
* ``"masked_attention"``: ``fn(Q, K, V, mask) -> (output, weights)``; mask bool, True = may attend
* ``"multi_head_attention"``: ``fn(X, W_q, W_k, W_v, W_o, h)`` -> output (n, d_model); head i uses
  columns ``i*d_k:(i+1)*d_k`` of Q, K, V
* ``"online_softmax"``: ``fn(m, l, o, scores_block, V_block) -> (m_new, l_new, o_new)``, one
  step of FlashAttention's running softmax
* ``"softmax_backward"``: ``fn(weights, grad_weights)`` -> grad_scores (the gradient through softmax)
"""

from __future__ import annotations

import ast
import dis
import html as _html
import inspect
import math
import signal
import textwrap
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as _widgets
import numpy as np

from helpers import theme
from helpers.attention import causal_mask, project_qkv, scaled_dot_product_attention, softmax, split_heads
from helpers.live import TextForm

__all__ = [
    "Mistake",
    "MISTAKES",
    "SOLUTIONS",
    "SKELETONS",
    "TASKS",
    "NOT_WRITTEN",
    "TIME_LIMIT",
    "check_code",
    "show_solution",
    "SolutionFold",
]

# Seconds one call of the learner's function may take (on the course's tiny inputs a right answer takes
# microseconds; a loop that never ends is stopped).
TIME_LIMIT = 2.0
NOT_WRITTEN = "not_written"


# --------------------------------------------------------------------------- the mistakes (data)


@dataclass(frozen=True)
class Mistake:
    """A classic mistake: what it is, what to change, where the course explains it."""

    title: str
    advice: str
    where: str


MISTAKES: dict[str, Mistake] = {
    NOT_WRITTEN: Mistake("not written yet", "replace `...` with your code, then run the cell again.", ""),
    "wrong_axis": Mistake(
        "softmax along the wrong axis",
        "Each row (one query) must sum to 1: use axis=-1 in the max and in the sum, with keepdims=True.",
        '02_projections, "Step 3: softmax, row by row"'),
    "no_keepdims": Mistake(
        "the row sums without keepdims=True",
        "e.sum(axis=-1) drops the last axis, so the division runs down the columns: "
        "np.sum(e, axis=-1, keepdims=True) keeps one sum per row, shaped to divide its own row.",
        '02_projections, "Step 3: softmax, row by row"'),
    "global_max": Mistake(
        "the maximum of the whole array subtracted, not each row's",
        "A row whose scores are all far below the largest score of the array underflows to 0/0 = nan: "
        "subtract each row's own maximum, np.max(x, axis=-1, keepdims=True).",
        '06_pitfalls, "Numerical stability: the max trick"'),
    "sum_all": Mistake(
        "the sum taken over the whole array",
        "Divide by the sum of each row, np.sum(e, axis=-1, keepdims=True), not by the sum of every entry.",
        '02_projections, "Step 3: softmax, row by row"'),
    "no_max": Mistake(
        "no max subtraction: exp overflows at large scores",
        "exp(1000) is inf in float64. Subtract each row's maximum first, "
        "np.exp(x - np.max(x, axis=-1, keepdims=True)): softmax does not change, and exp stays ≤ 1.",
        '06_pitfalls, "Numerical stability: the max trick"'),
    "no_normalise": Mistake(
        "exp without dividing by the sum",
        "Weights must sum to 1: divide the exponentials by their sum along the last axis.",
        '01_intuition, "Soft retrieval: softmax turns scores into weights"'),
    "no_softmax": Mistake(
        "no softmax: the scaled scores used as weights",
        "Turn each row of scaled scores into weights with a softmax before multiplying by V.",
        '02_projections, "The pipeline, one step at a time"'),
    "no_scale": Mistake(
        "no 1/√d_k: the scores are not scaled",
        "Divide Q Kᵀ by np.sqrt(d_k), with d_k = Q.shape[-1], before the softmax.",
        '02_projections, "Step 2: scale by √d_k"; 06_pitfalls, "Why divide by √d_k?"'),
    "scale_dk": Mistake(
        "divided by d_k instead of √d_k",
        "The scale is 1/√d_k: np.sqrt(d_k), not d_k.",
        '06_pitfalls, "Why divide by √d_k?"'),
    "scale_tokens": Mistake(
        "divided by √(number of tokens) instead of √d_k",
        "d_k is the width of a query or key, Q.shape[-1] (its number of columns), not the number of tokens "
        "Q.shape[0] or K.shape[0].",
        '02_projections, "Step 2: scale by √d_k"'),
    "weights_transposed": Mistake(
        "the weights transposed (rows and columns swapped)",
        "Row i of the weights is query i, column j is key j: the weights are n_q × n_k and each row sums to 1.",
        '06_pitfalls, "Pitfall 3: rows sum to 1, columns do not"'),
    "order_swapped": Mistake(
        "(weights, output) returned in the wrong order",
        "Return output first, then the weights: return output, weights.",
        '02_projections, "The whole formula, with shapes"'),
    "weights_at_K": Mistake(
        "weights @ K instead of weights @ V",
        "The output mixes the values: output = weights @ V. The keys only decide the weights.",
        '02_projections, "Step 4: output AV"'),
    "k_not_transposed": Mistake(
        "K not transposed: Q @ K instead of Q @ K.T",
        "Entry (i, j) of the scores is q_i · k_j, so the scores are Q @ K.T, shape n_q × n_k.",
        '02_projections, "Step 1: scores S = QKᵀ"'),
    "causal_upper": Mistake(
        "the causal mask as the upper triangle",
        "True must be on and below the diagonal (key j ≤ query i): np.tril, not np.triu.",
        '03_masking, "The causal mask in two forms"'),
    "causal_no_diagonal": Mistake(
        "the causal mask without the diagonal",
        "A token may attend to itself: keep the diagonal, np.tril(np.ones((n, n), dtype=bool)) (k=0).",
        '03_masking, "The causal mask in two forms"'),
    "causal_blocked": Mistake(
        "the blocked entries marked True (the mask inverted)",
        "True means 'may attend': on and below the diagonal. True above it is the *blocked* triangle, "
        "the additive form's −∞ entries.",
        '03_masking, "The causal mask in two forms"'),
    "causal_additive": Mistake(
        "the additive form (0 and −inf) instead of the boolean one",
        "This task wants booleans, True where the query may attend: np.tril(np.ones((n, n), dtype=bool)).",
        '03_masking, "The causal mask in two forms"'),
    "mask_not_bool": Mistake(
        "a mask of numbers instead of True/False",
        "Give the mask dtype=bool: with 0/1 numbers, ~mask is −1/−2 and indexing with it goes wrong.",
        '03_masking, "The causal mask in two forms"'),
    "mask_after_softmax": Mistake(
        "the mask applied after the softmax",
        "Blocked keys must get −inf in the scores *before* the softmax; zeroing weights afterwards leaves "
        "rows that no longer sum to 1.",
        '03_masking, "Worked example: masked attention, every step"'),
    "mask_inverted": Mistake(
        "the mask inverted (blocking where it is True)",
        "True means 'may attend': put −inf where the mask is False, np.where(mask, scores, -np.inf).",
        '03_masking, "The causal mask in two forms"'),
    "mask_ignored": Mistake(
        "the mask ignored",
        "Use the mask: scores = np.where(mask, scores, -np.inf) before the softmax.",
        '03_masking, "Worked example: masked attention, every step"'),
    "mask_multiplied": Mistake(
        "the scores multiplied by the mask (blocked scores become 0, not −inf)",
        "A score of 0 still gets weight exp(0) > 0: blocked scores must be −inf, np.where(mask, scores, -np.inf).",
        '03_masking, "Worked example: masked attention, every step"'),
    "mask_added": Mistake(
        "the boolean mask added to the scores",
        "True/False add 1/0 to the scores. Blocked scores must be −inf: np.where(mask, scores, -np.inf).",
        '03_masking, "The causal mask in two forms"'),
    "wq_wk_swapped": Mistake(
        "W^Q and W^K swapped",
        "Q = X @ W_q and K = X @ W_k: the two roles are not interchangeable.",
        '06_pitfalls, "Pitfall 1: Q, K and V are not arbitrary names"'),
    "qkv_order": Mistake(
        "Q, K and V returned in another order",
        "Return Q, K, V in that order.",
        '02_projections, "Three projections of the same X"'),
    "no_wo": Mistake(
        "multi-head attention without W^O",
        "After concatenating the heads (n × d_model), multiply by W_o: output = concat @ W_o.",
        '08_multi_head, "Step by step on the six tokens of notebook 02"'),
    "scale_dmodel": Mistake(
        "scaled by √d_model instead of √d_k",
        "Each head has width d_k = d_model / h: divide its scores by np.sqrt(d_k).",
        '06_pitfalls, "Common error 1: dividing by √d_model"'),
    "heads_reshape": Mistake(
        "heads split by a reshape without transposing",
        "Head i is the columns i*d_k:(i+1)*d_k of Q: Q[:, i*d_k:(i+1)*d_k] (a reshape to (h, n, d_k) mixes "
        "tokens and columns).",
        '08_multi_head, "Step by step on the six tokens of notebook 02"'),
    "heads_interleaved": Mistake(
        "heads made of interleaved columns",
        "Head i is a block of d_k neighbouring columns, Q[:, i*d_k:(i+1)*d_k], not every h-th column Q[:, i::h].",
        '08_multi_head, "Step by step on the six tokens of notebook 02"'),
    "one_head": Mistake(
        "one head over all of d_model (h ignored)",
        "Split Q, K and V into h heads of width d_k = d_model / h and attend within each head.",
        '08_multi_head, "Step by step on the six tokens of notebook 02"'),
    "mutates_input": Mistake(
        "your function changes its input array",
        "x -= ... or x[...] = ... writes into the caller's array. Compute a new array instead (x = x - ...).",
        ""),
    "no_rescale_l": Mistake(
        "l not rescaled by exp(m_old − m_new)",
        "When the running max grows, the old sum was counted against the old max: "
        "l_new = np.exp(m - m_new) * l + p.sum(axis=-1).",
        '10_efficiency, "FlashAttention: exact, one tile at a time"'),
    "no_rescale_o": Mistake(
        "o not rescaled by exp(m_old − m_new)",
        "Rescale the old output sum as well: o_new = np.exp(m - m_new)[:, None] * o + p @ V_block.",
        '10_efficiency, "FlashAttention: exact, one tile at a time"'),
    "no_rescale": Mistake(
        "l and o not rescaled by exp(m_old − m_new)",
        "Both running sums were counted against the old max: multiply each by alpha = np.exp(m - m_new).",
        '10_efficiency, "FlashAttention: exact, one tile at a time"'),
    "rescale_inverted": Mistake(
        "the rescale factor upside down: exp(m_new − m_old)",
        "m_new ≥ m_old, so the factor exp(m_old − m_new) is ≤ 1: it shrinks the old sums.",
        '10_efficiency, "FlashAttention: exact, one tile at a time"'),
    "block_max": Mistake(
        "the block's max used instead of the running max",
        "m_new = np.maximum(m, scores_block.max(axis=-1)): the largest score seen so far, over every block.",
        '10_efficiency, "FlashAttention: exact, one tile at a time"'),
    "backward_no_subtraction": Mistake(
        "weights * grad without the subtraction",
        "Softmax couples the entries of a row: subtract each row's sum(grad * weights) before multiplying, "
        "weights * (grad - np.sum(grad * weights, axis=-1, keepdims=True)).",
        '11_learning, "The backward pass"'),
    "backward_wrong_axis": Mistake(
        "the sum over the wrong axis",
        "The sum runs over the softmax's own axis, the last one: axis=-1, keepdims=True.",
        '11_learning, "The backward pass"'),
    "backward_no_keepdims": Mistake(
        "the row sums without keepdims=True",
        "np.sum(..., axis=-1) drops the axis, and the subtraction then runs along the rows: add keepdims=True.",
        '11_learning, "The backward pass"'),
    "backward_diagonal": Mistake(
        "only the diagonal of the Jacobian: weights * (1 - weights) * grad",
        "Every weight of a row depends on every score of it: "
        "weights * (grad - np.sum(grad * weights, axis=-1, keepdims=True)).",
        '11_learning, "The backward pass"'),
}


# --------------------------------------------------------------------------- skeletons and solutions (data)

SKELETONS: dict[str, str] = {
    "softmax": '''def my_softmax(x):
    """Softmax along the last axis. x: array of any shape (..., n). Returns the same shape, rows summing to 1."""
    ...
''',
    "project_qkv": '''def my_project_qkv(X, W_q, W_k, W_v):
    """X (n, d_model); W_q, W_k (d_model, d_k); W_v (d_model, d_v). Returns (Q, K, V)."""
    ...
''',
    "attention": '''def my_attention(Q, K, V):
    """Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v). Returns (output (n_q, d_v), weights (n_q, n_k))."""
    ...
''',
    "causal_mask": '''def my_causal_mask(n):
    """Boolean (n, n): True where query i may attend to key j (j <= i)."""
    ...
''',
    "masked_attention": '''def my_masked_attention(Q, K, V, mask):
    """Like my_attention; mask (n_q, n_k) bool, True = may attend. Returns (output, weights)."""
    ...
''',
    "multi_head_attention": '''def my_multi_head_attention(X, W_q, W_k, W_v, W_o, h):
    """X (n, d_model); W_q, W_k, W_v, W_o (d_model, d_model); h heads. Returns output (n, d_model)."""
    ...
''',
    "online_softmax": '''def my_online_softmax(m, l, o, scores_block, V_block):
    """One block: m, l (n_q,); o (n_q, d_v); scores_block (n_q, b); V_block (b, d_v). Returns (m_new, l_new, o_new)."""
    ...
''',
    "softmax_backward": '''def my_softmax_backward(weights, grad_weights):
    """weights = softmax(scores) along the last axis; grad_weights the same shape. Returns dL/dscores."""
    ...
''',
}

SOLUTIONS: dict[str, str] = {
    "softmax": '''def my_softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))   # minus the row max: exp cannot overflow
    return e / np.sum(e, axis=-1, keepdims=True)
''',
    "project_qkv": '''def my_project_qkv(X, W_q, W_k, W_v):
    Q = X @ W_q   # (n, d_k)
    K = X @ W_k   # (n, d_k)
    V = X @ W_v   # (n, d_v)
    return Q, K, V
''',
    "attention": '''def my_attention(Q, K, V):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)                               # (n_q, n_k)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)               # each row sums to 1
    return weights @ V, weights                                   # (n_q, d_v), (n_q, n_k)
''',
    "causal_mask": '''def my_causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))   # on and below the diagonal
''',
    "masked_attention": '''def my_masked_attention(Q, K, V, mask):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    scores = np.where(mask, scores, -np.inf)                      # blocked keys: -inf, before the softmax
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))   # exp(-inf) = 0
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights
''',
    "multi_head_attention": '''def my_multi_head_attention(X, W_q, W_k, W_v, W_o, h):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d_k = Q.shape[-1] // h
    heads = []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)                      # head i's columns
        scores = Q[:, cols] @ K[:, cols].T / np.sqrt(d_k)
        e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
        weights = e / np.sum(e, axis=-1, keepdims=True)
        heads.append(weights @ V[:, cols])                        # (n, d_k)
    return np.concatenate(heads, axis=-1) @ W_o                   # (n, d_model)
''',
    "online_softmax": '''def my_online_softmax(m, l, o, scores_block, V_block):
    m_new = np.maximum(m, np.max(scores_block, axis=-1))   # the running max, over every block so far
    alpha = np.exp(m - m_new)                              # shrinks what was summed against the old max
    p = np.exp(scores_block - m_new[:, None])              # (n_q, b)
    l_new = alpha * l + np.sum(p, axis=-1)
    o_new = alpha[:, None] * o + p @ V_block
    return m_new, l_new, o_new
''',
    "softmax_backward": '''def my_softmax_backward(weights, grad_weights):
    inner = np.sum(grad_weights * weights, axis=-1, keepdims=True)   # one number per row
    return weights * (grad_weights - inner)
''',
}


# --------------------------------------------------------------------------- the course's examples

# The six tokens "The cat sat on the mat" (01_intuition, 02_projections).
X6 = np.array([[1.0, 0.0, 0.0, 2.0],
               [2.0, 1.0, 0.0, 0.0],
               [0.0, 2.0, 1.0, 0.0],
               [0.0, 1.0, 2.0, 0.0],
               [0.0, 0.0, 1.0, 2.0],
               [1.0, 0.0, 2.0, 0.0]])
# "The cat sat" and its projections (02_projections, the worked example).
X3 = X6[:3]
W_Q3 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [-1.0, -1.0]])
W_K3 = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, -1.0]])
W_V3 = np.array([[0.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [0.0, 1.0]])
# 02's output with d_v = 3.
W_V33 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
# 03_masking's worked example.
Q_M = np.array([[1, 0, 1, 0], [0, 2, 0, 0], [1, 1, 1, 1]], dtype=float)
K_M = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 0]], dtype=float)
V_M = np.array([[1, 0], [0, 1], [2, 2]], dtype=float)
# 01_intuition's library: the query "feed my cat" against four documents.
LOOKUP_SCORES = np.array([2.5, 1.5, 2.0, 0.0])


def _ints(seed: int, shape, low: int = -2, high: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, size=shape).astype(float)


def _six_token_qkv():
    rng = np.random.default_rng(18)  # 02_projections' live example
    W_q, W_k, W_v = (rng.integers(-1, 2, size=(4, 4)).astype(float) for _ in range(3))
    return project_qkv(X6, W_q, W_k, W_v)


def _cross_qkv():
    """04_cross_attention's first example: 6 target tokens ask, 4 source tokens answer."""
    rng = np.random.default_rng(0)
    X_enc = rng.integers(-2, 3, size=(4, 4)).astype(float)
    X_dec = rng.integers(-2, 3, size=(6, 4)).astype(float)
    W_q, W_k, W_v = (rng.integers(-1, 2, size=(4, 2)).astype(float) for _ in range(3))
    return X_dec @ W_q, X_enc @ W_k, X_enc @ W_v


# --------------------------------------------------------------------------- the tasks


@dataclass(frozen=True)
class _Case:
    """One input the learner's function is run on. ``large``: a probe with huge scores (overflow)."""

    name: str
    args: tuple
    large: bool = False


@dataclass(frozen=True)
class _Task:
    """One task: how its answer looks, its examples, its reference and the wrong versions it recognises.

    outputs: (name, shape in words) of each returned array; one entry = a bare array is returned.
    models: (mistake key, wrong implementation) pairs, in the order they are tried.
    """

    name: str
    outputs: tuple
    cases: Callable[[], list]
    reference: Callable
    models: tuple = ()
    large_probe: bool = False


def _sm(x, axis=-1):
    """A softmax that, like a learner's, gives NaN for a row with nothing allowed (no ValueError)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)


def _scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[-1])


def _attend(scores, V):
    w = _sm(scores)
    return w @ V, w


# softmax
def _softmax_cases():
    return [
        _Case("the look-up scores [2.5, 1.5, 2, 0] (01)", (LOOKUP_SCORES.copy(),)),
        _Case("the six-token scores X Xᵀ / 2 (01), shape (6, 6)", ((X6 @ X6.T) / 2,)),
        _Case("a 2 × 3 matrix", (np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 3.0]]),)),
        _Case("a batch of shape (2, 3, 4)", (_ints(3, (2, 3, 4)),)),
        _Case("large scores [[1000, 1001, 1002], [-1000, 0, 5], [0, 0, 2000]]",
              (np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 5.0], [0.0, 0.0, 2000.0]]),), large=True),
    ]


def _wrong_axis_softmax(x):
    return _sm(x, axis=0)


def _softmax_no_keepdims(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def _softmax_max_no_keepdims(x):
    e = np.exp(x - np.max(x, axis=-1))
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_global_max(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=-1, keepdims=True)


def _softmax_all(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


# attention
def _attention_cases():
    Q3, K3, V3 = project_qkv(X3, W_Q3, W_K3, W_V3)
    return [
        _Case('"The cat sat" (02), Q 3×2, K 3×2, V 3×2', (Q3, K3, V3)),
        _Case('"The cat sat" with d_v = 3 (02), V 3×3', (Q3, K3, X3 @ W_V33)),
        _Case("the six-token example (02), Q 6×4, K 6×4, V 6×4", _six_token_qkv()),
        _Case("cross-attention (04): 6 queries, 4 keys, Q 6×2, K 4×2, V 4×2", _cross_qkv()),
        _Case("n_k = d_k: Q 2×3, K 3×3, V 3×2", (_ints(11, (2, 3)), _ints(12, (3, 3)), _ints(13, (3, 2)))),
        _Case("large scores: Q 2×4, K 3×4 with entries near 30",
              (30 * _ints(21, (2, 4), 1, 4), 30 * _ints(22, (3, 4), 1, 4), _ints(23, (3, 2))), large=True),
    ]


def _attention_reference(Q, K, V):
    return scaled_dot_product_attention(Q, K, V)


_ATTENTION_MODELS = (
    ("order_swapped", lambda Q, K, V: _attend(_scaled(Q, K), V)[::-1]),
    ("no_scale", lambda Q, K, V: _attend(Q @ K.T, V)),
    ("scale_dk", lambda Q, K, V: _attend(Q @ K.T / Q.shape[-1], V)),
    ("wrong_axis", lambda Q, K, V: (_sm(_scaled(Q, K), 0) @ V, _sm(_scaled(Q, K), 0))),
    ("weights_transposed", lambda Q, K, V: (_attend(_scaled(Q, K), V)[0], _attend(_scaled(Q, K), V)[1].T)),
    ("weights_transposed", lambda Q, K, V: (_sm(_scaled(K, Q)).T @ V, _sm(_scaled(K, Q)))),
    ("weights_at_K", lambda Q, K, V: (_sm(_scaled(Q, K)) @ K, _sm(_scaled(Q, K)))),
    ("k_not_transposed", lambda Q, K, V: _attend(Q @ K / np.sqrt(Q.shape[-1]), V)),
    ("no_softmax", lambda Q, K, V: (_scaled(Q, K) @ V, _scaled(Q, K))),
    ("global_max", lambda Q, K, V: (_softmax_global_max(_scaled(Q, K)) @ V, _softmax_global_max(_scaled(Q, K)))),
    ("no_normalise", lambda Q, K, V: (np.exp(_scaled(Q, K)) @ V, np.exp(_scaled(Q, K)))),
    ("no_keepdims", lambda Q, K, V: (_softmax_no_keepdims(_scaled(Q, K)) @ V, _softmax_no_keepdims(_scaled(Q, K)))),
    ("no_keepdims", lambda Q, K, V: (_softmax_max_no_keepdims(_scaled(Q, K)) @ V,
                                     _softmax_max_no_keepdims(_scaled(Q, K)))),
    ("scale_tokens", lambda Q, K, V: _attend(Q @ K.T / np.sqrt(K.shape[0]), V)),
    ("scale_tokens", lambda Q, K, V: _attend(Q @ K.T / np.sqrt(Q.shape[0]), V)),
)


# masked attention
def _masked_cases():
    Q, K, V = _six_token_qkv()
    pad = np.ones((6, 6), dtype=bool)
    pad[:, 4:] = False  # the last two keys are padding
    Qc, Kc, Vc = _cross_qkv()
    src_pad = np.ones((6, 4), dtype=bool)
    src_pad[:, 3] = False
    rnd = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
    return [
        _Case("the masked example (03), Q 3×4, K 3×4, V 3×2, causal mask", (Q_M, K_M, V_M, causal_mask(3))),
        _Case("the six-token example (02), causal mask", (Q, K, V, causal_mask(6))),
        _Case("the six-token example, the last two keys padding", (Q, K, V, pad)),
        _Case("cross-attention (04), 6 queries × 4 keys, the last key padding", (Qc, Kc, Vc, src_pad)),
        _Case("the masked example (03) with the mask [[1,0,1],[1,1,0],[0,1,1]]", (Q_M, K_M, V_M, rnd)),
        _Case("large scores, causal mask",
              (30 * _ints(31, (3, 4), 1, 4), 30 * _ints(32, (3, 4), 1, 4), _ints(33, (3, 2)), causal_mask(3)),
              large=True),
    ]


def _masked_reference(Q, K, V, mask):
    return scaled_dot_product_attention(Q, K, V, mask=mask)


def _after_softmax(Q, K, V, mask):
    w = _sm(_scaled(Q, K)) * mask
    return w @ V, w


def _inverted(blocked):
    def model(Q, K, V, mask):
        return _attend(np.where(mask, blocked, _scaled(Q, K)), V)
    return model


_MASKED_MODELS = (
    ("mask_ignored", lambda Q, K, V, mask: _attend(_scaled(Q, K), V)),
    ("mask_after_softmax", _after_softmax),
    ("mask_inverted", _inverted(-np.inf)),
    ("mask_inverted", _inverted(-1e9)),
    ("mask_multiplied", lambda Q, K, V, mask: _attend(_scaled(Q, K) * mask, V)),
    ("mask_added", lambda Q, K, V, mask: _attend(_scaled(Q, K) + mask, V)),
    ("order_swapped", lambda Q, K, V, mask: _masked_reference(Q, K, V, mask)[::-1]),
    ("no_scale", lambda Q, K, V, mask: _attend(np.where(mask, Q @ K.T, -np.inf), V)),
    ("scale_dk", lambda Q, K, V, mask: _attend(np.where(mask, Q @ K.T / Q.shape[-1], -np.inf), V)),
    ("wrong_axis", lambda Q, K, V, mask: (_sm(np.where(mask, _scaled(Q, K), -np.inf), 0) @ V,
                                          _sm(np.where(mask, _scaled(Q, K), -np.inf), 0))),
    ("weights_at_K", lambda Q, K, V, mask: (_masked_reference(Q, K, V, mask)[1] @ K,
                                            _masked_reference(Q, K, V, mask)[1])),
)


# causal mask
def _causal_cases():
    return [_Case(f"n = {n}", (n,)) for n in (3, 1, 6)]


_CAUSAL_MODELS = (
    ("causal_upper", lambda n: np.triu(np.ones((n, n), dtype=bool))),
    ("causal_no_diagonal", lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1)),
    ("causal_blocked", lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
    ("causal_additive", lambda n: np.triu(np.full((n, n), -np.inf), k=1)),
    ("mask_not_bool", lambda n: np.tril(np.ones((n, n)))),
)


# projections
def _projection_cases():
    rng = np.random.default_rng(5)
    return [
        _Case('"The cat sat" (02), X 3×4, W 4×2', (X3, W_Q3, W_K3, W_V3)),
        _Case("the six-token example with d_v = 3, X 6×4, W_v 4×3", (X6, W_Q3, W_K3, W_V33)),
        _Case("X 2×3, W 3×2", tuple(rng.integers(-2, 3, size=s).astype(float) for s in ((2, 3), (3, 2), (3, 2),
                                                                                        (3, 2)))),
    ]


_PROJECTION_MODELS = (
    ("wq_wk_swapped", lambda X, Wq, Wk, Wv: (X @ Wk, X @ Wq, X @ Wv)),
    ("qkv_order", lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wv, X @ Wk)),
    ("qkv_order", lambda X, Wq, Wk, Wv: (X @ Wv, X @ Wk, X @ Wq)),
)


# multi-head attention
def _mha(X, W_q, W_k, W_v, W_o, h, split=None, scale=None, w_o=True):
    """Multi-head attention with a choice of how heads are split and scaled (the wrong versions reuse it)."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    n, d_model = Q.shape
    d_k = d_model // h
    split = split or (lambda M: split_heads(M, h))
    Qh, Kh, Vh = split(Q), split(K), split(V)
    s = scale if scale is not None else np.sqrt(d_k)
    heads = [_sm(Qh[i] @ Kh[i].T / s) @ Vh[i] for i in range(h)]
    concat = np.concatenate(heads, axis=-1)
    return concat @ W_o if w_o else concat


def _mha_cases():
    W = [_ints(40 + k, (4, 4), -1, 2) for k in range(4)]
    W6 = [_ints(50 + k, (6, 6), -1, 2) for k in range(4)]
    X5 = _ints(60, (5, 6))
    return [
        _Case("the six-token example (02), d_model 4, h = 2", (X6, *W, 2)),
        _Case("5 tokens, d_model 6, h = 3", (X5, *W6, 3)),
        _Case("5 tokens, d_model 6, h = 2", (X5, *W6, 2)),
        _Case("the six-token example, h = 1", (X6, *W, 1)),
    ]


def _mha_reference(X, W_q, W_k, W_v, W_o, h):
    return _mha(X, W_q, W_k, W_v, W_o, h)


_MHA_MODELS = (
    ("no_wo", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, h, w_o=False)),
    ("scale_dmodel", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, h, scale=np.sqrt(X.shape[-1]))),
    ("heads_reshape", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, h,
                                                        split=lambda M: M.reshape(h, M.shape[0], -1))),
    ("heads_interleaved", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, h,
                                                            split=lambda M: [M[:, i::h] for i in range(h)])),
    ("one_head", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, 1, scale=np.sqrt(X.shape[-1] // h))),
    ("one_head", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, 1)),
    ("no_scale", lambda X, Wq, Wk, Wv, Wo, h: _mha(X, Wq, Wk, Wv, Wo, h, scale=1.0)),
    ("wrong_axis", lambda X, Wq, Wk, Wv, Wo, h: _mha_axis0(X, Wq, Wk, Wv, Wo, h)),
)


def _mha_axis0(X, W_q, W_k, W_v, W_o, h):
    Qh, Kh, Vh = (split_heads(X @ W, h) for W in (W_q, W_k, W_v))
    d_k = Qh.shape[-1]
    heads = [_sm(Qh[i] @ Kh[i].T / np.sqrt(d_k), 0) @ Vh[i] for i in range(h)]
    return np.concatenate(heads, axis=-1) @ W_o


# online softmax (one FlashAttention step)
def _online_cases():
    scores = np.array([[1.0, 3.0, 0.0, 2.0, 5.0], [2.0, -1.0, 4.0, 0.0, 1.0]])
    V = _ints(70, (5, 2))
    first = (np.full(2, -np.inf), np.zeros(2), np.zeros((2, 2)), scores[:, :2], V[:2])
    m1, l1, o1 = _online_reference(*first)
    second = (m1, l1, o1, scores[:, 2:], V[2:])  # row 0's max grows (5 > 3), row 1's too (4 > 2)
    m2, l2, o2 = _online_reference(*second)
    s3 = np.array([[0.5, 1.0], [3.0, -2.0]])  # both rows' block max is below the running max
    third = (m2, l2, o2, s3, _ints(71, (2, 2)))
    return [
        _Case("the first block (m = -inf, l = 0, o = 0), 2 queries × 2 keys", first),
        _Case("a second block whose scores beat the running max", second),
        _Case("a third block whose scores stay below the running max", third),
    ]


def _online_reference(m, l, o, s, Vb):
    m_new = np.maximum(m, s.max(axis=-1))
    with np.errstate(invalid="ignore"):
        alpha = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m_new, alpha * l + p.sum(axis=-1), alpha[:, None] * o + p @ Vb


def _online_model(rescale_l=True, rescale_o=True, inverted=False, block_max=False):
    def model(m, l, o, s, Vb):
        m_new = s.max(axis=-1) if block_max else np.maximum(m, s.max(axis=-1))
        with np.errstate(all="ignore"):
            alpha = np.exp(m_new - m) if inverted else np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l_new = (alpha * l if rescale_l else l) + p.sum(axis=-1)
            o_new = (alpha[:, None] * o if rescale_o else o) + p @ Vb
        return m_new, l_new, o_new
    return model


_ONLINE_MODELS = (
    ("no_rescale", _online_model(rescale_l=False, rescale_o=False)),
    ("no_rescale_l", _online_model(rescale_l=False)),
    ("no_rescale_o", _online_model(rescale_o=False)),
    ("rescale_inverted", _online_model(inverted=True)),
    ("block_max", _online_model(block_max=True)),
)


# softmax backward
def _backward_cases():
    rng = np.random.default_rng(80)
    W6 = softmax((X6 @ X6.T) / 2)
    W23 = softmax(np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 2.0]]))
    W234 = softmax(rng.normal(size=(2, 3, 4)))
    return [
        _Case("the six-token weights (01), shape (6, 6)", (W6, _ints(81, (6, 6)))),
        _Case("weights of shape (2, 3)", (W23, np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]))),
        _Case("one row of 4 weights", (softmax(LOOKUP_SCORES), np.array([1.0, -2.0, 0.5, 0.0]))),
        _Case("a batch of shape (2, 3, 4)", (W234, _ints(82, (2, 3, 4)))),
    ]


def _backward_reference(w, g):
    return w * (g - np.sum(g * w, axis=-1, keepdims=True))


_BACKWARD_MODELS = (
    ("backward_no_subtraction", lambda w, g: w * g),
    ("backward_wrong_axis", lambda w, g: w * (g - np.sum(g * w, axis=0, keepdims=True))),
    ("backward_no_keepdims", lambda w, g: w * (g - np.sum(g * w, axis=-1))),
    ("backward_diagonal", lambda w, g: w * (1 - w) * g),
)


TASKS: dict[str, _Task] = {t.name: t for t in (
    _Task("softmax", (("the weights", "the same as x"),), _softmax_cases, lambda x: softmax(x),
          (("wrong_axis", _wrong_axis_softmax), ("sum_all", _softmax_all),
           ("no_keepdims", _softmax_no_keepdims), ("no_keepdims", _softmax_max_no_keepdims),
           ("global_max", _softmax_global_max),
           ("no_normalise", lambda x: np.exp(x - np.max(x, axis=-1, keepdims=True))),
           ("no_normalise", lambda x: np.exp(np.asarray(x, dtype=float)))), large_probe=True),
    _Task("project_qkv", (("Q", "n × d_k"), ("K", "n × d_k"), ("V", "n × d_v")), _projection_cases,
          lambda X, Wq, Wk, Wv: project_qkv(X, Wq, Wk, Wv), _PROJECTION_MODELS),
    _Task("attention", (("output", "n_q × d_v"), ("weights", "n_q × n_k")), _attention_cases, _attention_reference,
          _ATTENTION_MODELS, large_probe=True),
    _Task("causal_mask", (("the mask", "n × n"),), _causal_cases, causal_mask, _CAUSAL_MODELS),
    _Task("masked_attention", (("output", "n_q × d_v"), ("weights", "n_q × n_k")), _masked_cases, _masked_reference,
          _MASKED_MODELS, large_probe=True),
    _Task("multi_head_attention", (("the output", "n × d_model"),), _mha_cases, _mha_reference, _MHA_MODELS),
    _Task("online_softmax", (("m_new", "n_q"), ("l_new", "n_q"), ("o_new", "n_q × d_v")), _online_cases,
          _online_reference, _ONLINE_MODELS),
    _Task("softmax_backward", (("the gradient", "the same as weights"),), _backward_cases, _backward_reference,
          _BACKWARD_MODELS),
)}


# --------------------------------------------------------------------------- running the learner's function


class _TimeUp(BaseException):
    """Raised inside the learner's function when it runs too long (a BaseException: `except Exception` in the
    learner's code does not swallow it)."""


@dataclass
class _Run:
    """What one call did: its results (a tuple of arrays) or why there are none."""

    case: _Case
    value: object = None
    error: BaseException | None = None
    timed_out: bool = False
    overflow: bool = False
    changed: str = ""   # the name of an argument the function wrote into


def _call_limited(fn, args, seconds: float):
    """``fn(*args)``, stopped after ``seconds`` where a timer can interrupt it (the main thread: notebook cells)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return fn(*args)

    def time_up(signum, frame):
        raise _TimeUp

    previous = signal.signal(signal.SIGALRM, time_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def _run(fn, case: _Case, arg_names) -> _Run:
    run = _Run(case)
    args = tuple(_copy(a) for a in case.args)
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            run.value = _call_limited(fn, args, TIME_LIMIT)
        run.overflow = any("overflow" in str(w.message) or "invalid value" in str(w.message) for w in caught)
    except _TimeUp:
        run.timed_out = True
    except Exception as err:  # noqa: BLE001 - the learner's code may raise anything: it becomes Feedback
        run.error = err
    for name, before, after in zip(arg_names, case.args, args):
        if isinstance(before, np.ndarray) and not np.array_equal(before, after, equal_nan=True):
            run.changed = name
            break
    return run


def _arg_names(fn, n: int) -> list[str]:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return (names + [f"argument {k + 1}" for k in range(len(names), n)])[:n]


def _unfilled(fn) -> bool:
    """True if ``fn``'s body is only a docstring and ``...`` (or ``pass``): the skeleton as given."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        node = tree.body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        node = None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == getattr(fn, "__name__", None):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                               and s.value.value is Ellipsis) for s in body)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    # No source (made by exec): the skeleton compiles to "return None" and nothing else.
    ops = [(i.opname, i.argval) for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP")]
    return ops in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


def _as_arrays(value, task: _Task):
    """The returned value as a tuple of arrays, one per output, or a text saying why it cannot be read."""
    k = len(task.outputs)
    names = " and ".join(n for n, _ in task.outputs)
    if k > 1:
        if isinstance(value, np.ndarray):
            return (f"returned one array of shape {_shape(value.shape)}; expected {k} results ({names}): "
                    f"return {names.replace(' and ', ', ')}")
        if not isinstance(value, (tuple, list)) or len(value) != k:
            return f"returned {_describe(value)}; expected {k} results ({names})"
        parts = value
    else:
        parts = (value,)
    arrays = []
    for (name, _), part in zip(task.outputs, parts):
        if part is None:
            return f"returned None for {name}"
        if isinstance(part, str):
            return f"returned the text {part[:30]!r} for {name}; expected an array"
        try:
            arr = np.asarray(part)
        except Exception:  # noqa: BLE001 - ragged lists and odd objects
            return f"returned {_describe(part)} for {name}; expected an array"
        if arr.dtype.kind not in "biuf":
            return f"returned {_describe(part)} for {name}; expected an array of numbers"
        arrays.append(arr)
    return tuple(arrays)


def _describe(x) -> str:
    if x is None:
        return "None"
    if isinstance(x, str):
        return f"the text {x[:30]!r}"
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)} item{'s' if len(x) != 1 else ''}"
    if isinstance(x, np.ndarray):
        return f"an array of shape {_shape(x.shape)}"
    name = type(x).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _shape(s) -> str:
    return "(" + ", ".join(str(int(v)) for v in s) + (",)" if len(s) == 1 else ")")


def _num(v) -> str:
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    if want.dtype == bool or got.dtype == bool:
        return got.dtype == want.dtype and bool(np.array_equal(got, want))
    tol = 1e-4 if got.dtype.itemsize < 8 else 1e-7
    with np.errstate(all="ignore"):
        return bool(np.allclose(got.astype(float), want, rtol=tol, atol=tol, equal_nan=True))


def _all_same(got: tuple, want: tuple) -> bool:
    return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))


def _outputs(value, k: int) -> tuple:
    return tuple(np.asarray(v) for v in (value if k > 1 else (value,)))


def _model_value(model, case: _Case, k: int):
    """A wrong implementation's result on ``case``, or None where it cannot run (e.g. Q @ K with d_k ≠ n_k)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _outputs(model(*(_copy(a) for a in case.args)), k)
    except Exception:  # noqa: BLE001 - a wrong implementation may fail on shapes, exactly as the learner's did
        return None


def _diagnose(task: _Task, runs: list[_Run], got: dict) -> str:
    """The key of the first mistake whose wrong implementation explains every run, or ''.

    It explains a run if both ran and agree, or both failed; it must differ from the reference somewhere.
    """
    k = len(task.outputs)
    for key, model in task.models:
        explains, differs, agreed = True, False, 0
        for run in runs:
            if run.timed_out:
                explains = False
                break
            value = _model_value(model, run.case, k)
            if run.case.large and run.case.name in got and not all(
                    np.isfinite(g.astype(float)).all() for g in got[run.case.name]) \
                    and (value is None or not _all_same(got[run.case.name], value)):
                continue  # an overflow of its own (no max subtraction) may come with this mistake: judge the others
            if run.error is not None or run.case.name not in got:
                if value is not None:
                    explains = False
                    break
                differs = True
                continue
            if value is None or not _all_same(got[run.case.name], value):
                explains = False
                break
            agreed += 1
            if not _all_same(value, _outputs(task.reference(*run.case.args), k)):
                differs = True
        if explains and differs and agreed:
            return key
    return ""


def _first_difference(got: np.ndarray, want: np.ndarray) -> str:
    if want.dtype == bool and got.dtype != bool:
        return f"holds numbers ({got.dtype}); expected True/False (dtype bool)"
    with np.errstate(all="ignore"):
        bad = ~np.isclose(got.astype(float), want.astype(float), rtol=1e-6, atol=1e-6, equal_nan=True)
    where = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else ()
    if not where and got.ndim:
        return "differs"
    g, w = (got[where], want[where]) if got.ndim else (got, want)
    if want.dtype == bool:
        return f"entry {where} is {bool(g)}; expected {bool(w)}"
    place = f"entry {where}" if got.ndim else "it"
    return f"{place} is {_num(g)}; expected {_num(w)}"


def _problem(task: _Task, run: _Run, got: dict) -> str:
    """What is wrong with one run ('' if nothing); records its readable results in ``got``."""
    case, k = run.case, len(task.outputs)
    if run.timed_out:
        return f"On {case.name}: your function did not finish within {TIME_LIMIT:g} s (a loop that never ends?)."
    if run.error is not None:
        text = str(run.error).strip()
        return f"On {case.name}: your function raised {type(run.error).__name__}" + (f": {text}" if text else "") + "."
    if run.value is None:
        return f"On {case.name}: your function returned None. Did you forget `return`?"
    arrays = _as_arrays(run.value, task)
    if isinstance(arrays, str):
        return f"On {case.name}: your function {arrays}."
    got[case.name] = arrays
    want = _outputs(task.reference(*case.args), k)
    # Shapes first: a result of the wrong shape cannot be compared entry by entry.
    shapes = [(name, words, g.shape, w.shape) for (name, words), g, w in zip(task.outputs, arrays, want)
              if g.shape != w.shape]
    if shapes:
        return f"On {case.name}: " + "; ".join(
            f"{name} has shape {_shape(gs)}; expected {_shape(ws)} ({words})" for name, words, gs, ws in shapes) + "."
    if _all_same(arrays, want):
        return ""
    if case.large and (run.overflow or any(not np.isfinite(g.astype(float)).all() for g in arrays)):
        return (f"On {case.name}: your result has inf or nan (exp overflowed, or every exp underflowed to 0 and "
                "0/0 gave nan).")
    parts = [f"{name} {_first_difference(g, w)}" for (name, _), g, w in zip(task.outputs, arrays, want)
             if not _same(g, w)]
    return f"On {case.name}: " + "; ".join(parts) + "."


def _verdict(task: _Task, fn) -> tuple[bool, str, str]:
    """(correct, message, mistake key)."""
    cases = task.cases()
    names = _arg_names(fn, len(cases[0].args))
    runs, got = [], {}
    k = len(task.outputs)
    problem = ""
    for case in cases:
        run = _run(fn, case, names)
        runs.append(run)
        found = _problem(task, run, got)
        problem = problem or found
        if run.timed_out:
            break  # one endless loop is enough to report; the others would only make the learner wait
    mistake = _diagnose(task, runs, got) if problem else ""
    if problem and not mistake and task.large_probe and all(
            r.case.name in got and (r.case.large or _all_same(got[r.case.name],
                                                              _outputs(task.reference(*r.case.args), k)))
            for r in runs):
        mistake = "no_max"  # right everywhere except on the large scores
    changed = next((r for r in runs if r.changed), None)
    if not problem and changed is None:
        return True, (f"{task.name}: correct on all {len(cases)} examples.\n"
                      f"Checked on: {'; '.join(c.name for c in cases)}."), ""
    if not problem:
        problem = (f"Your results are right, but on {changed.case.name} your function changed its argument "
                   f"`{changed.changed}`.")
        mistake = "mutates_input"
    lines = [f"{task.name}: not right yet.", problem]
    if mistake:
        m = MISTAKES[mistake]
        lines += [f"This looks like: {m.title}.", m.advice]
        if m.where:
            lines.append(f"Where the course explains it: {m.where}.")
    elif changed is not None:
        lines.append(f"Also, on {changed.case.name} your function changed its argument `{changed.changed}`: "
                     "compute a new array instead of writing into it.")
    return False, "\n".join(lines), mistake


def _check_task(task) -> None:
    """ValueError unless ``task`` names one of :data:`TASKS` (each has its skeleton and solution too)."""
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}")


def check_code(task: str, fn):
    """Check a learner's function for ``task`` on the course's examples and on probes for classic mistakes.

    Parameters
    ----------
    task : str
        One of :data:`TASKS` (``"softmax"``, ``"project_qkv"``, ``"attention"``, ``"causal_mask"``,
        ``"masked_attention"``, ``"multi_head_attention"``, ``"online_softmax"``, ``"softmax_backward"``).
    fn : callable
        The learner's function, with the task's signature (see the module docstring).

    Returns
    -------
    helpers.exercises.Feedback
        ``.correct``; ``.message`` (what was wrong, on which example, and where the course explains it);
        ``.mistake``, the key in :data:`MISTAKES` of the mistake recognised ('' if none). Never raises for
        a broken ``fn``.

    Raises
    ------
    ValueError
        If ``task`` is not a known task.
    """
    from helpers.exercises import Feedback

    _check_task(task)
    if not callable(fn):
        return Feedback(False, f"{task}: check_code needs your function itself, e.g. check_code({task!r}, "
                               f"my_{task}); got {_describe(fn)}, which cannot be called.")
    if _unfilled(fn):
        return Feedback(False, f"{task}: not written yet: replace `...` with your code, then run the cell again.",
                        NOT_WRITTEN)
    try:
        correct, message, mistake = _verdict(TASKS[task], fn)
    except Exception as err:  # noqa: BLE001 - whatever the function returned, the learner gets a verdict
        correct, message, mistake = False, (f"{task}: your function's result could not be checked "
                                            f"({type(err).__name__}: {err})."), ""
    return Feedback(correct, message, mistake)


# --------------------------------------------------------------------------- the reference solution, folded


def _fold_html(task: str, open_: bool) -> str:
    code = _html.escape(SOLUTIONS[task].rstrip("\n"))
    return (f'<details class="code-solution"{" open" if open_ else ""} style="color:{theme.PANEL_FG};'
            f'font-size:{theme.sizes().font};margin:4px 0">'
            f'<summary style="cursor:pointer">Solution: {task} (click to open)</summary>'
            f'<pre style="{theme.MONO}background:{theme.PANEL_BG};color:{theme.PANEL_FG};'
            f'border:1px solid {theme.BORDER};border-radius:4px;padding:6px 8px;margin:4px 0;'
            f'font-size:{theme.sizes().trace};white-space:pre-wrap">{code}</pre></details>')


def _instructor():
    """The instructor switch of this kernel's practice session (helpers.practice), or None if it cannot be made."""
    try:
        from helpers import practice
        return practice.session().instructor
    except Exception:  # noqa: BLE001 - no widgets available: the fold just stays closed
        return None


class SolutionFold(TextForm, _widgets.HTML):
    """A task's reference solution, folded (an HTML ``<details>``): one click opens it.

    It opens and closes with the instructor switch (``helpers.practice.instructor_switch()``).
    """

    def __init__(self, task: str, switch=None):
        self.task = task
        self.switch = switch
        shown = bool(switch is not None and switch.value)
        super().__init__(value=_fold_html(task, shown))
        self.add_class("code-solution")
        if switch is not None:
            switch.observe(self._follow, names="value")

    @property
    def is_open(self) -> bool:
        return " open" in self.value.split(">", 1)[0]

    def show(self, show: bool = True) -> None:
        self.value = _fold_html(self.task, bool(show))

    def _follow(self, change) -> None:
        try:
            self.show(change["new"])
        except Exception:  # noqa: BLE001 - nothing may leave a handler
            pass

    def __repr__(self) -> str:
        return f"Solution: {self.task}, " + ("open" if self.is_open else "folded (click to open)")


def show_solution(task: str) -> SolutionFold:
    """The reference solution of ``task``, folded; open already when the instructor switch is on.

    Raises
    ------
    ValueError
        If ``task`` is not a known task.
    """
    _check_task(task)
    return SolutionFold(task, _instructor())
