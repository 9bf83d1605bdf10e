"""FlashAttention in numpy: the same output as plain attention, tile by tile, in O(n · block) extra memory.

The reference is an explicit per-query loop written here (and scaled_dot_product_attention, which the
course's other tests check against the lesson's numbers).
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from helpers.core.attention import (
    causal_mask,
    flash_attention,
    online_softmax_step,
    scaled_dot_product_attention,
)
from helpers.core.efficiency import peak_memory


def loop_attention(Q, K, V, mask=None):
    """One query at a time, the textbook formula with the max trick, in plain Python floats."""
    out = []
    for i in range(Q.shape[0]):
        s = [float(Q[i] @ K[j]) / math.sqrt(Q.shape[1]) for j in range(K.shape[0])]
        keep = [True] * len(s) if mask is None else list(np.broadcast_to(mask, (Q.shape[0], K.shape[0]))[i])
        top = max(v for v, k in zip(s, keep) if k)
        e = [math.exp(v - top) if k else 0.0 for v, k in zip(s, keep)]
        total = sum(e)
        out.append(sum(w / total * V[j] for j, w in enumerate(e)))
    return np.array(out)


@st.composite
def problems(draw):
    n_q = draw(st.integers(1, 40))
    n_k = draw(st.integers(1, 40))
    d_k = draw(st.integers(1, 6))
    d_v = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    size = draw(st.sampled_from([1.0, 3.0, 30.0]))
    Q, K = rng.normal(0, size, (n_q, d_k)), rng.normal(0, size, (n_k, d_k))
    V = rng.normal(0, 1, (n_k, d_v))
    kind = draw(st.sampled_from(["none", "random", "causal", "column"]))
    if kind == "none":
        mask = None
    elif kind == "random":
        mask = rng.random((n_q, n_k)) < draw(st.sampled_from([0.2, 0.5, 0.9]))
        mask[np.arange(n_q), rng.integers(0, n_k, n_q)] = True  # every query keeps at least one key
    elif kind == "causal":
        n = min(n_q, n_k)
        Q, K, V = Q[:n], K[:n], V[:n]
        mask = causal_mask(n)
    else:  # a key-padding style mask of shape (1, n_k), broadcast over the queries
        mask = np.ones((1, n_k), dtype=bool)
        mask[0, draw(st.integers(0, n_k - 1)) + 1:] = False
    block = draw(st.integers(1, 50))
    return Q, K, V, mask, block


@given(problems())
def test_flash_equals_plain_attention_for_any_shape_block_and_mask(problem):
    Q, K, V, mask, block = problem
    expected = scaled_dot_product_attention(Q, K, V, mask)[0]
    got = flash_attention(Q, K, V, block_size=block, mask=mask)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)


@given(problems())
def test_flash_equals_a_per_query_loop(problem):
    Q, K, V, mask, block = problem
    np.testing.assert_allclose(flash_attention(Q, K, V, block, mask), loop_attention(Q, K, V, mask), atol=1e-10)


@pytest.mark.parametrize("n, block", [(100, 64), (65, 64), (64, 64), (7, 3), (1, 64), (200, 1)])
def test_sequence_length_not_a_multiple_of_the_block(n, block):
    rng = np.random.default_rng(n)
    Q, K, V = rng.normal(size=(n, 8)), rng.normal(size=(n, 8)), rng.normal(size=(n, 3))
    for mask in (None, causal_mask(n)):
        np.testing.assert_allclose(flash_attention(Q, K, V, block, mask),
                                   scaled_dot_product_attention(Q, K, V, mask)[0], atol=1e-10)


@given(st.floats(1e2, 1e150), st.integers(1, 9), st.integers(0, 1000))
def test_huge_scores_stay_finite_and_exact(size, block, seed):
    """Scores of order 1e300 would overflow exp() without the running maximum."""
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(0, size, (5, 2)), rng.normal(0, size, (9, 2)), rng.normal(size=(9, 2))
    got = flash_attention(Q, K, V, block)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, scaled_dot_product_attention(Q, K, V)[0], atol=1e-10)


def test_a_late_larger_score_rescales_what_came_before():
    # Query 0: key 0 scores 0, key 1 scores 1000. After block 1 the running max is 0; block 2 must
    # shrink the old sum by exp(-1000), so the output is (almost exactly) the value of key 1.
    Q = np.array([[1.0]])
    K = np.array([[0.0], [1000.0]])
    V = np.array([[5.0], [7.0]])
    np.testing.assert_allclose(flash_attention(Q, K, V, block_size=1), [[7.0]])


def test_online_softmax_step_by_hand():
    # Two keys in one step from the empty state: m = 2, l = e^0 + e^-2, o = 1·v0 + e^-2·v1.
    m, l, o = online_softmax_step(np.array([-np.inf]), np.zeros(1), np.zeros((1, 2)),
                                  np.array([[2.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 10.0]]))
    assert m.tolist() == [2.0]
    assert l[0] == pytest.approx(1 + math.exp(-2))
    np.testing.assert_allclose(o, [[1.0, 10 * math.exp(-2)]])
    # A second step with a larger score rescales the old state by e^(2 - 5).
    m2, l2, o2 = online_softmax_step(m, l, o, np.array([[5.0]]), np.array([[3.0, 3.0]]))
    assert m2.tolist() == [5.0]
    assert l2[0] == pytest.approx((1 + math.exp(-2)) * math.exp(-3) + 1)
    np.testing.assert_allclose(o2, [[math.exp(-3) + 3, 10 * math.exp(-5) + 3]])


def test_an_all_masked_block_leaves_the_state_unchanged():
    m, l, o = np.array([-np.inf, 1.0]), np.array([0.0, 2.0]), np.array([[0.0], [4.0]])
    m2, l2, o2 = online_softmax_step(m, l, o, np.full((2, 3), -np.inf), np.ones((3, 1)))
    assert m2.tolist() == [-np.inf, 1.0] and l2.tolist() == [0.0, 2.0] and o2.tolist() == [[0.0], [4.0]]


def test_fully_masked_row_raises_the_same_error_as_plain_attention():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    with pytest.raises(ValueError) as plain:
        scaled_dot_product_attention(Q, K, V, mask)
    with pytest.raises(ValueError) as flash:
        flash_attention(Q, K, V, 2, mask)
    assert str(flash.value) == str(plain.value)
    assert "query row 1" in str(flash.value)


@pytest.mark.parametrize("args, words", [
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 3)), V=np.ones((4, 2))), ["Q has shape (3, 2)", "K has shape (4, 3)"]),
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 2)), V=np.ones((5, 2))), ["K has shape (4, 2)", "V has shape (5, 2)"]),
    (dict(Q=np.ones((2, 3, 2)), K=np.ones((4, 2)), V=np.ones((4, 2))), ["Q must have shape (n_q, d_k)", "(2, 3, 2)"]),
    (dict(Q=np.ones(3), K=np.ones((4, 3)), V=np.ones((4, 2))), ["Q must have shape", "(3,)"]),
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 2)), V=np.ones((4, 2)), block_size=0), ["block_size", "0"]),
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 2)), V=np.ones((4, 2)), block_size=2.5), ["block_size", "2.5"]),
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 2)), V=np.ones((4, 2)), block_size=True), ["block_size"]),
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 2)), V=np.ones((4, 2)), mask=np.ones((3, 4))), ["mask must be boolean"]),
    (dict(Q=np.ones((3, 2)), K=np.ones((4, 2)), V=np.ones((4, 2)), mask=np.ones((3, 5), bool)),
     ["mask has shape (3, 5)", "(3, 4)"]),
    (dict(Q=np.full((3, 2), np.nan), K=np.ones((4, 2)), V=np.ones((4, 2))), ["Q must hold finite numbers"]),
    (dict(Q=np.full((3, 2), 1e200), K=np.full((4, 2), 1e200), V=np.ones((4, 2))), ["overflow"]),
    (dict(Q="abc", K=np.ones((4, 2)), V=np.ones((4, 2))), ["Q must be an array of numbers"]),
])
def test_bad_arguments_get_a_value_error_naming_them(args, words):
    with pytest.raises(ValueError) as err:
        flash_attention(**args)
    for w in words:
        assert w in str(err.value)


def test_the_inputs_are_not_modified():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(5, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    copies = [A.copy() for A in (Q, K, V)]
    flash_attention(Q, K, V, 4, causal_mask(6)[:5])
    for A, c in zip((Q, K, V), copies):
        np.testing.assert_array_equal(A, c)


# -- memory: never the n × n matrix

def random_qkv(n, d=64, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d))


def test_peak_memory_counts_what_the_function_allocates():
    size = 8 * 1_000_000  # one million float64
    assert size <= peak_memory(lambda: np.ones(1_000_000)) < size + 100_000
    assert peak_memory(lambda: None) < 10_000


def test_peak_memory_for_2048_tokens_is_a_small_fraction_of_the_score_matrix():
    n = 2048
    Q, K, V = random_qkv(n)
    score_matrix = n * n * 8  # one float64 n × n matrix: 33.5 MB
    flash = peak_memory(lambda: flash_attention(Q, K, V, block_size=64))
    plain = peak_memory(lambda: scaled_dot_product_attention(Q, K, V))
    assert flash < 0.25 * score_matrix, (flash, score_matrix)
    assert plain > score_matrix  # the plain version does hold it (and more)


def test_peak_memory_grows_like_n_times_block():
    Q, K, V = random_qkv(2048)
    half = [A[:1024] for A in (Q, K, V)]
    by_n = peak_memory(lambda: flash_attention(Q, K, V, 64)) / peak_memory(lambda: flash_attention(*half, 64))
    assert 1.7 < by_n < 2.3, by_n  # twice the tokens, twice the memory (the plain version: four times)
    by_block = peak_memory(lambda: flash_attention(Q, K, V, 512)) / peak_memory(lambda: flash_attention(Q, K, V, 128))
    assert 2.5 < by_block < 4.5, by_block  # four times the block, about four times the tile


def test_with_the_queries_tiled_too_memory_still_grows_like_n():
    # The real algorithm tiles the queries as well: the tiles are then b × b, and what grows with n is each query's
    # running max, sum and unnormalised output, the size of the output: O(n), never n².
    def tiled(Q, K, V, b=64):
        return np.vstack([flash_attention(Q[i:i + b], K, V, b) for i in range(0, len(Q), b)])

    Q, K, V = random_qkv(2048)
    half = [A[:1024] for A in (Q, K, V)]
    np.testing.assert_allclose(tiled(Q, K, V), scaled_dot_product_attention(Q, K, V)[0], rtol=0, atol=1e-12)
    by_n = peak_memory(lambda: tiled(Q, K, V)) / peak_memory(lambda: tiled(*half))
    assert 1.7 < by_n < 2.3, by_n
    assert peak_memory(lambda: tiled(Q, K, V)) < 4 * Q.nbytes  # a few outputs' worth, against 32 × Q for n × n
