"""Notebook 05's math and demo: the decoder's input (the target shifted right), and the decoder that cheats without a
mask."""

import html
import math

import numpy as np
import pytest

from helpers.core.decoding import (
    BOS,
    TARGET,
    VOCAB,
    best_possible_accuracy,
    corpus_sentences,
    fit_readout,
    head_features,
    look_head,
    parse_sentence,
    shift_right,
    train,
)
from helpers.demos.decoding import CheatingDemo

# ---------------------------------------------------------------------------------
# the decoder's input
# ---------------------------------------------------------------------------------


def test_shift_right_puts_the_start_token_first_and_drops_the_last():
    inputs = shift_right(TARGET)
    assert inputs == [BOS, "le", "chat", "noir", "s'", "est"]
    # the row whose input is "le" is the one that produces "chat"
    assert TARGET[inputs.index("le")] == "chat"
    assert shift_right(["a"]) == [BOS]
    assert shift_right(("x", "y"), start="<go>") == ["<go>", "x"]


def test_shift_right_refuses_an_empty_target():
    with pytest.raises(ValueError, match="target"):
        shift_right([])


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
    # notebook 05: with strength 10 the weight on the wanted key is 0.9998 among 5 keys; divided by √5, 0.96
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


def test_with_the_mask_no_head_stands_out():
    """05 reads the causal errors as a near tie: head 0 re-reads the current word, and no head does better than it by
    1 % or changes a single best guess; the unmasked look-ahead head is far below them all."""
    data = corpus_sentences()
    honest = train(causal=True)
    current_word_alone = honest.losses[0]
    assert honest.delta == -1 and min(honest.losses.values()) == honest.losses[-1]
    assert all(0.99 * current_word_alone < e < 1.000001 * current_word_alone for e in honest.losses.values())
    ceiling = best_possible_accuracy(data)
    for delta in honest.losses:
        assert train(causal=True, offsets=(delta,)).accuracy(data) == pytest.approx(ceiling)
    assert train(causal=False).losses[1] < 0.01 * current_word_alone


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
