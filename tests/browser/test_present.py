"""The lecture mode (``make present``, scripts/present.py): Voila shows a notebook with its code hidden, its text
enlarged for a projector, and its widgets live."""

from __future__ import annotations

import nbformat
import numpy as np
import pytest
from playwright.sync_api import expect

from .test_interactions import most_telling_edit, notebooks_calling, shown
from .widget_pages import (
    SHOWN_ATOL,
    attention_weights,
    editor,
    editor_values,
    explorer,
    explorer_inputs,
    type_into_cell,
    view_table,
    weights_shown,
)

LECTURE_ZOOM = 1.5  # scripts/present.py's default


def lecture_notebook():
    """The projections notebook if it builds an explorer, else the first notebook that does."""
    found = notebooks_calling(r"(?<!Cross)AttentionExplorer\(")
    preferred = [p for p in found if p.name.startswith("02_")]
    return (preferred or found)[0] if found else None


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


NOTEBOOK = lecture_notebook()


@pytest.mark.skipif(NOTEBOOK is None, reason="no notebook builds an AttentionExplorer yet")
def test_lecture_mode_hides_code_enlarges_text_and_keeps_widgets_live(voila):
    page = voila(f"notebooks/{NOTEBOOK.name}")
    body = page.locator("body")
    ex = explorer(body, "Self-attention explorer")
    expect(ex).to_be_visible(timeout=60_000)
    expect(page.locator("text=Error displaying widget")).to_have_count(0)

    # No code: no input editors, and no line of the notebook's code anywhere in the page's text.
    assert page.locator(".jp-InputArea-editor, .jp-CodeMirrorEditor, .cm-editor").count() == 0
    text = body.inner_text()
    lines = code_only_lines(NOTEBOOK)
    assert lines, "the notebook has no code line to look for"
    showing = [line for line in lines if line in text]
    assert not showing, f"code visible in the lecture page: {showing[:3]}"

    # Large enough for a projector: the lecture style sheet is applied.
    assert float(page.evaluate("getComputedStyle(document.body).zoom")) == pytest.approx(LECTURE_ZOOM)

    # Live: an edit reaches the kernel and the weights on screen change to the right numbers.
    ex.scroll_into_view_if_needed()
    inputs = explorer_inputs(ex)
    np.testing.assert_allclose(weights_shown(ex), attention_weights(**inputs), atol=SHOWN_ATOL)
    i, j, new = most_telling_edit(inputs)
    X_new = inputs["X_q"].copy()
    X_new[i, j] = float(f"{new:g}")
    before_text = view_table(ex, "⑤ weights").inner_text()
    x_editor = editor(ex, "X (")
    type_into_cell(x_editor, i, j, shown(X_new[i, j]))
    expect(view_table(ex, "⑤ weights")).not_to_have_text(before_text, timeout=10_000)
    np.testing.assert_array_equal(editor_values(x_editor), X_new)
    np.testing.assert_allclose(
        weights_shown(ex), attention_weights(**{**inputs, "X_q": X_new, "X_kv": X_new}), atol=SHOWN_ATOL
    )
