"""The pattern builder of notebook 07: each pattern really comes out of softmax(QKᵀ/√d_k)."""

import html

import numpy as np
import pytest

from helpers.core.patterns import (
    PATTERNS,
    PHRASES,
    TOKENS,
    bank_embeddings,
    feature_names,
    pattern_attention,
    pattern_weights,
    token_features,
)
from helpers.demos.patterns import PatternBuilder

from conftest import as_shown, html_text

N = len(TOKENS)


def weights_by_hand(X, W_q, W_k):
    S = (X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def test_token_features_layout():
    X = token_features(TOKENS, PHRASES)
    names = feature_names(N)
    assert X.shape == (N, N + 4) and len(names) == N + 4
    np.testing.assert_array_equal(X[:, :N], np.eye(N))
    assert X[:, names.index("sink")].tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert X[:, names.index("noun")].tolist() == [0, 0, 1, 0, 0, 0, 1]
    assert X[:, names.index("phrase B")].tolist() == [0, 0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_attention_is_softmax_of_scaled_scores(pattern):
    W_q, W_k = pattern_weights(pattern, N, 2.5)
    r = pattern_attention(TOKENS, PHRASES, pattern=pattern, strength=2.5)
    np.testing.assert_allclose(r.weights, weights_by_hand(token_features(), W_q, W_k))
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0)


def test_diagonal_and_previous_peaks():
    diag = pattern_attention(pattern="diagonal", strength=3).weights
    assert diag.argmax(axis=1).tolist() == list(range(N))
    prev = pattern_attention(pattern="previous", strength=3).weights
    assert prev[1:].argmax(axis=1).tolist() == list(range(N - 1))
    # Query 0 has no previous token: every score is 0, so the row is uniform.
    np.testing.assert_allclose(prev[0], 1 / N)


def test_vertical_block_and_long_range():
    vert = pattern_attention(pattern="vertical", strength=3).weights
    assert (vert[:, 0] > 0.99).all()
    block = pattern_attention(pattern="block", strength=3).weights
    same_phrase = np.equal.outer(PHRASES, PHRASES)
    assert (block[same_phrase] > 0.2).all() and (block[~same_phrase] < 0.01).all()
    long = pattern_attention(pattern="long_range", strength=3).weights
    cat, mat = TOKENS.index("cat"), TOKENS.index("mat")
    assert long[cat, mat] == pytest.approx(long[cat, cat]) and long[cat, mat] > 0.49
    np.testing.assert_allclose(long[TOKENS.index("sat")], 1 / N)


def test_strength_zero_is_uniform():
    for pattern in PATTERNS:
        np.testing.assert_allclose(pattern_attention(pattern=pattern, strength=0).weights, 1 / N)


def test_position_head_ignores_word_order_and_content_head_follows_words():
    order = [0, 6, 1, 4, 2, 3, 5]
    toks = [TOKENS[i] for i in order]
    phr = [PHRASES[i] for i in order]
    np.testing.assert_allclose(
        pattern_attention(toks, phr, pattern="previous").weights, pattern_attention(pattern="previous").weights
    )
    after = pattern_attention(toks, phr, pattern="long_range").weights
    assert after[toks.index("cat"), toks.index("mat")] > 0.49
    assert not np.allclose(after, pattern_attention(pattern="long_range").weights)


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="pattern"):
        pattern_weights("spiral", N)
    with pytest.raises(ValueError, match="phrases"):
        token_features(["a", "b"], [0])
    with pytest.raises(ValueError, match="strength"):
        pattern_weights("diagonal", N, float("nan"))
    with pytest.raises(ValueError, match="both W_q and W_k"):
        pattern_attention(W_q=np.ones((N + 4, 2)))


def test_bank_output_depends_on_context():
    B = bank_embeddings()
    outs = []
    for sent, partner in (("i went to the bank to deposit money", "deposit"), ("i sat on the river bank", "river")):
        words = sent.split()
        X = np.array([B["vocab"][w] for w in words])
        A = weights_by_hand(X, B["W_q"], B["W_k"])
        i = words.index("bank")
        assert words[int(A[i].argmax())] in (partner, "money")
        outs.append(A[i] @ (X @ B["W_v"]))
    assert outs[0][0] > 0.9 and outs[1][1] > 0.9  # finance vs nature
    assert float(outs[0] @ outs[1]) < 0.1


def test_builder_follows_pattern_strength_and_edits():
    b = PatternBuilder(pattern="diagonal", strength=3.0)
    assert b.editors["W_q"].value.shape == (N + 4, N)
    np.testing.assert_allclose(b.result.weights, pattern_attention(pattern="diagonal", strength=3.0).weights)
    b.pattern = "vertical"
    assert b.editors["W_q"].value.shape == (N + 4, 1)
    assert (b.result.weights[:, 0] > 0.99).all()
    assert "every token attends to [CLS]" in b.explain.value
    # Remove the sink from [CLS]'s key: nothing matches any more, every row is uniform.
    assert "edited" not in b.explain.value
    b.editors["W_k"].set_text(N, 0, "0")
    np.testing.assert_allclose(b.result.weights, 1 / N)
    assert "(weights edited)" in b.explain.value
    assert "0.14" in b.views["weights"].value
    # A bad cell: message, last valid weights kept.
    b.editors["W_k"].set_text(N, 0, "three")
    assert b.editors["W_k"].message
    np.testing.assert_allclose(b.result.weights, 1 / N)
    b.strength = 1.0
    W_q, W_k = pattern_weights("vertical", N, 1.0)
    np.testing.assert_allclose(b.result.weights, weights_by_hand(token_features(), W_q, W_k))
    assert b.editors["W_k"].message == ""
    assert "edited" not in b.explain.value
    with pytest.raises(ValueError, match="pattern"):
        b.pattern = "spiral"
    with pytest.raises(ValueError, match="strength"):
        b.strength = 60


def every_cell(editor):
    n, m = editor.value.shape
    return [(i, j) for i in range(n) for j in range(m)]


def test_a_cell_refuses_1e300_and_names_the_limit():
    b = PatternBuilder(pattern="diagonal", strength=3.0)
    before = b.result.weights.copy()
    b.editors["W_k"].set_text(0, 0, "1e300")
    assert "the limit is 1e15" in b.editors["W_k"].message
    np.testing.assert_array_equal(b.result.weights, before)


def test_builder_with_every_weight_at_1e300_says_so_and_recovers():
    b = PatternBuilder(pattern="diagonal", strength=3.0)
    typed = {name: {c: ed.cell_text(*c) for c in every_cell(ed)} for name, ed in b.editors.items()}
    for ed in b.editors.values():
        ed.value = np.full(ed.value.shape, 1e300)  # in code: a cell would refuse it (the limit is 1e15)
    assert b.last_unexpected is None
    # Q·K would be about 1e600: the builder says so instead of freezing
    assert "too large" in b.status and "W^Q and W^K" in b.status
    assert html.escape(b.status) in b.status_html.value
    shown = (b.result.weights.copy(), b.views["weights"].value, b.views["Q"].value)
    assert np.isfinite(shown[0]).all()  # the last valid result
    b.editors["W_k"].value = np.full(b.editors["W_k"].value.shape, 2e300)  # still too large: nothing moves
    assert (b.result.weights.tolist(), b.views["weights"].value, b.views["Q"].value) == (
        shown[0].tolist(), shown[1], shown[2])
    assert b.status
    for name, ed in b.editors.items():
        for c, text in typed[name].items():
            ed.set_text(*c, text)
    assert b.status == "" and b.status_html.value == ""
    np.testing.assert_allclose(b.result.weights, pattern_attention(pattern="diagonal", strength=3.0).weights)


def test_builder_status_clears_when_a_pattern_is_loaded_over_huge_weights():
    b = PatternBuilder(pattern="long_range")
    for ed in b.editors.values():
        ed.value = np.full(ed.value.shape, 1e300)
    assert b.status
    b.pattern = "block"  # the menu reloads sane weights
    assert b.status == ""
    np.testing.assert_allclose(b.result.weights, pattern_attention(pattern="block", strength=3.0).weights)


# --------------------------------------------------------------------------- naming a pattern; the bank sentences


def test_pattern_of_names_each_pattern_by_its_peaks_at_any_strength():
    from helpers.core.patterns import pattern_of

    for name in PATTERNS:
        for strength in (0.5, 3.0, 6.0):
            assert pattern_of(pattern_attention(pattern=name, strength=strength).weights) == name
    # Block from one signed direction: other weights, the same peaks.
    W = np.zeros((N + 4, 1))
    W[N + 1, 0], W[N + 2, 0] = 3.0, -3.0
    assert pattern_of(weights_by_hand(token_features(), W, W)) == "block"
    assert pattern_of(np.full((N, N), 1 / N)) is None  # uniform: no pattern
    with pytest.raises(ValueError, match="shape"):
        pattern_of(np.eye(3))


def test_bank_attention_is_the_notebooks_computation():
    from helpers.core.patterns import BANK_SENTENCES, bank_attention

    B = bank_embeddings()
    for sentence in BANK_SENTENCES:
        words = sentence.split()
        X = np.array([B["vocab"][w] for w in words])
        weights, output = bank_attention(sentence)
        np.testing.assert_allclose(weights, weights_by_hand(X, B["W_q"], B["W_k"]))
        np.testing.assert_allclose(output, weights @ (X @ B["W_v"]))
    with pytest.raises(ValueError, match="'bench'"):
        bank_attention("the river bench")


# --------------------------------------------------------------------------- the builder with a design task's goal


def goal_line(b) -> str:
    return html_text(b.goal_html)


@pytest.mark.parametrize("goal", ["07-phrase-blocks", "07-previous-token"])
def test_builder_with_a_goal_starts_from_the_task_and_judges_every_edit(goal, tmp_path, monkeypatch):
    from helpers.exercises import design_tasks, progress

    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))
    task = design_tasks()[goal]
    b = PatternBuilder(goal=goal)
    assert b.pattern == "start" and b.strength_box.disabled and "attn-goal" in b.goal_html._dom_classes
    for key in ("W_q", "W_k"):
        np.testing.assert_array_equal(b.editors[key].value, task.start[key])
    assert "Goal:" in goal_line(b) and "✗ Not yet:" in goal_line(b) and not b.goal_met
    # The menu leaves out the patterns that already meet the goal at some strength.
    offered = [key for _label, key in b.pattern_picker.options]
    assert offered[0] == "start" and ("block" if goal == "07-phrase-blocks" else "previous") not in offered
    with pytest.raises(ValueError, match="pattern must be one of"):
        PatternBuilder(goal=goal, pattern="block" if goal == "07-phrase-blocks" else "previous")
    with b.hold_trait_notifications():
        for key in ("W_q", "W_k"):
            b.editors[key].value = task.solution[key]
    assert b.goal_met and "✓ Goal met:" in goal_line(b) and goal in progress().designs
    b.editors["W_q"].set_text(0, 0, "abc")  # junk: the last valid weights stay, so does the verdict
    assert b.goal_met
    b.pattern = "diagonal"  # loaded to compare; a width other than the task's is said plainly
    assert not b.goal_met
    if task.start["W_q"].shape[1] != N:
        assert as_shown(f"Not yet: this pattern has d_k = {N}") in goal_line(b)
    b.pattern = "start"
    assert not b.goal_met and b.strength_box.disabled
    np.testing.assert_array_equal(b.editors["W_k"].value, task.start["W_k"])


def test_builder_without_a_goal_has_no_goal_line_and_refuses_a_task_it_cannot_show():
    b = PatternBuilder()
    assert b.pattern == "diagonal" and b.goal is None and not b.goal_met
    assert b.goal_html.layout.display == "none" and not b.strength_box.disabled
    with pytest.raises(ValueError, match="no design task"):
        PatternBuilder(goal="nope")
    with pytest.raises(ValueError, match="the pattern builder changes W_q and W_k"):
        PatternBuilder(goal="01-sat-attends-cat")
    with pytest.raises(ValueError, match="set on other tokens"):
        PatternBuilder(goal="07-phrase-blocks", tokens=["a", "b"], phrases=[0, 1])


def test_the_goals_of_05_say_how_things_stand():
    from helpers.exercises.design.goals import attends_previous, attends_within_groups

    labels = ["a", "b", "a"]
    w = np.array([[1.0, 0.0, 0.0], [0.7, 0.2, 0.1], [0.1, 0.6, 0.3]])
    assert attends_previous(w, labels, 0.5) == (True, "every token after the first gives the token before it the "
                                                      "most attention; the least is 'a' (position 2), 0.60 on 'b' "
                                                      "(next: itself, 0.30).")
    met, detail = attends_previous(w, labels, 0.65)
    assert not met and detail.startswith("1 of 2 tokens after the first do; 'a' (position 2) gives 'b' (the token "
                                         "before it) 0.60 of its attention, and itself 0.30;")
    with pytest.raises(ValueError, match="at least two tokens"):
        attends_previous(np.ones((1, 1)), ["a"])
    blocks = np.array([[0.5, 0.45, 0.05], [0.45, 0.5, 0.05], [0.0, 0.0, 1.0]])
    met, detail = attends_within_groups(blocks, labels, [0, 0, 1], 0.2, 0.1, word="phrase")
    assert met and detail.startswith("every token attends within its phrase;")
    met, detail = attends_within_groups(blocks, labels, [0, 0, 1], 0.2, 0.05, word="phrase")
    assert not met and detail == ("'a' (position 0) gives 'b' 0.45 (the least within its phrase) and the other phrase "
                                  "0.05 in all; the goal is at least 0.2 on each token of its own phrase and under "
                                  "0.05 on the other phrase in all, for every token.")


def test_the_strength_field_says_its_range_before_anything_is_typed():
    # The browser keeps a bounded field within its range (1e5 becomes 6): the label says so beforehand.
    b = PatternBuilder(pattern="diagonal")
    box = b.strength_box
    assert box.description == f"strength ({box.min:g} to {box.max:g})" == "strength (0 to 6)"
