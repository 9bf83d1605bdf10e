"""Properties of attention that the lesson claims, each tested over many random inputs.

The expected values are computed independently here (explicit loops or the lesson's
own numbers), never copied from helpers.core.attention.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from helpers.core.attention import (
    AttentionResult,
    additive_mask,
    attention_scores,
    attention_stages,
    causal_mask,
    head_dim,
    merge_heads,
    padding_mask,
    project_qkv,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def qkv(draw, batch=()):
    """Random Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v) with optional leading batch dims."""
    n_q = draw(st.integers(1, 6))
    n_k = draw(st.integers(1, 6))
    d_k = draw(st.integers(1, 5))
    d_v = draw(st.integers(1, 5))
    Q = draw(arrays(float, (*batch, n_q, d_k), elements=finite))
    K = draw(arrays(float, (*batch, n_k, d_k), elements=finite))
    V = draw(arrays(float, (*batch, n_k, d_v), elements=finite))
    return Q, K, V


def loop_attention(Q, K, V, mask=None, scale=True):
    """Attention for 2-D inputs with explicit loops: the definition, one number at a time."""
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    weights = np.zeros((n_q, n_k))
    for i in range(n_q):
        scores = []
        for j in range(n_k):
            s = sum(Q[i, t] * K[j, t] for t in range(d_k))
            if scale:
                s /= math.sqrt(d_k)
            scores.append(s if mask is None or mask[i, j] else None)
        allowed = [s for s in scores if s is not None]
        top = max(allowed)
        exps = [0.0 if s is None else math.exp(s - top) for s in scores]
        total = sum(exps)
        weights[i] = [e / total for e in exps]
    return weights @ V, weights


# --- the definition ---------------------------------------------------------------------------

@given(qkv(), st.booleans())
def test_matches_the_definition_computed_with_loops(inputs, scale):
    Q, K, V = inputs
    out, w = scaled_dot_product_attention(Q, K, V, scale=scale)
    ref_out, ref_w = loop_attention(Q, K, V, scale=scale)
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, atol=1e-9)


@given(qkv())
def test_output_and_weight_shapes(inputs):
    Q, K, V = inputs
    out, w = scaled_dot_product_attention(Q, K, V)
    assert w.shape == (Q.shape[0], K.shape[0])
    assert out.shape == (Q.shape[0], V.shape[1])


# --- lesson pitfall 3: rows sum to 1, columns need not --------------------------------------------

@given(qkv(batch=(2,)))
def test_rows_of_the_weights_sum_to_one(inputs):
    _, w = scaled_dot_product_attention(*inputs)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    assert (w >= 0).all()


def test_columns_of_the_weights_need_not_sum_to_one():
    # Both queries prefer key 0: its column collects more than one unit of attention.
    Q = np.array([[3.0, 0.0], [3.0, 0.0]])
    K = np.array([[1.0, 0.0], [0.0, 1.0]])
    _, w = scaled_dot_product_attention(Q, K, K)
    column_sums = w.sum(axis=0)
    assert column_sums[0] > 1.5 and column_sums[1] < 0.5
    np.testing.assert_allclose(w.sum(axis=1), [1.0, 1.0])


@given(qkv())
def test_column_sums_add_up_to_the_number_of_queries(inputs):
    # Each query hands out exactly one unit, so all columns together hold n_q units.
    Q, K, V = inputs
    _, w = scaled_dot_product_attention(Q, K, V)
    assert math.isclose(w.sum(axis=0).sum(), Q.shape[0], rel_tol=1e-9)


# --- Q6: shift invariance ------------------------------------------------------------------------

@given(arrays(float, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=finite), finite)
def test_adding_a_constant_to_a_row_of_scores_changes_nothing(scores, c):
    np.testing.assert_allclose(softmax(scores + c), softmax(scores), atol=1e-12)


@given(arrays(float, st.integers(2, 6), elements=finite), st.floats(0.5, 5), st.data())
def test_adding_a_constant_to_one_entry_changes_the_distribution(row, c, data):
    j = data.draw(st.integers(0, row.size - 1))
    bumped = row.copy()
    bumped[j] += c
    before, after = softmax(row), softmax(bumped)
    assert after[j] > before[j]
    others = np.arange(row.size) != j
    assert (after[others] < before[others]).all()


def test_softmax_is_stable_for_huge_scores():
    w = softmax([1000.0, 1001.0, 999.0])
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w, np.exp([-1.0, 0.0, -2.0]) / np.exp([-1.0, 0.0, -2.0]).sum())


def test_softmax_gives_minus_infinity_exactly_zero_weight():
    w = softmax([0.0, -np.inf, 0.0])
    assert w[1] == 0.0
    np.testing.assert_allclose(w, [0.5, 0.0, 0.5])


# --- the causal mask -----------------------------------------------------------------------------

@given(st.integers(1, 12))
def test_causal_mask_allows_itself_and_the_past(n):
    m = causal_mask(n)
    for i in range(n):
        for j in range(n):
            assert m[i, j] == (j <= i)


@given(qkv())
def test_causal_mask_zeroes_everything_above_the_diagonal(inputs):
    Q, K, V = inputs
    n = min(Q.shape[0], K.shape[0])
    Q, K, V = Q[:n], K[:n], V[:n]
    out, w = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))
    assert (w[np.triu_indices(n, k=1)] == 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    ref_out, ref_w = loop_attention(Q, K, V, mask=causal_mask(n))
    np.testing.assert_allclose(w, ref_w, atol=1e-12)


@given(st.integers(1, 10))
def test_row_i_of_the_causal_mask_sees_exactly_i_plus_one_keys(n):
    m = causal_mask(n)
    assert [int(m[i].sum()) for i in range(n)] == [i + 1 for i in range(n)]


@given(qkv())
def test_the_future_cannot_change_the_past_under_the_causal_mask(inputs):
    Q, K, V = inputs
    n = min(Q.shape[0], K.shape[0])
    Q, K, V = Q[:n].copy(), K[:n].copy(), V[:n].copy()
    out, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))
    K[-1] += 7.0
    V[-1] -= 3.0
    out2, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))
    np.testing.assert_allclose(out2[:-1], out[:-1], atol=1e-12)


@given(qkv())
def test_a_key_value_cache_step_needs_no_mask(inputs):
    # Q3 and notebook 13: generating with a cache, step t runs only query t against the cached keys 0..t,
    # unmasked, and gets row t of the causal attention over the whole prefix.
    Q, K, V = inputs
    n = min(Q.shape[0], K.shape[0])
    Q, K, V = Q[:n], K[:n], V[:n]
    full, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n))
    for t in range(n):
        step, _ = scaled_dot_product_attention(Q[t:t + 1], K[:t + 1], V[:t + 1])
        np.testing.assert_allclose(step[0], full[t], atol=1e-12)


def test_additive_mask_is_minus_infinity_on_the_strict_upper_triangle():
    a = additive_mask(causal_mask(4))
    assert (a[np.triu_indices(4, k=1)] == -np.inf).all()
    assert (a[np.tril_indices(4)] == 0).all()


def test_mask_broadcasts_over_batch_and_heads():
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(2, 3, 4, 5))  # batch 2, heads 3, n 4, d_k 5
    out, w = scaled_dot_product_attention(Q, Q, Q, mask=causal_mask(4))
    assert w.shape == (2, 3, 4, 4)
    assert (w[..., np.triu_indices(4, k=1)[0], np.triu_indices(4, k=1)[1]] == 0).all()


def test_padding_mask_blocks_the_padded_keys_of_each_sequence():
    m = padding_mask([2, 4], 4)
    assert m.shape == (2, 1, 4)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2, 4, 3))
    _, w = scaled_dot_product_attention(X, X, X, mask=m)
    assert (w[0, :, 2:] == 0).all() and (w[0, :, :2] > 0).all()
    assert (w[1] > 0).all()


# --- Q7: n² comparisons; Q2: d_k = d_model / h ---------------------------------------------------

@given(st.integers(1, 30))
def test_n_queries_against_n_keys_make_n_squared_comparisons(n):
    X = np.ones((n, 2))
    assert attention_scores(X, X).size == n * n


@pytest.mark.parametrize("d_model, h, d_k", [(512, 8, 64), (256, 8, 32), (1024, 16, 64), (768, 12, 64)])
def test_head_dim_is_d_model_over_h(d_model, h, d_k):
    assert head_dim(d_model, h) == d_k


@given(st.integers(1, 16), st.integers(1, 64))
def test_head_dim_times_heads_gives_back_d_model(h, d_k):
    assert head_dim(h * d_k, h) * h == h * d_k


# --- multi-head shapes (Q1) ---------------------------------------------------------------------

@given(st.integers(1, 3), st.integers(1, 5), st.integers(1, 4), st.integers(1, 4), st.data())
def test_split_then_merge_heads_round_trips(batch, n, h, d_k, data):
    X = data.draw(arrays(float, (batch, n, h * d_k), elements=finite))
    Xh = split_heads(X, h)
    assert Xh.shape == (batch, h, n, d_k)
    np.testing.assert_array_equal(merge_heads(Xh), X)
    # head k holds columns k*d_k .. (k+1)*d_k of the model dimension
    for k in range(h):
        np.testing.assert_array_equal(Xh[:, k], X[..., k * d_k:(k + 1) * d_k])


def test_lesson_q1_shapes():
    batch, n, d_model, h = 8, 20, 768, 12
    X = np.zeros((batch, n, d_model))
    W = np.zeros((d_model, d_model))
    Q, K, V = project_qkv(X, W, W, W)
    assert Q.shape == (8, 20, 768)
    Qh, Kh, Vh = (split_heads(M, h) for M in (Q, K, V))
    assert Qh.shape == Kh.shape == Vh.shape == (8, 12, 20, 64)
    out, w = scaled_dot_product_attention(Qh, Kh, Vh)
    assert w.shape == (8, 12, 20, 20)
    assert out.shape == (8, 12, 20, 64)
    assert merge_heads(out).shape == (8, 20, 768)


# --- Q5: the lesson's numbers --------------------------------------------------------------------

def test_lesson_q5_numbers_come_out_exactly():
    X = [[2, 1], [0, 3]]
    Q, K, V = project_qkv(X, [[1, 0], [0, 1]], [[0, 1], [1, 0]], [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_array_equal(Q, [[2, 1], [0, 3]])
    np.testing.assert_array_equal(K, [[1, 2], [3, 0]])
    np.testing.assert_array_equal(V, [[1.5, 1.5], [1.5, 1.5]])


# --- more structure ----------------------------------------------------------------------------

@given(qkv(), st.randoms(use_true_random=False))
def test_self_attention_is_permutation_equivariant_without_a_mask(inputs, rnd):
    X, _, _ = inputs
    n = X.shape[0]
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    W_q, W_k, W_v = (rng.normal(size=(X.shape[1], 3)) for _ in range(3))
    perm = rng.permutation(n)
    out, w = scaled_dot_product_attention(*project_qkv(X, W_q, W_k, W_v))
    out_p, w_p = scaled_dot_product_attention(*project_qkv(X[perm], W_q, W_k, W_v))
    np.testing.assert_allclose(out_p, out[perm], atol=1e-9)
    np.testing.assert_allclose(w_p, w[np.ix_(perm, perm)], atol=1e-12)


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_scaling_keeps_score_variance_near_one_for_unit_variance_inputs(d_k):
    rng = np.random.default_rng(d_k)
    Q = rng.standard_normal((400, d_k))
    K = rng.standard_normal((400, d_k))
    raw = attention_scores(Q, K, scale=False)
    scaled = attention_scores(Q, K, scale=True)
    assert 0.85 < scaled.var() < 1.15
    assert 0.85 * d_k < raw.var() < 1.15 * d_k


@given(qkv())
def test_each_output_row_is_a_convex_combination_of_value_rows(inputs):
    Q, K, V = inputs
    out, _ = scaled_dot_product_attention(Q, K, V)
    assert (out <= V.max(axis=0) + 1e-9).all()
    assert (out >= V.min(axis=0) - 1e-9).all()


# --- every stage at once ------------------------------------------------------------------------

@st.composite
def projections(draw, same_length=False):
    """Random X_q (n_q, d_model), X_kv (n_k, d_model), W_q, W_k (d_model, d_k), W_v (d_model, d_v)."""
    n_q, d_model, d_k, d_v = (draw(st.integers(1, 5)) for _ in range(4))
    n_k = n_q if same_length else draw(st.integers(1, 5))
    shapes = [(n_q, d_model), (n_k, d_model), (d_model, d_k), (d_model, d_k), (d_model, d_v)]
    return [draw(arrays(float, shape, elements=finite)) for shape in shapes]


def numpy_stages(X_q, X_kv, W_q, W_k, W_v, allowed, scale):
    """The stages with plain numpy, each from its definition (``allowed``: bool (n_q, n_k), True = may attend)."""
    Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
    scores = np.einsum("id,jd->ij", Q, K)
    scaled = scores / math.sqrt(W_q.shape[1]) if scale else scores
    masked = np.where(allowed, scaled, -np.inf)
    e = np.exp(masked - masked.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return dict(Q=Q, K=K, V=V, scores=scores, scaled=scaled, mask=allowed, masked=masked, weights=weights,
                output=np.einsum("ij,jd->id", weights, V))


def assert_stages(res, expected):
    assert isinstance(res, AttentionResult)
    for name, value in expected.items():
        np.testing.assert_allclose(getattr(res, name), value, rtol=1e-9, atol=1e-9, err_msg=name)


@given(projections(), st.booleans())
def test_attention_stages_match_numpy_without_a_mask(mats, scale):
    X_q, X_kv, W_q, W_k, W_v = mats
    res = attention_stages(X_q, X_kv, W_q, W_k, W_v, scale=scale)
    allowed = np.ones((X_q.shape[0], X_kv.shape[0]), dtype=bool)
    assert_stages(res, numpy_stages(X_q, X_kv, W_q, W_k, W_v, allowed, scale))
    assert res.mask.dtype == bool and res.mask.all()


@given(projections(same_length=True), st.booleans())
def test_attention_stages_with_the_causal_mask_match_numpy(mats, scale):
    X_q, X_kv, W_q, W_k, W_v = mats
    n = X_q.shape[0]
    allowed = np.array([[j <= i for j in range(n)] for i in range(n)])
    res = attention_stages(X_q, X_kv, W_q, W_k, W_v, mask="causal", scale=scale)
    assert_stages(res, numpy_stages(X_q, X_kv, W_q, W_k, W_v, allowed, scale))
    assert np.all(res.weights[~allowed] == 0.0)


@given(projections(), st.data())
def test_attention_stages_with_a_boolean_mask_match_numpy(mats, data):
    X_q, X_kv, W_q, W_k, W_v = mats
    n_q, n_k = X_q.shape[0], X_kv.shape[0]
    allowed = data.draw(arrays(bool, (n_q, n_k)))
    allowed[np.arange(n_q), data.draw(arrays(np.int64, n_q, elements=st.integers(0, n_k - 1)))] = True
    res = attention_stages(X_q, X_kv, W_q, W_k, W_v, mask=allowed)
    assert_stages(res, numpy_stages(X_q, X_kv, W_q, W_k, W_v, allowed, True))


@given(projections(same_length=True))
def test_attention_stages_of_self_attention_take_x_once(mats):
    X, _, W_q, W_k, W_v = mats
    a, b = attention_stages(X, None, W_q, W_k, W_v), attention_stages(X, X, W_q, W_k, W_v)
    for name in AttentionResult.__slots__:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_attention_stages_agree_with_the_lesson_worked_numbers():
    # Lesson 1.2.1: with W = I, Q = K = V = X; scores [[5, 2], [2, 1]] (rows 2·2+1·1, ...).
    X = np.array([[2.0, 1.0], [1.0, 0.0]])
    res = attention_stages(X, X, np.eye(2), np.eye(2), np.eye(2), scale=False)
    assert res.scores.tolist() == [[5.0, 2.0], [2.0, 1.0]]
    np.testing.assert_allclose(res.weights[0], [math.exp(3) / (math.exp(3) + 1), 1 / (math.exp(3) + 1)])


@pytest.mark.parametrize(
    "args, kwargs, words",
    [
        ((np.full((2, 2), 1e300), None, np.eye(2) * 1e10, np.eye(2), np.eye(2)), {},
         ["Q overflowed", "smaller entries"]),
        ((np.full((2, 2), 1e200), None, np.eye(2), np.eye(2), np.eye(2)), {},
         ["the scores overflowed", "smaller entries"]),
        ((np.ones((2, 2)), None, np.eye(2), np.full((2, 2), 1e308), np.eye(2)), {},
         ["K overflowed"]),
        ((np.ones((2, 2)), np.ones((3, 2)), np.eye(2), np.eye(2), np.eye(2)), {"mask": "causal"},
         ["causal mask needs as many queries as keys", "2 queries and 3 keys"]),
        ((np.ones((2, 2)), np.ones((3, 3)), np.eye(2), np.eye(2), np.eye(2)), {}, ["X_q", "X_kv", "d_model"]),
        ((np.ones((2, 3)), None, np.eye(2), np.eye(2), np.eye(2)), {}, ["X_q has shape (2, 3)", "W_q needs 3 rows"]),
        ((np.ones((2, 2)), None, np.eye(2), np.eye(2), np.eye(2)), {"mask": "triangle"}, ["causal", "triangle"]),
        ((np.ones((2, 2)), None, np.eye(2), np.eye(2), np.eye(2)), {"mask": np.zeros((2, 2), bool)},
         ["nothing to attend to"]),
        (([[np.nan, 1.0]], None, np.eye(2), np.eye(2), np.eye(2)), {}, ["X_q must hold finite numbers"]),
    ],
)
def test_attention_stages_refuse_what_they_cannot_compute(args, kwargs, words):
    with pytest.raises(ValueError) as info:
        attention_stages(*args, **kwargs)
    for word in words:
        assert word in str(info.value), f"{word!r} not in {info.value}"


# --- refusing bad arguments ----------------------------------------------------------------------

ones = np.ones
sdpa = scaled_dot_product_attention

@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: softmax([1.0, np.nan]), ["NaN", "index (1,)"]),
        (lambda: softmax([[0.0, 1.0], [np.inf, 0.0]]), ["+inf", "(1, 0)"]),
        (lambda: softmax([[0.0, 1.0], [-np.inf, -np.inf]]), ["-inf", "(1,)", "nothing to attend to"]),
        (lambda: softmax([-np.inf, -np.inf]), ["every entry of x is -inf", "(2,)", "nothing to attend to"]),
        (lambda: softmax(3.0), ["scalar"]),
        (lambda: softmax([1.0, 2.0], axis=3), ["axis 3"]),
        (lambda: softmax(["a", "b"]), ["x must be an array of numbers"]),
        (lambda: project_qkv(ones((3, 4)), ones((5, 2)), ones((4, 2)), ones((4, 2))), ["W_q", "(5, 2)", "(3, 4)"]),
        (lambda: project_qkv(ones((3, 4)), ones((4, 2)), ones((4, 3)), ones((4, 2))), ["W_q", "W_k", "d_k"]),
        (lambda: project_qkv(ones(4), ones((4, 2)), ones((4, 2)), ones((4, 2))), ["X", "(4,)"]),
        (lambda: project_qkv(ones((3, 4)), ones((4, 2)), ones((4, 2)), ones(4)), ["W_v", "(4,)"]),
        (lambda: sdpa(ones((2, 3)), ones((2, 4)), ones((2, 4))), ["Q", "(2, 3)", "K", "(2, 4)"]),
        (lambda: sdpa(ones((2, 3)), ones((2, 3)), ones((5, 3))), ["K", "V", "(5, 3)"]),
        (lambda: sdpa(ones((2, 3)), ones((2, 3)), ones((2, 3)), mask=ones((2, 2))), ["boolean", "float64"]),
        (lambda: sdpa(ones((2, 3)), ones((2, 3)), ones((2, 3)), mask=ones((3, 3), bool)), ["(3, 3)", "(2, 2)"]),
        (lambda: sdpa(ones((2, 3)), ones((2, 3)), ones((2, 3)), mask=np.array([[True, True], [False, False]])),
         ["query row 1", "nothing to attend to"]),
        (lambda: sdpa(ones((2, 2, 3)), ones((3, 2, 3)), ones((3, 2, 3))), ["batch", "broadcast"]),
        (lambda: causal_mask(0), ["n", "whole number of at least 1", "got 0"]),
        (lambda: causal_mask(2.5), ["n", "2.5"]),
        (lambda: split_heads(np.ones((2, 10)), 3), ["d_model = 10", "h = 3"]),
        (lambda: split_heads(np.ones((2, 10)), 0), ["h", "whole number of at least 1", "got 0"]),
        (lambda: merge_heads(np.ones((2, 3))), ["Xh", "(2, 3)"]),
        (lambda: head_dim(100, 8), ["d_model = 100", "h = 8"]),
        (lambda: padding_mask([3, 5], 4), ["lengths", "[3, 5]", "n = 4"]),
        (lambda: additive_mask(np.ones((2, 2))), ["boolean"]),
    ],
)
def test_bad_arguments_raise_a_value_error_that_says_what_is_wrong(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{word!r} not in {info.value}"
