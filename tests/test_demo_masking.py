"""Notebook 04's demo: padded batches with their masks; and 04's design task."""

import html

import numpy as np
import pytest

from helpers.core.masking import BATCH_SENTENCES, PAD, SENTENCE_POOL, batch_mask, pad_batch, parse_lengths
from helpers.demos.masking import PaddingDemo

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


def test_padding_demo_starts_with_the_batch_04_computes_with():
    """04's text pads "the cat sat", "a dog ran home fast" and "birds sing"; the demo below it starts from them."""
    demo = PaddingDemo()
    assert [row[:L] for row, L in zip(demo.tokens, demo.lengths)] == [list(s) for s in BATCH_SENTENCES]
    assert [" ".join(s) for s in BATCH_SENTENCES][1] == "a dog ran home fast"
    batch = demo.views["batch"].value
    assert all(f">{word}<" in batch for word in ("home", "fast"))


def test_padding_demo_causal_switch_adds_the_causal_mask():
    demo = PaddingDemo(lengths=(4, 2))
    demo.causal = True
    upper = np.triu(np.ones((4, 4), dtype=bool), k=1)
    assert (demo.weights[:, upper] == 0).all()
    assert not demo.mask[1][:, 2:].any()
    assert "padding + causal" in demo.views["mask"].value
    # Blocked weights are masked cells, not "0.00": sentence 0 has 4 tokens, 6 of its 16 weights blocked.
    weights = demo.views["weights"].value
    assert weights.count('aria-label="masked">—</td>') == 6 == int((~demo.mask[0]).sum())
    assert "masked (blocked before the softmax)" in weights
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
# the design task of 04: hide the pad keys
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

    fb = check_design("04-hide-pad-keys", mask=change(np.ones((5, 5), dtype=bool)))
    assert not fb.correct and words in fb.message, fb.message


def test_the_pad_task_takes_any_mask_that_hides_exactly_the_pad_keys_as_bools_or_numbers():
    from helpers.exercises import check_design

    mask = _blocked(np.ones((5, 5), dtype=bool), cols=slice(2, None))
    for form in (mask, mask.astype(int), mask.astype(float).tolist()):
        assert check_design("04-hide-pad-keys", mask=form).correct
    half = check_design("04-hide-pad-keys", mask=np.where(mask, 0.5, 0.0))
    assert not half.correct and "True (may attend) or False (blocked), or 1 and 0; entry (0, 0) is 0.5" in half.message


def _blocked(mask, rows=slice(None), cols=slice(None)):
    mask = mask.copy()
    mask[rows, cols] = False
    return mask
