"""check_code and show_solution: the reference solutions pass, each classic mistake gets ITS diagnosis (and the example
it fails on), no message gives a line of the solution away, junk gets Feedback, and every "Your turn" cell of the
notebooks works with its skeleton, its solution and a mistake, followed by its hint ladder."""

from __future__ import annotations

import ast
import inspect
import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention, softmax
from helpers.exercises import Feedback, check_code
from helpers.exercises.code_tasks import MISTAKES, SKELETONS, SOLUTIONS, TASKS, YOUR_TURN_CELLS, YOUR_TURN_TASKS
from helpers.widgets.solutions import show_solution

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def define(source: str):
    """The last function ``source`` defines (numpy as np available), as a learner's cell would make it."""
    ns = {"np": np}
    exec(source, ns)
    return [v for k, v in ns.items() if callable(v) and k != "np" and not k.startswith("__")][-1]


def solution_source(task) -> str:
    """The reference solution's source, as the learner is shown it."""
    return inspect.getsource(SOLUTIONS[task])


def solution(task):
    """The reference solution as a learner's cell makes it from the source shown (only numpy at hand)."""
    return define(solution_source(task))


# --------------------------------------------------------------------------- the reference solutions


def test_there_are_the_tasks_with_a_skeleton_and_a_solution_each():
    names = {"softmax", "project_qkv", "attention", "causal_mask", "masked_attention", "padding_causal_mask",
             "kv_cache_decode", "cross_attention_padded", "multi_head_attention", "split_heads", "merge_heads",
             "sliding_window_mask", "online_softmax", "softmax_backward", "self_attention", "padded_attention",
             "minilm_attention", "attention_sublayer", "encoder"}
    assert set(TASKS) == set(SOLUTIONS) == set(SKELETONS) == names
    # self_attention and padded_attention are checked by the find-the-bug cells only; causal_mask is the causal half
    # of padding_causal_mask
    assert set(YOUR_TURN_TASKS) == names - {"self_attention", "padded_attention", "causal_mask"}


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_every_reference_solution_passes(task):
    fb = check_code(task, solution(task))
    assert isinstance(fb, Feedback) and fb.correct, fb.message
    assert str(fb).startswith("✓ ") and "correct" in fb.message


@pytest.mark.parametrize("task", sorted(SKELETONS))
def test_every_skeleton_is_not_written_yet(task):
    fb = check_code(task, define(SKELETONS[task]))
    assert not fb.correct and fb.mistake == "not_written"
    assert "not written yet: replace `...` with your code, then run the cell again" in str(fb)


def test_reference_solutions_in_float32_and_with_lists():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5))
    for dtype in (np.float32, list):
        arg = x.astype(np.float32) if dtype is np.float32 else x.tolist()
        got = solution("softmax")(arg)
        assert np.allclose(got, softmax(x), atol=1e-6)
    assert solution("softmax")([[1000.0, 1001.0]])[0].tolist() == pytest.approx(softmax([1000.0, 1001.0]).tolist())
    X, Wq, Wk, Wv = (rng.normal(size=s).astype(np.float32) for s in ((4, 6), (6, 2), (6, 2), (6, 3)))
    for got, want in zip(solution("project_qkv")(X, Wq, Wk, Wv), project_qkv(X, Wq, Wk, Wv)):
        assert got.dtype == np.float32 and np.allclose(got, want, atol=1e-5)
    Q, K, V = (rng.normal(size=s).astype(np.float32) for s in ((3, 4), (5, 4), (5, 2)))
    out, w = solution("attention")(Q, K, V)
    ref_out, ref_w = scaled_dot_product_attention(Q, K, V)
    assert np.allclose(out, ref_out, atol=1e-5) and np.allclose(w, ref_w, atol=1e-5)
    mask = causal_mask(5)[:3]
    out, w = solution("masked_attention")(Q, K, V, mask)
    ref_out, ref_w = scaled_dot_product_attention(Q, K, V, mask=mask)
    assert np.allclose(out, ref_out, atol=1e-5) and np.allclose(w, ref_w, atol=1e-5)
    assert np.array_equal(solution("causal_mask")(np.int64(4)), causal_mask(4))
    W = softmax(x).tolist()
    g = rng.normal(size=(3, 5))
    assert np.allclose(solution("softmax_backward")(np.asarray(W, dtype=np.float32), g.astype(np.float32)),
                       solution("softmax_backward")(np.asarray(W), g), atol=1e-5)


def test_float32_and_nested_list_results_are_accepted_when_the_values_are_right():
    ref = solution("attention")

    def as_float32(Q, K, V):
        out, w = ref(Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32))
        return out, w

    def as_lists(Q, K, V):
        out, w = ref(Q, K, V)
        return out.tolist(), w.tolist()

    assert check_code("attention", as_float32).correct
    assert check_code("attention", as_lists).correct
    assert check_code("softmax", lambda x: softmax(x).astype(np.float32)).correct


def test_softmax_backward_reference_is_the_gradient():
    """Finite differences of L = sum(g * softmax(s)) agree with the task's reference (and so with the solution)."""
    rng = np.random.default_rng(1)
    s, g = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    numeric = np.zeros_like(s)
    for idx in np.ndindex(s.shape):
        d = np.zeros_like(s)
        d[idx] = 1e-6
        numeric[idx] = (np.sum(g * softmax(s + d)) - np.sum(g * softmax(s - d))) / 2e-6
    assert np.allclose(solution("softmax_backward")(softmax(s), g), numeric, atol=1e-6)


def test_online_softmax_solution_run_over_blocks_is_attention():
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(3, 4)) * 5, rng.normal(size=(7, 4)) * 5, rng.normal(size=(7, 2))
    step = solution("online_softmax")
    m, l, o = np.full(3, -np.inf), np.zeros(3), np.zeros((3, 2))
    for start in range(0, 7, 3):
        m, l, o = step(m, l, o, Q @ K[start:start + 3].T / 2, V[start:start + 3])
    assert np.allclose(o / l[:, None], scaled_dot_product_attention(Q, K, V)[0])


def test_multi_head_solution_with_one_head_is_attention_then_w_o():
    rng = np.random.default_rng(3)
    X, Wq, Wk, Wv, Wo = (rng.normal(size=s) for s in ((5, 4), (4, 4), (4, 4), (4, 4), (4, 4)))
    out = solution("multi_head_attention")(X, Wq, Wk, Wv, Wo, 1)
    assert np.allclose(out, scaled_dot_product_attention(*project_qkv(X, Wq, Wk, Wv))[0] @ Wo)


# --------------------------------------------------------------------------- a catalogue of wrong implementations

SM = """
def sm(s, axis=-1):
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
"""

WRONG = [
    # (task, expected mistake key, source)
    ("softmax", "wrong_axis", """
def f(x):
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)"""),
    ("softmax", "no_max", """
def f(x):
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)"""),
    ("softmax", "no_normalise", """
def f(x):
    return np.exp(x - np.max(x, axis=-1, keepdims=True))"""),
    ("softmax", "no_keepdims", """
def f(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)"""),
    ("softmax", "global_max", """
def f(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=-1, keepdims=True)"""),
    ("softmax", "no_keepdims", """
def f(x):
    e = np.exp(x - x.max(axis=-1))
    return e / e.sum(axis=-1, keepdims=True)"""),
    ("softmax", "sum_all", """
def f(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()"""),
    ("softmax", "softmax_mixed_axes", """
def f(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)"""),
    ("softmax", "mutates_input", """
def f(x):
    x -= np.max(x, axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= np.sum(x, axis=-1, keepdims=True)
    return x"""),
    ("project_qkv", "wq_wk_swapped", """
def f(X, W_q, W_k, W_v):
    return X @ W_k, X @ W_q, X @ W_v"""),
    ("project_qkv", "w_on_the_left", """
def f(X, W_q, W_k, W_v):
    Q = W_q @ X
    K = W_k @ X
    V = W_v @ X
    return Q, K, V"""),
    ("attention", "no_scale", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T)
    return w @ V, w"""),
    ("attention", "scale_dk", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / Q.shape[1])
    return w @ V, w"""),
    ("attention", "scale_tokens", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / np.sqrt(K.shape[0]))
    return w @ V, w"""),
    ("attention", "no_keepdims", """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=1)
    return w @ V, w"""),
    ("attention", "softmax_over_queries", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]), axis=0)
    return w @ V, w"""),
    ("attention", "weights_transposed", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w.T"""),
    ("attention", "order_swapped", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w, w @ V"""),
    ("attention", "weights_at_K", SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ K, w"""),
    ("attention", "k_not_transposed", SM + """
def f(Q, K, V):
    w = sm(Q @ K / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("attention", "no_max", """
def f(Q, K, V):
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("attention", "global_max", """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(s - s.max())
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("attention", "no_scale", """
def f(Q, K, V):
    e = np.exp(Q @ K.T)
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("attention", "causal_mask_added", SM + """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s + np.triu(np.full(s.shape, -np.inf), k=1)
    w = sm(s)
    return w @ V, w"""),
    ("attention", "causal_mask_added", SM + """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.where(np.tril(np.ones_like(s)) == 1, s, -1e9)
    w = sm(s)
    return w @ V, w"""),
    ("attention", "softmax_mixed_axes", """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    w = e / np.sum(e, axis=0, keepdims=True)
    return w @ V, w"""),
    ("attention", "mutates_input", SM + """
def f(Q, K, V):
    Q /= np.sqrt(Q.shape[1])
    w = sm(Q @ K.T)
    return w @ V, w"""),
    ("causal_mask", "causal_upper", "def f(n):\n    return np.triu(np.ones((n, n), dtype=bool))"),
    ("causal_mask", "causal_no_diagonal", "def f(n):\n    return np.tril(np.ones((n, n), dtype=bool), k=-1)"),
    ("causal_mask", "causal_blocked", "def f(n):\n    return np.triu(np.ones((n, n), dtype=bool), k=1)"),
    ("causal_mask", "causal_additive", "def f(n):\n    return np.triu(np.full((n, n), -np.inf), k=1)"),
    ("causal_mask", "mask_not_bool", "def f(n):\n    return np.tril(np.ones((n, n)))"),
    ("masked_attention", "mask_after_softmax", SM + """
def f(Q, K, V, mask):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1])) * mask
    return w @ V, w"""),
    ("masked_attention", "mask_after_softmax", SM + """
def f(Q, K, V, mask):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    w[~mask] = 0
    return w @ V, w"""),
    ("masked_attention", "mask_inverted", SM + """
def f(Q, K, V, mask):
    w = sm(np.where(mask, -1e9, Q @ K.T / np.sqrt(Q.shape[1])))
    return w @ V, w"""),
    ("masked_attention", "mask_inverted_additive", SM + """
def f(Q, K, V, mask):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    w = sm(S + mask * -1e9)
    return w @ V, w"""),
    ("masked_attention", "mask_after_softmax_renormalised", SM + """
def f(Q, K, V, mask):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    w = np.where(mask, w, 0.0)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("masked_attention", "mask_ignored", SM + """
def f(Q, K, V, mask):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("masked_attention", "mask_multiplied", SM + """
def f(Q, K, V, mask):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]) * mask)
    return w @ V, w"""),
    ("masked_attention", "mask_added", SM + """
def f(Q, K, V, mask):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]) + mask)
    return w @ V, w"""),
    ("masked_attention", "mask_inverted", SM + """
def f(Q, K, V, mask):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s[mask] = -np.inf
    w = sm(s)
    return w @ V, w"""),
    ("multi_head_attention", "no_wo", SM + """
def f(X, W_q, W_k, W_v, W_o, h):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d = Q.shape[1] // h
    heads = [sm(Q[:, i*d:(i+1)*d] @ K[:, i*d:(i+1)*d].T / np.sqrt(d)) @ V[:, i*d:(i+1)*d] for i in range(h)]
    return np.concatenate(heads, axis=1)"""),
    ("multi_head_attention", "scale_dmodel", SM + """
def f(X, W_q, W_k, W_v, W_o, h):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d = Q.shape[1] // h
    heads = [sm(Q[:, i*d:(i+1)*d] @ K[:, i*d:(i+1)*d].T / np.sqrt(Q.shape[1])) @ V[:, i*d:(i+1)*d]
             for i in range(h)]
    return np.concatenate(heads, axis=1) @ W_o"""),
    ("multi_head_attention", "heads_reshape", SM + """
def f(X, W_q, W_k, W_v, W_o, h):
    n = X.shape[0]
    Q, K, V = ((X @ W).reshape(h, n, -1) for W in (W_q, W_k, W_v))
    heads = [sm(Q[i] @ K[i].T / np.sqrt(Q.shape[2])) @ V[i] for i in range(h)]
    return np.concatenate(heads, axis=1) @ W_o"""),
    ("multi_head_attention", "heads_interleaved", SM + """
def f(X, W_q, W_k, W_v, W_o, h):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d = Q.shape[1] // h
    heads = [sm(Q[:, i::h] @ K[:, i::h].T / np.sqrt(d)) @ V[:, i::h] for i in range(h)]
    return np.concatenate(heads, axis=1) @ W_o"""),
    ("online_softmax", "no_rescale_l", """
def f(m, l, o, s, V):
    m_new = np.maximum(m, s.max(axis=-1))
    a = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m_new, l + p.sum(axis=-1), a[:, None] * o + p @ V"""),
    ("online_softmax", "no_rescale_o", """
def f(m, l, o, s, V):
    m_new = np.maximum(m, s.max(axis=-1))
    a = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m_new, a * l + p.sum(axis=-1), o + p @ V"""),
    ("online_softmax", "block_max", """
def f(m, l, o, s, V):
    m_new = s.max(axis=-1)
    a = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m_new, a * l + p.sum(axis=-1), a[:, None] * o + p @ V"""),
    ("masked_attention", "softmax_over_queries", """
def f(Q, K, V, mask):
    s = np.where(mask, Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)
    e = np.exp(s - s.max(axis=0, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)
    return w @ V, w"""),
    ("multi_head_attention", "merge_no_transpose", SM + """
def f(X, W_q, W_k, W_v, W_o, h):
    n, d_model = X.shape
    Q, K, V = (np.swapaxes((X @ W).reshape(n, h, -1), 0, 1) for W in (W_q, W_k, W_v))
    w = sm(Q @ np.swapaxes(K, 1, 2) / np.sqrt(d_model // h))
    return (w @ V).reshape(n, d_model) @ W_o"""),
    ("padded_attention", "pad_mask_on_queries", SM + """
def f(Q, K, V, lengths):
    keep = np.arange(Q.shape[1]) < np.array(lengths)[:, None]
    s = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2])
    w = sm(np.where(keep[:, :, None], s, -1e9))
    return w @ V, w"""),
    ("padded_attention", "mask_ignored", SM + """
def f(Q, K, V, lengths):
    w = sm(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2]))
    return w @ V, w"""),
    ("padded_attention", "pad_off_by_one", SM + """
def f(Q, K, V, lengths):
    keep = np.arange(Q.shape[1]) <= np.array(lengths)[:, None]
    w = sm(np.where(keep[:, None, :], Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2]), -np.inf))
    return w @ V, w"""),
    ("padded_attention", "scale_dk", SM + """
def f(Q, K, V, lengths):
    keep = np.arange(Q.shape[1]) < np.array(lengths)[:, None]
    w = sm(np.where(keep[:, None, :], Q @ K.transpose(0, 2, 1) / Q.shape[2], -np.inf))
    return w @ V, w"""),
    ("padded_attention", "mask_after_softmax", SM + """
def f(Q, K, V, lengths):
    keep = np.arange(Q.shape[1]) < np.array(lengths)[:, None]
    w = sm(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2])) * keep[:, None, :]
    return w @ V, w"""),
    ("masked_attention", "scale_dk", SM + """
def f(Q, K, V, mask):
    w = sm(np.where(mask, Q @ K.T / Q.shape[1], -np.inf))
    return w @ V, w"""),
    ("multi_head_attention", "softmax_over_queries", SM + """
def f(X, W_q, W_k, W_v, W_o, h):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d = Q.shape[1] // h
    heads = [sm(Q[:, i*d:(i+1)*d] @ K[:, i*d:(i+1)*d].T / np.sqrt(d), axis=0) @ V[:, i*d:(i+1)*d] for i in range(h)]
    return np.concatenate(heads, axis=1) @ W_o"""),
    ("self_attention", "softmax_over_queries", """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    weights = e / e.sum(axis=0, keepdims=True)
    return weights @ V, weights"""),
    ("self_attention", "scale_dmodel", SM + """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    w = sm(Q @ K.T / np.sqrt(X.shape[1]))
    return w @ V, w"""),
    ("self_attention", "k_not_transposed", SM + """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    w = sm(Q @ K / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("self_attention", "wq_wk_swapped", SM + """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_k, X @ W_q, X @ W_v
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("self_attention", "no_scale", SM + """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    w = sm(Q @ K.T)
    return w @ V, w"""),
    ("self_attention", "weights_at_K", SM + """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ K, w"""),
    ("self_attention", "no_max", """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("softmax_backward", "backward_no_subtraction", "def f(w, g):\n    return w * g"),
    ("softmax_backward", "backward_wrong_axis",
     "def f(w, g):\n    return w * (g - np.sum(g * w, axis=0, keepdims=True))"),
    ("softmax_backward", "backward_diagonal", "def f(w, g):\n    return w * (1 - w) * g"),
    ("softmax_backward", "backward_global_sum", "def f(w, g):\n    return w * (g - np.sum(g * w))"),
    ("split_heads", "split_no_transpose", """
def f(X, h):
    n, d_model = X.shape[-2:]
    return X.reshape(h, n, d_model // h)"""),
    ("split_heads", "split_no_transpose", """
def f(X, h):
    *lead, n, d_model = X.shape
    return X.reshape(*lead, h, n, d_model // h)"""),
    ("split_heads", "split_interleaved", """
def f(X, h):
    n, d_model = X.shape
    return X.reshape(n, d_model // h, h).transpose(2, 0, 1)"""),
    ("split_heads", "split_wrong_axes", """
def f(X, h):
    n, d_model = X.shape[-2:]
    return X.reshape(n, h, d_model // h).T"""),
    ("split_heads", "split_wrong_axes", """
def f(X, h):
    *lead, n, d_model = X.shape
    return X.reshape(*lead, n, h, d_model // h).swapaxes(-1, -2)"""),
    ("split_heads", "split_axes_from_front", """
def f(X, h):
    n, d_model = X.shape[-2:]
    return X.reshape(n, h, d_model // h).transpose(1, 0, 2)"""),
    ("split_heads", "split_axes_from_front", """
def f(X, h):
    return np.stack(np.split(X, h, axis=-1))"""),
    ("merge_heads", "merge_no_transpose", """
def f(Xh):
    h, n, d_k = Xh.shape[-3:]
    return Xh.reshape(n, h * d_k)"""),
    ("merge_heads", "merge_interleaved", """
def f(Xh):
    h, n, d_k = Xh.shape
    return Xh.transpose(1, 2, 0).reshape(n, h * d_k)"""),
    ("merge_heads", "merge_stacked", """
def f(Xh):
    return np.concatenate(Xh, axis=0)"""),
    ("merge_heads", "merge_axes_from_front", """
def f(Xh):
    return np.concatenate(list(Xh), axis=-1)"""),
    ("merge_heads", "merge_axes_from_front", """
def f(Xh):
    h, n, d_k = Xh.shape[-3:]
    return Xh.transpose(1, 0, 2).reshape(n, h * d_k)"""),
    ("merge_heads", "mutates_input", """
def f(Xh):
    *lead, h, n, d_k = Xh.shape
    Xh[...] = np.swapaxes(Xh, -3, -2).reshape(Xh.shape)
    return Xh.reshape(*lead, n, h * d_k)"""),
    ("padding_causal_mask", "pad_no_query_axis", """
def f(lengths, n):
    real = np.arange(n)[None, :] < np.array(lengths)[:, None]
    return real & np.tril(np.ones((n, n), dtype=bool))"""),
    ("padding_causal_mask", "lengths_as_array", """
def f(lengths, n):
    real = np.arange(n)[None, :] < lengths[:, None]
    return real[:, None, :] & np.tril(np.ones((n, n), dtype=bool))"""),
    ("padding_causal_mask", "pad_rows_not_keys", """
def f(lengths, n):
    mask = np.zeros((len(lengths), n, n), dtype=bool)
    for b, length in enumerate(lengths):
        for i in range(length):
            mask[b, i, :i + 1] = True
    return mask"""),
    ("padding_causal_mask", "padding_left_out", """
def f(lengths, n):
    return np.stack([np.tril(np.ones((n, n), dtype=bool)) for _ in lengths])"""),
    ("padding_causal_mask", "pad_off_by_one", """
def f(lengths, n):
    real = np.arange(n)[None, :] <= np.array(lengths)[:, None]
    return real[:, None, :] & np.tril(np.ones((n, n), dtype=bool))"""),
    ("padding_causal_mask", "masks_or", """
def f(lengths, n):
    real = np.arange(n)[None, :] < np.array(lengths)[:, None]
    return real[:, None, :] | np.tril(np.ones((n, n), dtype=bool))"""),
    ("padding_causal_mask", "causal_upper", """
def f(lengths, n):
    real = np.arange(n)[None, :] < np.array(lengths)[:, None]
    return real[:, None, :] & np.triu(np.ones((n, n), dtype=bool))"""),
    ("padding_causal_mask", "mask_not_bool", """
def f(lengths, n):
    mask = np.zeros((len(lengths), n, n))
    for b, length in enumerate(lengths):
        mask[b, :, :length] = np.tril(np.ones((n, length)))
    return mask"""),
    ("sliding_window_mask", "window_off_by_one", """
def f(n, window):
    return np.tril(np.ones((n, n), dtype=bool)) & np.triu(np.ones((n, n), dtype=bool), k=-window)"""),
    ("sliding_window_mask", "window_both_sides", """
def f(n, window):
    i, j = np.indices((n, n))
    return abs(i - j) < window"""),
    ("sliding_window_mask", "window_not_causal", """
def f(n, window):
    i, j = np.indices((n, n))
    return i - j < window"""),
    ("sliding_window_mask", "window_ignored", """
def f(n, window):
    return np.tril(np.ones((n, n), dtype=bool))"""),
    ("sliding_window_mask", "window_from_start", """
def f(n, window):
    mask = np.tril(np.ones((n, n), dtype=bool))
    mask[:, window:] = False
    return mask"""),
    ("sliding_window_mask", "window_ahead", """
def f(n, window):
    i, j = np.indices((n, n))
    return (j >= i) & (j - i < window)"""),
    ("sliding_window_mask", "window_inverted", """
def f(n, window):
    i, j = np.indices((n, n))
    return (j > i) | (i - j >= window)"""),
    ("kv_cache_decode", "kv_all_keys", SM + """
def f(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    rows = [sm(Q[t] @ K.T / np.sqrt(Q.shape[1])) @ V for t in range(len(X))]
    return np.array(rows)"""),
    ("kv_cache_decode", "kv_own_key_missing", """
def f(X, W_q, W_k, W_v):
    keys, values, rows = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
    for x in X:
        e = np.exp((x @ W_q) @ keys.T / np.sqrt(W_q.shape[1]))
        rows.append(e / e.sum() @ values)
        keys, values = np.vstack([keys, x @ W_k]), np.vstack([values, x @ W_v])
    return np.array(rows)"""),
    ("kv_cache_decode", "kv_cache_replaced", SM + """
def f(X, W_q, W_k, W_v):
    rows = []
    for x in X:
        keys, values = (x @ W_k)[None, :], (x @ W_v)[None, :]
        rows.append(sm((x @ W_q) @ keys.T / np.sqrt(W_q.shape[1])) @ values)
    return np.array(rows)"""),
    ("kv_cache_decode", "kv_last_row_only", SM + """
def f(X, W_q, W_k, W_v):
    keys, values = [], []
    for x in X:
        keys.append(x @ W_k)
        values.append(x @ W_v)
        out = sm((x @ W_q) @ np.array(keys).T / np.sqrt(W_q.shape[1])) @ np.array(values)
    return out"""),
    ("kv_cache_decode", "scale_dmodel", SM + """
def f(X, W_q, W_k, W_v):
    keys, values, rows = [], [], []
    for x in X:
        keys.append(x @ W_k)
        values.append(x @ W_v)
        rows.append(sm((x @ W_q) @ np.array(keys).T / np.sqrt(len(x))) @ np.array(values))
    return np.array(rows)"""),
    ("kv_cache_decode", "no_max", """
def f(X, W_q, W_k, W_v):
    keys, values, rows = [], [], []
    for x in X:
        keys.append(x @ W_k)
        values.append(x @ W_v)
        e = np.exp((x @ W_q) @ np.array(keys).T / np.sqrt(W_q.shape[1]))
        rows.append(e / e.sum() @ np.array(values))
    return np.array(rows)"""),
    ("cross_attention_padded", "source_padding_ignored", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("cross_attention_padded", "source_padding_on_queries", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s[enc_length:, :] = -np.inf
    w = sm(s)
    return w @ V, w"""),
    ("cross_attention_padded", "source_keys_causal", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.where(np.tril(np.ones(s.shape)) > 0, s, -np.inf)
    s[:, enc_length:] = -np.inf
    w = sm(s)
    return w @ V, w"""),
    ("cross_attention_padded", "source_padding_off_by_one", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s[:, enc_length + 1:] = -np.inf
    w = sm(s)
    return w @ V, w"""),
    ("cross_attention_padded", "cross_roles_reversed", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_enc @ W_q, X_dec @ W_k, X_dec @ W_v
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("cross_attention_padded", "mask_after_softmax", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    w[:, enc_length:] = 0
    return w @ V, w"""),
    ("cross_attention_padded", "mask_multiplied", SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    real = np.arange(len(X_enc)) < enc_length
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]) * real)
    return w @ V, w"""),
    ("cross_attention_padded", "no_max", """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    e[:, enc_length:] = 0
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    # The capstone's tasks, in the real model (tests/test_capstone.py has their whole catalogue).
    ("minilm_attention", "scale_dk", """
def f(Q, K, V):
    s = Q @ K.T / Q.shape[-1]
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("attention_sublayer", "merge_no_transpose", """
def f(X, layer):
    n, d = X.shape
    Q, K, V = ((X @ W + b).reshape(n, 12, 32).swapaxes(0, 1) for W, b in
               ((layer.W_q, layer.b_q), (layer.W_k, layer.b_k), (layer.W_v, layer.b_v)))
    s = Q @ K.swapaxes(1, 2) / np.sqrt(32)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return layer.layer_norm(X + (w @ V).reshape(n, d) @ layer.W_o + layer.b_o), w"""),
    ("encoder", "no_feed_forward", """
def f(X, layers, sublayer):
    states = [X]
    for layer in layers:
        X = sublayer(X, layer)[0]
        states.append(X)
    return np.stack(states)"""),
]


def first_asked_in(task: str) -> str:
    """The notebook of the first "Your turn" cell that asks for ``task`` ('' if none does)."""
    return next((nb for nb, tasks in YOUR_TURN_CELLS.items() if task in tasks), "")


def assert_points_to(message: str, mistake, notebook: str) -> None:
    """``message`` names each of the mistake's places: as the explanation if it is in ``notebook`` or before it, as
    still to come if it is in a later notebook, which the learner has not read yet."""
    lines = message.splitlines()
    for place in filter(None, mistake.where.split("; ")):
        said = [line for line in lines if place in line]
        assert len(said) == 1, message
        if notebook and int(place[:2]) > int(notebook[:2]):
            assert " later, in " in said[0] and "Where the course explains it" not in said[0], message
        else:
            assert said[0].startswith("Where the course explains it: "), message


@pytest.mark.parametrize("task, key, source", WRONG, ids=[f"{t}-{k}-{i}" for i, (t, k, _) in enumerate(WRONG)])
def test_each_wrong_implementation_gets_its_diagnosis(task, key, source):
    fb = check_code(task, define(source))
    assert not fb.correct
    assert fb.mistake == key, fb.message
    mistake = MISTAKES[key]
    assert f"This looks like: {mistake.title}." in fb.message
    assert_points_to(fb.message, mistake, first_asked_in(task))
    assert fb.message.splitlines()[1].startswith(("On ", "Your results are right")), fb.message
    # The example it fails on, as the hint ladder and a find-the-bug check show it: the input, expected against got.
    case = re.match(r'On (.+?): ', fb.message.splitlines()[1])
    assert fb.example.startswith(f"The example: {case[1] if case else ''}"), fb.example
    assert " expected" in fb.example and (" yours" in fb.example or "What happened:" in fb.example)




def test_the_softmax_check_of_01_speaks_only_of_what_01_has_shown():
    """01 asks for softmax before it builds X and long before 02 and 08 explain axes and the max trick: a failing
    example must not be named after X, and the chapters it points to are said to come later."""
    fb = check_code("softmax", define("""
def f(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1)"""))
    assert fb.mistake == "no_keepdims"
    assert "X" not in fb.message.splitlines()[1], fb.message  # "On <the example>: ..."
    assert "The course explains it later, in 02_projections" in fb.message
    assert "Where the course explains it" not in fb.message
    overflow = check_code("softmax", define("""
def f(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)"""))
    assert overflow.mistake == "no_max" and "later, in 08_pitfalls" in overflow.message
    # The same mistake met in 02's attention task, after 02 has explained it: offered as the explanation.
    attention = check_code("attention", define("""
def f(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1)
    return w @ V, w"""))
    assert attention.mistake == "no_keepdims", attention.message
    assert 'Where the course explains it: 02_projections, "Step 3: softmax, row by row".' in attention.message


def headings(stem: str) -> list[set[str]]:
    """The words of each markdown heading of a notebook (formulas reduced to their letters)."""
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    lines = [ln for c in nb["cells"] if c["cell_type"] == "markdown" for ln in "".join(c["source"]).splitlines()
             if ln.startswith("#")]
    return [set(re.findall(r"[A-Za-z]{3,}", ln.lower())) for ln in lines]


@pytest.mark.parametrize("key", sorted(k for k, m in MISTAKES.items() if m.where))
def test_every_mistake_points_to_a_section_that_exists(key):
    for place in MISTAKES[key].where.split("; "):
        stem = place.split(",")[0].split(" ")[0]
        section = re.search(r'"(.+)"', place)
        assert section is not None and (ROOT / "notebooks" / f"{stem}.ipynb").exists(), (
            f"{key}: {place!r} names no section of an existing notebook")
        words = set(re.findall(r"[A-Za-z]{3,}", section.group(1).lower()))
        assert any(words <= h for h in headings(stem)), f"{key}: no heading of {stem} reads {section.group(1)!r}"


def test_a_softmax_that_subtracts_the_row_mean_is_caught_by_the_large_scores():
    """Subtracting the mean keeps the weights in exact arithmetic but not the promise that exp never overflows:
    a row [0, 0, 2000] has mean 667, and exp(1333) is inf."""
    fb = check_code("softmax", define("""
def f(x):
    e = np.exp(x - np.mean(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)"""))
    assert not fb.correct and "large scores" in fb.message, fb.message


def solution_statements(task: str) -> set[str]:
    """The non-trivial lines of a task's reference solution, spaces taken out: every statement of its body (a
    multi-line one whole) and what it computes (the expression after ``return`` or ``=``), from 12 characters on."""
    source = solution_source(task)
    func = ast.parse(source).body[0]
    found = set()
    for stmt in ast.walk(func):
        if stmt is func or not isinstance(stmt, ast.stmt) or isinstance(stmt, ast.Expr):
            continue  # the docstring
        parts = [ast.get_source_segment(source, stmt)]
        if isinstance(stmt, (ast.Return, ast.Assign, ast.AugAssign)) and stmt.value is not None:
            parts.append(ast.get_source_segment(source, stmt.value))
        found.update("".join(part.split("#")[0].split()) for part in parts)
    return {part for part in found if len(part) >= 12}


def catalogue(task: str) -> list[tuple[str, object]]:
    """Every wrong implementation the tests know for ``task``: the task's own models and the WRONG catalogue's."""
    return ([(mistake.key, model) for mistake, model in TASKS[task].models]
            + [(key, define(source)) for t, key, source in WRONG if t == task])


def test_the_statements_looked_for_are_the_solutions_own():
    """Else the next test would look for nothing: the causal mask's solution line is among them."""
    assert "np.tril(np.ones((n,n),dtype=bool))" in solution_statements("causal_mask")
    assert "scores=np.where(mask,scores,-np.inf)" in solution_statements("masked_attention")
    # project_qkv's lines are one short product each (Q = X @ W_q): nothing there to give away.
    assert all(solution_statements(task) for task in TASKS if task != "project_qkv")


@pytest.mark.parametrize("task", sorted(TASKS))
def test_no_check_message_gives_a_line_of_the_solution_away(task):
    lines = solution_statements(task)
    checked = 0
    for key, wrong_fn in catalogue(task):
        fb = check_code(task, wrong_fn)
        assert not fb.correct, key
        said = "".join(fb.message.split())
        given = {line for line in lines if line in said}
        assert not given, f"{task}, {key}: the message gives away {sorted(given)}\n{fb.message}"
        checked += 1
    for mistake in TASKS[task].mistakes:  # every mistake the task can name, whatever wrong code leads to it
        said = "".join(mistake.explained().split())
        assert not {line for line in lines if line in said}, f"{task}: {mistake.key}"
    assert checked >= len(TASKS[task].models)


def test_the_catalogue_is_large_and_covers_many_mistakes():
    assert len(WRONG) >= 20 and len({k for _, k, _ in WRONG}) >= 20


# The realistic bugs the learner is asked to find (softmax over queries, the mask after the softmax, the scale by
# d_model, K not transposed, ...), each with the tasks whose checks must name it: (mistake key, tasks).
FIND_THE_BUG_MISTAKES = [
    ("softmax_over_queries", {"attention", "masked_attention", "multi_head_attention", "self_attention"}),
    ("mask_after_softmax", {"masked_attention", "padded_attention"}),
    ("scale_dmodel", {"self_attention", "multi_head_attention"}),
    ("k_not_transposed", {"attention", "self_attention"}),
    ("pad_mask_on_queries", {"padded_attention"}),
    ("scale_dk", {"attention", "masked_attention", "padded_attention"}),
    ("merge_no_transpose", {"merge_heads", "multi_head_attention"}),
]


@pytest.mark.parametrize("key, tasks", FIND_THE_BUG_MISTAKES, ids=[k for k, _ in FIND_THE_BUG_MISTAKES])
def test_the_mistake_tables_name_the_bugs_a_learner_is_asked_to_find(key, tasks):
    for task in tasks:
        assert key in [m.key for m in TASKS[task].mistakes], f"{task} cannot name {key}"
        assert any(t == task and k == key for t, k, _ in WRONG), f"no wrong {task} in the catalogue shows {key}"


# Whether a case's Q and K are square (n_k = d_k), so that Q @ K runs without the transpose.
SQUARE_QK = {"attention": lambda Q, K, V: K.shape[0] == K.shape[1],
             "self_attention": lambda X, W_q, W_k, W_v: X.shape[0] == W_k.shape[1],
             "cross_attention_padded": lambda X_dec, X_enc, W_q, W_k, W_v, length: X_enc.shape[0] == W_k.shape[1]}


@pytest.mark.parametrize("task", sorted(SQUARE_QK))
def test_k_not_transposed_is_caught_where_the_shapes_do_not_catch_it(task):
    """With Q and K square, Q @ K runs and gives weights of the right shape: the check sees it in the numbers."""
    spec = TASKS[task]
    square = [case for case in spec.cases() if SQUARE_QK[task](*case.args)]
    assert square, f"{task} has no case with square Q and K"
    model = {m.key: f for m, f in spec.models}["k_not_transposed"]
    for case in square:
        got, want = model(*case.args), spec.reference(*case.args)
        assert got[0].shape == want[0].shape and not np.allclose(got[1], want[1])


def test_a_shape_mistake_names_the_expected_and_the_actual_shape():
    fb = check_code("attention", define(SM + """
def f(Q, K, V):
    w = sm(Q @ K.T / np.sqrt(Q.shape[1]))
    return w, w @ V"""))
    assert "output has shape (3, 3); expected (3, 2) (n_q × d_v)" in fb.message
    fb = check_code("causal_mask", lambda n: np.tril(np.ones((n + 1, n + 1), dtype=bool)))
    assert "the mask has shape (4, 4); expected (3, 3) (n × n)" in fb.message


def test_an_unrecognised_wrong_answer_says_where_and_what():
    fb = check_code("softmax", lambda x: softmax(x) + 0.01)
    assert not fb.correct and fb.mistake == ""
    assert "On the look-up scores [2.5, 1.5, 2, 0] (01): the weights entry (0,) is " in fb.message


# --------------------------------------------------------------------------- the failing example


def test_the_failing_example_shows_the_input_and_the_results_expected_beside_yours():
    fb = check_code("causal_mask", lambda n: np.triu(np.ones((n, n), dtype=bool)))
    assert fb.example == (
        "The example: n = 3\n"
        "n = 3\n"
        "the mask, expected         the mask, yours\n"
        "[[ True, False, False],    [[ True,  True,  True],\n"
        " [ True,  True, False],     [False,  True,  True],\n"
        " [ True,  True,  True]]     [False, False,  True]]\n"
        "First difference: the mask entry (0, 1) is True; expected False.")
    assert "On n = 3: the mask entry (0, 1) is True; expected False." in fb.message, "the message stays short"


def test_an_example_that_raised_says_what_happened_under_what_was_expected():
    fb = check_code("attention", lambda Q, K, V: (Q @ K, Q @ K))
    assert fb.example.startswith('The example: "The cat sat" (02), Q 3×2, K 3×2, V 3×2\nQ = [[')
    assert "\noutput, expected\n" in fb.example and " yours" not in fb.example
    assert fb.example.endswith("What happened: your function raised ValueError: matmul: Input operand 1 has a "
                               "mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) "
                               "(size 3 is different from 2).")


def test_numbers_line_up_and_large_arrays_are_described():
    from helpers.exercises.code_tasks.failing_example import array_lines, side_by_side

    assert array_lines(np.array([[0.5, 1], [2, -0.25]])) == ["[[ 0.5000,  1.0000],", " [ 2.0000, -0.2500]]"]
    assert array_lines(np.array([[1.0, -2.0], [0.0, 3.0]])) == ["[[ 1, -2],", " [ 0,  3]]"]
    assert array_lines([2.5, np.inf, np.nan]) == ["[2.5000,      ∞,    nan]"]
    assert array_lines(np.zeros((2, 3, 4, 2))) == ["an array of shape (2, 3, 4, 2)"]
    assert array_lines(np.zeros((7, 7))) == ["an array of shape (7, 7)"]
    assert array_lines(3) == ["3"] and array_lines("x") == ["a str"] and array_lines([1, [2, 3]]) == ["a list"]
    assert array_lines(np.arange(8).reshape(2, 2, 2)) == ["[[[0, 1],", "  [2, 3]],", " [[4, 5],", "  [6, 7]]]"]
    wide = ["x" * 60]
    assert side_by_side(wide, wide) == wide + wide, "too wide for two columns: one under the other"
    assert side_by_side(["ab", "c"], ["d"]) == ["ab    d", "c"]


# --------------------------------------------------------------------------- junk


def _raises(x):
    raise ZeroDivisionError("oops, division by zero")


def _none(x):
    x + 1


def _forever(x):
    while True:
        pass


@pytest.mark.parametrize("fn, words", [
    (_raises, "raised ZeroDivisionError: oops, division by zero"),
    (_none, "returned None. Did you forget `return`?"),
    (42, "cannot be called"),
    (None, "cannot be called"),
    (lambda x: "softmax", "returned the text 'softmax'"),
    (lambda x: np.ones((2, 2)), "the weights has shape (2, 2); expected (4,)"),
    (lambda x: [1, [2, 3]], "expected an array"),
    (lambda x: {"w": 1}, "expected an array of numbers"),
])
def test_junk_gets_feedback_never_an_exception(fn, words):
    fb = check_code("softmax", fn)
    assert isinstance(fb, Feedback) and not fb.correct
    assert words in fb.message


def test_a_function_that_never_ends_is_stopped(monkeypatch):
    from helpers.exercises.code_tasks import engine

    assert engine.TIME_LIMIT == 2  # what a learner's function gets
    monkeypatch.setattr(engine, "TIME_LIMIT", 0.05)  # the same stop, sooner
    start = time.monotonic()
    fb = check_code("softmax", _forever)
    assert time.monotonic() - start < 5
    assert not fb.correct and "did not finish within 0.05 s" in fb.message


def test_tuple_tasks_say_what_they_expected():
    fb = check_code("attention", lambda Q, K, V: Q @ K.T)
    assert "returned one array of shape (3, 3); expected 2 results (output and weights)" in fb.message
    fb = check_code("online_softmax", lambda m, l, o, s, V: (m, l))
    assert "returned a tuple of 2 items; expected 3 results" in fb.message


def test_an_unknown_task_raises_naming_the_known_ones():
    with pytest.raises(ValueError, match="softmax, project_qkv, attention, causal_mask"):
        check_code("sofmax", lambda x: x)
    with pytest.raises(ValueError, match="task must be one of"):
        show_solution("nope")


def test_feedback_shows_as_a_verdict_in_html_and_text():
    right = check_code("softmax", solution("softmax"))
    wrong = check_code("softmax", define(WRONG[0][2]))
    pending = check_code("softmax", define(SKELETONS["softmax"]))
    assert repr(right) == str(right)
    assert str(right).startswith("✓ softmax: correct on all 5 examples.\nChecked on: the look-up scores")
    assert repr(wrong).startswith("✗ softmax: not right yet.\n")
    for fb in (right, wrong, pending):
        html = fb._repr_html_()
        assert 'role="status"' in html and "var(--jp-" in html
        assert html == fb._repr_html_()  # deterministic
    assert "var(--jp-success-color1" in right._repr_html_()
    assert "var(--jp-error-color1" in wrong._repr_html_()
    assert "error-color" not in pending._repr_html_() and "success-color" not in pending._repr_html_()


# --------------------------------------------------------------------------- the tasks given by goal and signature

# The tasks a learner derives from what the notebook taught, each with a signature only, and its notebook.
DERIVED = {"padding_causal_mask": "04_masking", "kv_cache_decode": "05_decoding",
           "cross_attention_padded": "06_cross_attention", "sliding_window_mask": "14_efficiency"}


@pytest.mark.parametrize("task", sorted(TASKS))
def test_every_wrong_implementation_a_task_knows_gets_its_own_diagnosis(task):
    """Each model stands for its mistake: no model before it in the list explains its results first."""
    for mistake, model in TASKS[task].models:
        fb = check_code(task, model)
        assert not fb.correct and fb.mistake == mistake.key, (task, mistake.key, fb.message)


@pytest.mark.parametrize("task", sorted(DERIVED))
def test_a_derived_task_names_many_mistakes_in_code_a_learner_writes(task):
    catalogued = {key for t, key, _ in WRONG if t == task}
    assert len(catalogued) >= 5, catalogued
    assert len(TASKS[task].mistakes) >= 8
    assert YOUR_TURN_CELLS[DERIVED[task]].count(task) == 1


def _loops(*args):
    while True:
        pass


def _raises(*args):
    raise KeyError("oops")


# (a function, what the check says for a task with one result, and for a task with two)
JUNK_FUNCTIONS = [
    (None, "cannot be called", "cannot be called"),
    ("my_function", "cannot be called", "cannot be called"),
    (_raises, "raised KeyError: 'oops'", "raised KeyError: 'oops'"),
    (lambda *args: "done", "returned the text 'done'", "returned the text 'done'; expected 2 results"),
    (lambda *args: np.zeros((7, 1)), "has shape (7, 1); expected",
     "returned one array of shape (7, 1); expected 2 results"),
    (lambda *args: [[1, 2], [3]], "expected an array", "output has shape (2,); expected"),
    (lambda *args: {"mask": 1}, "expected an array of numbers", "returned a dict; expected 2 results"),
    (lambda *args: (np.ones(2), None), "returned a tuple of 2 items", "returned None for weights"),
]


@pytest.mark.parametrize("task", sorted(DERIVED))
@pytest.mark.parametrize("fn, one, two", JUNK_FUNCTIONS, ids=[f"junk{k}" for k in range(len(JUNK_FUNCTIONS))])
def test_junk_in_a_derived_task_gets_a_message_never_an_exception(task, fn, one, two):
    fb = check_code(task, fn)
    assert isinstance(fb, Feedback) and not fb.correct
    assert (one if len(TASKS[task].outputs) == 1 else two) in fb.message, fb.message


@pytest.mark.parametrize("task", sorted(DERIVED))
def test_an_endless_loop_in_a_derived_task_is_stopped(task, monkeypatch):
    from helpers.exercises.code_tasks import engine

    monkeypatch.setattr(engine, "TIME_LIMIT", 0.05)
    fb = check_code(task, _loops)
    assert not fb.correct and "did not finish within 0.05 s (a loop that never ends?)" in fb.message
    assert fb.message.count("did not finish") == 1, "one endless loop is reported once"


@pytest.mark.parametrize("task", sorted(DERIVED))
def test_a_derived_task_takes_its_arguments_in_float32_and_its_solution_written_as_a_loop(task):
    """The check judges results, not the way they are computed: the reference solution on float32 arrays passes."""
    def in_float32(*args):
        return SOLUTIONS[task](*(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
                                 for a in args))
    assert check_code(task, in_float32).correct


def test_a_padding_mask_written_with_loops_passes():
    assert check_code("padding_causal_mask", define("""
def f(lengths, n):
    mask = np.zeros((len(lengths), n, n), dtype=bool)
    for b, length in enumerate(lengths):
        for i in range(n):
            for j in range(min(i + 1, length)):
                mask[b, i, j] = True
    return mask""")).correct


def test_a_pad_key_must_get_weight_exactly_zero_not_just_a_small_one():
    """A pad score of −30 leaves the pad keys a weight near 1e-14: equal to the right weights to rounding, yet not
    blocked. The check says so, and does not take it for an overflow (the large-score probe is not where it fails)."""
    fb = check_code("cross_attention_padded", define(SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s[:, enc_length:] = -30
    w = sm(s)
    return w @ V, w"""))
    assert not fb.correct and fb.mistake == "", fb.message
    assert re.search(r"weights entry \(\d, [23]\) is [\d.]+e-\d+, not exactly 0: key [23] is padding "
                     r"\(enc_length = 2\)", fb.message), fb.message
    assert fb.example.endswith("and a pad key must get weight exactly 0, not just a small one.")
    blocked = check_code("cross_attention_padded", define(SM + """
def f(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s[:, enc_length:] = -1e9
    w = sm(s)
    return w @ V, w"""))
    assert blocked.correct, "−10⁹ gives exp(−10⁹) = 0 exactly: blocked"


def test_a_kv_cache_is_checked_against_causal_self_attention_whatever_the_order_of_the_cache():
    """A cache that puts the new row on top holds the same keys and values: attention does not care about their
    order, and the check accepts it."""
    assert check_code("kv_cache_decode", define(SM + """
def f(X, W_q, W_k, W_v):
    keys, values, rows = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
    for x in X:
        keys, values = np.vstack([x @ W_k, keys]), np.vstack([x @ W_v, values])
        rows.append(sm((x @ W_q) @ keys.T / np.sqrt(W_k.shape[1])) @ values)
    return np.array(rows)""")).correct


# --------------------------------------------------------------------------- the folded solution


def test_show_solution_is_folded_and_opens_with_the_instructor_switch():
    from helpers.demos import practice

    switch = practice.session().instructor
    switch.value = False
    fold = show_solution("attention")
    assert "<details" in fold.value and not fold.is_open
    assert "scores = Q @ K.T / np.sqrt(d_k)" in fold.value
    assert "Solution: attention" in fold._repr_mimebundle_()["text/plain"]
    switch.value = True
    try:
        assert fold.is_open and repr(fold) == "Solution: attention, open"
        assert show_solution("softmax").is_open  # made while the switch is on: open
    finally:
        switch.value = False
    assert not fold.is_open


# --------------------------------------------------------------------------- the "Your turn" cells


def your_turn_cells():
    """(notebook, cell index, cell) of every cell tagged your-turn."""
    found = []
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for k, cell in enumerate(nb["cells"]):
            if "your-turn" in cell.get("metadata", {}).get("tags", []):
                found.append((path, k, nb["cells"]))
    return found


YOUR_TURNS = your_turn_cells()
CHECK_LINE = re.compile(r'^check_code\("([a-z_]+)", ([A-Za-z_][A-Za-z0-9_]*)\)$')


def test_the_your_turn_cells_are_those_the_table_of_notebooks_names():
    """YOUR_TURN_CELLS (which notebook asks for which task, what 00's progress lists per notebook) is what the
    notebooks' cells ask for, cell by cell."""
    tasks = {}
    for path, k, cells in YOUR_TURNS:
        task = CHECK_LINE.match("".join(cells[k]["source"]).strip().splitlines()[-1]).group(1)
        tasks.setdefault(path.stem, []).append(task)
    assert {stem: tuple(asked) for stem, asked in tasks.items()} == YOUR_TURN_CELLS
    assert tasks["02_projections"] == ["project_qkv", "attention"]
    assert tasks["06_cross_attention"] == ["cross_attention_padded"], "06 no longer asks for 02's attention again"
    asked = [task for stem in tasks for task in tasks[stem]]
    assert len(asked) == len(set(asked)), "each task is asked once"


def test_the_your_turn_tasks_are_those_the_notebooks_ask_for():
    """The progress view counts YOUR_TURN_TASKS as the Your turns of the course."""
    asked = {CHECK_LINE.match("".join(cells[k]["source"]).strip().splitlines()[-1]).group(1)
             for _path, k, cells in YOUR_TURNS}
    assert asked == set(YOUR_TURN_TASKS)


def _fill(source: str, solution_source: str) -> str:
    """The cell's source with its skeleton function replaced by the function of ``solution_source``, renamed to the
    skeleton's name (the parameters may be named differently, the body is the solution's)."""
    func = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    new = next(n for n in ast.parse(solution_source).body if isinstance(n, ast.FunctionDef))
    sol_lines = solution_source.splitlines()[new.lineno - 1:new.end_lineno]
    sol_lines[0] = sol_lines[0].replace(f"def {new.name}(", f"def {func.name}(", 1)
    lines = source.splitlines()
    return "\n".join(lines[:func.lineno - 1] + sol_lines + lines[func.end_lineno:])


def _is_skeleton(source: str) -> bool:
    """True if the cell's function is a docstring and `...`, nothing else."""
    func = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    rest = func.body[1:] if ast.get_docstring(func) is not None else None
    return rest is not None and len(rest) == 1 and isinstance(rest[0], ast.Expr) \
        and isinstance(rest[0].value, ast.Constant) and rest[0].value.value is Ellipsis


def run_cell(source: str):
    """Run a "Your turn" cell as the kernel would (with the notebook's imports) and return its last value."""
    ns = {"np": np, "check_code": check_code}
    tree = ast.parse(source)
    last = tree.body.pop()
    exec(compile(tree, "<cell>", "exec"), ns)
    return eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns)


@pytest.mark.parametrize("path, k, cells", YOUR_TURNS, ids=[f"{p.stem}-{k}" for p, k, _ in YOUR_TURNS])
def test_a_your_turn_cell_is_a_skeleton_its_solution_passes_and_a_mistake_is_named(path, k, cells):
    source = "".join(cells[k]["source"])
    task, name = CHECK_LINE.match(source.strip().splitlines()[-1]).groups()
    assert task in TASKS and _is_skeleton(source), "the cell holds a skeleton: a docstring and `...`"
    assert cells[k]["id"]
    assert "lecture-hide-output" in cells[k]["metadata"]["tags"], \
        "tag it lecture-hide-output: in the lecture mode its code is hidden, and a verdict alone would be orphaned"
    # The notebook imports the checker before, the cell after is its hint ladder, the cell before says what to do.
    earlier = "".join("".join(c["source"]) for c in cells[:k] if c["cell_type"] == "code")
    assert re.search(r"from helpers\.exercises import .*check_code", earlier)
    assert re.search(r"from helpers\.hints import .*hints", earlier)
    assert "".join(cells[k + 1]["source"]).strip() == f'hints("{task}")', "its hint ladder follows"
    assert cells[k - 1]["cell_type"] == "markdown" and "Your turn" in "".join(cells[k - 1]["source"])

    pending = run_cell(source)
    assert isinstance(pending, Feedback) and pending.mistake == "not_written"

    right = run_cell(_fill(source, solution_source(task)))
    assert right.correct, right.message

    task_mistakes = [(key, src) for t, key, src in WRONG if t == task and "def sm" not in src]
    key, wrong_src = task_mistakes[0] if task_mistakes else next((key, src) for t, key, src in WRONG if t == task)
    helper = SM if "def sm" in wrong_src else ""
    wrong = run_cell(helper + "\n" + _fill(source, wrong_src.replace(SM, "")))
    assert not wrong.correct and wrong.mistake == key
    assert f"This looks like: {MISTAKES[key].title}." in str(wrong)


@pytest.mark.parametrize("path, k, cells", YOUR_TURNS, ids=[f"{p.stem}-{k}" for p, k, _ in YOUR_TURNS])
def test_every_stored_your_turn_output_is_the_not_written_yet_verdict(path, k, cells):
    outputs = cells[k]["outputs"]
    assert len(outputs) == 1 and outputs[0]["output_type"] == "execute_result", outputs
    text = "".join(outputs[0]["data"]["text/plain"])
    assert text.startswith("… ") and text.endswith("not written yet: replace `...` with your code, then run the "
                                                   "cell again.")
    assert "role=\"status\"" in "".join(outputs[0]["data"]["text/html"])


# For each derived Your turn: what would give its formula away, and must not be on screen above it: in the markdown
# from the heading of its section down to its own text (the course's version comes after the check).
OFF_SCREEN = {
    "softmax": ["keepdims", "maximum", "np.max", ".max("],
    "project_qkv": ["XW^Q", "X W^Q", "X @ W"],
    "attention": ["QK^\\top", "Q K^\\top", "K.T"],
    "masked_attention": ["np.where", "S_scaled"],
    "padding_causal_mask": ["np.arange", "causal_mask(n) &", "pad &"],
    "kv_cache_decode": ["np.vstack", "K_cache"],
    "cross_attention_padded": ["np.where", "np.arange"],
    "sliding_window_mask": ["np.indices", "causal_mask(n) &", "np.tri"],
    "online_softmax": ["m' =", "\\ell' ="],
    "softmax_backward": ["rowsum", "\\bar{S} ="],
}


def _section_up_to(cells, k) -> str:
    """The markdown from the last heading (a line starting with '## ') before cell ``k`` down to cell ``k - 1``."""
    start = max(j for j in range(k) if cells[j]["cell_type"] == "markdown"
                and any(line.startswith("## ") for line in "".join(cells[j]["source"]).splitlines()))
    return "\n".join("".join(c["source"]) for c in cells[start:k] if c["cell_type"] == "markdown")


def test_every_derived_task_is_in_the_table_of_what_gives_it_away():
    # 10's tasks were given by goal and signature already; the capstone's put together the learner's own pieces
    # (02's attention, 03's heads and residual) in the real model, whose formulas the core path showed long before
    capstone = {"minilm_attention", "attention_sublayer", "encoder"}
    assert set(OFF_SCREEN) == set(YOUR_TURN_TASKS) - {"multi_head_attention", "split_heads", "merge_heads"} - capstone


@pytest.mark.parametrize("path, k, cells", YOUR_TURNS, ids=[f"{p.stem}-{k}" for p, k, _ in YOUR_TURNS])
def test_a_your_turn_does_not_show_the_formula_it_asks_for(path, k, cells):
    task = CHECK_LINE.match("".join(cells[k]["source"]).strip().splitlines()[-1]).group(1)
    shown = _section_up_to(cells, k)
    given = [pattern for pattern in OFF_SCREEN.get(task, []) if pattern in shown]
    assert not given, f"{path.stem}: the text above the Your turn of {task} shows {given}"
