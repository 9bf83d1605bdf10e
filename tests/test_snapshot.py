"""The static picture a stored widget output carries (helpers.widgets.snapshot), read as a page reads it.

A notebook stored without widget state shows each widget's ``text/html`` picture until its cell runs: on GitHub,
nbviewer, the course's web site and in JupyterLab before "Run All". These tests parse the picture as HTML and check
what a reader of that page gets: the matrices' numbers, the weights table, the stable CSS classes (README, "For
authors"), the controls' accessible names, nothing hidden, nothing executable, and the same bytes for the same widget.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import ipywidgets as widgets
import numpy as np
import pytest

from helpers.core.parsing import parse_number
from helpers.demos.practice import PracticeQuestion, question_text
from helpers.exercises import QUESTIONS
from helpers.look.mathtext import math_html
from helpers.widgets import AttentionExplorer, MatrixEditor
from helpers.widgets.live import RUN_TO_SHOW
from helpers.widgets.predict import predict
from helpers.widgets.snapshot import OMIT_CLASS, PARTIAL_NOTE, SNAPSHOT_CLASS, STATIC_NOTE, snapshot_html

TOKENS = ["ant", "bee", "cow"]
X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, -1.0]])
W_Q = np.array([[1.0, 0.5], [0.0, 1.0]])
W_K = np.array([[0.0, 1.0], [1.0, 0.0]])
W_V = np.array([[2.0, 0.0], [-1.0, 3.0]])
BLOCKS = {"div", "p", "pre", "table", "tr", "td", "th", "li", "ul", "details", "summary", "label", "button",
          "select", "option", "textarea"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    """An element of the parsed picture: its tag, attributes, children and text."""

    def __init__(self, tag: str, attrs: dict, parent: Node | None = None):
        self.tag, self.attrs, self.parent, self.children, self.parts = tag, attrs, parent, [], []

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def text(self) -> str:
        """The words this element shows (what ``textContent`` holds, spaces collapsed)."""
        return " ".join("".join(p if isinstance(p, str) else f" {p.text()} " if p.tag in BLOCKS else p.text()
                                for p in self.parts).split())

    def iter(self):
        yield self
        for child in self.children:
            yield from child.iter()

    def find_all(self, cls: str | None = None, tag: str | None = None) -> list[Node]:
        return [n for n in self.iter() if (cls is None or cls in n.classes) and (tag is None or n.tag == tag)]

    def find(self, cls: str | None = None, tag: str | None = None) -> Node:
        found = self.find_all(cls, tag)
        assert found, f"no element {tag or ''}.{cls or ''} in the picture"
        return found[0]


class Picture(HTMLParser):
    """The picture as a tree of :class:`Node`; fails on a tag closed out of order (the markup must be well formed)."""

    def __init__(self, markup: str):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]
        self.feed(markup)
        self.close()
        assert self.stack == [self.root], f"unclosed elements: {[n.tag for n in self.stack[1:]]}"

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.stack[-1])
        self.stack[-1].children.append(node)
        self.stack[-1].parts.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].parts.append(data)


def parsed(widget) -> Node:
    return Picture(snapshot_html(widget)).root


def explorer(**kwargs) -> AttentionExplorer:
    return AttentionExplorer(TOKENS, X, W_Q, W_K, W_V, **kwargs)


def weights_by_hand(X, W_q, W_k) -> np.ndarray:
    S = (X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def inputs_of(node: Node) -> list[Node]:
    return node.find_all(tag="input")


def accessible_name(control: Node) -> str:
    """Its aria-label, else the text of the <label> it is in, else its own text, else its title."""
    label = control.parent
    while label is not None and label.tag != "label":
        label = label.parent
    return (control.attrs.get("aria-label") or (label.text() if label is not None else "") or control.text()
            or control.attrs.get("title", ""))


# ---------------------------------------------------------------------------------------------- an explorer


def test_an_explorers_picture_keeps_the_css_classes_of_design_3():
    classes = {c for n in parsed(explorer()).iter() for c in n.classes}
    for cls in ("attn-explorer", "attn-explorer-self", "course-widget", "attn-editor-X", "attn-editor-W_q",
                "attn-editor-W_k", "attn-editor-W_v", "attn-view-weights", "attn-view-output", "matrix-editor",
                "matrix-editor-grid", "matrix-editor-message", SNAPSHOT_CLASS):
        assert cls in classes, f"class {cls} missing from the picture"


def test_an_explorers_picture_holds_every_matrix_it_was_built_with():
    root = parsed(explorer())
    for name, M in (("X", X), ("W_q", W_Q), ("W_k", W_K), ("W_v", W_V)):
        grid = root.find(f"attn-editor-{name}").find("matrix-editor-grid")
        shown = [parse_number(cell.attrs["value"]) for cell in inputs_of(grid)]
        assert shown == M.ravel().tolist(), name


def test_a_grids_picture_keeps_every_item_in_its_place():
    grid = parsed(MatrixEditor(X, row_labels=TOKENS, title="X")).find("matrix-editor-grid")
    n, m = X.shape
    # A table: the empty corner and the column labels, then each row's label and cells, in order.
    rows = grid.find_all(tag="tr")
    assert grid.tag == "table" and len(rows) == n + 1
    assert [c.text() for c in rows[0].children] == ["", "d1", "d2"]
    for tr, token in zip(rows[1:], TOKENS):
        assert len(tr.children) == m + 1 and tr.children[0].tag == "th" and tr.children[0].text() == token
        assert [td.children[0].tag for td in tr.children[1:]] == ["input"] * m


def test_an_explorers_picture_holds_the_weights_table():
    table = parsed(explorer()).find("attn-view-weights").find(tag="table")
    numbers = [float(td.text()) for tr in table.find_all(tag="tr") for td in tr.find_all(tag="td")
               if re.fullmatch(r"-?\d+\.\d+", td.text())]
    expected = weights_by_hand(X, W_Q, W_K)
    # Each row of weights, then its row sum (1.00).
    shown = np.array(numbers).reshape(len(TOKENS), len(TOKENS) + 1)
    np.testing.assert_allclose(shown[:, :-1], expected, atol=0.0051)
    np.testing.assert_allclose(shown[:, -1], 1.0)
    for token in TOKENS:
        assert token in table.text()


def test_the_picture_follows_the_widget_after_an_edit():
    ex = explorer()
    ex.editors["X"].set_text(0, 1, "3")
    edited = X.copy()
    edited[0, 1] = 3.0
    root = parsed(ex)
    assert [parse_number(c.attrs["value"]) for c in inputs_of(root.find("attn-editor-X"))] == edited.ravel().tolist()
    table = root.find("attn-view-weights").find(tag="table")
    first_row = [float(td.text()) for td in table.find_all(tag="tr")[2].find_all(tag="td")][:len(TOKENS)]
    np.testing.assert_allclose(first_row, weights_by_hand(edited, W_Q, W_K)[0], atol=0.0051)


def test_every_control_in_the_picture_is_disabled_and_has_a_name():
    root = parsed(explorer())
    controls = root.find_all(tag="input") + root.find_all(tag="button") + root.find_all(tag="select")
    assert controls
    for control in controls:
        assert "disabled" in control.attrs, f"<{control.tag}> {control.attrs} is not disabled"
        assert accessible_name(control), f"<{control.tag}> {control.attrs} has no accessible name"
    cells = inputs_of(root.find("attn-editor-X").find("matrix-editor-grid"))
    assert [accessible_name(c) for c in cells[:2]] == ["X, row ant, column d1", "X, row ant, column d2"]


def test_the_folded_steps_and_hidden_widgets_are_left_out():
    root = parsed(explorer())
    classes = {c for n in root.iter() for c in n.classes}
    assert "attn-steps" not in classes and "attn-view-scores" not in classes
    assert "course-text-style" not in classes  # the hidden style widget of every course widget
    # The buttons that save the weights for a slide act on a live explorer only; they hide nothing from the picture.
    assert "save-figure" not in classes and "Save PNG" not in root.text()
    # The trace's calculation is left out of the picture (the longest part, the least needed without a kernel): the
    # note says the live widget shows more.
    assert "attn-trace" not in classes and "attn-trace-fold" not in classes
    assert root.find("cs-note").text() == PARTIAL_NOTE
    shown = parsed(explorer(steps=True))
    assert shown.find("attn-view-scores").find(tag="table")


def test_a_hidden_widget_is_left_out_with_everything_in_it():
    box = widgets.VBox([widgets.HTML("<p>on show</p>"),
                        widgets.VBox([widgets.HTML("<p>tucked away</p>")], layout=widgets.Layout(display="none"))])
    text = parsed(box).text()
    assert "on show" in text and "tucked away" not in text


def test_a_part_marked_to_omit_is_left_out_and_the_note_says_so():
    kept, omitted = widgets.HTML("<p>the weights</p>"), widgets.HTML("<p>a stage</p>")
    omitted.add_class(OMIT_CLASS)
    root = parsed(widgets.VBox([kept, omitted]))
    assert "the weights" in root.text() and "a stage" not in root.text()
    assert root.find("cs-note").text() == PARTIAL_NOTE
    assert parsed(widgets.VBox([kept])).find("cs-note").text() == STATIC_NOTE


# ---------------------------------------------------------------------------------------------- escaping


def test_text_from_widget_values_is_escaped_and_course_html_kept():
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    box = widgets.VBox([
        widgets.Text(value=evil, description='name "<b>"'),
        widgets.Textarea(value="</textarea><script>1</script>"),
        widgets.Label(value="<i>not italic</i>"),
        widgets.Button(description="<b>go</b>", tooltip='"x" onmouseover=alert(1)'),
        widgets.Dropdown(options=["<a>", "b"], value="<a>", description="pick"),
        widgets.HTML("<b>bold, as the course wrote it</b>"),
    ])
    markup = snapshot_html(box)
    root = Picture(markup).root
    tags = {n.tag for n in root.iter()}
    assert "script" not in tags and "img" not in tags
    handlers = [name for n in root.iter() for name in n.attrs if name.startswith("on")]
    assert not handlers, f"event handler attributes in the picture: {handlers}"
    assert "<b>bold, as the course wrote it</b>" in markup
    field = root.find(tag="input")
    assert field.attrs["value"] == evil and accessible_name(field) == 'name "<b>"'
    assert root.find(tag="textarea").text() == "</textarea><script>1</script>"
    assert "<i>not italic</i>" in root.text()
    assert root.find(tag="button").text() == "<b>go</b>"
    assert root.find(tag="option").text() == "<a>"


# ---------------------------------------------------------------------------------------------- the same bytes


def test_the_same_widget_gives_the_same_bytes():
    first, second = explorer(), explorer()
    assert snapshot_html(first) == snapshot_html(first) == snapshot_html(second)
    assert not re.search(r"\sid=|0x[0-9a-f]{6,}|[0-9a-f]{32}", snapshot_html(first)), "an id in the picture"


def test_two_pictures_on_one_page_do_not_restyle_each_other():
    # A <style> in an output applies to the whole page: each picture's shared classes are scoped to it.
    pictures = [snapshot_html(explorer()), snapshot_html(explorer(causal=True))]
    scopes = [Picture(p).root.find(SNAPSHOT_CLASS).classes[-1] for p in pictures]
    assert scopes[0] != scopes[1]
    for markup, scope in zip(pictures, scopes):
        shared = re.findall(r"([^{}]*)\{[^{}]*\}", markup.split("<style>")[1].split("</style>")[0])
        for selector in shared:
            if re.search(r"\.s\d+\b", selector):
                assert selector.startswith(f".{scope} "), selector


def test_the_picture_is_compact_and_styled_through_classes():
    markup = snapshot_html(explorer())
    # One <style> for the whole picture; the styles of the parts are classes in it (each written once), so that a
    # page that drops the <style> shows the picture plain throughout. Only a grid keeps its shape inline.
    assert markup.count("<style>") == 1
    styled = [n for n in Picture(markup).root.iter() if "style" in n.attrs]
    inline = [n.attrs for n in styled if "cs-grid" not in n.classes]
    assert not inline, f"inline styles outside a grid: {inline[:3]}"
    assert all(n.attrs["style"].startswith("display:grid;") for n in styled)
    assert len(markup) < 30_000


def rules(markup: str) -> list[str]:
    """The rules of the picture's <style>, one string each."""
    style = re.search(r"<style>(.*?)</style>", markup)
    return re.findall(r"[^{}]+\{[^{}]*\}", style.group(1)) if style else []


def test_the_general_rules_are_written_once_per_page_and_each_picture_keeps_its_own():
    page: set[str] = set()
    first, second = explorer(), explorer(causal=True)
    alone = rules(snapshot_html(second))
    on_page = [rules(snapshot_html(w, written=page)) for w in (first, second)]
    general = [r for r in alone if not re.match(r"\.cs-[0-9a-f]{6} ", r)]  # not scoped to one picture
    own = [r for r in alone if r not in general]
    assert general and own
    assert set(general) <= set(on_page[0])  # the first picture on a page carries the look of buttons, fields ...
    assert not set(general) & set(on_page[1])  # ... and the next one does not repeat it
    assert own == on_page[1]  # its own (scoped) styles it always carries
    assert len(snapshot_html(second, written=page)) < len(snapshot_html(second)) - 1000


# ---------------------------------------------------------------------------------------------- the output


def without_style(markup: str) -> str:
    return re.sub(r"<style>.*?</style>", "", markup)


def test_a_course_widgets_output_carries_its_picture_beside_its_text_form(monkeypatch):
    monkeypatch.delenv("VOILA_KERNEL_ID", raising=False)
    monkeypatch.delenv("COURSE_LECTURE", raising=False)
    ex = explorer()
    bundle = ex._repr_mimebundle_()
    assert bundle["text/plain"].endswith(f"({RUN_TO_SHOW})")
    assert without_style(bundle["text/html"]) == without_style(snapshot_html(ex))
    assert bundle["text/html"].startswith(f"<div class='{SNAPSHOT_CLASS} ")
    editor = MatrixEditor(X, title="X")
    assert "matrix-editor-grid" in editor._repr_mimebundle_()["text/html"]


def test_the_lecture_mode_shows_the_live_widget_without_a_picture(monkeypatch):
    """Voila (it sets VOILA_KERNEL_ID in its kernels) always draws the live widget: no picture is built."""
    monkeypatch.delenv("COURSE_LECTURE", raising=False)
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    bundle = explorer()._repr_mimebundle_()
    assert "text/html" not in bundle
    assert bundle["text/plain"].endswith(f"({RUN_TO_SHOW})")
    assert "application/vnd.jupyter.widget-view+json" in bundle


@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_a_practice_questions_picture_shows_the_question_and_its_options(qid):
    q = QUESTIONS[qid]
    root = parsed(PracticeQuestion(qid))
    assert "practice-question" in root.find("practice-question").classes
    text = root.text()
    # Its math typeset ("d_k" as d<sub>k</sub>), read as the text of the picture's nodes.
    typeset = html.unescape(re.sub(r"<[^>]+>", "", math_html(question_text(q))))
    assert root.find("practice-question-text").text() == " ".join(typeset.split())
    for choice in q.choices:
        assert choice.key in text
    folds = [n.find(tag="summary").text() for n in root.find_all(tag="details") if "cs-fold" in n.classes]
    assert folds == ["Hint", "Worked solution"]
    assert root.find(tag="button").text() == "Check"


def test_a_predictions_picture_shows_its_question_and_options():
    w = predict("07-shuffle")
    root = parsed(w)
    assert root.find("predict").find("predict-question").text().startswith("Predict, then commit")
    assert root.find("predict-commit").text() == "Commit"
