"""Junk typed into every text field of every demo: a message, never an exception, and recovery.

For each field, one junk text at a time is typed the way the browser does it (the field's
value changes); then the original text is typed back. Each junk text is either refused
(a message next to the field, the views exactly as before) or accepted; never does an
exception leave a handler (``last_unexpected`` stays ``None``, no "Something went wrong").
When the original text returns, the message is gone and every view is as it was.
"""

import html

import ipywidgets as widgets
import numpy as np
import pytest

from helpers.core.pretrained import MiniLM
from helpers.demos.decoding import CheatingDemo
from helpers.demos.masking import PaddingDemo
from helpers.demos.patterns import PatternBuilder
from helpers.demos.pitfalls import OverflowDemo
from helpers.demos.real_model import HeadExplorer
from helpers.demos.translation import translation_explorer

# Every text of the one catalogue (tests/junk.py): these fields are few and quick to try.
from junk import TEXT as JUNK


def views_html(widget):
    """Every HTML view of a widget tree: what the learner sees, as one comparable list."""
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        stack.extend(getattr(w, "children", ()))
        if isinstance(w, widgets.HTML):
            out.append(w.value)
    return out


# Each case: a factory, how to reach the field, the state to compare, and the field's message.
FIELDS = {
    "PaddingDemo lengths": (
        PaddingDemo, lambda d: d.lengths_field,
        lambda d: (d.lengths, d.weights.tolist(), d.views["batch"].value, d.views["weights"].value),
    ),
    "CheatingDemo sentence": (
        CheatingDemo, lambda d: d.field,
        lambda d: (d.tokens, d.predictions, d.table.value),
    ),
    "OverflowDemo scores": (
        OverflowDemo, lambda d: d.field,
        lambda d: (d.scores.tolist(), d.view.value),
    ),
}


def check_no_escape(widget):
    assert widget.last_unexpected is None
    assert not any("Something went wrong" in v for v in views_html(widget))


@pytest.mark.parametrize("case", list(FIELDS))
def test_junk_in_a_demo_text_field(case):
    make, field_of, state_of = FIELDS[case]
    demo = make()
    field = field_of(demo)
    original, before = field.value, state_of(demo)
    for junk in JUNK:
        field.value = junk  # what the browser does when the learner types and presses Enter
        check_no_escape(demo)
        if demo.message:
            assert html.escape(demo.message.split("\n")[0]) in demo.message_html.value
            assert state_of(demo) == before, f"{case}: {junk[:30]!r} was refused but the views changed"
        field.value = original
        check_no_escape(demo)
        assert demo.message == "" and demo.message_html.value == ""
        assert state_of(demo) == before, f"{case}: no recovery after {junk[:30]!r}"


@pytest.mark.parametrize("name", ["W_q", "W_k"])
def test_junk_in_pattern_builder_cells(name):
    b = PatternBuilder(pattern="block")
    ed = b.editors[name]
    n, m = ed.value.shape
    before = (b.result.weights.copy(), views_html(b))
    for i, j in [(0, 0), (n - 1, m - 1), (n - 3, 0)]:
        original = ed.cell_text(i, j)
        for junk in JUNK:
            ed.set_text(i, j, junk)
            check_no_escape(b)
            if ed.message:  # refused by the cell: nothing else moves
                np.testing.assert_array_equal(b.result.weights, before[0])
            ed.set_text(i, j, original)
            check_no_escape(b)
            assert ed.message == "" and b.status == ""
            np.testing.assert_array_equal(b.result.weights, before[0])
            assert views_html(b) == before[1]


def test_junk_in_the_translation_explorers_weight_cells():
    ex = translation_explorer()
    before = ex.result.weights.copy()
    for name in ("X_dec", "W_q", "W_k", "W_v"):
        ed = ex.editors[name]
        original = ed.cell_text(0, 0)
        for junk in JUNK[:20]:
            ed.set_text(0, 0, junk)
        ed.set_text(0, 0, original)
        assert ed.message == ""
        np.testing.assert_allclose(ex.result.weights, before)


@pytest.fixture(scope="module")
def model():
    return MiniLM.load()


def test_junk_in_the_head_explorers_sentence(model):
    ex = HeadExplorer(model, query="bank", show_grid=False)
    original = ex.text_box.value
    before = (ex.tokens, ex.table.value, ex.trace_html.value, ex.query)
    for junk in JUNK:
        ex.text_box.value = junk
        check_no_escape(ex)
        if ex.message:
            assert (ex.tokens, ex.table.value, ex.trace_html.value) == before[:3]
            assert html.escape(ex.message) in ex.message_html.value
        ex.text_box.value = original
        check_no_escape(ex)
        assert ex.message == "" and ex.message_html.value == ""
        ex.query = "bank"  # a new sentence traces its first word; the learner picks "bank" again
        assert (ex.tokens, ex.table.value, ex.trace_html.value, ex.query) == before


def test_the_head_explorer_refuses_what_the_model_cannot_read(model):
    ex = HeadExplorer(model, show_grid=False)
    for junk, words in [("", "empty"), ("   ", "empty"), ("word " * 600, "602 tokens")]:
        ex.text_box.value = junk
        assert words in ex.message and "still showing: 'I went to the bank" in ex.message
        ex.text_box.value = "I went to the bank to deposit money"
        assert ex.message == ""
