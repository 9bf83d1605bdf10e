"""Notebook 06's toy translation: cross-attention shapes, readable alignments, reversed roles."""

import html
import math

import numpy as np
import pytest

from helpers.core.translation import (
    ASKS_FOR,
    DECODER_INPUT,
    INPUT_DIMS,
    MEANINGS,
    REFERENCE_ALIGNMENT,
    SOURCE,
    TARGET,
    TRANSLATES,
    alignment,
    cross_attention,
    input_dim,
    toy_translation,
)
from helpers.demos.translation import DecodingStepsDemo, translation_explorer


def test_embeddings_alone_align_nothing():
    toy = toy_translation()
    # English and French words live in different coordinates: every dot product is 0
    assert (toy.X_dec @ toy.X_enc.T == 0).all()
    assert toy.X_dec.shape == (6, 10) and toy.X_enc.shape == (4, 10)


def test_the_decoder_reads_the_target_shifted_right():
    toy = toy_translation()
    assert toy.decoder_input == DECODER_INPUT == ["<s>", "le", "chat", "noir", "s'", "est"]
    assert toy.target == TARGET and toy.decoder_input[1:] == toy.target[:-1]
    # Each position asks for what the word it writes next needs, not for what its own word is.
    assert ASKS_FOR["<s>"] == "article" and ASKS_FOR["le"] == "animal" and ASKS_FOR["chat"] == "colour"
    row = toy.W_q[input_dim("le", "fr")]
    assert row[MEANINGS.index("animal")] > 0 and row[MEANINGS.index("article")] == 0


def test_weights_are_target_by_source_and_rows_sum_to_one():
    toy = toy_translation()
    out, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    assert w.shape == (len(DECODER_INPUT), len(SOURCE)) == (6, 4)
    assert out.shape == (6, 6)  # one row per decoder position, d_v = 6
    np.testing.assert_allclose(w.sum(axis=1), 1.0)


def test_alignment_matches_the_translation_including_the_crossing():
    toy = toy_translation()
    _, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    pairs = {q: k for q, k, _ in alignment(w, DECODER_INPUT, SOURCE)}
    assert pairs == REFERENCE_ALIGNMENT
    assert pairs["<s>"] == "the" and pairs["le"] == "cat" and pairs["chat"] == "black"  # word order swaps
    # The position that reads "le" writes "chat", and reads the English word "chat" translates.
    assert all(pairs[q] == TRANSLATES[written] for q, written in zip(DECODER_INPUT, TARGET))


def test_each_output_row_is_mostly_the_word_its_position_writes():
    toy = toy_translation()
    out, _ = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    for i, written in enumerate(TARGET[:3]):  # "le", "chat", "noir": each English word suggests one
        assert toy.value_columns[int(np.argmax(out[i]))] == written


def test_matching_weight_computed_by_hand():
    toy = toy_translation()
    _, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    # a match scores 2·3 = 6, scaled 6/√4 = 3; the other three keys score 0
    match = math.exp(3) / (math.exp(3) + 3)
    assert w[DECODER_INPUT.index("chat"), SOURCE.index("black")] == pytest.approx(match)
    assert w[DECODER_INPUT.index("chat"), SOURCE.index("cat")] == pytest.approx(1 / (math.exp(3) + 3))


def test_columns_need_not_sum_to_one():
    toy = toy_translation()
    _, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    col = w.sum(axis=0)
    assert col[SOURCE.index("sat")] > 2.5  # three decoder positions read "sat"


def test_editing_one_row_of_w_q_moves_one_alignment():
    toy = toy_translation()
    r = input_dim("chat", "fr")
    toy.W_q[r] = 0.0
    toy.W_q[r, MEANINGS.index("animal")] = 2.0
    _, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    pairs = {q: k for q, k, _ in alignment(w, DECODER_INPUT, SOURCE)}
    assert pairs["chat"] == "cat"
    assert {q: k for q, k in pairs.items() if q != "chat"} == {
        q: k for q, k in REFERENCE_ALIGNMENT.items() if q != "chat"
    }


def test_editing_w_k_changes_what_a_key_offers():
    toy = toy_translation()
    r = input_dim("the", "en")
    toy.W_k[r] = 0.0  # "the" offers nothing: its score is 0 for every query
    _, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    np.testing.assert_allclose(w[DECODER_INPUT.index("<s>")], 0.25)


def test_toy_is_a_fresh_copy_each_time():
    a = toy_translation()
    a.W_q[:] = 0
    assert toy_translation().W_q.any()


@pytest.mark.parametrize(
    "kwargs, word",
    [({"X_dec": np.zeros((6, 9))}, "X_dec"), ({"W_q": np.zeros((9, 4))}, "W_q"), ({"X_enc": np.zeros(10)}, "X_enc")],
)
def test_cross_attention_names_the_bad_argument(kwargs, word):
    toy = toy_translation()
    args = {**dict(X_dec=toy.X_dec, X_enc=toy.X_enc, W_q=toy.W_q, W_k=toy.W_k, W_v=toy.W_v), **kwargs}
    with pytest.raises(ValueError, match=word):
        cross_attention(**args)


def test_input_dim_rejects_unknown_words():
    assert INPUT_DIMS[input_dim("black", "en")] == "en:black"
    with pytest.raises(ValueError, match="fr:black"):
        input_dim("black", "fr")


def test_alignment_checks_the_labels():
    with pytest.raises(ValueError, match="query tokens"):
        alignment(np.ones((2, 3)) / 3, ["a"], ["x", "y", "z"])


def test_decoding_steps_earlier_rows_never_change():
    demo = DecodingStepsDemo(step=2)
    first = demo.cross_weights.copy()
    demo.step = 6
    np.testing.assert_allclose(demo.cross_weights[:2], first)
    assert demo.cross_weights.shape == (6, 4)


def test_reversed_roles_give_one_row_per_source_token_and_rows_change():
    demo = DecodingStepsDemo(step=3)
    assert demo.reversed_weights.shape == (4, 3)
    assert demo.reversed_output.shape[0] == len(SOURCE)
    black = SOURCE.index("black")
    np.testing.assert_allclose(demo.reversed_weights[black], 1 / 3)  # no input so far offers a colour
    black_at_3 = demo.reversed_output[black].copy()
    demo.step = 4  # "noir" arrives in the decoder's input: the encoder's row for "black" is different now
    assert demo.reversed_weights.shape == (4, 4)
    assert demo.reversed_weights[black, DECODER_INPUT.index("noir")] > 0.8
    assert not np.allclose(demo.reversed_output[black], black_at_3)
    assert "one per English token" in demo.views["reversed"].value


def test_decoding_steps_rejects_bad_steps():
    demo = DecodingStepsDemo()
    with pytest.raises(ValueError, match="step"):
        demo.step = 7
    with pytest.raises(ValueError, match="step"):
        DecodingStepsDemo(step=0)


def test_translation_explorer_labels_rows_and_matches_the_math():
    ex = translation_explorer()
    assert ex.editors["W_q"].row_labels == INPUT_DIMS
    assert ex.editors["W_q"].col_labels == MEANINGS
    toy = toy_translation()
    _, w = cross_attention(toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
    np.testing.assert_allclose(ex.result.weights, w)


def test_translation_explorer_edit_moves_the_alignment():
    ex = translation_explorer()
    r = input_dim("chat", "fr")
    ex.editors["W_q"].set_text(r, MEANINGS.index("colour"), "0")
    ex.editors["W_q"].set_text(r, MEANINGS.index("animal"), "2")
    pairs = {q: k for q, k, _ in alignment(ex.result.weights, DECODER_INPUT, SOURCE)}
    assert pairs["chat"] == "cat"


def test_decoding_steps_keep_the_last_step_when_the_toy_cannot_be_computed():
    demo = DecodingStepsDemo(step=2)
    before = (demo.cross_weights.copy(), demo.views["cross"].value, demo.views["reversed"].value)
    saved = demo.toy.W_q.copy(), demo.toy.W_k.copy()
    demo.toy.W_q[:] = 1e200  # scores of 1e400: not a float any more
    demo.toy.W_k[:] = 1e200
    with np.errstate(over="ignore", invalid="ignore"):
        demo.step = 3
    assert demo.status and demo.last_unexpected is None
    assert html.escape(demo.status) in demo.status_html.value
    np.testing.assert_array_equal(demo.cross_weights, before[0])
    assert (demo.views["cross"].value, demo.views["reversed"].value) == before[1:]
    demo.toy.W_q[:], demo.toy.W_k[:] = saved
    demo.step = 4
    assert demo.status == "" and demo.status_html.value == ""
    assert demo.cross_weights.shape == (4, 4)


@pytest.fixture
def own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


def test_translation_explorer_with_a_goal_starts_from_the_task_and_judges_every_repair(own_progress):
    from helpers.exercises.design import design_task

    task = design_task("06-repair-alignment")
    ex = translation_explorer(goal=task.name)
    for name, value in {**task.start, **task.given}.items():
        np.testing.assert_array_equal(ex.editors[name].value, value)
    assert ex.editors["W_q"].row_labels == INPUT_DIMS and not ex.goal_met
    assert ex.editors["X_dec"].row_labels == DECODER_INPUT
    assert "'chat' gives 'black' 0.48 and 'cat' 0.48" in ex.goal_feedback.message
    cat, colour = input_dim("cat", "en"), MEANINGS.index("colour")
    ex.editors["W_k"].set_text(cat, colour, "0")  # the extra 3 taken out again
    assert ex.goal_met
    ex.editors["W_k"].set_text(cat, colour, "3")
    assert not ex.goal_met
    # Or "chat" (it writes "noir") asks for a colour and against an animal: a repair in W^Q counts too.
    ex.editors["W_q"].set_text(input_dim("chat", "fr"), MEANINGS.index("animal"), "-1")
    assert ex.goal_met
    # Moving the 3 of 'cat' to the colour column makes 'chat' read 'cat' and leaves 'le' (it asks for an animal)
    # with nothing.
    ex.editors["W_q"].set_text(input_dim("chat", "fr"), MEANINGS.index("animal"), "0")
    ex.editors["W_k"].set_text(cat, MEANINGS.index("animal"), "0")
    assert not ex.goal_met and "'le'" in ex.goal_feedback.message


def test_le_reads_cat_only_once_its_query_asks_for_what_the_next_word_needs(own_progress):
    from helpers.exercises import check_design
    from helpers.exercises.design import design_task

    task = design_task("06-le-reads-cat")
    start = task.start["W_q"]
    le, asks = input_dim("le", "fr"), start[input_dim("le", "fr")]
    # The start: 'le' asks for what it is, an article, as '<s>' does; both rows read 'the'.
    assert asks[MEANINGS.index("article")] > 0
    feedback = check_design(task.name)
    assert not feedback.correct and "'le' gives 'cat' 0.04 and 'the' 0.87" in feedback.message
    # No edit of W^K can part two equal queries: their rows of weights are equal whatever the keys offer.
    toy = toy_translation()
    Q = toy.X_dec @ start
    assert np.array_equal(Q[DECODER_INPUT.index("le")], Q[DECODER_INPUT.index("<s>")])
    fixed = start.copy()
    fixed[le] = [0, 0, 2, 0]  # article, colour, animal, action
    assert check_design(task.name, W_q=fixed).correct
    fixed[le] = [-2, 0, 2, 0]  # and against an article: counts too
    assert check_design(task.name, W_q=fixed).correct
    fixed[input_dim("<s>", "fr")] = [0, 0, 2, 0]  # '<s>' asking for an animal breaks the first word
    feedback = check_design(task.name, W_q=fixed)
    assert not feedback.correct and "'<s>'" in feedback.message
    with pytest.raises(ValueError, match="no design task"):
        translation_explorer(goal="06-nope")
