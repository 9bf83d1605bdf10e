"""Multi-head attention and sinusoidal positions (Vaswani et al. 2017, sections 3.2.2 and 3.5).

Every expected value is computed independently here: heads by explicit loops over column slices, the
sine/cosine table entry by entry with ``math``, a few entries by hand.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from helpers.core.attention import causal_mask, multi_head_attention, sinusoidal_positions
from helpers.exercises.code_tasks.examples import six_token_qkv


@st.composite
def mha_inputs(draw, min_heads=1):
    """X (n, d_model), four (d_model, d_model) matrices from a seeded Gaussian, and h dividing d_model."""
    h = draw(st.integers(min_heads, 4))
    d_k = draw(st.integers(1, 3))
    n = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    d_model = h * d_k
    X = rng.normal(size=(n, d_model))
    W_q, W_k, W_v, W_o = (rng.normal(size=(d_model, d_model)) for _ in range(4))
    return X, W_q, W_k, W_v, W_o, h


def loop_softmax_rows(S):
    out = np.zeros_like(S)
    for i, row in enumerate(S):
        top = max(row)
        e = [math.exp(s - top) for s in row]
        out[i] = [v / sum(e) for v in e]
    return out


def reference_heads(X, W_q, W_k, W_v, h):
    """Each head from its own column slice of the projections, one at a time: (outputs, weights) lists."""
    d_k = X.shape[1] // h
    outs, weights = [], []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        Q, K, V = X @ W_q[:, cols], X @ W_k[:, cols], X @ W_v[:, cols]
        A = loop_softmax_rows(Q @ K.T / math.sqrt(d_k))
        outs.append(A @ V)
        weights.append(A)
    return outs, weights


@given(mha_inputs())
def test_matches_heads_computed_one_by_one_and_concatenated_in_order(inputs):
    X, W_q, W_k, W_v, W_o, h = inputs
    out, w = multi_head_attention(X, W_q, W_k, W_v, W_o, h)
    ref_outs, ref_w = reference_heads(X, W_q, W_k, W_v, h)
    assert out.shape == X.shape and w.shape == (h, X.shape[0], X.shape[0])
    np.testing.assert_allclose(w, np.stack(ref_w), atol=1e-12)
    np.testing.assert_allclose(out, np.hstack(ref_outs) @ W_o, atol=1e-9)


@given(mha_inputs())
def test_one_head_is_single_head_attention_followed_by_W_o(inputs):
    X, W_q, W_k, W_v, W_o, _ = inputs
    d = X.shape[1]
    out, w = multi_head_attention(X, W_q, W_k, W_v, W_o, 1)
    A = loop_softmax_rows((X @ W_q) @ (X @ W_k).T / math.sqrt(d))
    np.testing.assert_allclose(w[0], A, atol=1e-12)
    np.testing.assert_allclose(out, A @ (X @ W_v) @ W_o, atol=1e-9)


@given(mha_inputs(min_heads=2), st.data())
def test_changing_head_js_columns_of_W_q_changes_only_head_js_weights(inputs, data):
    X, W_q, W_k, W_v, W_o, h = inputs
    j = data.draw(st.integers(0, h - 1))
    d_k = X.shape[1] // h
    _, before = multi_head_attention(X, W_q, W_k, W_v, W_o, h)
    W_q2 = W_q.copy()
    W_q2[:, j * d_k:(j + 1) * d_k] += 3.0 * np.random.default_rng(j).normal(size=(X.shape[1], d_k))
    W_q0 = W_q.copy()
    W_q0[:, j * d_k:(j + 1) * d_k] = 0.0     # head j's queries become zero: its weights must become uniform
    for W_new in (W_q2, W_q0):
        _, after = multi_head_attention(X, W_new, W_k, W_v, W_o, h)
        for i in range(h):
            if i != j:
                np.testing.assert_array_equal(after[i], before[i])
    n = X.shape[0]
    np.testing.assert_allclose(after[j], 1 / n)
    assert not np.allclose(before[j], 1 / n)     # it did change: a Gaussian head is not uniform


@given(mha_inputs(min_heads=2), st.data())
def test_W_o_row_block_i_reads_head_i(inputs, data):
    # Concatenation order: with W_o the identity on rows i*d_k:(i+1)*d_k and zero elsewhere, the output is
    # head i's output in those columns and nothing else.
    X, W_q, W_k, W_v, _, h = inputs
    i = data.draw(st.integers(0, h - 1))
    d_model, d_k = X.shape[1], X.shape[1] // h
    W_o = np.zeros((d_model, d_model))
    W_o[i * d_k:(i + 1) * d_k, i * d_k:(i + 1) * d_k] = np.eye(d_k)
    out, _ = multi_head_attention(X, W_q, W_k, W_v, W_o, h)
    head_outs, _ = reference_heads(X, W_q, W_k, W_v, h)
    expected = np.zeros_like(X)
    expected[:, i * d_k:(i + 1) * d_k] = head_outs[i]
    np.testing.assert_allclose(out, expected, atol=1e-9)


@given(mha_inputs(), st.data())
def test_shuffling_the_tokens_shuffles_the_output_rows_the_same_way(inputs, data):
    X, W_q, W_k, W_v, W_o, h = inputs
    perm = np.array(data.draw(st.permutations(range(X.shape[0]))))
    out, w = multi_head_attention(X, W_q, W_k, W_v, W_o, h)
    out_p, w_p = multi_head_attention(X[perm], W_q, W_k, W_v, W_o, h)
    np.testing.assert_allclose(out_p, out[perm], atol=1e-9)
    np.testing.assert_allclose(w_p, w[:, perm][:, :, perm], atol=1e-12)


@given(mha_inputs(), st.integers(1, 5))
def test_with_positions_added_shuffling_no_longer_just_shuffles_the_output(inputs, shift):
    X, W_q, W_k, W_v, W_o, h = inputs
    n, d = X.shape
    perm = np.roll(np.arange(n), shift % (n - 1) + 1)     # a rotation that moves every token
    PE = 2.0 * sinusoidal_positions(n, d)
    out, _ = multi_head_attention(X + PE, W_q, W_k, W_v, W_o, h)
    out_p, _ = multi_head_attention(X[perm] + PE, W_q, W_k, W_v, W_o, h)
    # Relative to the output's size: with small W^V and W^O every output is tiny (1e-5), and so are the differences.
    scale = np.abs(out).max()
    assert not np.allclose(out_p, out[perm], rtol=0, atol=1e-6 * scale)


def test_a_causal_mask_applies_to_every_head():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 4))
    W = [rng.normal(size=(4, 4)) for _ in range(4)]
    _, w = multi_head_attention(X, *W, h=2, mask=causal_mask(5))
    assert np.all(w[:, np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] == 0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


def test_notebook_08s_head_1_ties_cat_and_sat_for_the_query_cat():
    # 10's two heads on 02's six tokens (W's from seed 18): head 1 is columns 0 and 1 of Q and K.
    Q, K, V = six_token_qkv()
    scores = Q[:, :2] @ K[:, :2].T
    assert scores[1].tolist() == [7, 10, 10, 8, 6, 7]     # "cat" against The, cat, sat, on, the, mat
    weights = loop_softmax_rows(scores / math.sqrt(2))[1]
    assert weights[1] == weights[2] == weights.max()
    assert round(weights[1], 2) == 0.39


@pytest.mark.parametrize("h, d_model", [(3, 4), (5, 8), (4, 6)])
def test_h_that_does_not_divide_d_model_is_refused_naming_both(h, d_model):
    X = np.ones((3, d_model))
    W = np.eye(d_model)
    with pytest.raises(ValueError, match=rf"h = {h}.*d_model = {d_model}"):
        multi_head_attention(X, W, W, W, W, h)


@pytest.mark.parametrize("h", [0, -2, 1.5, True, "2"])
def test_h_must_be_a_positive_integer(h):
    with pytest.raises(ValueError, match="h"):
        multi_head_attention(np.ones((3, 4)), np.eye(4), np.eye(4), np.eye(4), np.eye(4), h)


@pytest.mark.parametrize("bad", ["W_q", "W_k", "W_v", "W_o"])
def test_a_weight_matrix_of_the_wrong_shape_is_named(bad):
    mats = {name: np.eye(4) for name in ("W_q", "W_k", "W_v", "W_o")}
    mats[bad] = np.eye(4)[:, :2]
    with pytest.raises(ValueError, match=rf"{bad} has shape \(4, 2\).*\(4, 4\)"):
        multi_head_attention(np.ones((3, 4)), h=2, **mats)


# --- sinusoidal positions -----------------------------------------------------------------------

def test_sinusoidal_values_at_points_computed_by_hand():
    PE = sinusoidal_positions(3, 4)
    # p = 0: sin 0 = 0 in even columns, cos 0 = 1 in odd ones.
    np.testing.assert_allclose(PE[0], [0, 1, 0, 1], atol=1e-15)
    # p = 1, i = 0: angle 1 rad; i = 1 (columns 2, 3): angle 1 / 10000^(2/4) = 1/100.
    np.testing.assert_allclose(PE[1], [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004], atol=1e-9)
    # p = 2, i = 1: angle 2/100 = 0.02; sin 0.02 = 0.0199986667.
    np.testing.assert_allclose(PE[2, 2:], [0.0199986667, 0.9998000067], atol=1e-9)


@given(st.integers(1, 40), st.integers(1, 24))
def test_sinusoidal_matches_the_formula_entry_by_entry(n, d):
    PE = sinusoidal_positions(n, d)
    assert PE.shape == (n, d)
    for p in range(n):
        for c in range(d):
            i = c // 2
            angle = p / 10000 ** (2 * i / d)
            expected = math.sin(angle) if c % 2 == 0 else math.cos(angle)
            assert PE[p, c] == pytest.approx(expected, abs=1e-12)


def test_odd_width_ends_with_an_unpaired_sine():
    PE = sinusoidal_positions(4, 5)
    np.testing.assert_allclose(PE[:, 4], [math.sin(p / 10000 ** (4 / 5)) for p in range(4)], atol=1e-15)


@given(st.integers(1, 60), st.integers(1, 16))
def test_rows_have_norm_sqrt_of_half_the_width(n, half):
    PE = sinusoidal_positions(n, 2 * half)
    np.testing.assert_allclose(np.linalg.norm(PE, axis=1), math.sqrt(half), rtol=1e-12)


@given(st.integers(1, 16), st.integers(0, 30), st.integers(0, 30), st.integers(0, 20))
def test_dot_product_of_two_rows_depends_only_on_their_offset(half, p, q, k):
    PE = sinusoidal_positions(max(p, q) + k + 1, 2 * half)
    assert PE[p] @ PE[p + k] == pytest.approx(PE[q] @ PE[q + k], abs=1e-9)


@pytest.mark.parametrize("n, d", [(0, 4), (3, 0), (2.5, 4), (3, "4"), (True, 4)])
def test_sinusoidal_refuses_sizes_that_are_not_positive_integers(n, d):
    with pytest.raises(ValueError, match=r"\bn\b|\bd\b"):
        sinusoidal_positions(n, d)
