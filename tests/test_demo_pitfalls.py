"""The √d_k saturation demo and the overflow demo of notebook 08, its data, and its design task's goal."""

import math
import warnings

import numpy as np
import pytest

from helpers.core.attention import softmax
from helpers.core.pitfalls import (
    MAX_D_K,
    entropy,
    naive_softmax,
    parse_scores,
    running_example,
    saturated_query,
    saturation,
    saturation_table,
    softmax_jacobian_norm,
)
from helpers.demos.pitfalls import OverflowDemo, SaturationDemo, bar_chart_html
from helpers.exercises import check_design


def test_entropy_of_uniform_and_one_hot():
    assert entropy(np.full(8, 1 / 8)) == pytest.approx(math.log(8))
    assert entropy([0.0, 1.0, 0.0]) == 0.0


def test_jacobian_norm_uniform_and_one_hot():
    # For uniform p over n keys, diag(p) - ppᵀ = (I - 11ᵀ/n)/n: eigenvalues 1/n (n-1 times) and 0.
    n = 5
    assert softmax_jacobian_norm(np.full(n, 1 / n)) == pytest.approx(math.sqrt(n - 1) / n)
    assert softmax_jacobian_norm([0.0, 1.0, 0.0]) == 0.0


def test_jacobian_norm_matches_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.0])
    p = softmax(s)
    eps = 1e-6
    J_fd = np.stack([(softmax(s + eps * np.eye(4)[j]) - p) / eps for j in range(4)], axis=1)
    assert softmax_jacobian_norm(p) == pytest.approx(np.linalg.norm(J_fd), rel=1e-4)


def test_saturation_scaled_is_raw_over_sqrt_dk():
    raw = saturation(100, scale=False, seed=3)
    scaled = saturation(100, scale=True, seed=3)
    np.testing.assert_allclose(scaled.scores, raw.scores / 10.0)
    np.testing.assert_allclose(raw.scores, raw.K @ raw.q)
    np.testing.assert_allclose(raw.weights.sum(), 1.0)


def test_saturation_grows_dimensions_of_the_same_vectors():
    a, b = saturation(5, seed=1), saturation(6, seed=1)
    np.testing.assert_array_equal(b.q[:5], a.q)
    np.testing.assert_array_equal(b.K[:, :5], a.K)


def test_unscaled_saturates_and_scaled_does_not():
    raw = saturation(512, scale=False, seed=0)
    scaled = saturation(512, scale=True, seed=0)
    assert raw.max_weight > 0.99
    assert raw.grad_norm < 1e-3
    assert scaled.max_weight < 0.9
    assert scaled.entropy > 1.0


def test_saturation_table_trends():
    rows = saturation_table(d_ks=(1, 16, 256), n_rows=500, seed=0)
    assert [r["d_k"] for r in rows] == [1, 16, 256]
    # d_k = 1: dividing by √1 changes nothing.
    assert rows[0]["max_raw"] == pytest.approx(rows[0]["max_scaled"])
    assert rows[0]["max_raw"] < rows[1]["max_raw"] < rows[2]["max_raw"]
    assert rows[0]["grad_raw"] > rows[1]["grad_raw"] > rows[2]["grad_raw"]
    scaled = [r["max_scaled"] for r in rows]
    assert max(scaled) - min(scaled) < 0.1


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_saturation_rejects_bad_d_k(bad):
    with pytest.raises(ValueError, match="d_k"):
        saturation(bad)


def test_naive_softmax_overflows_quietly_to_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = naive_softmax([1000.0, 999.0, 998.0])
    assert np.isnan(out).all()


def test_naive_softmax_agrees_for_small_scores():
    x = np.array([[2.0, 1.0, 0.0], [0.5, 0.5, -1.0]])
    e = np.exp(x)
    np.testing.assert_allclose(naive_softmax(x), e / e.sum(axis=1, keepdims=True))


def test_parse_scores():
    np.testing.assert_array_equal(parse_scores("1000, 999 998"), [1000.0, 999.0, 998.0])
    np.testing.assert_array_equal(parse_scores("−1, 2"), [-1.0, 2.0])
    np.testing.assert_array_equal(parse_scores("1/2; 1e-3"), [0.5, 0.001])
    with pytest.raises(ValueError, match="scores: .*empty"):
        parse_scores("  , ")
    with pytest.raises(ValueError, match="scores: score 2: 'x' is not a number"):
        parse_scores("1, x")
    with pytest.raises(ValueError, match="score 2: 'inf' is not a finite number"):
        parse_scores("1 inf")


def test_a_comma_between_digits_is_refused_not_split():
    # "1,5" is a decimal comma or a missing space: the demo used to read it as two scores
    with pytest.raises(ValueError, match=r"'1,5': write decimals with a point \(1\.5\)"):
        parse_scores("1,5")
    np.testing.assert_array_equal(parse_scores("1, 5"), [1.0, 5.0])
    np.testing.assert_array_equal(parse_scores("[1,5]"), [1.0, 5.0])


def test_overflow_demo_refuses_a_decimal_comma_with_the_hint():
    demo = OverflowDemo("1000, 999, 998")
    demo.text = "1,5"
    assert "write decimals with a point (1.5)" in demo.message
    assert "write decimals with a point (1.5)" in demo.message_html.value
    np.testing.assert_array_equal(demo.scores, [1000.0, 999.0, 998.0])
    demo.text = "1, 5"
    assert demo.message == ""
    np.testing.assert_array_equal(demo.scores, [1.0, 5.0])
    np.testing.assert_allclose(demo.stable, [1 / (1 + np.exp(4.0)), 1 / (1 + np.exp(-4.0))])


def test_bar_chart_html():
    out = bar_chart_html([1.0, 0.0, float("nan")], ["a", "<b>", "c"], title="t")
    rows = out.split("<tr>")[1:]
    assert len(rows) == 3
    assert "100.0%" in rows[0] and ">1.000<" in rows[0]  # a full bar
    assert "100.0%" not in rows[1] and "0.0%" in rows[1]  # an empty one
    assert ">nan<" in rows[2] and "0.0%" in rows[2]  # a broken softmax: an empty bar, labelled
    assert "&lt;b&gt;" in out and "<b>" not in out
    assert ">t</caption>" in out
    with pytest.raises(ValueError, match="labels"):
        bar_chart_html([0.5, 0.5], ["only one"])


def test_saturation_demo_follows_slider_and_switch():
    demo = SaturationDemo(d_k=1, scale=False)
    assert demo.result.max_weight == pytest.approx(saturation(1, False).max_weight)
    demo.d_k = 512
    assert demo.d_k_box.value == 512
    assert demo.result.max_weight > 0.99
    assert f"{demo.result.max_weight:.3f}" in demo.view.value
    assert "not scaled" in demo.view.value
    demo.scale = True
    assert demo.result.max_weight < 0.9
    assert "√512" in demo.view.value
    with pytest.raises(ValueError, match="at most 512"):
        demo.d_k = 513
    assert demo.d_k == 512


def test_overflow_demo_compares_and_keeps_last_valid_row():
    demo = OverflowDemo("1000, 999, 998")
    assert np.isnan(demo.naive).all()
    expected = np.exp([0.0, -1.0, -2.0]) / np.exp([0.0, -1.0, -2.0]).sum()
    np.testing.assert_allclose(demo.stable, expected)
    assert demo.message == ""
    demo.text = "3, oops"
    assert "oops" in demo.message
    assert "oops" in demo.message_html.value
    np.testing.assert_array_equal(demo.scores, [1000.0, 999.0, 998.0])
    demo.text = "3 1 0"
    assert demo.message == "" and demo.message_html.value == ""
    np.testing.assert_allclose(demo.naive, demo.stable)
    np.testing.assert_allclose(demo.stable, softmax(np.array([3.0, 1.0, 0.0])))


def test_overflow_demo_names_overflow_and_underflow():
    demo = OverflowDemo("1000, 999, 998")
    assert "overflow" in demo.view.value and "underflow" not in demo.view.value
    demo.text = "-1000 -1001"
    # exp(-1000) is 0 in float64: the naive row is 0/0 and the note says why.
    assert np.isnan(demo.naive).all()
    assert "underflow" in demo.view.value
    assert "exp(s + 1000)" in demo.view.value and "− -" not in demo.view.value
    np.testing.assert_allclose(demo.stable, [1 / (1 + np.exp(-1.0)), np.exp(-1.0) / (1 + np.exp(-1.0))])
    demo.text = "3 1 0"
    assert "flow" not in demo.view.value


# --------------------------------------------------------------------------- the notebook's data and its claims


def test_running_example_is_the_notebooks_small_integers():
    tokens, X, W_q, W_k, W_v = running_example()
    assert tokens == ("the", "cat", "sat", "down")
    assert X.shape == (4, 4) and W_q.shape == W_k.shape == W_v.shape == (4, 2)
    for M in (X, W_q, W_k, W_v):
        np.testing.assert_array_equal(M, np.round(M))
    np.testing.assert_array_equal(running_example()[1], X)  # seeded


def test_saturated_query_is_the_demos_query_as_matrices():
    q, K = saturated_query()
    r = saturation(MAX_D_K, scale=False)
    assert q.shape == (1, MAX_D_K) and K.shape == (8, MAX_D_K)
    np.testing.assert_allclose((q @ K.T)[0], r.scores)


def test_the_table_spread_grows_like_sqrt_dk():
    for r in saturation_table(d_ks=(1, 64, 512), n_rows=1000, seed=0):
        assert r["std_raw"] == pytest.approx(math.sqrt(r["d_k"]), rel=0.05)


def test_the_numbers_the_notebook_states_about_the_tables_and_the_demo():
    """08's prose: scaled, the largest weight stays between 0.30 and 0.37 and the gradient size between 0.35 and
    0.37 at every width; at d_k = 512 the demo's query gives key 3 1.000 unscaled."""
    table = saturation_table(d_ks=(1, 4, 16, 64, 256, 512), n_rows=1000, n_keys=8, seed=0)
    assert all(0.295 <= r["max_scaled"] < 0.375 for r in table)
    assert all(0.345 <= r["grad_scaled"] < 0.375 for r in table)
    raw = saturation(MAX_D_K, scale=False)
    assert int(np.argmax(raw.weights)) == 3 and f"{raw.max_weight:.3f}" == "1.000"


@pytest.mark.parametrize("factor, met, words", [
    (1 / math.sqrt(MAX_D_K), True, "the largest weight is 0.49, on 'key 3': between 0.25 and 0.75"),
    (1 / MAX_D_K, False, "the largest weight is 0.14, on 'key 3'; the goal"),       # ÷ d_k: too flat
    (1.0, False, "the largest weight is 1.00, on 'key 3'; the goal"),              # not scaled: saturated
    (-1 / math.sqrt(MAX_D_K), False, "on 'key 7'; the goal is between 0.25 and 0.75, on 'key 3'"),  # order flipped
    (0.0, False, "the largest weight, 0.12, is shared by 8 keys"),
])
def test_the_design_task_wants_a_preference_neither_saturated_nor_flat(factor, met, words, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))
    q, _K = saturated_query()
    fb = check_design("08-unsaturate", q=factor * q)
    assert fb.correct is met and words in fb.message, fb.message
