"""Rotary positions (Su et al. 2021) and grouped-query attention (Ainslie et al. 2023), with its key/value cache.

Every expected value is computed independently here: the rotation pair by pair with ``math``, each query head
against its key/value head by explicit loops over column slices.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from helpers.core.attention import (
    causal_mask,
    grouped_query_attention,
    multi_head_attention,
    rotary_embedding,
    sinusoidal_positions,
)
from helpers.core.efficiency import decode_with_kv_cache, kv_cache_size

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False, width=64)
position = st.integers(-50, 200)


@st.composite
def rows(draw, max_n=6):
    """x (n, d) with d even."""
    n = draw(st.integers(1, max_n))
    d = 2 * draw(st.integers(1, 4))
    return draw(arrays(float, (n, d), elements=finite))


def rotate_by_hand(v, p, base=10000.0):
    """One vector v (d,) at position p, pair by pair: (v[2i], v[2i+1]) turned by p * base**(-2i/d)."""
    d = len(v)
    out = []
    for i in range(d // 2):
        a = p * base ** (-2 * i / d)
        x, y = v[2 * i], v[2 * i + 1]
        out += [x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)]
    return np.array(out)


# --------------------------------------------------------------------------- rotary positions

@given(rows(), st.lists(position, min_size=6, max_size=6), st.sampled_from([10000.0, 100.0, 2.5]))
def test_rotary_turns_each_pair_by_position_times_its_speed(x, positions, base):
    pos = positions[: len(x)]
    out = rotary_embedding(x, pos, base=base)
    expected = np.array([rotate_by_hand(v, p, base) for v, p in zip(x, pos)])
    np.testing.assert_allclose(out, expected, atol=1e-9)


@given(rows(), st.lists(position, min_size=6, max_size=6))
def test_rotary_keeps_the_length_of_every_row(x, positions):
    out = rotary_embedding(x, positions[: len(x)])
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-9, atol=1e-9)


@given(rows())
def test_rotary_at_position_zero_is_the_identity(x):
    np.testing.assert_array_equal(rotary_embedding(x, np.zeros(len(x))), x)
    np.testing.assert_array_equal(rotary_embedding(x)[0], x[0])   # the default positions start at 0


@st.composite
def query_and_key(draw):
    """A query and a key (d,), d even."""
    d = 2 * draw(st.integers(1, 4))
    return draw(arrays(float, d, elements=finite)), draw(arrays(float, d, elements=finite))


@given(query_and_key(), position, position, position)
def test_a_rotated_score_depends_only_on_the_offset(qk, p, r, shift):
    q, k = qk

    def score(p, r):
        return rotary_embedding(q[None], [p])[0] @ rotary_embedding(k[None], [r])[0]

    scale = 1.0 + np.abs(q).sum() * np.abs(k).sum()
    assert score(p, r) == pytest.approx(score(p + shift, r + shift), abs=1e-9 * scale)   # both moved: same score
    assert score(p, r) == pytest.approx(q @ rotate_by_hand(k, r - p), abs=1e-9 * scale)  # the key turned by r - p


def test_the_default_positions_are_0_to_n_minus_1_and_batches_broadcast():
    x = np.random.default_rng(0).normal(size=(2, 3, 5, 4))
    np.testing.assert_allclose(rotary_embedding(x), rotary_embedding(x, np.arange(5)))
    np.testing.assert_allclose(rotary_embedding(x)[1, 2], rotary_embedding(x[1, 2]))
    per_row = np.arange(30.0).reshape(2, 3, 5)
    out = rotary_embedding(x, per_row)
    np.testing.assert_allclose(out[1, 0, 3], rotate_by_hand(x[1, 0, 3], per_row[1, 0, 3]), atol=1e-12)


def test_positions_added_to_x_change_a_score_when_both_tokens_move_rotated_ones_do_not():
    """The contrast 11_positions draws, on one example."""
    rng = np.random.default_rng(1)
    x_q, x_k = rng.normal(size=4), rng.normal(size=4)
    PE = sinusoidal_positions(20, 4)
    added = [(x_q + PE[p]) @ (x_k + PE[p + 3]) for p in (0, 10)]
    rotated = [rotary_embedding(x_q[None], [p])[0] @ rotary_embedding(x_k[None], [p + 3])[0] for p in (0, 10)]
    assert abs(added[0] - added[1]) > 0.1
    assert rotated[0] == pytest.approx(rotated[1], abs=1e-12)


@pytest.mark.parametrize("args, kwargs, words", [
    ((np.ones((3, 5)),), {}, ["x", "(3, 5)", "even"]),
    ((np.ones(4),), {}, ["x", "(..., n, d)", "(4,)"]),
    ((np.ones((3, 4)), [0, 1]), {}, ["positions", "(2,)", "(3, 4)"]),
    ((np.ones((3, 4)), [0, np.nan, 1]), {}, ["positions", "finite"]),
    ((np.ones((3, 4)),), {"base": 0}, ["base", "positive"]),
    ((np.ones((3, 4)),), {"base": "ten"}, ["base", "positive"]),
])
def test_rotary_refuses_what_it_cannot_rotate_and_says_why(args, kwargs, words):
    with pytest.raises(ValueError) as err:
        rotary_embedding(*args, **kwargs)
    for w in words:
        assert w in str(err.value), str(err.value)


# --------------------------------------------------------------------------- grouped-query attention

@st.composite
def gqa_inputs(draw, h_kv=None):
    """X (n, d_model), W_q and W_o (d_model, d_model), W_k and W_v (d_model, h_kv d_k), h and h_kv dividing h."""
    h = draw(st.sampled_from([1, 2, 3, 4, 6]))
    h_kv = h_kv(h) if h_kv else draw(st.sampled_from([k for k in range(1, h + 1) if h % k == 0]))
    d_k = draw(st.integers(1, 3))
    n = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    d_model = h * d_k
    X = rng.normal(size=(n, d_model))
    W_q, W_o = rng.normal(size=(d_model, d_model)), rng.normal(size=(d_model, d_model))
    W_k, W_v = rng.normal(size=(d_model, h_kv * d_k)), rng.normal(size=(d_model, h_kv * d_k))
    return X, W_q, W_k, W_v, W_o, h, h_kv


def reference_gqa(X, W_q, W_k, W_v, W_o, h, h_kv, mask=None):
    """Query head i against key/value head i // (h // h_kv), one at a time, by column slices and loops."""
    d_k = X.shape[1] // h
    outs, weights = [], []
    for i in range(h):
        g = i // (h // h_kv)
        q_cols, kv_cols = slice(i * d_k, (i + 1) * d_k), slice(g * d_k, (g + 1) * d_k)
        Q, K, V = X @ W_q[:, q_cols], X @ W_k[:, kv_cols], X @ W_v[:, kv_cols]
        S = Q @ K.T / math.sqrt(d_k)
        if mask is not None:
            S = np.where(mask, S, -np.inf)
        A = np.zeros_like(S)
        for r, row in enumerate(S):
            e = [0.0 if s == -np.inf else math.exp(s - max(row)) for s in row]
            A[r] = [v / sum(e) for v in e]
        outs.append(A @ V)
        weights.append(A)
    return np.hstack(outs) @ W_o, np.stack(weights)


@given(gqa_inputs(), st.booleans())
def test_query_head_i_reads_key_value_head_i_over_the_group_size(inputs, causal):
    X, W_q, W_k, W_v, W_o, h, h_kv = inputs
    mask = causal_mask(len(X)) if causal else None
    out, w = grouped_query_attention(X, W_q, W_k, W_v, W_o, h, h_kv, mask=mask)
    ref_out, ref_w = reference_gqa(X, W_q, W_k, W_v, W_o, h, h_kv, mask=mask)
    assert out.shape == X.shape and w.shape == (h, len(X), len(X))
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, atol=1e-9)


@given(gqa_inputs())
def test_every_row_of_every_heads_weights_sums_to_one(inputs):
    _, w = grouped_query_attention(*inputs)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)


@given(gqa_inputs(h_kv=lambda h: h))
def test_as_many_key_value_heads_as_query_heads_is_multi_head_attention(inputs):
    X, W_q, W_k, W_v, W_o, h, _ = inputs
    out, w = grouped_query_attention(X, W_q, W_k, W_v, W_o, h, h)
    ref_out, ref_w = multi_head_attention(X, W_q, W_k, W_v, W_o, h)
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, atol=1e-9)


@given(gqa_inputs(h_kv=lambda h: 1))
def test_one_key_value_head_is_multi_query_every_query_head_reads_it(inputs):
    X, W_q, W_k, W_v, W_o, h, _ = inputs
    d_k = X.shape[1] // h
    K, V = X @ W_k, X @ W_v                     # (n, d_k): the one key/value head
    out, w = grouped_query_attention(X, W_q, W_k, W_v, W_o, h, 1)
    heads = []
    for i in range(h):
        Q_i = X @ W_q[:, i * d_k:(i + 1) * d_k]
        S = Q_i @ K.T / math.sqrt(d_k)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        np.testing.assert_allclose(w[i], E / E.sum(axis=1, keepdims=True), atol=1e-12)
        heads.append(w[i] @ V)                  # every head averages the same values
    np.testing.assert_allclose(out, np.hstack(heads) @ W_o, atol=1e-9)


@given(gqa_inputs(), st.data())
def test_changing_one_key_value_heads_columns_moves_only_its_groups_query_heads(inputs, data):
    X, W_q, W_k, W_v, W_o, h, h_kv = inputs
    d_k = X.shape[1] // h
    g = data.draw(st.integers(0, h_kv - 1))
    W_k2 = W_k.copy()
    W_k2[:, g * d_k:(g + 1) * d_k] += 2.0
    _, before = grouped_query_attention(X, W_q, W_k, W_v, W_o, h, h_kv)
    _, after = grouped_query_attention(X, W_q, W_k2, W_v, W_o, h, h_kv)
    for i in range(h):
        if i // (h // h_kv) != g:
            np.testing.assert_array_equal(after[i], before[i])


# --------------------------------------------------------------------------- the key/value cache

@given(gqa_inputs())
def test_decoding_with_the_cache_gives_the_causal_outputs_row_by_row(inputs):
    X, W_q, W_k, W_v, W_o, h, h_kv = inputs
    run = decode_with_kv_cache(X, W_q, W_k, W_v, W_o, h, h_kv)
    full, _ = grouped_query_attention(X, W_q, W_k, W_v, W_o, h, h_kv, mask=causal_mask(len(X)))
    np.testing.assert_allclose(run.output, full, atol=1e-9)
    d_k = X.shape[1] // h
    np.testing.assert_allclose(run.K, (X @ W_k).reshape(len(X), h_kv, d_k).transpose(1, 0, 2))


@given(gqa_inputs())
def test_the_cache_holds_2_h_kv_d_k_numbers_per_token_h_over_h_kv_fewer_than_multi_head(inputs):
    X, W_q, W_k, W_v, W_o, h, h_kv = inputs
    n, d_k = len(X), X.shape[1] // h
    grouped = decode_with_kv_cache(X, W_q, W_k, W_v, W_o, h, h_kv).numbers                 # measured on the arrays
    rng = np.random.default_rng(0)
    W_k_full, W_v_full = rng.normal(size=(X.shape[1], X.shape[1])), rng.normal(size=(X.shape[1], X.shape[1]))
    multi = decode_with_kv_cache(X, W_q, W_k_full, W_v_full, W_o, h, h).numbers
    assert grouped == kv_cache_size(n, h_kv, d_k) == 2 * h_kv * d_k * n
    assert multi == kv_cache_size(n, h, d_k)
    assert multi == grouped * (h // h_kv)


def test_kv_cache_size_counts_every_layer():
    assert kv_cache_size(4096, 8, 128, layers=32) == 2 * 32 * 4096 * 8 * 128
    assert kv_cache_size(0, 8, 128) == 0


@pytest.mark.parametrize("call, words", [
    (lambda: grouped_query_attention(np.ones((3, 8)), np.eye(8), np.ones((8, 6)), np.ones((8, 6)), np.eye(8), 4, 3),
     ["h_kv = 3", "h = 4", "[1, 2, 4]"]),
    (lambda: grouped_query_attention(np.ones((3, 8)), np.eye(8), np.ones((8, 8)), np.ones((8, 4)), np.eye(8), 4, 2),
     ["W_k", "(8, 8)", "(8, 4)", "h_kv * d_k"]),
    (lambda: grouped_query_attention(np.ones((3, 8)), np.eye(8), np.ones((8, 4)), np.ones((8, 2)), np.eye(8), 4, 2),
     ["W_v", "(8, 2)", "(8, 4)"]),
    (lambda: grouped_query_attention(np.ones((3, 8)), np.eye(4), np.ones((8, 4)), np.ones((8, 4)), np.eye(8), 4, 2),
     ["W_q", "(4, 4)", "(8, 8)"]),
    (lambda: grouped_query_attention(np.ones((3, 6)), np.eye(6), np.ones((6, 3)), np.ones((6, 3)), np.eye(6), 4, 2),
     ["h = 4", "d_model = 6", "(3, 6)"]),
    (lambda: grouped_query_attention(np.ones((3, 8)), np.eye(8), np.ones((8, 4)), np.ones((8, 4)), np.eye(8), 4, 0),
     ["h_kv"]),
    (lambda: decode_with_kv_cache(np.ones((2, 3, 8)), np.eye(8), np.ones((8, 4)), np.ones((8, 4)), np.eye(8), 4, 2),
     ["X", "(2, 3, 8)", "(n, d_model)"]),
    (lambda: kv_cache_size(10, 0, 64), ["h_kv"]),
])
def test_grouped_query_attention_refuses_shapes_that_do_not_fit_and_names_them(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value), str(err.value)
