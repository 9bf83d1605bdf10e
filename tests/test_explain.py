"""The arithmetic traces show the right numbers, written the way a learner writes them."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from helpers.core.explain import (
    attention_entry_lines,
    dot_terms,
    fmt,
    format_matrix,
    matmul_entry,
    matmul_lines,
    softmax_lines,
    weighted_sum_lines,
)


@pytest.mark.parametrize(
    "x, text",
    [(2.0, "2"), (0.5, "0.5"), (-1.25, "−1.25"), (1 / 3, "0.3333"), (-0.0, "0"), (1e-9, "0"),
     (float("-inf"), "−∞"), (float("inf"), "∞"), (1.5, "1.5"), (100.0, "100")],
)
def test_fmt_writes_numbers_as_a_learner_would(x, text):
    assert fmt(x) == text


def test_lesson_q5_entry_is_written_out_like_the_lesson():
    X = [[2, 1], [0, 3]]
    W_k = [[0, 1], [1, 0]]
    # The lesson: K = [[2·0+1·1, 2·1+1·0], [0·0+3·1, 0·1+3·0]]
    assert matmul_entry(X, W_k, 0, 0) == "2·0 + 1·1 = 1"
    assert matmul_entry(X, W_k, 1, 0) == "0·0 + 3·1 = 3"
    lines = matmul_lines(X, W_k, name="K", a_name="X", b_name="W^K")
    assert lines[0] == "K = X·W^K, shape (2, 2) × (2, 2) → (2, 2)"
    assert lines[-1].strip() == "K = [[1, 2], [3, 0]]"


def test_negative_factors_are_bracketed():
    assert dot_terms([2, -1], [-3, 4]) == "2·(−3) + (−1)·4"
    # A tiny negative prints as 0 and so needs no parentheses.
    assert dot_terms([-0.00001, 1], [1, 2]) == "0·1 + 1·2"


def test_dot_terms_refuses_unequal_lengths():
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        dot_terms([1, 2], [1, 2, 3])


def test_softmax_lines_show_exp_sum_and_division():
    lines = softmax_lines([0.0, np.log(3.0)], labels=["The", "cat"])
    text = "\n".join(lines)
    assert "sum = 0.3333 + 1 = 1.3333" in text
    assert "weight The = 0.3333 / 1.3333 = 0.25" in text
    assert "weight cat = 1 / 1.3333 = 0.75" in text


def test_softmax_lines_mark_masked_keys():
    text = "\n".join(softmax_lines([1.0, float("-inf")]))
    assert "masked, exp(−∞) = 0" in text
    assert "weight 0 = 1 / 1 = 1" in text


def test_weighted_sum_lines_give_the_output_row():
    lines = weighted_sum_lines([0.5, 0.5], [[1, 2], [3, 0]])
    assert lines[0] == "output = 0.5·v0 + 0.5·v1"
    assert lines[-1] == "output = [2, 1]"


def test_attention_entry_lines_divide_by_root_d_k():
    lines = attention_entry_lines([[1, 2, 3, 4]], [[1, 1, 1, 1]], 0, 0)
    assert lines[0] == "score = q0·k0 = 1·1 + 2·1 + 3·1 + 4·1 = 10"
    assert lines[1] == "scaled = 10 / √4 = 10 / 2 = 5"


@given(arrays(float, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=st.integers(-9, 9).map(float)))
def test_matmul_lines_end_with_the_true_product(A):
    B = A.T
    assert matmul_lines(A, B)[-1].strip() == f"C = {format_matrix(A @ B, code=False)}"


MINUS_ZERO = __import__("re").compile(r"(?<![\d.])[-−]0(?:\.0*)?(?![\d.])")
small = st.floats(-2e-4, 2e-4, allow_nan=False) | st.integers(-3, 3).map(float) | st.floats(-5, 5)


@given(arrays(float, st.tuples(st.integers(1, 3), st.integers(1, 3)), elements=small),
       arrays(float, st.tuples(st.integers(1, 3), st.integers(1, 3)), elements=small))
def test_no_trace_ever_writes_minus_zero(A, B):
    """Every trace of the explorers (scores, softmax, weighted sum) with numbers that round to zero."""
    n = min(A.shape[1], B.shape[1])
    Q, K = A[:, :n], B[:, :n]
    lines = attention_entry_lines(Q, K, 0, 0) + softmax_lines(A[0]) + matmul_lines(A, A.T)
    w = np.abs(A[0]) / max(np.abs(A[0]).sum(), 1e-9)
    lines += weighted_sum_lines(w, B[: w.size] if B.shape[0] >= w.size else np.resize(B, (w.size, B.shape[1])))
    for line in lines:
        assert not MINUS_ZERO.search(line), line
