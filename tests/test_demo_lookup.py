"""The soft look-up demo of notebook 01, driven the way a learner drives it."""

import math

import numpy as np
import pytest

from helpers.core.lookup import KEYS, TITLES, VALUES, lookup
from helpers.demos.lookup import LookupDemo
from helpers.look import theme


def softmax_by_hand(scores, t=1.0):
    e = [math.exp(s / t) for s in scores]
    return np.array([x / sum(e) for x in e])


def test_lookup_matches_hand_computation():
    # query "feed my cat": animals 1, food 1, sport 0
    scores, weights, retrieved = lookup([1, 1, 0], KEYS, VALUES)
    # Cat care [2, .5, 0] -> 2.5, Dog training [1.5, 0, 1] -> 1.5, Pasta [0, 2, 0] -> 2, Football -> 0
    np.testing.assert_allclose(scores, [2.5, 1.5, 2.0, 0.0])
    expected_w = softmax_by_hand([2.5, 1.5, 2.0, 0.0])
    np.testing.assert_allclose(weights, expected_w)
    np.testing.assert_allclose(retrieved, sum(w * v for w, v in zip(expected_w, VALUES)))
    assert weights.sum() == pytest.approx(1.0)


def test_hard_lookup_puts_all_weight_on_the_best_document():
    scores, weights, retrieved = lookup([0, 0.5, 2], KEYS, VALUES, hard=True)
    assert weights.tolist() == [0.0, 0.0, 0.0, 1.0]
    np.testing.assert_allclose(retrieved, VALUES[3])


def test_hard_lookup_tie_goes_to_the_first_document():
    keys = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    _, weights, _ = lookup([1, 0], keys, np.eye(3), hard=True)
    assert weights.tolist() == [1.0, 0.0, 0.0]


def test_temperature_sharpens_and_flattens():
    _, cold, _ = lookup([1, 1, 0], KEYS, VALUES, temperature=0.1)
    _, hot, _ = lookup([1, 1, 0], KEYS, VALUES, temperature=100.0)
    assert cold[0] > 0.99  # close to the hard answer (Cat care)
    np.testing.assert_allclose(hot, 0.25, atol=0.01)  # close to uniform over 4 documents


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"query": [1, 1]}, "query"),
        ({"query": [[1, 1, 0]]}, "query"),
        ({"values": VALUES[:3]}, "values"),
        ({"temperature": 0}, "temperature"),
        ({"temperature": -1}, "temperature"),
        ({"temperature": float("nan")}, "temperature"),
    ],
)
def test_lookup_rejects_bad_arguments_naming_them(kwargs, word):
    args = {"query": [1, 1, 0], "keys": KEYS, "values": VALUES, **kwargs}
    with pytest.raises(ValueError, match=word):
        lookup(**args)


def test_demo_changing_the_query_updates_weights_and_views():
    demo = LookupDemo()
    # the learner drags "animals" to 1 and "food" to 1
    demo.query_boxes[0].value = 1.0
    demo.query_boxes[1].value = 1.0
    np.testing.assert_allclose(demo.query, [1, 1, 0])
    np.testing.assert_allclose(demo.scores, KEYS @ np.array([1, 1, 0]))
    np.testing.assert_allclose(demo.weights, softmax_by_hand(KEYS @ np.array([1, 1, 0])))
    np.testing.assert_allclose(demo.retrieved, demo.weights @ VALUES)
    # the table shows every document, its score and its weight
    for title in TITLES:
        assert title in demo.table.value
    assert ">2.5<" in demo.table.value  # Cat care's score
    assert "0.486" in demo.table.value  # Cat care's weight
    assert "1.46" in demo.summary.value  # retrieved "cat" content: 0.486 * 3


def test_demo_hard_mode_and_temperature():
    demo = LookupDemo(query=[0, 2, 0])
    assert demo.weights.argmax() == 2  # Pasta recipes
    assert 0 < demo.weights[2] < 1
    demo.mode.value = "hard"
    assert demo.hard
    assert demo.weights.tolist() == [0.0, 0.0, 1.0, 0.0]
    np.testing.assert_allclose(demo.retrieved, VALUES[2])
    assert "argmax" in demo.table.value
    assert demo.temperature_box.disabled  # temperature has no effect in hard mode
    demo.hard = False
    demo.temperature_box.value = 3.0
    np.testing.assert_allclose(demo.weights, softmax_by_hand(KEYS @ np.array([0, 2, 0]), 3.0))
    assert "softmax(score / 3)" in demo.table.value


def test_demo_query_setter_and_bad_values_keep_the_last_state():
    demo = LookupDemo()
    demo.query = [0.5, -1, 1.5]
    np.testing.assert_allclose([s.value for s in demo.query_boxes], [0.5, -1, 1.5])
    np.testing.assert_allclose(demo.scores, KEYS @ np.array([0.5, -1, 1.5]))
    before = demo.weights.copy()
    with pytest.raises(ValueError, match="query"):
        demo.query = [1, 2]
    with pytest.raises(ValueError, match=r"\[−2, 2\]"):
        demo.query = [0, 0, 5]
    with pytest.raises(ValueError, match="temperature"):
        demo.temperature = 0
    np.testing.assert_allclose(demo.weights, before)
    np.testing.assert_allclose(demo.query, [0.5, -1, 1.5])


def test_demo_with_custom_documents():
    demo = LookupDemo(
        titles=["a", "b"], keys=[[1, 0], [0, 1]], values=[[10.0], [20.0]],
        key_features=["x", "y"], value_features=["n"], query=[2, 0],
    )
    w = softmax_by_hand([2.0, 0.0])
    np.testing.assert_allclose(demo.weights, w)
    np.testing.assert_allclose(demo.retrieved, [10 * w[0] + 20 * w[1]])
    assert demo.retrieved_text() == f"n {round(10 * w[0] + 20 * w[1], 2)}"
    assert repr(demo) == "LookupDemo(documents=2, d_k=2, d_v=1)"


def test_demo_rejects_mismatched_documents():
    with pytest.raises(ValueError, match="keys"):
        LookupDemo(keys=[[1, 0], [0, 1]], values=[[1.0]])
    with pytest.raises(ValueError, match="titles"):
        LookupDemo(titles=["only one"])


def test_demo_large_mode_uses_the_themes_projector_sizes():
    small, large = LookupDemo(), LookupDemo(large=True)
    normal_font, large_font = f"font-size:{theme.sizes(False).font}", f"font-size:{theme.sizes(True).font}"
    assert normal_font in small.table.value and large_font not in small.table.value
    assert large_font in large.table.value
    np.testing.assert_allclose(large.weights, small.weights)


def test_setting_the_whole_query_redraws_once():
    demo = LookupDemo()
    redraws = []
    demo.table.observe(lambda change: redraws.append(change["new"]), names="value")
    demo.query = [1, 1, 0]  # three fields change; the learner sees one new table, not three
    assert len(redraws) == 1
    np.testing.assert_allclose(demo.scores, KEYS @ np.array([1, 1, 0]))
    assert demo.status == "" and demo.last_unexpected is None


def test_table_shows_each_score_as_a_dot_product_on_hover():
    demo = LookupDemo(query=[1, -1, 0])
    # Cat care's key is [2, 0.5, 0]: 1·2 + (-1)·0.5 + 0·0
    assert 'title="1·2 + (−1)·0.5 + 0·0"' in demo.table.value
