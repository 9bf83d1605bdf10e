"""Notebooks 13 and 14's math (costs, sparse masks, linear attention, the FlashAttention trace, LoRA) and widgets."""

import math

import numpy as np
import pytest

from helpers.core.attention import causal_mask, flash_attention, scaled_dot_product_attention, softmax
from helpers.core.efficiency import (
    attention_cost,
    best_low_rank,
    elu_plus_one,
    fit_exponent,
    flash_trace,
    global_mask,
    kept_fraction,
    linear_attention,
    linear_attention_weights,
    lora_example,
    lora_parameters,
    sliding_window_mask,
    strided_mask,
    time_attention,
    two_hop_reach,
)
from helpers.demos.efficiency import FlashStepper, LoraDemo, TimingPanel

from conftest import html_text

# -- costs

def test_attention_cost_counts_by_hand():
    c = attention_cost(n=10, d_model=8, d_k=4, d_v=2)
    assert c["projections"] == 10 * 8 * 4 + 10 * 8 * 4 + 10 * 8 * 2
    assert c["scores"] == 10 * 10 * 4
    assert c["weighted sum"] == 10 * 10 * 2
    assert c["matrix bytes"] == 800
    with pytest.raises(ValueError, match="n must be a whole number of at least 1"):
        attention_cost(0, 8, 4)


def test_doubling_n_quadruples_the_score_work_and_doubles_the_projections():
    a, b = attention_cost(1000, 64, 64), attention_cost(2000, 64, 64)
    assert b["scores"] == 4 * a["scores"] and b["projections"] == 2 * a["projections"]


def test_fit_exponent_reads_the_power():
    ns = [10, 20, 40, 80]
    assert fit_exponent(ns, [3 * n**2 for n in ns]) == pytest.approx(2.0)
    assert fit_exponent(ns, [0.5 * n for n in ns]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="positive"):
        fit_exponent([1, 2], [0, 1])
    with pytest.raises(ValueError, match="same 1-D shape"):
        fit_exponent([1, 2, 3], [1, 2])


def test_time_attention_gives_one_positive_time_per_n():
    r = time_attention([16, 32], d_model=8, repeats=1)
    assert r["n"] == [16, 32]
    assert all(t > 0 for t in r["projections"] + r["attention"])


# -- sparse masks

def test_sliding_window_keeps_the_last_w_keys():
    m = sliding_window_mask(6, 3)
    for i in range(6):
        assert [j for j in range(6) if m[i, j]] == list(range(max(0, i - 2), i + 1))
    both = sliding_window_mask(6, 2, causal=False)
    assert both[2].tolist() == [False, True, True, True, False, False]


def test_strided_keeps_every_stride_th_past_key():
    m = strided_mask(9, 3)
    assert [j for j in range(9) if m[8, j]] == [2, 5, 8]
    assert not (m & ~causal_mask(9)).any()


def test_local_plus_strided_reaches_every_past_key_in_two_steps():
    n, s = 16, 4
    m = (sliding_window_mask(n, s) | strided_mask(n, s)).astype(int)
    two_steps = (m @ m) > 0
    assert (two_steps == causal_mask(n)).all()
    assert (two_hop_reach(m > 0) == two_steps).all()


@pytest.mark.parametrize("n", [16, 40])
@pytest.mark.parametrize("w, s", [(4, 4), (5, 4), (8, 3), (3, 4), (2, 5), (1, 4)])
def test_two_hops_reach_every_past_key_only_when_the_window_is_at_least_the_stride(n, w, s):
    # notebook 14: "every past key is at most two hops away" holds for w >= s, and not otherwise
    reach = two_hop_reach(sliding_window_mask(n, w) | strided_mask(n, s))
    assert not (reach & ~causal_mask(n)).any()  # never a future key
    assert (reach == causal_mask(n)).all() == (w >= s)
    if w < s:  # missed, for one: the key s + w back (no window step, no stride multiple, no mix of them sums to it)
        assert not reach[s + w, 0]


def test_two_hop_reach_refuses_what_is_not_a_square_boolean_mask():
    for bad in (np.ones((3, 3)), np.ones((2, 3), dtype=bool)):
        with pytest.raises(ValueError, match="square 2-D boolean"):
            two_hop_reach(bad)


def test_global_tokens_see_and_are_seen_by_all():
    m = global_mask(5, [0])
    assert m[:, 0].all() and m[0, :].all() and not m[1:, 1:].any()
    with pytest.raises(ValueError, match="global_tokens"):
        global_mask(5, [5])


def test_kept_fraction():
    assert kept_fraction(causal_mask(4)) == 10 / 16
    assert kept_fraction(sliding_window_mask(100, 10)) == pytest.approx((10 * 11 / 2 + 90 * 10) / 100**2)
    with pytest.raises(ValueError, match="boolean"):
        kept_fraction(np.ones((2, 2)))


# -- linear attention

def test_elu_plus_one():
    np.testing.assert_allclose(elu_plus_one([-1.0, 0.0, 2.0]), [math.exp(-1), 1.0, 3.0])


def test_both_orders_of_the_products_agree():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(7, 3)), rng.normal(size=(9, 3)), rng.normal(size=(9, 2))
    fQ, fK = elu_plus_one(Q), elu_plus_one(K)
    quadratic = (fQ @ fK.T) @ V / (fQ @ fK.T).sum(axis=1, keepdims=True)  # the n × n order
    np.testing.assert_allclose(linear_attention(Q, K, V), quadratic)
    w = linear_attention_weights(Q, K)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert (w > 0).all()


def test_linear_attention_weights_differ_from_softmax():
    rng = np.random.default_rng(1)
    Q, K = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    soft = softmax(Q @ K.T / 2.0)
    assert np.abs(linear_attention_weights(Q, K) - soft).max() > 0.05


def test_linear_attention_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match=r"Q has shape \(2, 3\) and K has shape \(2, 4\)"):
        linear_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 1)))


# -- the FlashAttention trace

def test_flash_trace_ends_at_flash_attention_and_plain_attention():
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(7, 2)), rng.normal(size=(7, 2))
    for b in (1, 2, 3, 7, 8):
        trace = flash_trace(Q, K, V, b)
        assert len(trace) == 1 + math.ceil(7 / b)
        assert [list(s.keys) for s in trace[1:]] == [list(range(j, min(j + b, 7))) for j in range(0, 7, b)]
        np.testing.assert_allclose(trace[-1].output, flash_attention(Q, K, V, b), atol=1e-12)
        np.testing.assert_allclose(trace[-1].output, scaled_dot_product_attention(Q, K, V)[0], atol=1e-12)


def test_flash_trace_running_max_and_sum_by_hand():
    Q = np.array([[1.0]])
    K = np.array([[1.0], [3.0]])
    V = np.array([[10.0], [20.0]])
    s0, s1, s2 = flash_trace(Q, K, V, 1)
    assert s0.m.tolist() == [-np.inf] and s0.l.tolist() == [0.0]
    assert s1.m.tolist() == [1.0] and s1.l.tolist() == [1.0] and s1.o.tolist() == [[10.0]]
    assert s2.m.tolist() == [3.0]
    assert s2.rescale[0] == pytest.approx(math.exp(-2))
    assert s2.l[0] == pytest.approx(math.exp(-2) + 1)
    assert s2.output[0, 0] == pytest.approx((10 * math.exp(1) + 20 * math.exp(3)) / (math.exp(1) + math.exp(3)))


# -- LoRA

def test_lora_parameters():
    assert lora_parameters(768, 768, 8) == 8 * 1536
    assert lora_parameters(16, 4, 0) == 0
    with pytest.raises(ValueError, match="rank"):
        lora_parameters(4, 4, -1)


def test_best_low_rank_is_exact_at_full_rank_and_has_the_asked_rank():
    rng = np.random.default_rng(3)
    D = rng.normal(size=(6, 4))
    B, A = best_low_rank(D, 4)
    np.testing.assert_allclose(B @ A, D, atol=1e-12)
    B2, A2 = best_low_rank(D, 2)
    assert B2.shape == (6, 2) and A2.shape == (2, 4) and np.linalg.matrix_rank(B2 @ A2) == 2
    too_high = r"rank \(for delta of shape \(6, 4\)\) must be a whole number from 0 to 4; got 5"
    with pytest.raises(ValueError, match=too_high):
        best_low_rank(D, 5)


def test_lora_example_full_update_makes_a_previous_token_head():
    ex = lora_example()
    w = ex.weights(8)
    n = len(ex.tokens)
    assert all(w[i, i - 1] > 0.95 for i in range(1, n))
    frozen = ex.weights(0)
    np.testing.assert_allclose(frozen, softmax((ex.X @ ex.W_q) @ (ex.X @ ex.W_k).T / 4.0))
    # rank 8 reproduces it by construction: solved from the 8 token vectors, the update has rank at most 8 (of 16)
    assert np.linalg.matrix_rank(ex.delta_q) <= n < ex.delta_q.shape[0]


# -- widgets, through their public API

def test_flash_stepper_steps_to_the_plain_result():
    rng = np.random.default_rng(4)
    Q, K, V = rng.integers(-2, 3, (3, 2)), rng.integers(-2, 3, (8, 2)), rng.integers(-2, 3, (8, 2))
    fs = FlashStepper(Q, K, V, block_size=2)
    assert fs.step == 0 and fs.n_steps == 4 and fs.prev_button.disabled and not fs.next_button.disabled
    assert "no key read yet" in html_text(fs.views["where"])
    fs.next_button.click()
    assert fs.step == 1 and "Tile 1 of 4: keys 0–1. First tile" in html_text(fs.views["where"])
    assert html_text(fs.views["check"]) == ""
    for _ in range(10):
        fs.next_button.click()
    assert fs.step == 4 and fs.done and fs.next_button.disabled
    assert fs.matches_plain
    assert "equals plain" in html_text(fs.views["check"])
    fs.prev_button.click()
    assert fs.step == 3 and not fs.done and html_text(fs.views["check"]) == ""


def test_flash_stepper_shows_the_running_state():
    Q = np.array([[1.0, 0.0]])
    K = np.array([[0.0, 0.0], [2.0, 0.0]])  # scores 0 and 2/√2
    V = np.array([[1.0, 0.0], [0.0, 1.0]])
    fs = FlashStepper(Q, K, V, block_size=1)
    fs.next()
    state = html_text(fs.views["state"])
    assert "0.00" in state and "1.000" in state  # m = 0, l = 1
    fs.next()
    m = 2 / math.sqrt(2)
    assert f"{m:.2f}" in html_text(fs.views["state"])
    assert f"q0 × {math.exp(-m):.3f}" in html_text(fs.views["where"])


def test_flash_stepper_block_size_dropdown_restarts():
    rng = np.random.default_rng(5)
    fs = FlashStepper(rng.normal(size=(2, 2)), rng.normal(size=(8, 2)), rng.normal(size=(8, 2)), block_size=4)
    fs.next()
    fs.block_picker.value = 3
    assert fs.step == 0 and fs.n_steps == 3 and fs.block_size == 3
    fs.step = 3
    assert fs.state.keys == range(6, 8) and fs.matches_plain
    with pytest.raises(ValueError, match="step must be a whole number from 0 to 3"):
        fs.step = 4
    with pytest.raises(ValueError, match="block_size must be one of"):
        fs.block_size = 5
    assert fs.status == ""


def test_flash_stepper_refuses_bad_input_with_a_message():
    with pytest.raises(ValueError, match="K has shape"):
        FlashStepper(np.ones((2, 2)), np.ones((3, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="block_size must be one of"):
        FlashStepper(np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 2)), block_size=5)


def test_lora_demo_rank_changes_the_pattern_and_the_count():
    demo = LoraDemo(rank=0)
    assert demo.previous_token_weight == pytest.approx(float(np.mean(
        [demo.frozen_weights[i, i - 1] for i in range(1, 8)])))
    weights = []
    for r in LoraDemo.RANKS:
        demo.rank_picker.value = r
        weights.append(demo.previous_token_weight)
        text = html_text(demo.views["params"])
        assert f"{2 * r * 32:,}" in text and f"{2 * r * 1536:,}" in text
        assert f"adapted head (r = {r})" in html_text(demo.views["adapted"])
    assert weights[-1] > 0.95 > weights[0]
    assert weights == sorted(weights)  # more rank, more of the update, more previous-token attention
    demo.rank = 3
    assert demo.rank_picker.value == 3 and "adapted head (r = 3)" in html_text(demo.views["adapted"])
    with pytest.raises(ValueError, match="rank must be a whole number from 0 to 8"):
        demo.rank = 9
    with pytest.raises(ValueError, match="rank must be a whole number from 0 to 8"):
        LoraDemo(rank=-1)
    assert demo.status == ""


def test_timing_panel_measures_and_shows_a_figure_with_alt_text():
    panel = TimingPanel(ns=(32, 64, 128), d_model=16)
    assert panel.result["n"] == [32, 64, 128]
    assert set(panel.exponents) == {"projections", "attention"}
    assert 'role="img" aria-label="Log-log plot of time against n' in panel.view.value
    first = panel.view.value
    panel.button.click()
    assert panel.status == "" and panel.view.value != first  # measured again: new times
    with pytest.raises(ValueError, match="at least 2"):
        TimingPanel(ns=(32,))
