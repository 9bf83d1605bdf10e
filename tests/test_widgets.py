"""The matrix editor and the explorers, driven the way a learner drives them.

Every expected number comes from plain numpy formulas written out in this file, not
from helpers.core.attention, so a mistake in the widgets' plumbing cannot hide behind the
library it calls.
"""

import ast
import html
import re

import ipywidgets
import numpy as np
import pytest
import traitlets
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from helpers.widgets import AttentionExplorer, CrossAttentionExplorer, MatrixEditor, parse_number
from helpers.widgets.live import LiveWidget

import junk

TOKENS = ["the", "cat", "sat", "down"]
X0 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [2.0, 1.0, 0.0], [-1.0, 2.0, 1.0]])
WQ = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
WK = np.array([[0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
WV = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 1.0], [2.0, 0.0, 1.0]])


def reference(X_q, X_kv, W_q, W_k, W_v, causal=False, scale=True):
    """Every stage of attention with plain numpy, written out independently."""
    Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
    S = Q @ K.T
    scaled = S / np.sqrt(W_q.shape[1]) if scale else S.copy()
    if causal:
        blocked = np.triu(np.ones(S.shape, dtype=bool), k=1)
        scaled_m = np.where(blocked, -np.inf, scaled)
    else:
        scaled_m = scaled
    e = np.exp(scaled_m - scaled_m.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return dict(Q=Q, K=K, V=V, scores=S, scaled=scaled, masked=scaled_m, weights=weights, output=weights @ V)


def assert_result_matches(res, ref):
    for name, expected in ref.items():
        np.testing.assert_allclose(getattr(res, name), expected, rtol=1e-12, atol=1e-12, err_msg=name)


def self_ref(ex, causal=None, scale=None):
    e = ex.editors
    X = e["X"].value
    return reference(X, X, e["W_q"].value, e["W_k"].value, e["W_v"].value,
                     ex.causal if causal is None else causal, ex.scale if scale is None else scale)


def snapshot(ex):
    """Everything a learner can see or a notebook can read, to check that nothing moved."""
    res = {k: getattr(ex.result, k).copy() for k in ("Q", "K", "V", "scores", "weights", "output")}
    return res, {k: w.value for k, w in ex.views.items()}, {k: e.value for k, e in ex.editors.items()}


def assert_same_state(ex, snap):
    res, views, values = snapshot(ex)
    for k in res:
        np.testing.assert_array_equal(res[k], snap[0][k])
    assert views == snap[1]
    for k in values:
        np.testing.assert_array_equal(values[k], snap[2][k])


@pytest.fixture
def ex():
    e = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    yield e
    e.close_all()


@pytest.fixture
def cross():
    rng = np.random.default_rng(3)
    e = CrossAttentionExplorer(
        ["le", "chat", "dort"], ["the", "cat", "is", "asleep", "now"],
        rng.integers(-2, 3, (3, 3)), rng.integers(-2, 3, (5, 3)), WQ, WK, WV,
    )
    yield e
    e.close_all()


def _classes_below(root) -> dict:
    """CSS class -> the widgets that carry it, over the whole tree under ``root`` (in display order)."""
    found, stack, seen = {}, [root], set()
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen.add(id(w))
        for cls in getattr(w, "_dom_classes", ()):
            found.setdefault(cls, []).append(w)
        stack.extend(reversed(getattr(w, "children", ())))
    return found


def part(root, cls):
    """The one widget under ``root`` with the CSS class ``cls`` (the classes are public API)."""
    found = _classes_below(root).get(cls, [])
    assert len(found) == 1, f"{len(found)} widgets with class {cls}"
    return found[0]


def widgets_below(root, kind=object):
    """Every widget under ``root`` of type ``kind``, in display order."""
    out, stack = [], [root]
    while stack:
        w = stack.pop()
        if isinstance(w, kind):
            out.append(w)
        stack.extend(reversed(getattr(w, "children", ())))
    return out


class _PageButton:
    """One of the editor's buttons as the page shows it: a click sends what the page sends."""

    _NAMES = {"Reset": "reset", "Random": "random", "numpy": "numpy", "Hide numpy": "numpy"}

    def __init__(self, ed, description):
        self.ed, self.name = ed, self._NAMES[description]

    def click(self):
        self.ed._handle_custom_msg({"event": "button", "name": self.name}, [])


def button(ed, description):
    """The editor's button that shows ``description`` (the numpy button says "Hide numpy" while the literal shows)."""
    assert ed.show_buttons, "the editor's buttons are hidden"
    shown = "Hide numpy" if description in ("numpy", "Hide numpy") and ed.literal else description
    assert shown == description, f"the button shows {shown!r}"
    return _PageButton(ed, description)


def type_into(ed, i, j, text):
    """What the page sends when the learner leaves cell (i, j) with ``text`` in it."""
    ed._handle_custom_msg({"event": "edit", "i": i, "j": j, "text": text}, [])


def grid_cells(ed):
    """The editor's cells, row by row: each one's ``value`` (its text) and ``description`` (its accessible name)."""
    n, m = ed.shape
    return [[ed.cell(i, j) for j in range(m)] for i in range(n)]


def marked_bad(ed):
    """The cells the page marks as refused (the ``matrix-editor-bad`` class), as (i, j)."""
    return {(i, j) for i, j, _reason in ed.bad}


def message_html(ed):
    return ed.message_html


def all_html(ex):
    return "".join(w.value for w in widgets_below(ex, ipywidgets.HTML))


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    "text, value",
    [
        ("3", 3.0),
        ("-2.5", -2.5),
        (".5", 0.5),
        ("1/2", 0.5),
        ("-3/4", -0.75),
        ("1e-3", 0.001),
        ("2.5E2", 250.0),
        ("+2", 2.0),
        ("−1", -1.0),  # U+2212, the minus sign that word processors and slides use
        ("−1/4", -0.25),
        ("  4  ", 4.0),
        ("\t7\n", 7.0),
        ("2.", 2.0),
        ("1 / 8", 0.125),
        ("0", 0.0),
        ("-0", 0.0),
        ("1e-400", 0.0),  # underflows to zero: a valid, finite number
    ],
)
def test_accepted_forms_parse_to_the_right_value(text, value):
    assert parse_number(text) == value


# What the number parser refuses, with the words of its reason (the one junk catalogue, tests/junk.py).
BAD = junk.REFUSED_AS_NUMBER


@pytest.fixture(scope="module")
def junk_target():
    """One explorer for every refused text: each test types into it and checks that it comes back, and the matrix
    is reset after each (a refusal that left something behind would show in the next test's checks)."""
    e = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    yield e
    e.close_all()


@pytest.fixture
def ex_after_junk(junk_target):
    yield junk_target
    junk_target.editors["X"].reset()


@pytest.mark.parametrize("text, reason", BAD)
def test_bad_input_is_refused_in_the_explorer_then_recovers(ex_after_junk, text, reason):
    ex = ex_after_junk
    np.testing.assert_array_equal(ex.editors["X"].value, X0)
    before = snapshot(ex)
    ex.editors["X"].set_text(1, 2, text)
    msg = ex.editors["X"].message
    assert msg.startswith("row 'cat', column d3: ")
    assert reason in msg
    assert html.escape(msg) in message_html(ex.editors["X"])  # shown as text: markup typed in a cell stays text
    assert_same_state(ex, before)  # the last valid matrix and every view stay
    ex.editors["X"].set_text(1, 2, "1/4")
    assert ex.editors["X"].message == ""
    assert message_html(ex.editors["X"]) == ""
    assert ex.editors["X"].value[1, 2] == 0.25
    assert_result_matches(ex.result, self_ref(ex))
    assert ex.result.Q[1, 1] == pytest.approx(X0[1] @ WQ[:, 1] + (0.25 - X0[1, 2]) * WQ[2, 1])


def test_typed_text_is_never_run_as_code(tmp_path):
    target = tmp_path / "created"
    with pytest.raises(ValueError):
        parse_number(f"__import__('pathlib').Path({str(target)!r}).touch()")
    assert not target.exists()


def test_several_bad_cells_are_all_listed_and_value_waits_for_all(ex):
    ed = ex.editors["X"]
    before = ed.value
    ed.set_text(0, 0, "x")
    ed.set_text(3, 1, "1/0")
    assert ed.message.split("\n") == [
        "row 'the', column d1: 'x' is not a number (e.g. 3, -2.5, 1/2, 1e-3)",
        "row 'down', column d2: '1/0' divides by zero",
    ]
    ed.set_text(0, 0, "5")
    assert ed.message == "row 'down', column d2: '1/0' divides by zero"
    np.testing.assert_array_equal(ed.value, before)  # still the last valid matrix
    ed.set_text(3, 1, "-1")
    expected = before.copy()
    expected[0, 0], expected[3, 1] = 5, -1
    np.testing.assert_array_equal(ed.value, expected)
    assert_result_matches(ex.result, self_ref(ex))


def test_bad_cell_is_marked_and_unmarked(ex):
    ed = ex.editors["W_q"]
    type_into(ed, 2, 1, "oops")
    assert marked_bad(ed) == {(2, 1)} and grid_cells(ed)[2][1].value == "oops"  # the text stays, marked
    assert ed.message.startswith("row 'd3', column q2: 'oops'")
    type_into(ed, 2, 1, "2")
    assert marked_bad(ed) == set() and ed.value[2, 1] == 2


# ------------------------------------------------------------------ the editor on its own


def test_editor_value_reset_randomize_and_callbacks():
    calls = []
    ed = MatrixEditor([[1, 2], [3, 4]], ["a", "b"], ["x", "y"], title="M")
    ed.on_change(lambda e: calls.append(e.value.copy()))
    ed.set_text(0, 1, "−0.5")
    assert ed.value.tolist() == [[1, -0.5], [3, 4]]
    assert len(calls) == 1 and calls[0].tolist() == ed.value.tolist()
    ed.set_text(1, 1, "bad")
    assert len(calls) == 1  # no callback for an invalid edit
    ed.reset()
    assert ed.value.tolist() == [[1, 2], [3, 4]] and ed.message == ""
    assert ed.cell_text(1, 1) == "4"
    ed.randomize(7)
    first = ed.value
    assert set(np.unique(first)) <= {-2, -1, 0, 1, 2}
    ed.randomize(7)
    np.testing.assert_array_equal(ed.value, first)
    assert [ed.cell_text(i, j) for i in range(2) for j in range(2)] == [str(int(v)) for v in first.ravel()]
    assert len(calls) == 4
    assert repr(ed) == "MatrixEditor(shape=(2, 2))"


def test_randomize_button_is_seeded_and_changes_with_each_click():
    a = MatrixEditor(np.zeros((3, 3)))
    b = MatrixEditor(np.zeros((3, 3)))
    button(a, "Random").click()
    button(b, "Random").click()
    np.testing.assert_array_equal(a.value, b.value)
    first = a.value
    button(a, "Random").click()
    assert not np.array_equal(a.value, first)


def test_randomize_differs_between_the_editors_of_one_explorer(ex):
    button(ex.editors["W_q"], "Random").click()
    button(ex.editors["W_k"], "Random").click()
    # W^Q = W^K would make every score matrix symmetric: a misleading coincidence.
    assert not np.array_equal(ex.editors["W_q"].value, ex.editors["W_k"].value)
    assert_result_matches(ex.result, self_ref(ex))


def test_nothing_is_printed_into_output_widgets_and_views_start_drawn(ex, cross):
    import ipywidgets

    for e in (ex, cross):
        stack = [e]
        while stack:
            w = stack.pop()
            assert not isinstance(w, ipywidgets.Output)
            stack.extend(getattr(w, "children", ()))
        # The first drawing is already in the HTML values: nothing depends on a later display.
        for name, view in e.views.items():
            assert view.value or (name == "mask" and not e.causal)


def test_set_text_accepts_a_number_as_what_would_be_typed(ex):
    ex.editors["X"].set_text(0, 0, 3)
    assert ex.editors["X"].cell_text(0, 0) == "3" and ex.editors["X"].value[0, 0] == 3


def test_reset_button_restores_start(ex):
    ed = ex.editors["W_v"]
    ed.set_text(0, 0, "9")
    button(ed, "Reset").click()
    np.testing.assert_array_equal(ed.value, WV)
    assert_result_matches(ex.result, self_ref(ex))


def shown_literals(ed) -> list:
    """The numpy literals the editor shows (none until its "numpy" button is clicked)."""
    return [ed.literal] if ed.literal else []


def test_copy_as_numpy_shows_a_literal_that_round_trips():
    ed = MatrixEditor([[1, -0.5], [0.25, 3]])
    assert shown_literals(ed) == []
    button(ed, "numpy").click()
    (text,) = shown_literals(ed)
    assert text == ed.as_numpy_literal() == "np.array([[1, -0.5], [0.25, 3]])"
    np.testing.assert_array_equal(np.array(ast.literal_eval(text[len("np.array("):-1])), ed.value)
    ed.set_text(0, 0, "2")
    assert shown_literals(ed) == ["np.array([[2, -0.5], [0.25, 3]])"]
    button(ed, "Hide numpy").click()
    assert shown_literals(ed) == []
    button(ed, "numpy").click()  # shown again: the same literal, up to date
    assert shown_literals(ed) == ["np.array([[2, -0.5], [0.25, 3]])"]


def test_set_text_outside_the_matrix_raises():
    ed = MatrixEditor(np.eye(2))
    with pytest.raises(IndexError, match=r"cell \(2, 0\) is outside the 2 × 2 matrix"):
        ed.set_text(2, 0, "1")


def test_editor_rejects_bad_starting_values():
    with pytest.raises(ValueError, match="2-D"):
        MatrixEditor([1, 2, 3])
    with pytest.raises(ValueError, match="finite"):
        MatrixEditor([[1, np.nan]])
    with pytest.raises(ValueError, match="row_labels has 1 labels"):
        MatrixEditor(np.eye(2), row_labels=["a"])


# ------------------------------------------------------------------ self-attention


def test_initial_result_matches_numpy_at_every_stage(ex):
    assert_result_matches(ex.result, reference(X0, X0, WQ, WK, WV))
    assert ex.result.mask.all()
    np.testing.assert_allclose(ex.result.weights.sum(axis=1), 1.0)


def test_edits_in_every_editor_flow_through_every_stage(ex):
    ex.editors["X"].set_text(2, 0, "-1.5")
    ex.editors["W_q"].set_text(0, 1, "3")
    ex.editors["W_k"].set_text(1, 0, "1/3")
    ex.editors["W_v"].set_text(2, 2, "−2")
    X = X0.copy()
    X[2, 0] = -1.5
    Wq, Wk, Wv = WQ.copy(), WK.copy(), WV.copy()
    Wq[0, 1], Wk[1, 0], Wv[2, 2] = 3, 1 / 3, -2
    assert_result_matches(ex.result, reference(X, X, Wq, Wk, Wv))


def test_views_show_the_new_numbers_after_an_edit():
    ex = AttentionExplorer(TOKENS, X0, np.eye(3)[:, :2], WK, WV)  # Q = the first two columns of X
    assert ">10.25<" not in ex.views["Q"].value
    ex.editors["X"].set_text(0, 0, "10.25")
    assert ">10.25<" in ex.views["Q"].value
    # The score of 'the' with itself: q·k = [10.25, 0, 2]·([10.25, 0, 2] W_k).
    k0 = np.array([10.25, 0, 2]) @ WK
    s00 = float(np.array([10.25, 0]) @ k0)
    # not every score is whole: two decimals throughout
    assert f">{s00:.2f}<".replace("-", "\u2212") in ex.views["scores"].value
    assert f"= {s00:g}".replace("-", "\u2212") in ex.trace_text


CIRCLED = "①②③④⑤⑥⑦⑧⑨"


def step_number(html: str) -> int:
    """The circled number in a view's title (① is 1)."""
    return next(CIRCLED.index(c) + 1 for c in html if c in CIRCLED)


def test_every_view_is_labelled_in_order(ex):
    v = ex.views
    assert "Q = X·W<sup>Q</sup>" in v["Q"].value and "Queries ↓" in v["Q"].value
    assert "K = X·W<sup>K</sup>" in v["K"].value and "V = X·W<sup>V</sup>" in v["V"].value
    assert "scores = Q·K<sup>T</sup>" in v["scores"].value
    assert "scaled = scores ÷ √d<sub>k</sub>" in v["scaled"].value
    assert "weights" in v["weights"].value and ">row sum</th>" in v["weights"].value
    assert "output = weights·V" in v["output"].value
    for name in ("scores", "scaled", "weights"):
        assert "Queries ↓" in v[name].value and "Keys →" in v[name].value
        for tok in TOKENS:
            assert f">{tok}</th>" in v[name].value
    # The data flow down the page: the inputs (X, then the W's), the folded steps, the weights, the output, the trace.
    editors = [ex.editors[k] for k in ("X", "W_q", "W_k", "W_v")]
    shown = [w for w in widgets_below(ex) if any(w is view for view in v.values()) or any(w is e for e in editors)]
    stages = ["Q", "K", "V", "scores", "scaled", "mask", "weights", "output"]
    assert shown == editors + [v[k] for k in stages] + [v["trace"]]
    # One sequence of step numbers, one number per view, in the order on the page: ① ② ③ ...
    assert [step_number(v[k].value) for k in stages] == list(range(1, len(stages) + 1))


def test_the_trace_numbers_its_steps_as_the_views_it_computes(ex):
    titles = {k: CIRCLED[step_number(ex.views[k].value) - 1] for k in ("scores", "scaled", "weights", "output")}
    lines = [line for line in ex.trace_text.splitlines() if line and line[0] in CIRCLED]
    assert [line.split()[0] for line in lines] == [titles["scores"] + titles["scaled"], titles["weights"],
                                                   titles["output"]]
    assert "softmax" in lines[1] and "output" in lines[2]


def test_steps_fold_away_by_default_and_open_on_request():
    closed = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    steps_box, toggle = part(closed, "attn-steps"), part(closed, "attn-steps-toggle")
    assert not closed.steps and steps_box.layout.display == "none" and "show the steps" in toggle.description
    # Folded steps cost the page nothing: their views are built when they are first shown.
    assert set(closed.views.built) == {"weights", "output", "trace"}
    toggle.value = True  # what a click does
    assert closed.steps and steps_box.layout.display != "none" and "hide the steps" in toggle.description
    in_box = widgets_below(steps_box)
    for name in ("Q", "scores", "scaled", "mask"):
        assert any(w is closed.views[name] for w in in_box) and closed.views[name].value
    for name in ("weights", "output"):  # the effect never folds away
        assert not any(w is closed.views[name] for w in in_box)
    toggle.value = False
    assert not closed.steps and steps_box.layout.display == "none" and "show the steps" in toggle.description
    opened = AttentionExplorer(TOKENS, X0, WQ, WK, WV, steps=True)
    assert opened.steps and part(opened, "attn-steps").layout.display != "none"


def test_step_numbers_do_not_jump_when_the_mask_is_off(ex):
    order = ("Q", "scores", "scaled", "mask", "weights", "output")
    numbers = {}
    for causal in (False, True):
        ex.causal = causal
        numbers[causal] = [step_number(ex.views[k].value) for k in order]
        assert numbers[causal] == sorted(set(numbers[causal])), (causal, numbers)
    assert numbers[False] == numbers[True]
    ex.causal = False
    mask = CIRCLED[numbers[False][3] - 1]
    assert f"{mask} mask: off" in ex.views["mask"].value and ex.views["mask"].layout.display != "none"


def test_causal_toggle_zeroes_weights_above_the_diagonal(ex):
    assert "masked" not in ex.views["mask"].value
    part(ex, "attn-causal").value = True
    assert ex.causal
    w = ex.result.weights
    assert np.all(w[np.triu_indices(4, k=1)] == 0.0)
    assert_result_matches(ex.result, self_ref(ex))
    assert np.array_equal(ex.result.mask, np.tril(np.ones((4, 4), dtype=bool)))
    assert ex.views["mask"].layout.display != "none"
    # The six blocked scores are masked cells, not numbers.
    assert ex.views["mask"].value.count('aria-label="masked">—</td>') == 6
    ex.causal = False
    assert not part(ex, "attn-causal").value
    assert ex.result.weights[0, 3] > 0
    assert "masked" not in ex.views["mask"].value and "mask: off" in ex.views["mask"].value


MASKED_CELL = re.compile(r'<td [^>]*aria-label="masked"[^>]*>([^<]*)</td>')
# A number on a colour scale: its background is the panel's colour, a hue, or a mix of the two.
NUMBER_CELL = re.compile(r'<td [^>]*style="[^"]*background:(?:#[0-9a-f]{6}|var\(--cz\)|'
                         r'color-mix\([^"]*?\));color:[^;"]*"[^>]*>([^<]*)</td>')


@pytest.mark.parametrize("compact", [False, True])
def test_causal_weights_panel_shows_blocked_weights_as_masked_not_as_numbers(compact):
    ex = AttentionExplorer(TOKENS, X0, WQ, WK, WV, causal=True, compact=compact)
    weights = ex.views["weights"].value
    # Six weights above the diagonal are blocked: a dash each, no number, and the key says what it means.
    assert MASKED_CELL.findall(weights) == ["—"] * 6
    assert "masked (blocked before the softmax)" in weights
    # The ten weights the queries may see are numbers on the weights' colour scale.
    assert len(NUMBER_CELL.findall(weights)) == 10
    # Mask off: nothing is blocked, every weight is a number again.
    ex.causal = False
    assert not MASKED_CELL.findall(ex.views["weights"].value)
    assert "masked (blocked" not in ex.views["weights"].value
    ex.close_all()


def test_a_real_tiny_weight_is_a_number_beside_masked_ones():
    # Key 0 scores -20 below key 1 for query 1: its weight is e^-20 / (1 + e^-20), tiny but not blocked.
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    W_q, W_k = np.array([[0.0], [20.0]]), np.array([[-1.0], [0.0]])
    ex = AttentionExplorer(["a", "b"], X, W_q, W_k, np.eye(2), causal=True, scale=False)
    assert 0 < ex.weights[1, 0] < 1e-8
    texts = NUMBER_CELL.findall(ex.views["weights"].value)
    assert texts[:3] == ["1.00", "0.00", "1.00"]  # row a: its weight; row b: the tiny weight and its own
    assert MASKED_CELL.findall(ex.views["weights"].value) == ["—"]
    ex.close_all()


def test_signed_stages_are_on_the_diverging_scale_and_weights_on_their_own_hue(ex):
    from helpers.look import theme

    def hues(view):
        return set(re.findall(r"(#[0-9a-f]{6})", ex.views[view].value)) & {
            theme.WEIGHT_HUE, theme.NEGATIVE_HUE, theme.POSITIVE_HUE}

    for view in ("Q", "K", "V", "scores", "output"):
        # Each signed view is coloured by the signed hues only, and its legend runs to 0, the panel's colour.
        assert hues(view) and theme.WEIGHT_HUE not in hues(view), view
        assert f"linear-gradient(to right, {theme.PANEL_BG}, {theme.POSITIVE_HUE})" in ex.views[view].value or \
            f"linear-gradient(to right, {theme.NEGATIVE_HUE}, {theme.PANEL_BG})" in ex.views[view].value, view
    assert hues("weights") == {theme.WEIGHT_HUE}
    assert f"linear-gradient(to right, {theme.PANEL_BG}, {theme.WEIGHT_HUE})" in ex.views["weights"].value


def test_scale_toggle(ex):
    ex.scale = False
    assert not part(ex, "attn-scale").value
    np.testing.assert_array_equal(ex.result.scaled, ex.result.scores)
    assert_result_matches(ex.result, self_ref(ex, scale=False))
    assert "scaling off" in ex.views["scaled"].value
    part(ex, "attn-scale").value = True
    assert_result_matches(ex.result, self_ref(ex, scale=True))


def test_adding_and_removing_tokens(ex):
    part(ex, "attn-tokens").value = 6
    assert ex.tokens == TOKENS + ["t4", "t5"]
    X = ex.editors["X"].value
    assert X.shape == (6, 3)
    np.testing.assert_array_equal(X[:4], X0)
    assert np.all(np.isin(X[4:], [-2, -1, 0, 1, 2]))
    assert ex.editors["X"].row_labels == ex.tokens
    assert ex.result.weights.shape == (6, 6)
    assert_result_matches(ex.result, self_ref(ex))
    assert ">t5</th>" in ex.views["weights"].value
    assert [label for label, _ in part(ex, "attn-trace-key").options][-1] == "5: t5"
    ex.set_tokens(["a", "b"])
    np.testing.assert_array_equal(ex.editors["X"].value, X0[:2])
    assert part(ex, "attn-tokens").value == 2 and part(ex, "attn-token-names").value == "a, b"
    assert_result_matches(ex.result, self_ref(ex))
    assert repr(ex) == "AttentionExplorer(tokens=2, d_model=3, d_k=2)"


def test_growing_again_is_reproducible():
    a = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    b = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    a.set_tokens(TOKENS + ["x"])
    part(b, "attn-tokens").value = 5
    np.testing.assert_array_equal(a.editors["X"].value, b.editors["X"].value)


def test_renaming_tokens_in_the_names_box(ex):
    names = part(ex, "attn-token-names")
    names.value = "a, b ,c,d"
    assert ex.tokens == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(ex.editors["X"].value, X0)
    assert ">b</th>" in ex.views["scores"].value
    ex.editors["X"].set_text(1, 0, "zz")
    assert ex.editors["X"].message.startswith("row 'b', column d1")


@pytest.mark.parametrize("typed", [" , ", "", ",".join(f"t{k}" for k in range(25))])
def test_bad_token_names_are_refused_next_to_the_names_field(ex, cross, typed):
    for explorer, cls, tokens in ((ex, "attn-token-names", ex.tokens),
                                  (cross, "attn-encoder-names", cross.key_tokens)):
        before = snapshot(explorer)
        box, message = part(explorer, cls), part(explorer, f"{cls}-message")
        field = next(w for w in widgets_below(explorer) if any(c is box for c in getattr(w, "children", ())))
        assert any(c is message for c in field.children)  # the message sits with the field it is about
        box.value = typed
        assert "Token names: type between 1 and 24 names separated by commas" in message.value
        assert explorer.status == "" and explorer.status_html.value == ""  # not in the status line
        assert (explorer.query_tokens if cls == "attn-token-names" else explorer.key_tokens) == tokens
        assert_same_state(explorer, before)
        box.value = ", ".join(["x"] * len(tokens))
        assert message.value == ""
        assert ">x</th>" in explorer.views["weights"].value


def test_changing_d_k_resizes_w_q_and_w_k_keeping_the_overlap(ex):
    part(ex, "attn-dk").value = 3
    assert ex.d_k == 3
    for name, W in (("W_q", WQ), ("W_k", WK)):
        M = ex.editors[name].value
        assert M.shape == (3, 3)
        np.testing.assert_array_equal(M[:, :2], W)
    assert ex.editors["W_q"].col_labels == ["q1", "q2", "q3"]
    assert ex.result.Q.shape == (4, 3)
    assert "√3" in ex.views["scaled"].value
    assert_result_matches(ex.result, self_ref(ex))
    part(ex, "attn-dk").value = 1
    np.testing.assert_array_equal(ex.editors["W_k"].value, WK[:, :1])
    assert ex.d_k == 1 and ex.editors["W_k"].col_labels == ["k1"]
    assert_result_matches(ex.result, self_ref(ex))
    part(ex, "attn-dk").value = 0  # the box keeps d_k within 1..MAX_DK
    assert part(ex, "attn-dk").value == 1 and ex.d_k == 1


def test_trace_shows_the_arithmetic_for_the_picked_pair(ex):
    part(ex, "attn-trace-query").value = 2
    part(ex, "attn-trace-key").value = 1
    ref = reference(X0, X0, WQ, WK, WV)
    q, k = ref["Q"][2], ref["K"][1]
    text = ex.trace_text
    assert text.startswith("Query 'sat' (row 2) and key 'cat' (column 1)")
    terms = " + ".join(f"{a:g}·{b:g}" if b >= 0 else f"{a:g}·({b:g})" for a, b in zip(q, k))
    assert f"q2·k1 = {terms} = {q @ k:g}" in text
    assert f"/ √2 = {q @ k:g} / 1.4142 = {round(q @ k / np.sqrt(2), 4):g}" in text
    for j, tok in enumerate(TOKENS):
        assert f"weight {tok} = " in text
        assert f"= {round(ref['weights'][2, j], 4):g}" in text
    assert "out(sat) = " in text
    for c in range(3):
        assert f"= {round(ref['output'][2, c], 4):g}" in text
    assert "Query &#x27;sat&#x27;" in ex.views["trace"].value or "Query 'sat'" in ex.views["trace"].value
    # The picked pair is outlined in the score tables.
    cells = re.findall(r"<td style=\"([^\"]*)\"", ex.views["scores"].value)
    assert [i for i, s in enumerate(cells) if "outline:" in s] == [2 * 4 + 1]


def test_trace_of_a_blocked_key_says_so(ex):
    ex.causal = True
    part(ex, "attn-trace-query").value, part(ex, "attn-trace-key").value = 0, 3
    assert "blocks key 'down' for query 'the'" in ex.trace_text
    assert "down: masked, exp(−∞) = 0" in ex.trace_text


def put(editor, i, j, v):
    """Entry (i, j) of the editor's matrix set to ``v`` in code (a cell refuses more than 1e15)."""
    A = editor.value.copy()
    A[i, j] = v
    editor.value = A


def test_overflowing_numbers_keep_the_last_result_with_a_message(ex):
    put(ex.editors["W_k"], 0, 0, 1e200)
    before = snapshot(ex)
    put(ex.editors["W_q"], 0, 0, 1e200)  # q·k for 'the' is now about 1e400
    assert ex.editors["W_q"].message == ""  # a valid matrix ...
    assert "overflow" in ex.status  # ... that the math cannot use
    assert "overflow" in ex.status_html.value and "last valid result" in ex.status_html.value
    res, views, _ = snapshot(ex)
    for k in res:
        np.testing.assert_array_equal(res[k], before[0][k])
    assert views == before[1]
    ex.editors["W_q"].set_text(0, 0, "1")
    assert ex.status == "" and ex.status_html.value == ""
    assert_result_matches(ex.result, self_ref(ex))


def test_resizing_an_editor_directly_renames_the_tokens_after_its_rows(ex):
    ex.editors["X"].value = np.ones((5, 3))  # one row more, default row names r1..r5
    assert ex.tokens == ["r1", "r2", "r3", "r4", "r5"] and ex.status == ""
    assert part(ex, "attn-tokens").value == 5 and part(ex, "attn-token-names").value == "r1, r2, r3, r4, r5"
    assert ex.result.weights.shape == (5, 5) and ">r5</th>" in ex.views["weights"].value
    assert_result_matches(ex.result, self_ref(ex))


def test_an_editor_shape_the_math_cannot_use_is_reported_not_raised(ex):
    before = snapshot(ex)
    ex.editors["W_q"].value = np.ones((3, 3))  # d_k 3 against W_k's 2: the library's message
    assert "W_q has shape (3, 3) and W_k has shape (3, 2)" in ex.status
    res, views, _ = snapshot(ex)
    assert views == before[1]
    ex.editors["W_q"].value = WQ
    assert ex.status == ""
    assert_result_matches(ex.result, reference(X0, X0, WQ, WK, WV))


def test_constructor_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"X must have shape \(n, d_model\) with n = 3"):
        AttentionExplorer(["a", "b", "c"], X0, WQ, WK, WV)
    with pytest.raises(ValueError, match="W_q needs 3 rows"):
        AttentionExplorer(TOKENS, X0, WQ[:2], WK, WV)


def test_no_script_or_network_address_in_any_rendered_html(ex, cross):
    ex.causal = True
    ex.editors["X"].set_text(0, 0, "<script>")
    for e in (ex, cross):
        html = all_html(e)
        assert "<script" not in html.lower()
        assert not re.search(r"https?://", html)


def test_large_mode_uses_bigger_fonts():
    small = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    large = AttentionExplorer(TOKENS, X0, WQ, WK, WV, large=True)
    size = lambda html: int(re.search(r"font-size:(\d+)px", html).group(1))  # noqa: E731
    assert size(large.views["weights"].value) > size(small.views["weights"].value)
    from helpers.widgets.matrix_editor import EDITOR_CSS

    assert "matrix-editor-large" in large.editors["X"]._dom_classes
    assert "matrix-editor-large" not in small.editors["X"]._dom_classes
    assert ".matrix-editor.matrix-editor-large{font-size:20px}" in EDITOR_CSS


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (4, 3), elements=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)))
def test_any_finite_input_updates_or_keeps_state_never_raises(X):
    ex = _shared_explorer()
    ex.editors["X"].value = X
    if ex.status == "":
        assert_result_matches(ex.result, self_ref(ex))
    assert all(w.value for k, w in ex.views.items() if k != "mask")


_SHARED = []


def _shared_explorer():
    # Building widgets is the slow part; the property test reuses one explorer.
    if not _SHARED:
        _SHARED.append(AttentionExplorer(TOKENS, X0, WQ, WK, WV, causal=True))
    return _SHARED[0]


def test_close_all_releases_every_widget():
    from ipywidgets.widgets.widget import _instances  # the kernel-side registry of live models

    before = set(_instances)
    e = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    e.set_tokens(TOKENS + ["x"])  # resized grids must not leave models behind either, nor cells kept for later
    e.set_tokens(TOKENS)
    e.editors["X"].set_text(0, 0, "abc")  # the look of a bad cell
    e.editors["X"].set_text(0, 0, "1")
    button(e.editors["W_q"], "numpy").click()  # the literal
    part(e, "attn-steps-toggle").value = True  # the steps' views, built when first shown
    assert len(set(_instances) - before) > 40
    e.close_all()
    assert set(_instances) - before == set()


def test_a_six_token_explorer_builds_at_most_60_widget_models():
    """The page builds a view of every model before the explorer is live: one model per matrix, not per cell."""
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    tokens = ["The", "cat", "sat", "on", "the", "mat"]
    rng = np.random.default_rng(6)
    e = AttentionExplorer(tokens, rng.integers(-2, 3, (6, 4)), *(rng.integers(-2, 3, (4, 4)) for _ in range(3)))
    built = [_instances[k] for k in set(_instances) - before]
    assert len(built) <= 60, f"{len(built)} widget models"
    assert sum(isinstance(w, MatrixEditor) for w in built) == 4  # each matrix one model, whatever its size
    e.set_tokens(tokens + ["x", "y"])  # more rows: no new models
    assert len(set(_instances) - before) == len(built)
    e.close_all()


def test_a_shape_shown_before_is_shown_again_without_new_widgets():
    """A token added, removed and added again: the browser gets no new cell to build the second time."""
    from ipywidgets.widgets.widget import _instances

    ed = MatrixEditor(X0, row_labels=TOKENS, title="X")  # 4 × 3
    ed.resize((5, 3), seed=1, row_labels=TOKENS + ["x"])
    ed.resize((4, 3))
    grown_before = set(_instances)
    ed.resize((5, 3), seed=1, row_labels=TOKENS + ["y"])
    assert set(_instances) - grown_before == set()
    # What the learner sees is the grown matrix, labelled, each cell named, none marked.
    assert [[parse_number(c.value) for c in row] for row in grid_cells(ed)] == ed.value.tolist()
    assert ed.row_labels[4] == "y" and '<th scope="row"' in ed.static_html().split("<tr>")[-1]
    assert ">y</th>" in ed.static_html().split("<tr>")[-1]  # the last row's label
    assert grid_cells(ed)[4][2].description == "X, row y, column d3"
    ed.set_text(4, 2, "7")
    assert ed.value[4, 2] == 7 and ed.message == ""


# ------------------------------------------------------------------ cross-attention


def test_cross_attention_shapes_and_labels(cross):
    res = cross.result
    assert res.weights.shape == (3, 5)
    assert res.Q.shape == (3, 2) and res.K.shape == (5, 2) and res.V.shape == (5, 3)
    assert res.output.shape == (3, 3)
    e = cross.editors
    assert_result_matches(res, reference(e["X_dec"].value, e["X_enc"].value, WQ, WK, WV))
    html = cross.views["weights"].value
    for tok in ["le", "chat", "dort", "the", "cat", "is", "asleep", "now"]:
        assert f">{tok}</th>" in html
    assert "(3 × 5)" in html
    assert "Q = X<sub>dec</sub>·W<sup>Q</sup>" in cross.views["Q"].value
    assert "K = X<sub>enc</sub>·W<sup>K</sup>" in cross.views["K"].value
    assert repr(cross) == "CrossAttentionExplorer(query_tokens=3, key_tokens=5, d_model=3, d_k=2)"


def test_cross_attention_edits_flow_from_both_sides(cross):
    cross.editors["X_enc"].set_text(4, 1, "2.5")
    cross.editors["X_dec"].set_text(0, 2, "-1/2")
    e = cross.editors
    assert e["X_enc"].value[4, 1] == 2.5 and e["X_dec"].value[0, 2] == -0.5
    assert_result_matches(cross.result, reference(e["X_dec"].value, e["X_enc"].value, WQ, WK, WV))
    cross.editors["X_enc"].set_text(4, 1, "two")
    assert cross.editors["X_enc"].message.startswith("row 'now', column d2: 'two'")


def test_cross_attention_causal_only_when_lengths_match(cross):
    assert not cross.causal and part(cross, "attn-causal").disabled
    with pytest.raises(ValueError, match="as many decoder tokens as encoder tokens; got 3 and 5"):
        cross.causal = True
    part(cross, "attn-encoder-tokens").value = 3
    assert cross.key_tokens == ["the", "cat", "is"]
    assert not part(cross, "attn-causal").disabled
    cross.causal = True
    w = cross.result.weights
    assert np.all(w[np.triu_indices(3, k=1)] == 0.0)
    e = cross.editors
    assert_result_matches(cross.result, reference(e["X_dec"].value, e["X_enc"].value, WQ, WK, WV, causal=True))
    part(cross, "attn-decoder-names").value = "le, chat, dort, bien"  # lengths differ again: the mask switches off
    box = part(cross, "attn-causal")
    assert not cross.causal and box.disabled and not box.value
    assert "needs n<sub>q</sub> = n<sub>k</sub>" in box.description
    assert cross.result.weights.shape == (4, 3)


def test_cross_attention_token_counts_change_independently(cross):
    part(cross, "attn-decoder-tokens").value = 5
    assert cross.query_tokens == ["le", "chat", "dort", "t3", "t4"]
    part(cross, "attn-encoder-tokens").value = 2
    assert cross.result.weights.shape == (5, 2)
    assert cross.editors["X_dec"].value.shape == (5, 3) and cross.editors["X_enc"].value.shape == (2, 3)
    e = cross.editors
    assert_result_matches(cross.result, reference(e["X_dec"].value, e["X_enc"].value, WQ, WK, WV))
    labels = [label for label, _ in part(cross, "attn-trace-query").options]
    assert labels == ["0: le", "1: chat", "2: dort", "3: t3", "4: t4"]
    assert [label for label, _ in part(cross, "attn-trace-key").options] == ["0: the", "1: cat"]
    part(cross, "attn-encoder-names").value = "a,b,c,d"
    assert cross.key_tokens == ["a", "b", "c", "d"] and cross.result.weights.shape == (5, 4)


def test_cross_attention_trace_uses_both_token_lists(cross):
    part(cross, "attn-trace-query").value, part(cross, "attn-trace-key").value = 2, 4
    assert cross.trace_text.startswith("Query 'dort' (row 2) and key 'now' (column 4)")
    assert "v(asleep)" in cross.trace_text and "out(dort)" in cross.trace_text


def _buttons_shown(ed) -> list[str]:
    """The descriptions of the buttons a learner can see in the editor."""
    # The page draws the three buttons beside the title while the synced ``show_buttons`` is on.
    return sorted(["Reset", "Random", "numpy"]) if ed.show_buttons else []


def test_editor_buttons_shown_by_default_and_hidden_for_answer_grids():
    assert _buttons_shown(MatrixEditor(np.eye(2))) == ["Random", "Reset", "numpy"]
    ed = MatrixEditor([[1, 2], [3, 4]], buttons=False)
    assert ed.buttons is False and _buttons_shown(ed) == []
    # The grid still takes typing, and the methods behind the buttons still work from code.
    ed.set_text(0, 0, "5")
    assert ed.value.tolist() == [[5, 2], [3, 4]]
    ed.reset()
    assert ed.value.tolist() == [[1, 2], [3, 4]]
    assert ed.as_numpy_literal() == "np.array([[1, 2], [3, 4]])"


def test_default_editor_children_unchanged_by_the_buttons_option():
    # What notebooks 01-06 store depends on the default editor: same parts, same order, same text.
    a, b = MatrixEditor(np.eye(2), title="W^Q"), MatrixEditor(np.eye(2), title="W^Q", buttons=True)
    assert a.static_html() == b.static_html() and a.show_buttons and b.show_buttons


def test_explorer_parts_carry_stable_css_classes(ex, cross):
    part(ex, "attn-steps-toggle").value = True  # the steps' views are built when first shown
    found = _classes_below(ex)
    assert found["attn-explorer"] == [ex] and found["attn-explorer-self"] == [ex]
    for name in ("X", "W_q", "W_k", "W_v"):
        assert found[f"attn-editor-{name}"] == [ex.editors[name]]
    for stage in ("Q", "K", "V", "scores", "scaled", "mask", "weights", "output"):
        assert found[f"attn-view-{stage}"] == [ex.views[stage]]
    assert found["attn-trace"] == [ex.views["trace"]]
    assert len(found["matrix-editor"]) == 4
    assert all('<table class="matrix-editor-grid' in ed.static_html() for ed in ex.editors.values())
    for cls in ("attn-causal", "attn-scale", "attn-tokens", "attn-dk", "attn-token-names", "attn-status",
                "attn-trace-query", "attn-trace-key"):
        assert len(found[cls]) == 1, cls
    assert found["attn-causal"][0].description == "causal mask"

    found = _classes_below(cross)
    assert found["attn-explorer-cross"] == [cross] and "attn-explorer-self" not in found
    for name in ("X_dec", "X_enc", "W_q", "W_k", "W_v"):
        assert found[f"attn-editor-{name}"] == [cross.editors[name]]
    assert found["attn-view-weights"] == [cross.views["weights"]]
    assert found["attn-encoder-tokens"][0].description == "encoder tokens"
    # Resizing rebuilds an editor's grid, not the editor: its class stays.
    part(cross, "attn-encoder-names").value = "a, b, c, d, e"
    assert _classes_below(cross)["attn-editor-X_enc"] == [cross.editors["X_enc"]]


def test_errors_lists_the_bad_cells_by_position():
    ed = MatrixEditor(np.zeros((2, 3)))
    assert ed.errors == {}
    ed.set_text(1, 2, "1/0")
    ed.set_text(0, 0, "abc")
    assert sorted(ed.errors) == [(0, 0), (1, 2)]
    assert "divides by zero" in ed.errors[(1, 2)]
    ed.errors.clear()  # a copy: the editor's own record is untouched
    assert len(ed.errors) == 2
    ed.set_text(0, 0, "1")
    assert list(ed.errors) == [(1, 2)]


def test_views_name_their_columns_after_the_weight_editors_columns():
    # Column k of V is X_enc @ (column k of W^V): after renaming W^V's columns, V and the output use the new names.
    from helpers.widgets import CrossAttentionExplorer

    ex = CrossAttentionExplorer(["a", "b"], ["x", "y", "z"], np.eye(2), np.ones((3, 2)), np.eye(2), np.eye(2),
                                np.eye(2))
    assert ">v1<" in ex.views["output"].value
    ex.editors["W_v"].set_labels(col_labels=["colour", "animal"])
    ex.editors["W_q"].set_labels(col_labels=["size", "kind"])  # no refresh(): the views are told
    for stage in ("V", "output"):
        assert ">colour<" in ex.views[stage].value and ">animal<" in ex.views[stage].value
        assert ">v1<" not in ex.views[stage].value
    assert ">size<" in ex.views["Q"].value
    assert ">k1<" in ex.views["K"].value  # W^K kept its default names
    ex.close_all()


# ------------------------------------------------------------------ labels reach the views


def test_renaming_the_rows_of_x_renames_the_tokens_everywhere(ex, cross):
    ex.editors["X"].set_labels(row_labels=["w", "x", "y", "z"])
    assert ex.tokens == ["w", "x", "y", "z"]
    assert part(ex, "attn-token-names").value == "w, x, y, z"
    assert [label for label, _ in part(ex, "attn-trace-query").options] == ["0: w", "1: x", "2: y", "3: z"]
    for stage in ("Q", "scores", "weights", "output"):
        assert ">x</th>" in ex.views[stage].value and ">cat</th>" not in ex.views[stage].value
    assert ex.trace_text.startswith("Query 'w' (row 0) and key 'w' (column 0)")
    assert_result_matches(ex.result, reference(X0, X0, WQ, WK, WV))  # only names changed

    cross.editors["X_enc"].set_labels(row_labels=["A", "B", "C", "D", "E"])
    assert cross.key_tokens == ["A", "B", "C", "D", "E"] and cross.query_tokens == ["le", "chat", "dort"]
    assert part(cross, "attn-encoder-names").value == "A, B, C, D, E"
    assert ">E</th>" in cross.views["weights"].value and ">le</th>" in cross.views["weights"].value


def test_on_labels_tells_listeners_of_renames_and_new_shapes():
    ed = MatrixEditor(np.eye(2), ["a", "b"], ["x", "y"])
    seen = []
    ed.on_labels(lambda e: seen.append((e.row_labels, e.col_labels)))
    ed.set_labels(col_labels=["p", "q"])
    ed.set_labels(col_labels=["p", "q"])  # no change: nobody is told
    ed.set_value(np.ones((3, 2)), row_labels=["u", "v", "w"])
    ed.set_text(0, 0, "5")  # a value change is not a label change
    assert seen == [(["a", "b"], ["p", "q"]), (["u", "v", "w"], ["p", "q"])]


# ------------------------------------------------------------------ resizing an editor


def test_resize_keeps_the_overlap_of_the_value_and_of_the_reset_values():
    start = np.array([[1.0, 2.0], [3.0, 4.0]])
    ed = MatrixEditor(start, ["a", "b"], ["x", "y"])
    ed.set_text(0, 0, "9")
    ed.resize((3, 3), seed=5, row_labels=["a", "b", "c"])
    grown = ed.value
    assert grown.shape == (3, 3) and ed.row_labels == ["a", "b", "c"] and ed.col_labels == ["d1", "d2", "d3"]
    np.testing.assert_array_equal(grown[:2, :2], [[9, 2], [3, 4]])
    new = np.random.default_rng(5).integers(-2, 3, size=(3, 3)).astype(float)
    np.testing.assert_array_equal(grown[2], new[2])
    np.testing.assert_array_equal(grown[:2, 2], new[:2, 2])
    ed.reset()
    expected_start = new.copy()
    expected_start[:2, :2] = start
    np.testing.assert_array_equal(ed.value, expected_start)
    np.testing.assert_array_equal(ed.start_value, expected_start)
    ed.resize((1, 2))
    np.testing.assert_array_equal(ed.value, [[1, 2]])
    ed.set_text(0, 0, "7")
    ed.reset()
    np.testing.assert_array_equal(ed.value, [[1, 2]])
    with pytest.raises(ValueError, match="shape must be two positive sizes"):
        ed.resize((0, 2))


def test_resizing_the_explorer_resets_to_a_grown_start(ex):
    ex.editors["X"].set_text(0, 0, "7")
    ex.set_tokens(TOKENS + ["x"])
    grown = ex.editors["X"].value
    assert grown[0, 0] == 7
    button(ex.editors["X"], "Reset").click()
    reset = ex.editors["X"].value
    np.testing.assert_array_equal(reset[:4], X0)
    np.testing.assert_array_equal(reset[4], grown[4])  # the new row's seeded start
    assert_result_matches(ex.result, self_ref(ex))


# ------------------------------------------------------------------ nothing escapes a handler


def _cells_of(editors):
    return [(name, i, j) for name, ed in editors.items() for i in range(ed.shape[0]) for j in range(ed.shape[1])]


LONG_DIGITS = re.compile(r"[0-9]{12,}")


@pytest.mark.parametrize("which", ["self", "cross"])
def test_every_cell_at_the_limit_is_computed_and_shown_in_compact_form(ex, cross, which):
    explorer = ex if which == "self" else cross
    cells = _cells_of(explorer.editors)
    original = {(name, i, j): explorer.editors[name].cell_text(i, j) for name, i, j in cells}
    before = snapshot(explorer)
    for name, i, j in cells:
        explorer.editors[name].set_text(i, j, junk.LARGEST)
    # The largest number a cell takes, everywhere: the math stays finite and every view shows it.
    assert explorer.status == "" and np.isfinite(explorer.result.weights).all()
    assert all(explorer.editors[name].value[i, j] == 1e15 for name, i, j in cells)
    shown = [v.value for v in explorer.views.values()] + [explorer.trace_text]
    assert not [m.group() for text in shown for m in LONG_DIGITS.finditer(text)], "a run of a dozen digits"
    assert "e+" in explorer.trace_text
    # One order of magnitude more is refused at the cell, naming the limit; the views stay.
    at_limit = snapshot(explorer)
    name, i, j = cells[-1]
    explorer.editors[name].set_text(i, j, "1e16")
    assert "'1e16' is too large: the limit is 1e15" in explorer.editors[name].message
    assert_same_state(explorer, at_limit)
    for (name, i, j), text in original.items():
        explorer.editors[name].set_text(i, j, text)
    assert explorer.status == "" and explorer.status_html.value == ""
    assert_same_state(explorer, before)


def test_ticking_causal_with_unequal_lengths_is_undone_with_a_message(cross):
    box = part(cross, "attn-causal")
    box.value = True  # disabled in the browser; a script or a test can still set it
    assert box.value is False and not cross.causal
    assert "as many decoder tokens as encoder tokens; got 3 and 5" in cross.status_html.value


def test_self_attention_can_always_be_causal(ex):
    ex.set_tokens(["a"])
    ex.causal = True
    assert not part(ex, "attn-causal").disabled and ex.result.weights.tolist() == [[1.0]]


def test_a_failing_listener_is_shown_not_raised():
    ed = MatrixEditor(np.eye(2))
    ed.on_change(lambda e: 1 / 0)
    ed.set_text(0, 0, "3")  # no ZeroDivisionError here
    assert ed.value[0, 0] == 3
    assert "Something went wrong (ZeroDivisionError" in message_html(ed)


def test_attention_result_is_still_importable_from_widgets():
    from helpers.core.attention import AttentionResult as FromAttention
    from helpers.widgets import AttentionResult

    assert AttentionResult is FromAttention


def test_compact_explorer_hides_the_editor_buttons_and_is_the_lecture_default(monkeypatch):
    monkeypatch.delenv("VOILA_KERNEL_ID", raising=False)
    monkeypatch.delenv("COURSE_LECTURE", raising=False)
    plain = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    assert all(ed.buttons for ed in plain.editors.values())
    compact = AttentionExplorer(TOKENS, X0, WQ, WK, WV, compact=True)
    assert not any(ed.buttons for ed in compact.editors.values())
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")  # what Voila, the lecture mode, sets in its kernels
    assert not any(ed.buttons for ed in AttentionExplorer(TOKENS, X0, WQ, WK, WV).editors.values())
    assert all(ed.buttons for ed in AttentionExplorer(TOKENS, X0, WQ, WK, WV, compact=False).editors.values())
    monkeypatch.setenv("COURSE_LECTURE", "0")
    assert all(ed.buttons for ed in AttentionExplorer(TOKENS, X0, WQ, WK, WV).editors.values())


def test_a_bad_token_name_is_shown_under_the_names_box_in_the_flow(ex):
    names, message = part(ex, "attn-token-names"), part(ex, "attn-token-names-message")
    names.value = ""  # what typing nothing and leaving the box does
    assert "Token names" in message.value and ex.tokens == TOKENS
    # In the flow under the box (it pushes what follows down), never drawn over another control.
    assert message.layout.height is None and "position:absolute" not in message.value
    names.value = "a, b, c, d"
    assert message.value == "" and ex.tokens == ["a", "b", "c", "d"]


def test_fewer_token_names_say_which_rows_of_x_were_dropped(ex):
    names, message = part(ex, "attn-token-names"), part(ex, "attn-token-names-message")
    kept = ex.editors["X"].value[:2].copy()
    names.value = "a, b"
    assert ex.tokens == ["a", "b"] and ex.editors["X"].shape[0] == 2
    np.testing.assert_array_equal(ex.editors["X"].value, kept)
    said = html.unescape(message.value)
    assert f"dropped its last {len(TOKENS) - 2} rows" in said
    assert all(f"'{t}'" in said for t in TOKENS[2:])
    assert ex.status == ""  # a note, not an error: the views show the two tokens
    names.value = "a, b, c"  # one row more: nothing dropped, the note goes
    assert message.value == "" and ex.editors["X"].shape[0] == 3
    names.value = "a"
    assert "dropped its last 2 rows ('b', 'c')" in html.unescape(message.value)
    part(ex, "attn-tokens").value = 3  # the count box is the number of rows itself: the note goes
    assert message.value == ""


def test_compact_weights_keep_the_fixed_scale_and_the_row_sums():
    compact = AttentionExplorer(TOKENS, X0, WQ, WK, WV, compact=True).views["weights"].value
    plain = AttentionExplorer(TOKENS, X0, WQ, WK, WV, compact=False).views["weights"].value

    def table(html):
        return html[html.index("<table"):html.index("</table>")]

    # The same table (numbers, colours on the fixed [0, 1] scale, row sums); only the colour legend is left out.
    assert table(compact) == table(plain) and ">row sum</th>" in compact
    assert "linear-gradient" in plain and "linear-gradient" not in compact


# ------------------------------------------------------------------ state as traits


def test_editor_value_is_a_trait_told_once_per_valid_edit():
    ed = MatrixEditor([[1, 2], [3, 4]], ["a", "b"], ["x", "y"])
    seen = []
    ed.observe(lambda change: seen.append(change["new"].copy()), names="value")
    ed.set_text(0, 1, "1/2")
    assert len(seen) == 1 and seen[0].tolist() == [[1, 0.5], [3, 4]]
    ed.set_text(1, 0, "x")  # not a number: the value stays, nobody is told
    ed.set_text(1, 1, "2.5")  # valid, but a cell is still bad: the value waits
    assert len(seen) == 1 and ed.value.tolist() == [[1, 0.5], [3, 4]]
    ed.set_text(1, 0, "-3")
    assert len(seen) == 2 and seen[1].tolist() == [[1, 0.5], [-3, 2.5]] == ed.value.tolist()
    ed.set_text(0, 0, "1")  # the number the cell already holds: no change
    assert len(seen) == 2


def test_the_held_number_typed_back_over_a_refused_text_clears_the_message_and_recomputes_nothing(ex):
    ed = ex.editors["W_k"]
    weights_told = []
    ex.observe(lambda change: weights_told.append(change["new"]), names="weights")
    held = ed.value[1, 0]
    ed.set_text(1, 0, "x")
    assert ed.message.startswith("row 'd2', column k1: 'x' is not a number")
    ed.set_text(1, 0, str(held))
    assert ed.message == "" and ed.value[1, 0] == held
    assert weights_told == []  # the weights were never in doubt: nothing recomputed, nothing redrawn
    ed.set_text(1, 0, "x")
    ed.set_text(1, 0, str(held + 1))  # a new number after the refused text: computed as any edit
    assert len(weights_told) == 1 and ed.message == ""


def test_assigning_the_value_fills_the_cells_and_a_new_shape_rebuilds_the_grid():
    ed = MatrixEditor([[1, 2], [3, 4]], ["a", "b"], ["x", "y"], title="M")
    seen = []
    ed.observe(lambda change: seen.append(change["new"]), names="value")
    ed.set_text(0, 0, "oops")
    ed.value = [[5, 6], [7, 8.25]]
    assert [ed.cell_text(i, j) for i in range(2) for j in range(2)] == ["5", "6", "7", "8.25"]
    assert ed.message == "" and message_html(ed) == "" and len(seen) == 1
    assert marked_bad(ed) == set()  # no cell marked bad
    ed.value = np.arange(6).reshape(3, 2)
    assert ed.shape == (3, 2) and [[c.value for c in row] for row in grid_cells(ed)] == [["0", "1"], ["2", "3"],
                                                                                           ["4", "5"]]
    assert ed.row_labels == ["r1", "r2", "r3"] and ed.col_labels == ["x", "y"]  # new rows: default names
    assert "(3 × 2)" in ed.title_html and len(seen) == 2
    ed.set_text(2, 1, "-1")
    assert ed.value[2, 1] == -1 and len(seen) == 3


@pytest.mark.parametrize("bad, reason", [([1, 2, 3], "non-empty 2-D matrix; got shape \\(3,\\)"),
                                         ([[1, np.nan]], "finite numbers only"),
                                         ("abc", "matrix of numbers"),
                                         (np.zeros((0, 2)), "non-empty 2-D matrix")])
def test_an_invalid_value_is_refused_with_a_message_and_changes_nothing(bad, reason):
    ed = MatrixEditor([[1, 2], [3, 4]], ["a", "b"], ["x", "y"])
    ed.set_text(1, 1, "1/0")
    seen = []
    ed.observe(seen.append, names="value")
    with pytest.raises(traitlets.TraitError, match=reason) as refused:
        ed.value = bad
    assert isinstance(refused.value, ValueError)  # what a guarded handler shows as a message
    assert ed.value.tolist() == [[1, 2], [3, 4]] and ed.cell_text(1, 1) == "1/0" and "divides by zero" in ed.message
    assert seen == []


def test_the_value_read_cannot_change_the_editor_behind_its_back():
    ed = MatrixEditor([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="read-only"):
        ed.value[0, 0] = 9
    M = np.ones((2, 2))
    ed.value = M
    M[0, 0] = 7  # the caller's array stays theirs: the editor kept a copy
    assert ed.value[0, 0] == 1 and ed.cell_text(0, 0) == "1"
    ed.row_labels.append("z")  # a list, but a new one on every read
    assert ed.row_labels == ["r1", "r2"]


def test_labels_are_traits_and_rename_the_grid():
    ed = MatrixEditor(np.eye(2), ["a", "b"], ["x", "y"], title="M")
    seen, told = [], []
    ed.observe(lambda change: seen.append((change["name"], list(change["new"]))), names=["row_labels", "col_labels"])
    ed.on_labels(lambda e: told.append((e.row_labels, e.col_labels)))
    ed.row_labels = ["p", "q"]
    assert seen == [("row_labels", ["p", "q"])] and told == [(["p", "q"], ["x", "y"])]
    assert grid_cells(ed)[1][0].description == "M, row q, column x"  # the cells' accessible names follow
    shown = ed.static_html()
    assert ">q<" in shown and ">b<" not in shown  # the rows' labels on screen
    ed.set_labels(row_labels=["u", "v"], col_labels=["s", "t"])  # both at once: on_labels is told once
    assert told[-1] == (["u", "v"], ["s", "t"]) and len(told) == 2 and len(seen) == 3
    with pytest.raises(traitlets.TraitError, match="row_labels has 3 labels but the matrix has 2"):
        ed.row_labels = ["a", "b", "c"]
    with pytest.raises(traitlets.TraitError, match="col_labels must be a list of names"):
        ed.col_labels = "st"
    assert ed.row_labels == ["u", "v"] and ed.col_labels == ["s", "t"] and len(told) == 2


def test_a_checkbox_linked_to_causal_and_scale_works_both_ways(ex):
    box = ipywidgets.Checkbox(value=False)
    ipywidgets.link((box, "value"), (ex, "causal"))
    box.value = True
    assert ex.causal and part(ex, "attn-causal").value  # the explorer's own box follows the trait
    assert np.all(ex.weights[np.triu_indices(4, k=1)] == 0.0)
    assert_result_matches(ex.result, self_ref(ex))
    ex.causal = False
    assert not box.value and not part(ex, "attn-causal").value
    part(ex, "attn-causal").value = True  # a click on the explorer's own box
    assert box.value and ex.causal
    scale = ipywidgets.Checkbox(value=True)
    ipywidgets.link((scale, "value"), (ex, "scale"))
    scale.value = False
    assert not ex.scale and not part(ex, "attn-scale").value
    np.testing.assert_array_equal(ex.result.scaled, ex.result.scores)


def test_causal_for_unequal_lengths_is_refused_by_the_trait_and_shown_next_to_the_box(cross):
    message = part(cross, "attn-causal-message")
    with pytest.raises(traitlets.TraitError, match="a causal mask needs as many decoder tokens as encoder tokens; "
                                                   "got 3 and 5"):
        cross.causal = True
    assert not cross.causal and message.value == ""
    linked = ipywidgets.Checkbox(value=False)
    ipywidgets.link((linked, "value"), (cross, "causal"))
    with pytest.raises(traitlets.TraitError, match="as many decoder tokens"):
        linked.value = True  # a learner's own link passes the refusal on, as every traitlets link does
    assert not cross.causal
    own = part(cross, "attn-causal")
    own.value = True  # the explorer's own box: nothing raised, the box goes back, the reason beside it
    assert not own.value and not cross.causal
    assert "as many decoder tokens as encoder tokens; got 3 and 5" in message.value
    field = next(w for w in widgets_below(cross) if any(c is own for c in getattr(w, "children", ())))
    assert any(c is message for c in field.children)  # the message sits with the box it is about
    part(cross, "attn-encoder-tokens").value = 3
    assert message.value == "" and not own.disabled
    linked.value = False
    linked.value = True
    assert cross.causal and own.value
    part(cross, "attn-decoder-names").value = "le, chat, dort, bien"  # unequal again: switched off everywhere
    assert not cross.causal and not own.value and not linked.value


def test_observing_weights_and_output_sees_every_valid_change(ex):
    seen = []

    def record(change):
        # What an observer finds: the views, .result and the other trait are new already.
        seen.append((change["name"], change["new"], ex.result, ex.output, ex.views["weights"].value))

    ex.observe(record, names=["weights", "output"])
    ex.editors["W_k"].set_text(0, 0, "2")
    assert [name for name, *_ in seen] == ["weights", "output"]
    (_, weights, result, output, view), (_, output2, _, _, _) = seen
    assert_result_matches(ex.result, self_ref(ex))
    assert result is ex.result and view == ex.views["weights"].value
    np.testing.assert_array_equal(weights, ex.result.weights)
    np.testing.assert_array_equal(output, ex.result.output)
    np.testing.assert_array_equal(output2, ex.result.output)
    ex.editors["W_k"].set_text(0, 0, "oops")  # invalid: nobody is told
    assert len(seen) == 2
    put(ex.editors["W_k"], 0, 0, 1e200)
    assert len(seen) == 4
    put(ex.editors["W_q"], 0, 0, 1e200)  # a valid matrix the math cannot use: nobody is told either
    assert "overflow" in ex.status and len(seen) == 4
    np.testing.assert_array_equal(ex.weights, seen[2][1])
    with pytest.raises(traitlets.TraitError, match="read-only"):
        ex.weights = np.eye(4)
    with pytest.raises(ValueError, match="read-only"):
        ex.output[0, 0] = 1.0


def test_several_changes_inside_a_hold_are_computed_once_at_the_end(ex):
    weights, views = [], []
    ex.observe(lambda change: weights.append(change["new"]), names="weights")
    ex.views["weights"].observe(lambda change: views.append(change["new"]), names="value")
    before = snapshot(ex)
    with ex.hold_trait_notifications():
        ex.editors["X"].set_text(0, 0, "2")
        ex.editors["W_q"].set_text(1, 1, "-1")
        ex.editors["W_v"].set_text(2, 2, "3")
        ex.causal = True
        assert weights == [] and views == []  # nothing recomputed or redrawn yet
        assert_same_state(ex, (before[0], before[1], snapshot(ex)[2]))
    assert len(weights) == 1 and len(views) == 1
    assert_result_matches(ex.result, self_ref(ex))
    np.testing.assert_array_equal(weights[0], ex.result.weights)
    assert np.all(ex.weights[np.triu_indices(4, k=1)] == 0.0)


def test_a_learner_callback_that_raises_is_contained(ex, cross):
    ex.observe(lambda change: 1 / 0, names="weights")
    ex.editors["X"].set_text(0, 0, "2")  # nothing escapes
    assert_result_matches(ex.result, self_ref(ex))
    assert "Something went wrong (ZeroDivisionError" in ex.status_html.value
    assert isinstance(ex.last_unexpected, ZeroDivisionError)
    # A trait change made by a callback, and refused: shown where the callback hangs, not raised.
    enc = cross.editors["X_enc"]
    enc.observe(lambda change: setattr(cross, "causal", True), names="value")
    enc.set_text(4, 0, "1")
    e = cross.editors
    assert not cross.causal and enc.value[4, 0] == 1
    assert_result_matches(cross.result, reference(e["X_dec"].value, e["X_enc"].value, WQ, WK, WV))
    assert "as many decoder tokens as encoder tokens" in message_html(enc)


class _Toy(LiveWidget, ipywidgets.VBox):
    """The smallest live widget: one trait, one watched box, a count of updates."""

    n = traitlets.Int(0)

    def __init__(self):
        super().__init__()
        self._live_setup()
        self.box = ipywidgets.IntText(0)
        self.heard, self.updates = [], 0
        self.on_box = self.watch(self.box, lambda change: self.heard.append(change["new"]))

    def _update(self):
        self.updates += 1


def test_a_live_widget_pauses_with_trait_holds_and_contains_its_observers():
    toy = _Toy()
    seen = []
    toy.observe(lambda change: seen.append(change["new"]), names="n")
    with toy.hold_trait_notifications():
        toy.box.value = 1  # a control changed inside a hold is heard (the learner's own change)
        toy.n = 1
        toy.n = 2
        toy.request_update()
        toy.request_update()
        assert seen == [] and toy.updates == 0
    assert toy.heard == [1] and seen == [2] and toy.updates == 1  # one notification, one update, at the end
    with toy.hold_trait_notifications():
        with toy.hold_trait_notifications():  # an inner hold: its update waits for the outer one to end
            toy.request_update()
        assert toy.updates == 1
    assert toy.updates == 2
    toy.box.unobserve(toy.on_box, names="value")  # what watch returned detaches the handler
    toy.box.value = 2
    toy.box.observe(toy.on_box, names="value")
    toy.box.value = 3
    assert toy.heard == [1, 3]
    toy.observe(lambda change: 1 / 0, names="n")
    toy.n = 3  # nothing escapes; the failure is shown
    assert seen == [2, 3] and "Something went wrong (ZeroDivisionError" in toy.status


def test_the_linked_highlighting_covers_every_token_and_follows_new_ones():
    ex = AttentionExplorer(TOKENS, X0, WQ, WK, WV)
    links = part(ex, "attn-links")
    n = len(TOKENS)
    assert f'data-row="{n - 1}"' in links.value and f'data-row="{n}"' not in links.value
    # A weight's row lights the query's rows, its column the key's rows in K and V.
    assert "attn-query-rows" in " ".join(ex.views["Q"]._dom_classes)
    assert "attn-key-rows" in " ".join(ex.views["K"]._dom_classes) and "attn-key-cols" in " ".join(
        ex.views["weights"]._dom_classes)
    ex.set_tokens(TOKENS + ["x", "y"])
    assert f'data-row="{n + 1}"' in links.value
    assert 'tabindex="0"' in ex.views["weights"].value


# ------------------------------------------------------------------ typeset math, shapes once


def test_math_is_written_typeset():
    from helpers.look.mathtext import math_html

    assert math_html("W^Q") == "W<sup>Q</sup>"
    assert math_html("W^Q_1") == "W<sup>Q</sup><sub>1</sub>"
    assert math_html("x_cat") == "x<sub>cat</sub>"
    assert math_html("X_dec (decoder tokens × d_model)") == "X<sub>dec</sub> (decoder tokens × d<sub>model</sub>)"
    assert math_html("row_sum <b>") == "row_sum &lt;b&gt;"  # a name with an underscore stays; markup stays text
    assert math_html("e^(x_i + C) / Σ_j e^C") == "e<sup>x<sub>i</sub> + C</sup> / Σ<sub>j</sub> e<sup>C</sup>"
    assert math_html("time ∝ n^1.93. W^Q.") == "time ∝ n<sup>1.93</sup>. W<sup>Q</sup>."


def test_an_editor_cell_is_named_in_words_a_screen_reader_says():
    from helpers.look.mathtext import math_words

    assert [math_words(t) for t in ("W^Q", "W^Q_1", "X_dec", "row_sum")] == ["W Q", "W Q 1", "X dec", "row_sum"]
    names = [MatrixEditor(np.eye(2), title=t, row_labels=["a", "b"], col_labels=["c", "d"]).cell(1, 0).description
             for t in ("W^Q", "W^K", "X_dec")]
    assert names == ["W Q, row b, column c", "W K, row b, column c", "X dec, row b, column c"]


def _shown_text(markup: str) -> str:
    """What a page shows of ``markup``: its text, without tags and their attributes."""
    return html.unescape(re.sub(r"<[^>]*>", " ", re.sub(r"<style>.*?</style>", "", markup, flags=re.S)))


def test_the_explorers_titles_labels_and_legends_typeset_their_math(ex, cross):
    for e in (ex, cross):
        part(e, "attn-steps-toggle").value = True
        markup = "".join(w.value for w in widgets_below(e, ipywidgets.HTML) if w is not e.views["trace"])
        markup += "".join(ed.static_html() for ed in e.editors.values())
        markup += "".join(w.description for w in widgets_below(e, ipywidgets.widgets.widget_description.
                                                                 DescriptionWidget))
        text = _shown_text(markup)
        assert "^" not in text, re.findall(r".{20}\^.{10}", text)
        assert not re.search(r"\b[A-Za-z]_[A-Za-z0-9]", text), re.findall(r".{20}\b[A-Za-z]_\w+.{5}", text)
        assert "<sub>k</sub>" in part(e, "attn-scale").description and part(e, "attn-scale").description_allow_html
    assert "W<sup>Q</sup>" in ex.editors["W_q"].title_html and "X·W<sup>Q</sup>" in ex.views["Q"].value
    assert "X<sub>dec</sub>" in cross.editors["X_dec"].title_html
    assert "d<sub>k</sub> →" in ex.views["Q"].value


def test_each_editor_prints_its_shape_once(ex, cross):
    for e in (ex, cross):
        for name, ed in e.editors.items():
            text = _shown_text(ed.static_html())
            n, m = ed.shape
            assert len(re.findall(r"\(\d+ × \d+\)", text)) == 1 and f"({n} × {m})" in text, (name, text)
