"""What a learner does with the widgets, in JupyterLab: type into a matrix, change a length, check an answer.

Each test drives its widget in one notebook that builds it (read from the committed notebook's code: the projections
notebook for the self-attention explorer, else the first one), on the page test_notebooks.py checks too: the notebook
runs once per session. Copies of the same widget class in other notebooks are drawn and checked in the browser by
test_notebooks.py and swept with junk in this process by tests/test_sweep.py; a new widget class needs a test here.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from playwright.sync_api import expect

from course.browser import PATIENCE
from course.widget_pages import (
    SHOWN_ATOL,
    attention_weights,
    editor,
    editor_message,
    editor_shape,
    editor_values,
    explorer,
    explorer_inputs,
    first_notebook_calling,
    most_telling_edit,
    projections_notebook,
    shown,
    type_into_cell,
    view_table,
    weights_shown,
)


def wait_until(predicate, timeout: float = PATIENCE, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def run_notebook(lab, path) -> None:
    lab.run_notebook(f"notebooks/{path.name}")
    problems = lab.output_problems()
    assert not problems, "error output after Run All:\n" + "\n".join(problems)
    report = lab.wait_widgets_rendered()
    assert report["rendered"] == report["expected"] > 0, report


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_typing_into_x_updates_the_weights(lab, path):
    run_notebook(lab, path)
    ex = explorer(lab.notebook, "self")
    ex.scroll_into_view_if_needed()

    inputs = explorer_inputs(ex)
    np.testing.assert_array_equal(inputs["X_q"], inputs["X_kv"])
    np.testing.assert_allclose(weights_shown(ex), attention_weights(**inputs), atol=SHOWN_ATOL,
                               err_msg="the weights on screen do not match the matrices on screen")

    i, j, new = most_telling_edit(inputs)
    X_new = inputs["X_q"].copy()
    X_new[i, j] = float(f"{new:g}")
    expected = attention_weights(**{**inputs, "X_q": X_new, "X_kv": X_new})
    before_text = view_table(ex, "weights").inner_text()
    assert np.abs(expected - weights_shown(ex)).max() > 0.02, "the chosen edit would not visibly change the weights"

    x_editor = editor(ex, "X")
    type_into_cell(x_editor, i, j, shown(X_new[i, j]))

    # use_inner_text: before_text is innerText; compared with the default textContent it would differ at once
    # (no tabs between cells), and the wait would end before the kernel has answered.
    expect(view_table(ex, "weights")).not_to_have_text(before_text, use_inner_text=True)
    lab.wait_idle()
    np.testing.assert_array_equal(editor_values(x_editor), X_new)
    np.testing.assert_allclose(weights_shown(ex), expected, atol=SHOWN_ATOL,
                               err_msg=f"after typing {X_new[i, j]:g} into X[{i}, {j}]")


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_ticking_the_causal_box_masks_the_later_keys_and_unticking_brings_them_back(lab, path):
    run_notebook(lab, path)
    ex = explorer(lab.notebook, "self")
    ex.scroll_into_view_if_needed()
    box = ex.locator(".attn-causal input").first
    weights = view_table(ex, "weights")
    masked = weights.locator("td[aria-label=masked]")
    if box.is_checked():
        box.click()
    expect(masked).to_have_count(0)
    before = weights.inner_text()
    n = weights_shown(ex).shape[0]
    box.click()
    expect(masked).to_have_count(n * (n - 1) // 2)  # every key after its query: a hatched "—", not a number
    inputs = explorer_inputs(ex)
    assert inputs["causal"]
    # The numbers left are the causal weights of the matrices on screen (a masked cell counts as its weight, 0).
    cells = weights.evaluate("t => [...t.querySelectorAll('tr')].map(r => [...r.querySelectorAll("
                             "'td:not(.matrix-corner)')].map(c => c.textContent)).filter(r => r.length)")
    shown = np.array([[0.0 if c.strip() == "—" else float(c.replace("\u2212", "-")) for c in r[:-1]]
                      for r in cells])
    np.testing.assert_allclose(shown, attention_weights(**inputs), atol=SHOWN_ATOL)
    box.click()
    expect(masked).to_have_count(0)
    expect(weights).to_have_text(before, use_inner_text=True)


@pytest.mark.parametrize("path", first_notebook_calling(r"\bCrossAttentionExplorer\("), ids=lambda p: p.stem)
def test_longer_source_gives_the_weights_one_more_column(lab, path):
    run_notebook(lab, path)
    ex = explorer(lab.notebook, "cross")
    ex.scroll_into_view_if_needed()
    n_q, n_k = weights_shown(ex).shape
    x_enc = editor(ex, "X_enc")
    assert editor_shape(x_enc)[0] == n_k

    length = ex.locator(".attn-encoder-tokens input").first
    length.fill(str(n_k + 1))
    length.press("Enter")

    wait_until(lambda: weights_shown(ex).shape == (n_q, n_k + 1), what=f"a {n_q} × {n_k + 1} weights table")
    lab.wait_idle()  # the editors may be drawn after the weights
    assert editor_shape(x_enc)[0] == n_k + 1
    # The new encoder row is part of the computation, not only of the table's size.
    inputs = explorer_inputs(ex, cross=True)
    assert inputs["X_kv"].shape[0] == n_k + 1
    np.testing.assert_allclose(weights_shown(ex), attention_weights(**inputs), atol=SHOWN_ATOL)


@pytest.mark.parametrize("path", first_notebook_calling(r"question\(\s*['\"]q7['\"]"), ids=lambda p: p.stem)
def test_practice_question_checks_the_answer(lab, path):
    run_notebook(lab, path)
    box = lab.notebook.locator(".practice-question.practice-q7").first
    box.scroll_into_view_if_needed()
    n = int(re.search(r"n\s*=\s*(\d+)", box.locator(".practice-question-text").inner_text()).group(1))
    answer = box.locator(".practice-answer input").first
    check = box.locator(".practice-check").first
    feedback = box.locator(".practice-feedback").first

    # A classic slip first: unordered pairs without the diagonal.
    answer.fill(str(n * (n - 1) // 2))
    answer.press("Enter")
    check.click()
    expect(feedback).to_contain_text("✗")

    answer.fill(str(n * n))
    answer.press("Enter")
    check.click()
    expect(feedback).to_contain_text("✓")
    expect(feedback).to_contain_text(f"{n * n:,}")


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_bad_input_shows_a_message_and_keeps_the_last_weights(lab, path):
    run_notebook(lab, path)
    ex = explorer(lab.notebook, "self")
    ex.scroll_into_view_if_needed()
    x_editor = editor(ex, "X")
    message = editor_message(x_editor)
    values = editor_values(x_editor)
    weights = weights_shown(ex)
    expect(message).to_have_text("")

    type_into_cell(x_editor, 0, 0, "1/0")
    expect(message).to_contain_text("1/0")  # the message quotes what was typed
    np.testing.assert_array_equal(weights_shown(ex), weights)

    # Fixing the cell clears the message; the weights are those of the matrix as it now reads.
    type_into_cell(x_editor, 0, 0, f"{values[0, 0]:g}")
    expect(message).to_have_text("")
    np.testing.assert_array_equal(editor_values(x_editor), values)
    np.testing.assert_allclose(weights_shown(ex), weights, atol=1e-12)


@pytest.mark.parametrize("path", first_notebook_calling(r"practice\.generator\("), ids=lambda p: p.stem)
def test_generated_problem_comes_back_by_its_number(lab, path):
    run_notebook(lab, path)
    g = lab.notebook.locator(".practice-generator").first
    g.scroll_into_view_if_needed()
    prompt, given = g.locator(".practice-prompt"), g.locator(".practice-given")
    seed = g.locator(".practice-seed input")
    # Answer grids are for answers: no Reset / Randomize / Copy as numpy to click by mistake.
    expect(g.locator(".practice-answer .matrix-editor-grid").first).to_be_visible()
    expect(g.locator(".practice-answer button:visible")).to_have_count(0)

    seed.fill("17")
    seed.press("Enter")
    expect(prompt).to_contain_text("Problem 17 (")
    lab.wait_idle()  # the given matrices are drawn after the prompt
    first = given.inner_text()
    g.locator(".practice-new").click()
    expect(prompt).not_to_contain_text("Problem 17 (")
    new_number = seed.input_value()
    assert re.fullmatch(r"\d+", new_number) and new_number != "17"
    expect(prompt).to_contain_text(f"Problem {new_number} (")

    # Typed back, the number gives the very same problem; junk keeps it and says why.
    seed.fill("17")
    seed.press("Enter")
    expect(prompt).to_contain_text("Problem 17 (")
    lab.wait_idle()
    assert given.inner_text() == first
    seed.fill("seventeen")
    seed.press("Enter")
    expect(g.locator(".practice-seed-message")).to_contain_text("not a problem number")
    expect(prompt).to_contain_text("Problem 17 (")


# -- the three ways to think: a prediction committed, a design goal met


@pytest.mark.parametrize("path", first_notebook_calling(r"\bpredict\(", prefer="01_"), ids=lambda p: p.stem)
def test_a_committed_prediction_is_locked_and_revealed_beside_the_truth(lab, path):
    run_notebook(lab, path)
    box = lab.notebook.locator(".predict.predict-form-number").first
    box.scroll_into_view_if_needed()
    # A box whose prediction this test run has recorded already (the lecture page records one at Reveal) opens as it
    # was left, answered: Try again gives the fresh box a learner starts from.
    expect(box.locator(".predict-commit").first).to_be_visible()
    if box.locator(".predict-try-again").first.is_visible():
        box.locator(".predict-try-again").first.click()
    reveal = box.locator(".predict-reveal").first
    expect(reveal).to_have_text("")  # nothing is given away before the commit
    field = box.locator(".predict-input input").first
    field.fill("0.9")  # far from any weight a softmax of these scores gives: a wrong prediction
    field.press("Enter")
    box.locator(".predict-commit").first.click()

    expect(reveal).to_contain_text("Your prediction")
    expect(field).to_be_disabled()  # committed: the answer is locked
    shown_text = reveal.inner_text()
    assert "0.9" in shown_text and "You probably thought" in shown_text, shown_text
    # The truth it reveals is what the notebook computes a few cells on: one of the weights it prints.
    printed = re.search(r"weights: \[([^\]]+)\]", lab.notebook.inner_text())
    assert printed, "the notebook prints no weights after the prediction"
    weights = {float(w) for w in printed.group(1).split()}
    revealed = {float(x) for x in re.findall(r"\b0\.\d+\b", shown_text)} - {0.9}
    assert revealed & weights, f"the revealed truth {revealed} is none of the weights printed {weights}"
    expect(box.locator(".predict-try-again").first).to_be_visible()


@pytest.mark.parametrize("path", first_notebook_calling(r"Explorer\(.*\bgoal=", prefer="01_"),
                         ids=lambda p: p.stem)
def test_a_design_goal_turns_met_when_the_learner_types_a_solution(lab, path):
    """The goal of notebook 01's explorer: make 'sat' attend mostly to 'cat' by changing X. The learner's move,
    computed here from the page: the key of 'cat' twice the query of 'sat' (same direction, longer)."""
    run_notebook(lab, path)
    ex = lab.notebook.locator(".attn-explorer-self:has(.attn-goal)").first
    ex.scroll_into_view_if_needed()
    goal = ex.locator(".attn-goal").first
    expect(goal).to_contain_text("✗")
    inputs = explorer_inputs(ex)
    tokens = [t.strip() for t in ex.locator(".attn-token-names input").first.input_value().split(",")]
    sat, cat = tokens.index("sat"), tokens.index("cat")
    X = inputs["X_q"].copy()
    X[cat] = 2 * X[sat]
    weights = attention_weights(**{**inputs, "X_q": X, "X_kv": X})
    assert weights[sat].argmax() == cat and weights[sat, cat] >= 0.5, "the move computed here would not meet the goal"

    x_editor = editor(ex, "X")
    for j, value in enumerate(X[cat]):
        type_into_cell(x_editor, cat, j, shown(value))
    expect(goal).to_contain_text("✓")
    lab.wait_idle()
    np.testing.assert_allclose(weights_shown(ex), weights, atol=SHOWN_ATOL)
