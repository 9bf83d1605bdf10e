"""Masks as data: the mask math in one module, and the explorer's ``mask`` trait (custom, named and refused masks,
observe and link, the ``causal`` alias), checked through what a learner sets and sees."""

from __future__ import annotations

import html

import ipywidgets
import numpy as np
import pytest
import traitlets

from helpers.core import attention, efficiency, masking, masks
from helpers.widgets import AttentionExplorer, CrossAttentionExplorer

from conftest import html_text, walk

TOKENS = ["the", "cat", "sat", "down"]
X0 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [2.0, 1.0, 0.0], [-1.0, 2.0, 1.0]])
WQ = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
WK = np.array([[0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
WV = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 1.0], [2.0, 0.0, 1.0]])
# Query i sees keys i - 1 and i: a causal sliding window of 2, written out.
WINDOW = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]], dtype=bool)
# The last key is padding: no query may attend to it.
PADDING = np.array([[1, 1, 1, 0]] * 4, dtype=bool)
CAUSAL = np.tril(np.ones((4, 4), dtype=bool))
DASH = 'aria-label="masked">—</td>'


def expected_weights(mask, X=X0):
    """softmax(Q Kᵀ / √d_k) row by row with the blocked entries at −∞, in plain numpy."""
    Q, K = X @ WQ, X @ WK
    s = np.where(mask, Q @ K.T / np.sqrt(WQ.shape[1]), -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def part(root, cls):
    found = [w for w in walk(root) if cls in getattr(w, "_dom_classes", ())]
    assert len(found) == 1, f"{len(found)} widgets with class {cls}"
    return found[0]


@pytest.fixture
def ex():
    return AttentionExplorer(TOKENS, X0, WQ, WK, WV)


# ------------------------------------------------------------------ the math, in one module

def test_the_masks_live_in_one_module_and_the_old_paths_still_reach_them():
    assert attention.causal_mask is masks.causal_mask and attention.padding_mask is masks.padding_mask
    assert masking.causal_mask is masks.causal_mask
    for name in ("sliding_window_mask", "strided_mask", "global_mask"):
        assert getattr(efficiency, name) is getattr(masks, name)
    np.testing.assert_array_equal(masks.causal_mask(4), CAUSAL)
    np.testing.assert_array_equal(masks.sliding_window_mask(4, 2), WINDOW)
    np.testing.assert_array_equal(masks.padding_mask([3], 4)[0], PADDING[:1])


def test_as_mask_turns_every_kind_into_the_boolean_array():
    np.testing.assert_array_equal(masks.as_mask(None, 2, 3), np.ones((2, 3), dtype=bool))
    np.testing.assert_array_equal(masks.as_mask("causal", 4, 4), CAUSAL)
    np.testing.assert_array_equal(masks.as_mask(WINDOW.tolist(), 4, 4), WINDOW)
    assert masks.is_causal("causal") and masks.is_causal(CAUSAL)
    assert not masks.is_causal(None) and not masks.is_causal(WINDOW) and not masks.is_causal(CAUSAL.astype(int))


@pytest.mark.parametrize("mask, n_q, n_k, words", [
    (np.ones((3, 3), dtype=bool), 4, 4, "mask has shape (3, 3), but there are 4 queries and 4 keys: it needs shape "
                                        "(n_q, n_k) = (4, 4)"),
    (CAUSAL.astype(int), 4, 4, "mask must be boolean (True = may attend); got an array of int64 with shape (4, 4)"),
    (np.ones(4, dtype=bool), 4, 4, "mask must be a 2-D boolean array (n_q, n_k)"),
    ([[1, 0], [1, 1]], 2, 2, "A 0/1 mask m becomes one with `np.asarray(m) == 1`"),
    ("window", 4, 4, "mask must be None, \"causal\" or a boolean array (True = may attend); got the string 'window'"),
    ("causal", 3, 5, "a causal mask needs as many queries as keys; got 3 queries and 5 keys"),
    (~np.eye(4, dtype=bool) & CAUSAL, 4, 4, "mask blocks every key for query row 0"),
])
def test_as_mask_says_what_is_wrong_naming_the_argument_and_the_shapes(mask, n_q, n_k, words):
    with pytest.raises(ValueError) as err:
        masks.as_mask(mask, n_q, n_k)
    assert words in str(err.value)


# ------------------------------------------------------------------ the explorer: masks given as data

@pytest.mark.parametrize("mask", [WINDOW, PADDING], ids=["sliding window", "padding"])
def test_a_mask_given_as_data_zeroes_the_blocked_weights_and_shows_them_as_dashes(ex, mask):
    ex.mask = mask
    assert not ex.causal
    np.testing.assert_allclose(ex.weights, expected_weights(mask), atol=1e-12)
    assert np.all(ex.weights[~mask] == 0.0)
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)
    view = ex.views["weights"].value
    assert view.count(DASH) == int((~mask).sum())
    assert "masked (blocked before the softmax)" in html.unescape(view)  # the usual legend
    note = html_text(part(ex, "attn-causal-message"))
    assert f"A mask given as data: {int((~mask).sum())} of 16 weights blocked" in note
    steps = ex.views["mask"].value  # the folded step ⑥ shows the masked scores
    assert "masked: scaled + mask" in html.unescape(steps) and "causal" not in html_text(steps)


def test_the_trace_speaks_of_the_mask_not_of_the_causal_mask(ex):
    ex.mask = PADDING
    part(ex, "attn-trace-query").value, part(ex, "attn-trace-key").value = 1, 3
    assert "the mask blocks key 'down' for query 'cat': score → −∞, weight 0" in ex.trace_text
    assert "causal" not in ex.trace_text
    ex.causal = True
    part(ex, "attn-trace-query").value = 0
    assert "the causal mask blocks key 'down' for query 'the' (a later token)" in ex.trace_text


def test_a_mask_given_at_construction():
    windowed = AttentionExplorer(TOKENS, X0, WQ, WK, WV, mask=masks.sliding_window_mask(4, 2))
    np.testing.assert_allclose(windowed.weights, expected_weights(WINDOW), atol=1e-12)
    with pytest.raises(ValueError, match="mask has shape \\(3, 3\\)"):
        AttentionExplorer(TOKENS, X0, WQ, WK, WV, mask=np.ones((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="causal=True or a mask, not both"):
        AttentionExplorer(TOKENS, X0, WQ, WK, WV, causal=True, mask=WINDOW)


def test_the_mask_is_the_explorers_own_copy(ex):
    mine = WINDOW.copy()
    ex.mask = mine
    mine[:] = True  # the learner's array stays theirs
    assert np.array_equal(ex.mask, WINDOW) and np.all(ex.weights[~WINDOW] == 0.0)
    with pytest.raises(ValueError, match="read-only"):
        ex.mask[0, 1] = True


# ------------------------------------------------------------------ named masks and the alias

def test_named_masks_and_the_causal_alias_both_ways(ex):
    box = part(ex, "attn-causal")
    ex.mask = "causal"
    assert ex.causal and box.value
    np.testing.assert_allclose(ex.weights, expected_weights(CAUSAL), atol=1e-12)
    ex.mask = None
    assert not ex.causal and not box.value
    np.testing.assert_allclose(ex.weights, expected_weights(np.ones((4, 4), dtype=bool)), atol=1e-12)
    ex.mask = CAUSAL  # the causal mask given as an array is the causal mask
    assert ex.causal and box.value
    ex.causal = False
    assert ex.mask is None
    ex.causal = True
    assert ex.mask == "causal"
    ex.mask = WINDOW  # any other mask: causal is False
    assert not ex.causal and not box.value
    ex.causal = False  # it is off already: the window stays
    assert np.array_equal(ex.mask, WINDOW)
    box.value = True  # ticking the box replaces the window by the causal mask
    assert ex.mask == "causal" and ex.causal
    box.value = False
    assert ex.mask is None and html_text(part(ex, "attn-causal-message")) == ""


def test_the_last_assignment_wins_inside_a_hold(ex):
    with ex.hold_trait_notifications():
        ex.causal = True
        ex.mask = WINDOW
    assert not ex.causal and np.array_equal(ex.mask, WINDOW)
    np.testing.assert_allclose(ex.weights, expected_weights(WINDOW), atol=1e-12)
    with ex.hold_trait_notifications():
        ex.mask = WINDOW
        ex.causal = True
    assert ex.mask == "causal"
    np.testing.assert_allclose(ex.weights, expected_weights(CAUSAL), atol=1e-12)


def test_observe_sees_mask_and_causal_change(ex):
    seen = []

    def record(change):
        new = change["new"]
        # What an observer finds: the other trait agrees already.
        assert ex.causal == masks.is_causal(ex.mask)
        seen.append((change["name"], new if isinstance(new, (str, bool, type(None))) else "array"))

    ex.observe(record, names=["mask", "causal"])
    ex.mask = WINDOW
    assert seen == [("mask", "array")]  # causal was False and stays False: no change to tell
    seen.clear()
    ex.causal = True
    assert sorted(seen) == [("causal", True), ("mask", "causal")]
    seen.clear()
    ex.mask = None
    assert sorted(seen) == [("causal", False), ("mask", None)]


def test_widgets_link_to_mask_and_to_causal(ex):
    box = ipywidgets.Checkbox(value=False)
    ipywidgets.link((box, "value"), (ex, "causal"))
    box.value = True
    assert ex.mask == "causal" and part(ex, "attn-causal").value
    ex.mask = PADDING
    assert not box.value  # the alias moved, and the link with it
    # Two explorers side by side with one mask: arrays and names go across, both ways.
    other = AttentionExplorer(TOKENS, X0 + 1, WQ, WK, WV)
    ipywidgets.link((ex, "mask"), (other, "mask"))
    assert np.array_equal(other.mask, PADDING) and np.all(other.weights[:, 3] == 0.0)
    other.mask = WINDOW
    assert np.array_equal(ex.mask, WINDOW) and np.all(ex.weights[~WINDOW] == 0.0)
    other.causal = True
    assert ex.mask == "causal" and ex.causal and box.value
    box.value = False
    assert other.mask is None and not other.causal
    # A plain trait holding names.
    holder = _MaskHolder()
    ipywidgets.link((holder, "mask"), (ex, "mask"))
    holder.mask = "causal"
    assert ex.causal and other.causal
    with pytest.raises(traitlets.TraitError, match="mask must be None"):
        holder.mask = "window"  # refused at the far end: a link passes the refusal on, as every traitlets link does
    assert ex.causal and other.causal


class _MaskHolder(traitlets.HasTraits):
    mask = traitlets.Any(None, allow_none=True)


# ------------------------------------------------------------------ refused masks

@pytest.mark.parametrize("bad, words", [
    (np.ones((3, 3), dtype=bool), "mask has shape (3, 3), but there are 4 queries and 4 keys: it needs shape "
                                  "(n_q, n_k) = (4, 4)"),
    (WINDOW.astype(float), "mask must be boolean (True = may attend); got an array of float64 with shape (4, 4)"),
    (np.array([[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool),
     "mask blocks every key for query 'cat' (row 1): that query would have nothing to attend to"),
    ("sliding", "mask must be None, \"causal\" or a boolean array"),
], ids=["wrong shape", "not boolean", "a whole row blocked", "unknown name"])
def test_a_refused_mask_raises_says_why_beside_the_box_and_keeps_the_last_valid_state(ex, bad, words):
    ex.mask = WINDOW
    weights, view = ex.weights, ex.views["weights"].value
    with pytest.raises(traitlets.TraitError) as err:
        ex.mask = bad
    assert words in str(err.value)
    assert np.array_equal(ex.mask, WINDOW) and not ex.causal
    assert ex.weights is weights and ex.views["weights"].value == view  # the last valid weights, still shown
    message = part(ex, "attn-causal-message")
    assert words in html.unescape(message.value) and 'role="alert"' in message.value
    field = next(w for w in walk(ex) if any(c is part(ex, "attn-causal") for c in getattr(w, "children", ())))
    assert any(c is message for c in field.children)  # beside the control it is about
    ex.mask = PADDING  # a valid mask clears the message
    assert "A mask given as data: 4 of 16" in html_text(message) and 'role="alert"' not in message.value


def test_a_refused_mask_set_by_a_callback_is_contained(ex):
    ex.observe(lambda change: setattr(ex, "mask", np.ones((2, 2), dtype=bool)), names="scale")
    ex.scale = False  # nothing escapes: the refusal is shown, the mask stays
    assert ex.mask is None and not ex.scale
    assert "mask has shape (2, 2)" in html.unescape(part(ex, "attn-causal-message").value)


def test_a_mask_that_no_longer_fits_the_tokens_comes_off_with_a_note(ex):
    ex.mask = WINDOW
    ex.set_tokens(TOKENS + ["now"])
    assert ex.mask is None and ex.weights.shape == (5, 5) and np.all(ex.weights > 0)
    note = html_text(part(ex, "attn-causal-message"))
    assert "The mask given as data is 4 × 4; with 5 queries and 5 keys now it no longer fits, so it is off" in note
    ex.mask = masks.causal_mask(5)
    ex.set_tokens(TOKENS)  # the causal mask given as an array fits any length: it stays causal
    assert ex.causal and ex.mask == "causal"


def test_cross_attention_takes_a_padding_mask_over_the_source():
    X_dec, X_enc = np.eye(3, 3), np.eye(5, 3)
    cross = CrossAttentionExplorer(["le", "chat", "dort"], ["the", "cat", "sleeps", "<pad>", "<pad>"], X_dec, X_enc,
                                   WQ, WK, WV, mask=np.array([[1, 1, 1, 0, 0]] * 3, dtype=bool))
    assert not cross.causal and np.all(cross.weights[:, 3:] == 0.0)
    np.testing.assert_allclose(cross.weights.sum(axis=1), 1.0)
    assert cross.views["weights"].value.count(DASH) == 6
    with pytest.raises(traitlets.TraitError, match="as many decoder tokens as encoder tokens; got 3 and 5"):
        cross.mask = "causal"
    assert np.all(cross.weights[:, 3:] == 0.0)

