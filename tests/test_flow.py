"""The data-flow diagram of the attention step (helpers.look.flow): the steps and shapes it draws, the highlight, the
alt text, and the arguments it refuses."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from helpers.look import theme
from helpers.look.flow import STEP_NAMES, attention_flow, flow_steps

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


# --------------------------------------------------------------------------- cross-attention

def test_cross_attention_keeps_the_steps_and_takes_two_lengths():
    assert names(flow_steps(cross=True)) == ONE_HEAD
    assert names(flow_steps(masked=True, cross=True)) == ONE_HEAD[:4] + ["masked"] + ONE_HEAD[4:]
    assert names(flow_steps(heads=True, cross=True)) == HEADS
    shapes = {s.name: s.shape for s in flow_steps(masked=True, cross=True)}
    assert shapes == {"X": "X_dec (n_q, d_model); X_enc (n_k, d_model)",
                      "QKV": "Q (n_q, d_k); K (n_k, d_k); V (n_k, d_v)", "scores": "(n_q, n_k)",
                      "scaled": "(n_q, n_k)", "masked": "(n_q, n_k)", "weights": "(n_q, n_k)", "output": "(n_q, d_v)"}


def test_cross_attention_sizes_are_written_into_the_shapes():
    """06's first example: 6 decoder positions ask, 4 source tokens answer; scores and weights are 6 × 4."""
    steps = {s.name: s for s in flow_steps(cross=True, n_q=6, n_k=4, d_model=4, d_k=2)}
    assert {name: s.shape for name, s in steps.items()} == {
        "X": "X_dec (6, 4); X_enc (4, 4)", "QKV": "Q (6, 2); K, V (4, 2)", "scores": "(6, 4)", "scaled": "(6, 4)",
        "weights": "(6, 4)", "output": "(6, 2)"}
    assert steps["QKV"].formula == "Q = X_dec W^Q, K = X_enc W^K, V = X_enc W^V"
    assert steps["QKV"].shape_math == "$Q$ $(6, 2)$\n$K, V$ $(4, 2)$"
    # d_v apart from d_k: V's shape of its own; one length given, the other stays a symbol.
    assert {s.name: s.shape for s in flow_steps(cross=True, n_q=6, n_k=4, d_k=2, d_v=3)}["QKV"] == \
        "Q (6, 2); K (4, 2); V (4, 3)"
    assert {s.name: s.shape for s in flow_steps(cross=True, n_k=4)}["scores"] == "(n_q, 4)"
    # Equal lengths draw a square, still with each input named.
    assert {s.name: s.shape for s in flow_steps(cross=True, n_q=3, n_k=3, d_model=4, d_k=2)}["X"] == \
        "X_dec (3, 4); X_enc (3, 4)"


def test_multi_head_cross_attention_splits_both_sides_and_adds_x_dec():
    steps = {s.name: s for s in flow_steps(heads=True, cross=True, n_q=6, n_k=4, d_model=4, h=2)}
    assert {name: s.shape for name, s in steps.items()} == {
        "X": "X_dec (6, 4); X_enc (4, 4)", "QKV": "Q (6, 4); K, V (4, 4)", "split": "Q 2 × (6, 2); K, V 2 × (4, 2)",
        "scores": "(6, 4)", "scaled": "(6, 4)", "weights": "(6, 4)", "output": "(6, 2)", "concat": "(6, 4)",
        "W_O": "(6, 4)", "residual": "(6, 4)"}
    assert steps["residual"].title == "+ X_dec (residual)" and steps["residual"].formula.startswith("X_dec + output")


def test_the_cross_attention_figure_draws_its_shapes_and_names_both_inputs():
    fig = attention_flow("QKV", cross=True, n_q=6, n_k=4, d_model=4, d_k=2)
    text = drawn_text(fig)
    for shape in ("$X_{dec}$ $(6, 4)$\n$X_{enc}$ $(4, 4)$", "$Q$ $(6, 2)$\n$K, V$ $(4, 2)$", "$(6, 4)$", "$(6, 2)$"):
        assert shape in text, shape
    assert r"$Q = X_{dec}W^Q$" in text and r"$K = X_{enc}W^K$" in text and r"$V = X_{enc}W^V$" in text
    assert "Cross-attention: $Q$, $K$, $V$" in text
    marked = {name for name, box in boxes(fig).items() if box.get_edgecolor() == to_rgba(theme.HIGHLIGHT)}
    assert marked == {"QKV"}
    assert fig.alt.startswith("Data flow of one cross-attention step. tokens X_dec, X_enc: X_dec the decoder's tokens "
                              "(queries), X_enc the encoder's (keys and values), shape X_dec (6, 4); X_enc (4, 4) → ")
    assert "scores: S = QKᵀ, shape (6, 4) →" in fig.alt and "output: AV, shape (6, 2)." in fig.alt
    assert fig.alt.endswith("Highlighted: Q, K, V (Q = X_dec W^Q, K = X_enc W^K, V = X_enc W^V, shape Q (6, 2); "
                            "K, V (4, 2)).")


@pytest.mark.parametrize("highlight, kwargs", [
    ("masked", dict(masked=True)), ("split", dict(heads=True, d_model=4, h=2)),
    (["concat", "residual"], dict(heads=True, masked=True)), (None, {})])
def test_every_cross_attention_figure_draws_each_step_and_marks_only_the_highlight(highlight, kwargs):
    fig = attention_flow(highlight, cross=True, n_q=5, n_k=3, **kwargs)
    steps = flow_steps(cross=True, n_q=5, n_k=3, **kwargs)
    assert sorted(boxes(fig)) == sorted(names(steps))
    text = drawn_text(fig)
    for step in steps:
        assert step.title_math in text and step.formula_math in text and step.shape_math in text, step.name
    marked = {name for name, box in boxes(fig).items() if box.get_edgecolor() == to_rgba(theme.HIGHLIGHT)}
    assert marked == ({highlight} if isinstance(highlight, str) else set(highlight or ()))
    assert "X_dec" in fig.alt and "X_enc" in fig.alt
    kind = "multi-head cross-attention" if kwargs.get("heads") else "one cross-attention step"
    assert fig.alt.startswith(f"Data flow of {kind}.")


@pytest.mark.parametrize("kwargs, words", [
    (dict(cross=True, n=4), "n = 4 is the one length of self-attention; with cross=True give n_q"),
    (dict(cross=True, n=4, n_q=4, n_k=4), "n = 4 is the one length of self-attention"),
    (dict(n_q=6), "n_q is an argument only with cross=True"),
    (dict(n_k=4, n=4), "n_k is an argument only with cross=True"),
    (dict(n_q=6, n_k=4), "n_q and n_k are arguments only with cross=True"),
    (dict(cross=True, n_q=0), "n_q must be a whole number ≥ 1 or None; got 0"),
    (dict(cross=True, n_k=2.5), "n_k must be a whole number ≥ 1 or None; got 2.5"),
    (dict(cross=True, heads=True, d_model=6, h=4), "h = 4 does not divide d_model = 6"),
])
def test_cross_attention_sizes_that_contradict_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        flow_steps(**kwargs)
    with pytest.raises(ValueError, match=words):
        attention_flow(**kwargs)


# --------------------------------------------------------------------------- as SVG, and on a projector


def step_columns(fig) -> set:
    return {round(p.get_x(), 3) for p in boxes(fig).values()}


def test_the_diagram_is_vector_graphics_with_its_text_as_text(monkeypatch):
    """Boxes and words: an SVG whose labels are <text>, shown in a notebook as an <img> with the alt text, the same
    bytes each time (a stored notebook is reproducible), and no ids that a second diagram on the page would repeat."""
    import re

    from helpers.look.render import diagram_svg_html

    monkeypatch.setenv("COURSE_LECTURE", "0")
    fig = attention_flow("scores", n=3, d_model=4, d_k=2)
    html = diagram_svg_html(fig)
    assert html.startswith(f'<img alt="{fig.alt[:40]}') and 'src="data:image/svg+xml,<svg' in html
    assert "scores</tspan>" in html or ">scores<" in html.replace("</tspan><tspan", "")
    assert html == diagram_svg_html(attention_flow("scores", n=3, d_model=4, d_k=2))
    assert not re.search(r"<g id=", html)
    assert "class='flow-step-scores'" in html


def test_on_a_projector_the_diagram_is_three_boxes_wide_with_larger_text(monkeypatch):
    """The lecture mode draws the same steps in rows of at most three, a tenth larger: on a 1024 px projector the
    diagram then fills the column at a scale where its smallest text is over 18 px (test_lecture.py measures it)."""
    from helpers.look.render import diagram_svg_html

    monkeypatch.setenv("COURSE_LECTURE", "0")
    wide = {kw: attention_flow(None, **dict(kw)) for kw in ((), (("masked", True),), (("heads", True),))}
    monkeypatch.setenv("COURSE_LECTURE", "1")
    for kw, fig in wide.items():
        lecture = attention_flow(None, **dict(kw))
        assert set(boxes(lecture)) == set(boxes(fig))
        assert len(step_columns(lecture)) == 3 < len(step_columns(fig))
        assert lecture.get_size_inches()[0] < 0.8 * fig.get_size_inches()[0]
        smallest = min(t.get_fontsize() for ax in lecture.axes for t in ax.texts)
        assert smallest >= 1.1 * min(t.get_fontsize() for ax in fig.axes for t in ax.texts) - 1e-9
    html = diagram_svg_html(attention_flow("QKV"))
    assert html.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and 'class="course-svg course-diagram"' in html
    assert 'role="img" aria-label="Data flow of one attention step.' in html
