"""Linked highlighting, as a learner meets it in JupyterLab: pointing at a weight, or moving the keyboard focus onto it,
outlines its query's row in Q, its key's row in K and its row of the output; rows that are not linked stay as they
were. Read from the computed style of the cells the learner sees, after a real hover and a real Tab key press.
"""

from __future__ import annotations

import pytest

from course.widget_pages import explorer, first_notebook_calling, projections_notebook, show_folded

from .test_layout import run

# The outline style of every cell of row ``row`` in the view ``view`` (a CSS class) of ``root``.
JS_ROW_OUTLINES = """
([root, view, row]) => [...root.querySelectorAll(`.${view} tr[data-row="${row}"] > *`)]
  .map(c => getComputedStyle(c).outlineStyle)
"""


def outlines(ex, view: str, row: int) -> set[str]:
    found = ex.evaluate("(root, args) => (" + JS_ROW_OUTLINES + ")([root, ...args])", [view, row])
    assert found, f"no row {row} in .{view}"
    return set(found)


def weight_cell(ex, view: str, i: int, j: int):
    return ex.locator(f".{view} tr[data-row='{i}'] > td[data-col='{j}']").first


def assert_linked(ex, q_row: int, k_row: int, n: int, views) -> None:
    """Rows ``q_row`` of the query views and ``k_row`` of the key views are outlined, dashed; the other rows not."""
    for view, linked in views:
        row = q_row if linked == "query" else k_row
        assert outlines(ex, view, row) == {"dashed"}, f"{view} row {row} is not outlined"
        for other in range(n):
            if other != row:
                assert outlines(ex, view, other) == {"none"}, f"{view} row {other} is outlined, not linked"


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_a_weight_lights_its_query_row_in_q_and_its_key_row_in_k(lab, path):
    run(lab, path)
    ex = explorer(lab.notebook, "self")
    ex.locator(".attn-steps-toggle").first.click()  # Q and K are among the steps
    ex.locator(".attn-view-Q table").first.wait_for(state="visible")
    n = ex.locator(".attn-view-weights tr[data-row]").count()
    views = [("attn-view-Q", "query"), ("attn-view-K", "key"), ("attn-view-V", "key"), ("attn-view-output", "query")]
    for view, _ in views:
        assert outlines(ex, view, 0) == {"none"}, f"{view} is outlined before anything is pointed at"

    weight_cell(ex, "attn-view-weights", 1, 3).hover()
    assert_linked(ex, 1, 3, n, views)
    # And, lighter (a thinner dashed outline), the rows of X the query and the key come from.
    for row in range(n):
        assert outlines(ex, "attn-editor-X", row) == ({"dashed"} if row in (1, 3) else {"none"}), f"X row {row}"
    widths = ex.evaluate("""(ex) => [...ex.querySelectorAll('.attn-editor-X tr[data-row="1"] > *,'
                                     + ' .attn-view-Q tr[data-row="1"] > *')]
                                  .map(c => parseFloat(getComputedStyle(c).outlineWidth))""")
    assert min(widths) < max(widths), "the rows of X are outlined as heavily as the rows they feed"

    # The keyboard: focus the weight (2, 0), then Tab to the next one, (2, 1), with the pointer out of the way.
    lab.page.mouse.move(0, 0)
    weight_cell(ex, "attn-view-weights", 2, 0).focus()
    lab.page.keyboard.press("Tab")
    assert weight_cell(ex, "attn-view-weights", 2, 1).evaluate("c => c === document.activeElement")
    assert_linked(ex, 2, 1, n, views)
    ex.locator(".attn-steps-toggle").first.click()  # as it was, for the next tests of this notebook


@pytest.mark.parametrize("path", first_notebook_calling(r"MultiHeadExplorer\("), ids=lambda p: p.stem)
def test_a_heads_weight_lights_its_query_row_in_every_head_and_the_output(lab, path):
    run(lab, path)
    show_folded(lab.notebook)  # the explorer waits for a prediction
    ex = lab.notebook.locator(".mh-explorer").first
    heads = ex.locator(".mh-view-head")
    assert heads.count() >= 2
    n = ex.locator(".mh-view-output tr[data-row]").count()
    heads.nth(0).locator("tr[data-row='4'] > td[data-col='2']").hover()
    for view in ("mh-view-output", "mh-view-concat"):
        assert outlines(ex, view, 4) == {"dashed"}
        assert all(outlines(ex, view, k) == {"none"} for k in range(n) if k != 4)
    second = heads.nth(1)
    cells = second.locator("td[data-col='2']")
    styles = cells.evaluate_all("cs => cs.map(c => getComputedStyle(c).outlineStyle)")
    assert set(styles) == {"dashed"}, "the key's column of the other head is not outlined"
    # Column 1 is not linked (its cell in the query's row 4 is, as part of that row).
    others = second.locator("tr:not([data-row='4']) > td[data-col='1']").evaluate_all(
        "cs => cs.map(c => getComputedStyle(c).outlineStyle)")
    assert others and set(others) == {"none"}
