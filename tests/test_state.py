"""Every widget that takes input holds its state in traitlets traits, with its controls linked to them.

So ``observe``, ``widgets.link`` and ``hold_trait_notifications()`` work on the demos as on the explorer; an observer
that fails is contained (a message beside the field, never a traceback); a value a trait refuses puts a linked
control back, with the reason on screen.
"""

import ipywidgets
import numpy as np
import pytest
import traitlets

from helpers.demos.efficiency import FlashStepper, LoraDemo
from helpers.demos.lookup import LookupDemo
from helpers.demos.masking import PaddingDemo
from helpers.demos.multihead import MultiHeadExplorer
from helpers.demos.patterns import PatternBuilder
from helpers.demos.pitfalls import OverflowDemo, SaturationDemo
from helpers.demos.translation import DecodingStepsDemo
from helpers.exercises.design import design_task
from helpers.widgets import AttentionExplorer, CrossAttentionExplorer
from helpers.widgets.goal_line import GoalLine
from helpers.widgets.live import LiveWidget

from conftest import html_text, walk

_RNG = np.random.default_rng(7)
_QKV = (_RNG.integers(-2, 3, (3, 2)), _RNG.integers(-2, 3, (8, 2)), _RNG.integers(-2, 3, (8, 2)))
_MH = (["a", "b", "c"], _RNG.integers(-2, 3, (3, 4)), *(_RNG.integers(-1, 2, (4, 4)) for _ in range(4)))

# (make the widget, the trait, the control that shows it, a new value of the trait, what the control shows for it,
#  the view redrawn)
CASES = [
    (PaddingDemo, "causal", "causal_box", True, True, lambda d: d.views["weights"]),
    (PaddingDemo, "selected", "picker", 2, 2, lambda d: d.views["weights"]),
    (LookupDemo, "temperature", "temperature_box", 2.5, 2.5, lambda d: d.table),
    (LookupDemo, "hard", "mode", True, "hard", lambda d: d.table),
    (SaturationDemo, "d_k", "d_k_box", 8, 8, lambda d: d.view),
    (SaturationDemo, "scale", "scale_box", True, True, lambda d: d.view),
    (OverflowDemo, "text", "field", "1, 2, 3", "1, 2, 3", lambda d: d.view),
    (lambda: FlashStepper(*_QKV), "block_size", "block_picker", 4, 4, lambda d: d.views["where"]),
    (LoraDemo, "rank", "rank_picker", 4, 4, lambda d: d.views["adapted"]),
    (PatternBuilder, "pattern", "pattern_picker", "vertical", "vertical", lambda d: d.views["weights"]),
    (PatternBuilder, "strength", "strength_box", 1.5, 1.5, lambda d: d.views["weights"]),
    (DecodingStepsDemo, "step", "step_picker", 5, 5, lambda d: d.views["cross"]),
    (lambda: MultiHeadExplorer(*_MH, h=1), "h", "heads_picker", 4, 4, lambda d: d.views["concat"]),
]
IDS = [f"{case[1]}" for case in CASES]


@pytest.mark.parametrize("make, trait, control, value, shown, view", CASES, ids=IDS)
def test_a_control_change_is_a_trait_change_that_observe_hears(make, trait, control, value, shown, view):
    demo = make()
    assert isinstance(getattr(type(demo), trait), traitlets.TraitType)  # a declared trait, not a property
    heard, before = [], view(demo).value
    demo.observe(lambda change: heard.append((change["name"], change["new"])), names=trait)
    getattr(demo, control).value = shown  # what a click or a typed value does
    assert heard == [(trait, value)] and getattr(demo, trait) == value
    assert view(demo).value != before  # redrawn
    assert demo.status == "" and demo.last_unexpected is None


@pytest.mark.parametrize("make, trait, control, value, shown, view", CASES, ids=IDS)
def test_setting_the_trait_moves_its_control(make, trait, control, value, shown, view):
    demo = make()
    before = view(demo).value
    setattr(demo, trait, value)
    assert getattr(demo, control).value == shown and view(demo).value != before


def test_two_demos_linked_move_together_and_a_plain_widget_drives_a_demo():
    a, b = SaturationDemo(d_k=4), SaturationDemo(d_k=4, scale=True)
    ipywidgets.link((a, "d_k"), (b, "d_k"))
    a.d_k_box.value = 256  # the learner types into the first demo
    assert b.d_k == 256 and b.d_k_box.value == 256 and "√256" in b.view.value
    slider = ipywidgets.IntSlider(min=0, max=8)
    lora = LoraDemo(rank=0)
    ipywidgets.link((slider, "value"), (lora, "rank"))
    slider.value = 2
    assert lora.rank == 2 and lora.rank_picker.value == 2 and "adapted head (r = 2)" in html_text(lora.views["adapted"])
    lora.rank_picker.value = 8  # and back: the demo's own field moves the slider
    assert slider.value == 8


def test_changes_inside_a_hold_are_drawn_once_and_heard_at_the_end():
    demo = LookupDemo()
    tables, heard = [], []
    demo.table.observe(lambda change: tables.append(change["new"]), names="value")
    demo.observe(lambda change: heard.append(change["name"]), names=["query", "temperature", "hard"])
    with demo.hold_trait_notifications():
        demo.query = [1, 1, 0]
        demo.temperature_box.value = 0.5
        demo.hard = True
        assert tables == [] and heard == []  # nothing redrawn or told yet
    assert len(tables) == 1 and sorted(heard) == ["hard", "query", "temperature"]
    assert demo.weights.tolist() == [1.0, 0.0, 0.0, 0.0] and "argmax" in demo.table.value
    pad = PaddingDemo()
    weights = []
    pad.views["weights"].observe(lambda change: weights.append(change["new"]), names="value")
    with pad.hold_trait_notifications():
        pad.causal, pad.selected = True, 1
    assert len(weights) == 1 and "sentence 1" in weights[0] and pad.picker.value == 1 and pad.causal_box.value


def test_typed_lengths_are_a_trait_and_setting_it_rewrites_the_field():
    pad = PaddingDemo(lengths=(3, 5, 2))
    heard = []
    pad.observe(lambda change: heard.append(change["new"]), names="lengths")
    pad.set_lengths_text("2 4")  # typed with spaces: read, and the field keeps what was typed
    assert heard == [[2, 4]] and pad.lengths_field.value == "2 4" and len(pad.picker.options) == 2
    pad.set_lengths_text("2, x")
    assert "length 2: 'x' is not a number" in pad.message and heard == [[2, 4]]
    pad.lengths = [1, 8, 4]  # from code: the field shows the lengths, and its message goes
    assert pad.lengths_field.value == "1, 8, 4" and pad.message == "" and pad.tokens[1][7] != "<pad>"
    with pytest.raises(ValueError, match="lengths: every length must be between 1 and 8; got 1, 9"):
        pad.lengths = [1, 9]
    assert pad.lengths == [1, 8, 4] and pad.lengths_field.value == "1, 8, 4"


def test_a_refused_value_raises_a_value_error_and_keeps_the_state():
    pad, stepper = PaddingDemo(lengths=(3, 5)), FlashStepper(*_QKV)
    shown = pad.views["weights"].value
    with pytest.raises(traitlets.TraitError, match="selected must be a whole number from 0 to 1; got 5") as refused:
        pad.selected = 5
    assert isinstance(refused.value, ValueError)
    assert pad.selected == 0 and pad.picker.value == 0 and pad.views["weights"].value == shown
    with pytest.raises(ValueError, match="block_size must be one of"):
        stepper.block_size = 5
    with pytest.raises(ValueError, match="d_k must be a whole number"):
        SaturationDemo().d_k = 2.5
    assert stepper.block_size == 2


def test_a_linked_control_whose_value_is_refused_goes_back_with_the_reason_beside_the_own_control(cross):
    own, message = _part(cross, "attn-causal"), _part(cross, "attn-causal-message")
    box = ipywidgets.Checkbox(value=False)
    ipywidgets.link((box, "value"), (cross, "causal"))
    with pytest.raises(traitlets.TraitError, match="as many decoder tokens"):
        box.value = True  # a learner's link passes the refusal on, as every traitlets link does
    assert box.value is False and not cross.causal and not own.value  # but the box shows the state again
    assert "as many decoder tokens as encoder tokens; got 3 and 5" in html_text(message)
    box.value = False  # nothing changes: nothing is said
    # The other way round (the explorer first in the link), the same.
    other = ipywidgets.Checkbox(value=False)
    ipywidgets.link((cross, "causal"), (other, "value"))
    with pytest.raises(traitlets.TraitError):
        other.value = True
    assert other.value is False and box.value is False and not cross.causal


def test_a_linked_field_goes_back_when_a_demo_refuses_and_the_status_says_why():
    pad = PaddingDemo(lengths=(3, 5))
    field = ipywidgets.IntText(0)
    ipywidgets.link((field, "value"), (pad, "selected"))
    field.value = 1
    assert pad.selected == 1 and pad.picker.value == 1
    with pytest.raises(traitlets.TraitError):
        field.value = 7
    assert field.value == 1 and pad.selected == 1
    assert "selected must be a whole number from 0 to 1; got 7" in html_text(pad.status_html)
    # A hold that ends on a refused value rolls back, and the linked field shows what was kept.
    with pytest.raises(traitlets.TraitError):
        with pad.hold_trait_notifications():
            pad.selected = 9
    assert pad.selected == 1 and field.value == 1


def test_a_learner_observer_that_fails_is_contained_and_the_last_valid_state_stays():
    demo = LookupDemo()
    demo.observe(lambda change: 1 / 0, names="temperature")
    demo.observe(lambda change: (_ for _ in ()).throw(ValueError("my check says no")), names="hard")
    demo.temperature_box.value = 2.0  # nothing escapes to the field (the browser)
    assert demo.temperature == 2.0 and "softmax(score / 2)" in demo.table.value  # the change itself was drawn
    shown = html_text(demo.status_html)
    assert "Something went wrong (ZeroDivisionError" in shown and "Traceback" not in shown
    assert isinstance(demo.last_unexpected, ZeroDivisionError)
    demo.mode.value = "hard"
    assert demo.hard and "my check says no" in html_text(demo.status_html)
    # Through a link too: the plain widget at the other end never sees the failure.
    slider = ipywidgets.FloatSlider(min=0.1, max=5)
    ipywidgets.link((slider, "value"), (demo, "temperature"))
    slider.value = 3.0
    assert demo.temperature == 3.0 and demo.temperature_box.value == 3.0
    # Contained through traitlets' public API (notify_change), not by overriding its private notification method.
    assert "_notify_observers" not in vars(LiveWidget) and "notify_change" in vars(LiveWidget)


def test_one_goal_line_serves_the_explorers_and_the_pattern_builder():
    task = design_task("07-previous-token")
    builder = PatternBuilder(goal=task.name)
    line = builder.goal_html
    assert isinstance(line, GoalLine) and not builder.goal_met and line.feedback is builder.goal_feedback
    assert "✗" in html_text(line) and task.goal.split()[0] in html_text(line)
    with builder.hold_trait_notifications():
        for name in ("W_q", "W_k"):
            builder.editors[name].value = task.solution[name]
    assert builder.goal_met and line.met and "✓" in html_text(line)
    start = design_task("01-sat-attends-cat")
    arrays = {**start.start, **start.given}
    ex = AttentionExplorer([f"t{i}" for i in range(6)], arrays["X"], arrays["W_q"], arrays["W_k"], arrays["W_v"],
                           goal=start.name)
    assert isinstance(ex.goal_html, GoalLine) and ex.goal_html.feedback is ex.goal_feedback
    ex.editors["X"].value = start.solution["X"]
    assert ex.goal_met and "✓" in html_text(ex.goal_html)
    ex.causal = True  # a setting the goal does not assume: the line says the goal is judged without it
    assert "judged without the causal mask" in html_text(ex.goal_html)
    ex.close_all()
    hidden = GoalLine(None)
    assert hidden.layout.display == "none" and not hidden.met and "attn-goal" in hidden._dom_classes


def _part(root, cls):
    """The one widget under ``root`` with the CSS class ``cls``."""
    (found,) = (w for w in walk(root) if cls in w._dom_classes)
    return found


@pytest.fixture
def cross():
    """3 decoder tokens and 5 encoder tokens: a causal mask is refused."""
    e = CrossAttentionExplorer(["le", "chat", "dort"], ["the", "cat", "is", "asleep", "now"], np.eye(3),
                               np.ones((5, 3)), np.eye(3), np.eye(3), np.eye(3))
    yield e
    e.close_all()
