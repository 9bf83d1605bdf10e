"""The lecture mode (``make present``, course/present.py): Voila shows each notebook with its code hidden, its
text enlarged for a projector, and its widgets live."""

from __future__ import annotations

import nbformat
import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect

from course.browser import notebook_paths, stored_widget_outputs
from course.widget_pages import (
    SHOWN_ATOL,
    attention_weights,
    editor,
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

from .conftest import open_lecture_page, screenshot_on_failure

LECTURE_ZOOM = 1.5  # course/present.py's default

JS_LECTURE_REPORT = """
() => ({
  code_editors: document.querySelectorAll('.jp-InputArea-editor, .jp-CodeMirrorEditor, .cm-editor').length,
  errors: [...document.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')]
    .map(n => n.textContent.slice(0, 300)),
  broken_widgets: [...document.querySelectorAll('.jp-OutputArea-output')]
    .filter(n => /Error displaying widget|Loading widget\\.\\.\\./.test(n.textContent))
    .map(n => n.textContent.slice(0, 200)),
  widgets: document.querySelectorAll('.jupyter-widgets').length,
  // The column of cells is zoomed (the page keeps the window's size and its one scrollbar).
  zoom: parseFloat(getComputedStyle(document.querySelector('#rendered_cells > div')).zoom),
})
"""
# The scripts and style sheet links of the page that name an address on another host.
JS_ADDRESSES_ELSEWHERE = r"""
() => [...document.querySelectorAll('script, link')]
  .map(n => `${n.src || n.href || ''} ${n.tagName === 'SCRIPT' ? n.textContent : ''}`)
  .filter(t => [...t.matchAll(/https?:\/\/([^\/"'\s:]+)/g)].some(m => m[1] !== location.hostname))
  .map(t => t.trim().slice(0, 120))
"""
JS_NO_WIDGET_LOADING = """
() => ![...document.querySelectorAll('.jp-OutputArea-output')].some(n => n.textContent.includes('Loading widget...'))
"""


def code_only_lines(path) -> list[str]:
    """Lines of code that appear nowhere else in the notebook (not in prose, not in any output), so finding one
    on the page means code is showing."""
    nb = nbformat.read(path, as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type != "code")
    outputs = "\n".join(
        str(out.get("text", "")) + "".join(str(v) for v in out.get("data", {}).values())
        for c in nb.cells
        if c.cell_type == "code"
        for out in c.get("outputs", [])
    )
    lines = {
        line.strip()
        for c in nb.cells
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if len(line.strip()) >= 12 and not line.strip().startswith("#")
    }
    return sorted(line for line in lines if line not in prose and line not in outputs)


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_lecture_mode_shows_the_notebook_without_code(voila, jupyter_home, path):
    page = voila(path.name)
    copy = jupyter_home.root / "notebooks" / path.name
    if stored_widget_outputs(copy):
        # The cells are on the page before the widget manager has drawn the widgets into them: every widget output
        # says "Loading widget..." until its widget is drawn.
        expect(page.locator(".jupyter-widgets").first).to_be_attached()
        try:
            page.wait_for_function(JS_NO_WIDGET_LOADING, polling=100)
        except PlaywrightTimeoutError:
            pass  # the report below names the widgets still loading
    report = page.evaluate(JS_LECTURE_REPORT)
    assert report["errors"] == [], "error output in the lecture page"
    assert report["code_editors"] == 0
    text = page.locator("body").inner_text()
    showing = [line for line in code_only_lines(copy) if line in text]
    assert not showing, f"code visible in the lecture page: {showing[:3]}"
    assert report["broken_widgets"] == [], "widgets not drawn in the lecture page"
    if stored_widget_outputs(copy):
        assert report["widgets"] > 0, "the notebook's widgets are missing from the lecture page"
    # Large enough for a projector: the lecture style sheet is applied.
    assert report["zoom"] == pytest.approx(LECTURE_ZOOM)
    # Offline: the page asks for nothing outside the machine (no CDN script, font or style sheet), and none of its
    # scripts or links names an address that would (a script run only for a kind of output, say).
    assert page.external_requests == [], f"requests leaving the machine: {page.external_requests[:3]}"
    assert page.evaluate(JS_ADDRESSES_ELSEWHERE) == [], "a script or link of the page names another host"


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_lecture_mode_widgets_are_live(voila, path):
    page = voila(path.name)
    ex = explorer(page.locator("body"), "Self-attention explorer")
    expect(ex).to_be_visible()
    ex.scroll_into_view_if_needed()

    # An edit reaches the page's kernel and the weights on screen change to the right numbers.
    inputs = explorer_inputs(ex)
    np.testing.assert_allclose(weights_shown(ex), attention_weights(**inputs), atol=SHOWN_ATOL)
    i, j, new = most_telling_edit(inputs)
    X_new = inputs["X_q"].copy()
    X_new[i, j] = float(f"{new:g}")
    before_text = view_table(ex, "⑤ weights").inner_text()
    x_editor = editor(ex, "X (")
    type_into_cell(x_editor, i, j, shown(X_new[i, j]))
    expect(view_table(ex, "⑤ weights")).not_to_have_text(before_text, use_inner_text=True)
    np.testing.assert_array_equal(editor_values(x_editor), X_new)
    np.testing.assert_allclose(
        weights_shown(ex), attention_weights(**{**inputs, "X_q": X_new, "X_kv": X_new}), atol=SHOWN_ATOL
    )


@pytest.mark.parametrize("path", first_notebook_calling(r"\bpredict\(", prefer="01_"), ids=lambda p: p.stem)
def test_in_the_lecture_the_room_predicts_first_and_the_presenter_reveals(voila, path):
    page = voila(path.name)
    box = page.locator(".predict.predict-form-number").first
    expect(box).to_be_visible()
    box.scroll_into_view_if_needed()
    field = box.locator(".predict-input input").first
    field.fill("0.25")  # the room's guess, typed by the presenter
    field.press("Enter")
    box.locator(".predict-commit").first.click()
    reveal_button = box.locator(".predict-reveal-button").first
    expect(reveal_button).to_be_visible()
    expect(field).to_be_disabled()
    assert box.locator(".predict-reveal").first.inner_text().strip() == "", "revealed before the presenter's click"
    reveal_button.click()
    expect(box.locator(".predict-reveal").first).to_contain_text("0.25")


# A notebook with a fold that holds a widget (10's: the heads explorer, shown once the room has predicted its cost).
FOLD_WITH_A_WIDGET = r"after_prediction\(.*\):\n\s+display\(explorer\)"


@pytest.mark.parametrize("path", first_notebook_calling(FOLD_WITH_A_WIDGET, prefer="10_"), ids=lambda p: p.stem)
def test_show_anyway_opens_a_fold_with_what_the_cell_printed_and_its_live_widget(request, browser, voila_server, path):
    """A fold (reveal.py) holds a cell's outputs in ipywidgets' Output widget until the room has predicted: in the
    lecture page, Show anyway shows them as the cell made them, text and widgets alike, the widgets live.

    In a page of its own (a fresh kernel): an open fold stays open, and the notebook's other tests read its page as
    the room first sees it."""
    page = open_lecture_page(browser, voila_server, f"{path.name}?theme=JupyterLab%20Light")
    try:
        page.wait_for_function(JS_NO_WIDGET_LOADING, polling=100)
        folds = page.locator(".prediction-fold")
        with_widget = folds.filter(has=page.locator(".prediction-fold-output .jupyter-widgets input")).first
        with_text = folds.filter(has=page.locator(".prediction-fold-output [data-mime-type*='stdout']")).first
        for fold in (with_text, with_widget):
            output = fold.locator(".prediction-fold-output")
            expect(output).to_be_hidden()
            fold.locator(".prediction-fold-show").click()
            expect(output).to_be_visible()
            assert "Error displaying" not in output.inner_text()
        printed = with_text.locator(".prediction-fold-output [data-mime-type*='stdout']").first
        expect(printed).to_be_visible()
        assert printed.inner_text().strip(), "a printed output shown empty"
        field = with_widget.locator(".prediction-fold-output .jupyter-widgets input").first
        expect(field).to_be_visible()
        expect(field).to_be_editable()
    finally:
        screenshot_on_failure(request, page)
        page.context.close()
