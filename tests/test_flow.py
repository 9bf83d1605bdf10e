"""The data-flow diagram of the attention step (helpers.flow): the steps and shapes it draws, the highlight, the alt
text, and the arguments it refuses."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from helpers import theme
from helpers.flow import STEP_NAMES, attention_flow, flow_steps

ONE_HEAD = ["X", "QKV", "scores", "scaled", "weights", "output"]
HEADS = ["X", "QKV", "split", "scores", "scaled", "weights", "output", "concat", "W_O", "residual"]


def names(steps):
    return [s.name for s in steps]


def drawn_text(fig) -> str:
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def boxes(fig) -> dict:
    """The step boxes of a drawn diagram, by step name (their gid is "flow-step-<name>")."""
    return {p.get_gid().removeprefix("flow-step-"): p for ax in fig.axes for p in ax.patches
            if (p.get_gid() or "").startswith("flow-step-")}


def test_the_steps_in_order_for_each_setting():
    assert names(flow_steps()) == ONE_HEAD
    assert names(flow_steps(masked=True)) == ONE_HEAD[:4] + ["masked"] + ONE_HEAD[4:]
    assert names(flow_steps(heads=True)) == HEADS
    assert names(flow_steps(masked=True, heads=True)) == HEADS[:5] + ["masked"] + HEADS[5:]
    assert set(names(flow_steps(masked=True, heads=True))) == set(STEP_NAMES)
    assert [s.name for s in flow_steps(heads=True) if s.per_head] == ["scores", "scaled", "weights", "output"]
    assert not any(s.per_head for s in flow_steps(masked=True))


def test_symbolic_shapes_of_one_head():
    shapes = {s.name: s.shape for s in flow_steps(masked=True)}
    assert shapes == {"X": "(n, d_model)", "QKV": "Q, K (n, d_k); V (n, d_v)", "scores": "(n, n)",
                      "scaled": "(n, n)", "masked": "(n, n)", "weights": "(n, n)", "output": "(n, d_v)"}


def test_sizes_are_written_into_the_shapes():
    shapes = {s.name: s.shape for s in flow_steps(n=3, d_model=4, d_k=2)}
    assert shapes == {"X": "(3, 4)", "QKV": "(3, 2) each", "scores": "(3, 3)", "scaled": "(3, 3)",
                      "weights": "(3, 3)", "output": "(3, 2)"}
    shapes = {s.name: s.shape for s in flow_steps(n=3, d_model=4, d_k=2, d_v=3)}
    assert shapes["QKV"] == "Q, K (3, 2); V (3, 3)" and shapes["output"] == "(3, 3)"
    # A size left out stays a symbol.
    assert {s.name: s.shape for s in flow_steps(n=6)}["QKV"] == "Q, K (6, d_k); V (6, d_v)"


def test_multi_head_shapes_follow_from_d_model_and_h():
    shapes = {s.name: s.shape for s in flow_steps(heads=True, n=3, d_model=4, h=2)}
    assert shapes == {"X": "(3, 4)", "QKV": "(3, 4) each", "split": "2 × (3, 2)", "scores": "(3, 3)",
                      "scaled": "(3, 3)", "weights": "(3, 3)", "output": "(3, 2)", "concat": "(3, 4)",
                      "W_O": "(3, 4)", "residual": "(3, 4)"}
    shapes = {s.name: s.shape for s in flow_steps(heads=True, n=20, d_model=768, h=12)}
    assert shapes["split"] == "12 × (20, 64)" and shapes["output"] == "(20, 64)" and shapes["concat"] == "(20, 768)"
    assert {s.name: s.shape for s in flow_steps(heads=True)}["split"] == "h × (n, d_k)"
    assert {s.name: s.shape for s in flow_steps(heads=True, d_model=512, d_k=64)}["split"] == "8 × (n, 64)"


@pytest.mark.parametrize("kwargs, words", [
    (dict(heads=True, d_model=6, h=4), "h = 4 does not divide d_model = 6"),
    (dict(heads=True, d_model=8, h=2, d_k=3), "d_k = 3, but d_model / h = 8 / 2 = 4"),
    (dict(heads=True, d_v=2), "d_v is not an argument with heads=True"),
    (dict(h=2), "h is an argument only with heads=True"),
    (dict(n=0), "n must be a whole number ≥ 1 or None; got 0"),
    (dict(d_k=2.5), "d_k must be a whole number ≥ 1 or None; got 2.5"),
    (dict(n=True), "n must be a whole number"),
])
def test_sizes_that_do_not_fit_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        flow_steps(**{k: v for k, v in kwargs.items() if k != "heads"}, heads=kwargs.get("heads", False))


@pytest.mark.parametrize("kwargs", [dict(), dict(masked=True), dict(heads=True), dict(heads=True, masked=True),
                                    dict(n=3, d_model=4, d_k=2, d_v=3), dict(heads=True, n=3, d_model=4, h=2)])
def test_the_figure_draws_every_step_with_its_title_and_shape(kwargs):
    fig = attention_flow(**kwargs)
    assert isinstance(fig, Figure) and not hasattr(fig, "number")   # a plain Figure, not pyplot's
    text = drawn_text(fig)
    steps = flow_steps(**{k: v for k, v in kwargs.items()})
    assert sorted(boxes(fig)) == sorted(names(steps))
    for step in steps:
        assert step.title_math in text and step.formula_math in text and step.shape_math in text, step.name
    if kwargs.get("heads"):
        count = {s.name: s.shape for s in steps}["split"].split(" × ")[0]
        assert f"in each of the {count} heads, on its own columns of Q, K, V" in text


def test_the_highlighted_step_is_marked_and_named_in_the_title_and_the_alt_text():
    fig = attention_flow("scores", n=3, d_model=4, d_k=2)
    marked = {name for name, box in boxes(fig).items() if box.get_edgecolor() == to_rgba(theme.HIGHLIGHT)}
    assert marked == {"scores"}
    assert "Highlighted: scores (S = QKᵀ, shape (3, 3))." in fig.alt
    assert "One attention step: scores" in drawn_text(fig)
    fig = attention_flow(["concat", "W_O"], heads=True)
    marked = {name for name, box in boxes(fig).items() if box.get_edgecolor() == to_rgba(theme.HIGHLIGHT)}
    assert marked == {"concat", "W_O"}
    assert fig.alt.endswith("Highlighted: concatenate (Concat(head_1, …, head_h), shape (n, d_model)); "
                            "× W^O (Concat · W^O, W^O (d_model, d_model), shape (n, d_model)).")


def test_nothing_highlighted():
    fig = attention_flow()
    assert "Highlighted" not in fig.alt
    assert not any(box.get_edgecolor() == to_rgba(theme.HIGHLIGHT) for box in boxes(fig).values())


def test_the_alt_text_reads_the_whole_flow_in_order():
    fig = attention_flow("weights", masked=True, n=3, d_model=4, d_k=2)
    assert fig.alt.startswith("Data flow of one attention step. tokens X: one row per token, shape (3, 4) → "
                              "Q, K, V: Q = XW^Q, K = XW^K, V = XW^V, shape (3, 2) each → scores: S = QKᵀ, shape "
                              "(3, 3) → scaled: S / √d_k, shape (3, 3) → masked:")
    positions = [fig.alt.index(f"{s.title}: ") for s in flow_steps(masked=True)]
    assert positions == sorted(positions)
    heads = attention_flow(heads=True).alt
    assert "→ in each head: scores: S_i = Q_iK_iᵀ" in heads and "+ X (residual): X + output" in heads


@pytest.mark.parametrize("highlight, kwargs, words", [
    ("nope", {}, "no step is called 'nope'; the steps are X, QKV, scores, scaled, weights, output"),
    ("masked", {}, "the step 'masked' is drawn only with masked=True"),
    ("split", {}, "the step 'split' is drawn only with heads=True"),
    (["scores", "W_O"], {}, "the step 'W_O' is drawn only with heads=True"),
    (3, {}, "highlight must be a step's name, a list of them, or None"),
])
def test_a_step_that_is_not_drawn_cannot_be_highlighted(highlight, kwargs, words):
    with pytest.raises(ValueError, match=words):
        attention_flow(highlight, **kwargs)


def test_the_figure_is_drawn_on_the_course_paper():
    fig = attention_flow("QKV")
    assert fig.get_facecolor() == to_rgba(theme.FIGURE_FACE)
    colours = {t.get_color() for ax in fig.axes for t in ax.texts}
    assert colours == {theme.FIGURE_FG}


@pytest.mark.parametrize("h, cards", [(None, 3), (1, 1), (2, 2), (3, 3), (12, 3)])
def test_each_per_head_step_is_a_stack_of_one_card_per_head_up_to_three(h, cards):
    """The cards behind a per-head box stand for the other heads: as many as there are, drawn up to three in all."""
    fig = attention_flow(heads=True, d_model=12, h=h) if h else attention_flow(heads=True)
    per_head = [s.name for s in flow_steps(heads=True) if s.per_head]
    front = boxes(fig)
    for name in per_head:
        x, y = front[name].get_x(), front[name].get_y()
        stack = [p for ax in fig.axes for p in ax.patches if type(p) is type(front[name])
                 and 0 <= p.get_x() - x < 0.5 and 0 <= p.get_y() - y < 0.5]
        assert len(stack) == cards, (name, len(stack))
