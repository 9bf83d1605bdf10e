"""Notebook 03's demos: padded batches with their masks, and the decoder that cheats without a mask."""

import html
import math

import numpy as np
import pytest

from helpers.demos.masking import CheatingDemo, PaddingDemo
from helpers.masking import (
    BOS,
    PAD,
    SENTENCE_POOL,
    VOCAB,
    batch_mask,
    best_possible_accuracy,
    corpus_sentences,
    fit_readout,
    head_features,
    look_head,
    pad_batch,
    parse_lengths,
    parse_sentence,
    train,
)

# ---------------------------------------------------------------------------------
# padding
# ---------------------------------------------------------------------------------


def test_pad_batch_pads_to_the_longest_sentence():
    tokens, lengths = pad_batch([["a", "b"], ["c"], ["d", "e", "f"]])
    assert tokens == [["a", "b", PAD], ["c", PAD, PAD], ["d", "e", "f"]]
    assert lengths == [2, 1, 3]


@pytest.mark.parametrize("bad", [[], [["a"], []]])
def test_pad_batch_rejects_empty_input(bad):
    with pytest.raises(ValueError, match="sentence"):
        pad_batch(bad)


def test_batch_mask_blocks_padded_keys_only():
    m = batch_mask([2, 3], 3, causal=False)
    assert m.shape == (2, 3, 3)
    # sentence 0 has one pad token at position 2: column 2 blocked for every query, nothing else
    assert m[0].tolist() == [[True, True, False]] * 3
    assert m[1].all()


def test_batch_mask_with_causal_is_the_logical_and_written_out():
    m = batch_mask([2, 3], 3, causal=True)
    assert m[0].tolist() == [[True, False, False], [True, True, False], [True, True, False]]
    assert m[1].tolist() == [[True, False, False], [True, True, False], [True, True, True]]


@pytest.mark.parametrize(
    "text, expected",
    [("3, 5, 2", [3, 5, 2]), ("4 1", [4, 1]), (" 8 ", [8])],
)
def test_parse_lengths_accepts_commas_and_spaces(text, expected):
    assert parse_lengths(text) == expected


@pytest.mark.parametrize(
    "text, words",
    [("", ["lengths: ", "empty"]), ("3, x", ["length 2", "'x'", "not a number"]),
     ("3, 0", ["between 1 and 8", "3, 0"]), ("9", ["between 1 and 8"]),
     ("1 1 1 1 1", ["at most 4 sentences", "got 5"]), ("2.5", ["'2.5'", "not a whole number"]),
     ("3,5", ["'3,5'", "decimals with a point"])],
)
def test_parse_lengths_says_what_is_wrong(text, words):
    with pytest.raises(ValueError) as err:
        parse_lengths(text)
    for w in words:
        assert w in str(err.value)


def test_parse_lengths_reads_the_same_forms_as_every_other_field():
    assert parse_lengths("3, 5; 2") == [3, 5, 2]
    assert parse_lengths("[3,5]") == [3, 5]  # Python's list syntax: every comma separates


def test_padding_demo_weights_ignore_padding_and_rows_sum_to_one():
    demo = PaddingDemo(lengths=(3, 5, 2))
    assert demo.tokens[2] == SENTENCE_POOL[2][:2] + [PAD] * 3
    assert demo.weights.shape == (3, 5, 5)
    np.testing.assert_allclose(demo.weights.sum(axis=-1), 1.0)
    for b, L in enumerate(demo.lengths):
        assert (demo.weights[b][:, L:] == 0.0).all()  # exactly zero, not just small
        assert (demo.weights[b][:, :L] > 0).all()


def test_padding_demo_causal_switch_adds_the_causal_mask():
    demo = PaddingDemo(lengths=(4, 2))
    demo.causal = True
    upper = np.triu(np.ones((4, 4), dtype=bool), k=1)
    assert (demo.weights[:, upper] == 0).all()
    assert not demo.mask[1][:, 2:].any()
    assert "padding + causal" in demo.views["mask"].value
    demo.causal = False
    assert demo.weights[0][0, 3] > 0  # the future is visible again


def test_padding_demo_typing_lengths_rebuilds_the_batch():
    demo = PaddingDemo()
    demo.set_lengths_text("2, 4")
    assert demo.lengths == [2, 4]
    assert demo.tokens[0] == SENTENCE_POOL[0][:2] + [PAD, PAD]
    assert len(demo.picker.options) == 2
    assert demo.message == ""


def test_padding_demo_bad_lengths_keep_the_last_valid_batch():
    demo = PaddingDemo(lengths=(3, 5, 2))
    before = demo.weights.copy()
    demo.set_lengths_text("3, 0, 2")
    assert "between 1" in demo.message
    assert "between 1" in demo.message_html.value  # shown next to the field
    assert demo.lengths == [3, 5, 2]
    np.testing.assert_array_equal(demo.weights, before)
    demo.set_lengths_text("3, 5, 2")  # fixing the typo clears the message
    assert demo.message == ""


def test_padding_demo_picker_chooses_the_sequence_shown():
    demo = PaddingDemo(lengths=(3, 5))
    demo.selected = 1
    assert "sentence 1" in demo.views["weights"].value
    with pytest.raises(ValueError, match="selected"):
        demo.selected = 2
    demo.set_lengths_text("4")  # fewer sequences: the selection moves back into range
    assert demo.selected == 0


def test_padding_demo_new_lengths_keep_the_sentence_shown():
    demo = PaddingDemo(lengths=(3, 5, 2))
    demo.selected = 2
    demo.set_lengths_text("3, 4, 2, 5")  # new buttons: sentence 2 stays selected and shown
    assert demo.lengths == [3, 4, 2, 5] and demo.selected == 2 and demo.picker.value == 2
    assert "sentence 2" in demo.views["mask"].value and "sentence 2" in demo.views["weights"].value
    demo.picker.value = 3  # a click on a new button is heard
    assert demo.selected == 3 and "sentence 3" in demo.views["weights"].value


# ---------------------------------------------------------------------------------
# the cheating decoder
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("delta", [-1, 0, 1, 2])
def test_look_head_without_mask_attends_delta_positions_away(delta):
    tokens = [BOS, "the", "cat", "sat", "."]
    _, w = head_features(tokens, delta, causal=False)
    for i in range(5):
        if 0 <= i + delta < 5:
            assert w[i, i + delta] > 0.99
    np.testing.assert_allclose(w.sum(axis=1), 1.0)


def test_the_look_head_runs_unscaled_and_scaling_would_blur_it():
    # notebook 03: with strength 10 the weight on the wanted key is 0.9998 among 5 keys; divided by √5, 0.96
    tokens = [BOS, "the", "cat", "sat", "."]
    _, w = head_features(tokens, 1, causal=False)
    _, w_scaled = head_features(tokens, 1, causal=False, scale=True)
    assert w[0, 1] == pytest.approx(math.exp(10) / (math.exp(10) + 4)) and round(w[0, 1], 4) == 0.9998
    strength = 10 / math.sqrt(5)
    assert w_scaled[0, 1] == pytest.approx(math.exp(strength) / (math.exp(strength) + 4))
    assert round(w_scaled[0, 1], 2) == 0.96


def test_look_ahead_head_with_the_causal_mask_cannot_see_the_next_token():
    tokens = [BOS, "the", "cat", "sat", "."]
    _, w = head_features(tokens, 1, causal=True)
    assert (w[np.triu_indices(5, k=1)] == 0).all()
    # nothing it wants to see is allowed, so it spreads evenly over the past
    np.testing.assert_allclose(w[2, :3], 1 / 3)


def test_look_head_rejects_offsets_past_the_sequence():
    with pytest.raises(ValueError, match="delta"):
        look_head(5)


def test_best_possible_accuracy_counts_the_most_frequent_continuation():
    data = [[BOS, "a", "b"], [BOS, "a", "c"], [BOS, "a", "b"]]
    # after <s>: "a" 3 of 3; after "<s> a": "b" 2 of 3 -> (3 + 2) / 6
    assert best_possible_accuracy(data) == pytest.approx(5 / 6)


def test_unmasked_training_picks_the_look_ahead_head_and_scores_perfectly():
    model = train(causal=False)
    assert model.delta == 1
    assert model.accuracy(corpus_sentences()) == 1.0


def test_unmasked_model_collapses_when_the_future_is_absent():
    cheat, honest = train(causal=False), train(causal=True)
    data = corpus_sentences()
    assert cheat.accuracy(data, future_visible=False) < honest.accuracy(data, future_visible=False) - 0.2
    assert cheat.generate() != honest.generate()


def test_causal_model_cannot_beat_the_best_possible_without_the_future():
    honest = train(causal=True)
    data = corpus_sentences()
    ceiling = best_possible_accuracy(data)
    assert honest.delta <= 0  # a head that looks ahead only sees blocked keys under the mask
    assert honest.accuracy(data) <= ceiling + 1e-12
    assert honest.accuracy(data) > ceiling - 0.05  # and it learns nearly all that can be learned


def test_causal_model_is_the_same_in_training_and_generation():
    honest = train(causal=True)
    data = corpus_sentences()
    assert honest.accuracy(data, future_visible=True) == honest.accuracy(data, future_visible=False)
    # the prediction at position t does not depend on tokens after t
    a = honest.predict([BOS, "the", "cat", "sat", "."])
    b = honest.predict([BOS, "the", "cat", "barked", "the"])
    assert a[:3] == b[:3]


def test_causal_model_generates_a_training_sentence():
    sentence = train(causal=True).generate()
    assert sentence in corpus_sentences()


def test_unmasked_model_copies_a_planted_future_word():
    cheat, honest = train(causal=False), train(causal=True)
    tokens = [BOS, "the", "cat", "barked", "."]  # cats never bark in the training data
    assert cheat.predict(tokens)[2] == "barked"
    assert honest.predict(tokens)[2] in {"sat", "slept"}


def test_fit_readout_error_is_zero_only_for_the_cheating_head():
    data = corpus_sentences()
    errors = {d: fit_readout(data, d, causal=False)[1] for d in (-1, 0, 1)}
    assert errors[1] < 1e-6
    assert min(errors[-1], errors[0]) > 1e-3


def test_cheating_demo_shows_all_three_predictions():
    demo = CheatingDemo("the cat barked .")
    assert demo.tokens == [BOS, "the", "cat", "barked", "."]
    assert demo.predictions["no_mask_full"][2] == "barked"
    assert demo.predictions["causal"][2] in {"sat", "slept"}
    assert len(demo.predictions["no_mask_past"]) == 5
    assert "barked ✓" in demo.table.value


@pytest.mark.parametrize("text, word", [("the cow sat", "'cow' is not in the vocabulary"), ("", "empty"),
                                        ("the cat sat . .", "at most 4 words")])
def test_cheating_demo_bad_sentence_keeps_the_last_valid_one(text, word):
    demo = CheatingDemo("the dog ran .")
    before = (dict(demo.predictions), demo.table.value)
    demo.set_sentence(text)
    assert word in demo.message
    assert html.escape(demo.message) in demo.message_html.value  # shown next to the field
    assert demo.tokens == [BOS, "the", "dog", "ran", "."]
    assert (demo.predictions, demo.table.value) == before
    demo.set_sentence("a bird")
    assert demo.message == "" and demo.message_html.value == ""
    assert demo.tokens == [BOS, "a", "bird"]


def test_parse_sentence_adds_the_start_token_and_names_the_unknown_word():
    assert parse_sentence("the cat sat .") == [BOS, "the", "cat", "sat", "."]
    assert parse_sentence(f"{BOS} a dog") == [BOS, "a", "dog"]
    with pytest.raises(ValueError, match="sentence: 'Cat' is not in the vocabulary"):
        parse_sentence("the Cat")


def test_vocabulary_has_every_corpus_token():
    assert set(VOCAB) == {t for s in corpus_sentences() for t in s}


def test_cheating_demo_table_ticks_only_predictions_equal_to_the_typed_token():
    demo = CheatingDemo("the cat barked .")
    table = demo.table.value.split("</table>")[0]  # the note under the table uses ✓ too
    rows = table.split("<tr>")[2:]  # [0] is the table tag, [1] the header
    assert len(rows) == 5  # one per token, <s> included
    # position 2 ("cat"): the typed next token is "barked"; only the unmasked, whole-sentence model says it
    assert rows[2].count("✓") == 1 and "barked ✓" in rows[2]
    # the last position predicts past the end: nothing typed there, so nothing can be ticked
    assert "(none typed)" in rows[-1] and "✓" not in rows[-1]


def test_padding_demo_switch_and_picker_work_on_the_last_valid_batch_while_the_text_is_bad():
    demo = PaddingDemo(lengths=(4, 2))
    demo.set_lengths_text("4, x")
    message = demo.message
    assert "length 2: 'x' is not a number" in message
    demo.causal = True  # the learner goes on exploring the batch on screen
    demo.selected = 1
    assert demo.lengths == [4, 2] and demo.weights[0][0, 1] == 0  # causal now
    assert "sentence 1" in demo.views["weights"].value
    assert demo.message == message  # the field still holds the bad text, so its message stays
    assert html.escape(message) in demo.message_html.value
    assert demo.last_unexpected is None


# ---------------------------------------------------------------------------------
# the design task of 03: hide the pad keys
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("change, words", [
    (lambda m: m, "query '1:sing' gives the pad key '2:<pad>' 0.20 of its attention"),
    (lambda m: m & np.tril(np.ones((5, 5), dtype=bool)), "gives the pad key"),               # the causal mask
    (lambda m: _blocked(m, rows=slice(2, None), cols=slice(2, None)), "query '1:sing' gives the pad key"),
    (lambda m: _blocked(m, rows=slice(2, None), cols=slice(None)), "query '2:<pad>' may attend to no key"),
    (lambda m: _blocked(m, cols=slice(2, None)) & ~np.eye(5, dtype=bool), "one of them is blocked for it"),
])
def test_the_pad_task_names_what_a_wrong_mask_does(change, words):
    from helpers.exercises import check_design

    fb = check_design("03-hide-pad-keys", mask=change(np.ones((5, 5), dtype=bool)))
    assert not fb.correct and words in fb.message, fb.message


def test_the_pad_task_takes_any_mask_that_hides_exactly_the_pad_keys_as_bools_or_numbers():
    from helpers.exercises import check_design

    mask = _blocked(np.ones((5, 5), dtype=bool), cols=slice(2, None))
    for form in (mask, mask.astype(int), mask.astype(float).tolist()):
        assert check_design("03-hide-pad-keys", mask=form).correct
    half = check_design("03-hide-pad-keys", mask=np.where(mask, 0.5, 0.0))
    assert not half.correct and "True (may attend) or False (blocked), or 1 and 0; entry (0, 0) is 0.5" in half.message


def _blocked(mask, rows=slice(None), cols=slice(None)):
    mask = mask.copy()
    mask[rows, cols] = False
    return mask
