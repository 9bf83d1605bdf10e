"""Notebook 10's multi-head math and widgets: the shapes, the stages and the cost; change h, type sizes, edit X."""

import math

import numpy as np
import pytest

from helpers.core.attention import multi_head_attention
from helpers.core.multihead import check_layer, divisors, multi_head_cost, multi_head_shapes, multi_head_stages
from helpers.demos.multihead import HeadShapes, MultiHeadExplorer
from helpers.widgets.live import RUN_TO_SHOW

from conftest import html_text, walk

TOKENS = ["The", "cat", "sat", "on", "the", "mat"]


def example(d_model=4, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(6, d_model)).astype(float)
    W = [rng.integers(-1, 2, size=(d_model, d_model)).astype(float) for _ in range(4)]
    return X, W


def by_class(root, cls):
    return [w for w in walk(root) if cls in getattr(w, "_dom_classes", ())]


def softmax_rows(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


# --- shapes and cost ---------------------------------------------------------------------------

def test_lesson_q1_shapes():
    # The lesson's answer to Q1: d_k = 768 / 12 = 64; Q, K, V (8, 12, 20, 64); weights (8, 12, 20, 20);
    # output (8, 20, 768).
    shapes = {name: shape for name, _, shape in multi_head_shapes(8, 12, 20, 768)}
    assert shapes["Q, K, V split into heads"] == (8, 12, 20, 64)
    assert shapes["scores, weights"] == (8, 12, 20, 20)
    assert shapes["head outputs"] == (8, 12, 20, 64)
    assert shapes["output"] == (8, 20, 768)
    assert shapes["Concat(heads)"] == (8, 20, 768)


def test_multi_head_shapes_refuses_heads_that_do_not_divide_d_model():
    with pytest.raises(ValueError, match=r"heads = 5 does not divide d_model = 768"):
        multi_head_shapes(8, 5, 20, 768)


def count_multiply_adds(n, d_model, h):
    """Walk the layer's matrix products one by one, adding a·b·c for each (a × b)(b × c)."""
    d_k = d_model // h
    total = 0
    for _ in range(3):                           # X W^Q, X W^K, X W^V
        total += n * d_model * d_model
    for _ in range(h):
        total += n * d_k * n                     # Q_i K_iᵀ: (n × d_k)(d_k × n)
        total += n * n * d_k                     # A_i V_i: (n × n)(n × d_k)
    total += n * d_model * d_model               # Concat W^O
    return total


@pytest.mark.parametrize("n, d_model", [(6, 4), (20, 768), (7, 12)])
def test_cost_is_the_same_for_every_number_of_heads(n, d_model):
    totals = {h: multi_head_cost(n, d_model, h)["total"] for h in divisors(d_model)}
    assert all(t == count_multiply_adds(n, d_model, h) for h, t in totals.items())
    assert len(set(totals.values())) == 1


def test_cost_of_the_six_token_example_by_hand():
    # n = 6, d_model = 4: 4 · 6 · 16 = 384 for the four projections, 2 · 36 · 4 = 288 for scores and sums.
    assert multi_head_cost(6, 4, 2)["total"] == 672


# --- HeadShapes -----------------------------------------------------------------------------------

def test_head_shapes_shows_the_lesson_q1_and_follows_typed_sizes():
    w = HeadShapes()
    text = html_text(w.table)
    assert "(8, 12, 20, 64)" in text and "(8, 20, 768)" in text and "768 / 12 = 64" in text
    w.fields["d_model"].value = "1,024"
    w.fields["heads"].value = "16"
    text = html_text(w.table)
    assert "(8, 16, 20, 64)" in text and "(8, 20, 1024)" in text
    assert w.status == "" and all(w.problem(m) == "" for m in w.messages.values())


def test_head_shapes_junk_gets_a_message_next_to_the_field_and_the_table_stays():
    w = HeadShapes()
    before = html_text(w.table)
    w.fields["seq"].value = "twenty"
    assert "sequence n" in w.problem(w.messages["seq"]) and "twenty" in html_text(w.messages["seq"])
    assert html_text(w.table) == before
    w.fields["seq"].value = "0"
    assert "from 1" in w.problem(w.messages["seq"])
    w.fields["seq"].value = "30"
    assert w.problem(w.messages["seq"]) == "" and "(8, 12, 30, 30)" in html_text(w.table)


def test_head_shapes_heads_not_dividing_d_model_is_explained_then_fixed_by_d_model():
    w = HeadShapes()
    w.fields["heads"].value = "5"
    assert "heads = 5 does not divide d_model = 768" in w.status
    assert "does not divide" in html_text(w.status_html)
    assert "(8, 12, 20, 64)" in html_text(w.table)          # the last valid sizes stay
    w.fields["d_model"].value = "640"                        # now 5 divides: the typed heads count is used
    assert w.status == "" and "(8, 5, 20, 128)" in html_text(w.table)


def test_head_shapes_text_form_says_to_run_the_cell():
    assert RUN_TO_SHOW in HeadShapes()._repr_mimebundle_()["text/plain"]


# --- the stages -------------------------------------------------------------------------------

@pytest.mark.parametrize("h", [1, 2, 4])
def test_stages_are_multi_head_attention_computed_once_each(h):
    X, W = example()
    stages = multi_head_stages(X, *W, h=h)
    output, weights = multi_head_attention(X, *W, h)
    np.testing.assert_allclose(stages.output, output)
    np.testing.assert_allclose(stages.weights, weights)
    assert stages.heads.shape == (h, 6, 4 // h) and stages.concat.shape == (6, 4)
    np.testing.assert_allclose(stages.concat @ W[3], stages.output)
    assert stages.cost == multi_head_cost(6, 4, h)


def test_stages_refuse_bad_arguments_and_values_too_large_by_name():
    X, W = example()
    with pytest.raises(ValueError, match=r"W_k has shape \(3, 4\)"):
        check_layer(X, W[0], W[1][:3], W[2], W[3], 2)
    with pytest.raises(ValueError, match=r"h = 3 does not divide d_model = 4"):
        multi_head_stages(X, *W, h=3)
    with pytest.raises(ValueError, match="too large to compute"):
        multi_head_stages(np.full_like(X, 1e300), *W, h=2)


# --- MultiHeadExplorer ------------------------------------------------------------------------

def test_explorer_shows_one_heatmap_per_head_and_follows_h():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    assert ex.heads_picker.options and [v for _, v in ex.heads_picker.options] == [1, 2, 4]
    assert len(by_class(ex, "mh-view-head")) == 2
    ex.h = 4
    heads = ex.views["heads"].children
    assert len(heads) == 4 and all("mh-view-head" in v._dom_classes for v in heads)
    assert [html_text(v).split()[:2] for v in heads] == [["head", str(i)] for i in range(1, 5)]
    ex.heads_picker.value = 1                                # what clicking "h = 1" does
    assert len(ex.views["heads"].children) == 1 and ex.result.weights.shape == (1, 6, 6)


def test_each_heatmap_shows_that_heads_weights_from_its_own_columns():
    X, W = example()
    W_q, W_k, W_v, W_o = W
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    for i in range(2):
        cols = slice(2 * i, 2 * i + 2)
        A = softmax_rows((X @ W_q[:, cols]) @ (X @ W_k[:, cols]).T / math.sqrt(2))
        np.testing.assert_allclose(ex.result.weights[i], A)
        text = html_text(ex.head_views[i])
        assert f"{A[0, 0]:.2f}" in text and "Queries" in text and "Keys" in text
    heads = [softmax_rows((X @ W_q[:, s]) @ (X @ W_k[:, s]).T / math.sqrt(2)) @ (X @ W_v[:, s])
             for s in (slice(0, 2), slice(2, 4))]
    np.testing.assert_allclose(ex.result.output, np.hstack(heads) @ W_o)


def test_weights_are_drawn_on_the_fixed_0_1_scale():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    # The legend under every weights table runs from 0.00 to 1.00, whatever the weights are.
    for v in ex.head_views:
        assert "0.00" in html_text(v) and "1.00" in html_text(v)


def test_explorer_shows_the_cost_and_it_does_not_change_with_h():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=1)
    cost_1 = html_text(ex.views["cost"])
    assert "672" in cost_1
    ex.h = 4
    assert "672" in html_text(ex.views["cost"]) and "4 · 6 · 6 · 1" in html_text(ex.views["cost"])


def test_editing_X_updates_every_view_and_junk_keeps_the_last_valid_state():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    before = [html_text(v) for v in (*ex.head_views, ex.views["output"])]
    ed = ex.editors["X"]
    ed.set_text(1, 0, "abc")
    assert "abc" in ed.message and [html_text(v) for v in (*ex.head_views, ex.views["output"])] == before
    ed.set_text(1, 0, "3")
    X2 = X.copy()
    X2[1, 0] = 3
    np.testing.assert_allclose(ex.result.output, MultiHeadExplorer(TOKENS, X2, *W, h=2).result.output)
    assert html_text(ex.views["output"]) != before[-1]


def test_numbers_too_large_get_a_message_and_the_views_stay():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    before = html_text(ex.views["output"])
    ex.editors["X"].set_text(0, 0, "1e300")  # refused by the cell, with the limit
    assert "the limit is 1e15" in ex.editors["X"].message and ex.status == ""
    ex.editors["X"].value = np.full(X.shape, 1e300)  # in code: the math cannot use it
    assert "too large" in ex.status and "too large" in html_text(ex.status_html)
    assert html_text(ex.views["output"]) == before
    ex.editors["X"].value = X
    assert ex.status == ""


def test_h_that_does_not_divide_d_model_is_refused():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    with pytest.raises(ValueError, match=r"h = 3 does not divide d_model = 4"):
        ex.h = 3
    assert ex.h == 2
    with pytest.raises(ValueError, match="d_model = 4"):
        MultiHeadExplorer(TOKENS, X, *W, h=3)


def test_explorer_parts_carry_their_css_classes_and_a_text_form():
    X, W = example()
    ex = MultiHeadExplorer(TOKENS, X, *W, h=2)
    for cls in ("mh-heads", "mh-editor-X", "mh-view-heads", "mh-view-head", "mh-view-concat", "mh-view-output",
                "mh-view-cost"):
        assert by_class(ex, cls), cls
    assert "mh-explorer" in ex._dom_classes
    assert RUN_TO_SHOW in ex._repr_mimebundle_()["text/plain"]
    assert "h=2" in ex._repr_mimebundle_()["text/plain"]
