"""Accessibility of what the course puts on the page: axe-core over every notebook's outputs after Run All.

axe-core comes from the ``axe-playwright-python`` package, which ships ``axe.min.js``, so the check runs offline. The
run is scoped to the notebook's output areas: JupyterLab's own chrome (menus, toolbars, the file browser) is not the
course's to fix. Goal: no finding of "serious" or "critical" impact (an input without an accessible name, an image
without alt text, a scrollable region that cannot get keyboard focus, ...).
"""

from __future__ import annotations

import re

import pytest

from course.browser import notebook_paths
from course.widget_pages import projections_notebook

axe_module = pytest.importorskip(
    "axe_playwright_python.base", reason="axe-playwright-python is not installed (it is pinned in requirements.txt)"
)

BLOCKING = ("serious", "critical")
OUTPUTS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"

JS_AXE_RUN = """
async (selector) => {
  const results = await axe.run({include: [[selector]]}, {resultTypes: ['violations']});
  return results.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                              summary: (n.failureSummary || '').slice(0, 300)})),
  }));
}
"""


def axe_violations(page, selector: str = OUTPUTS) -> list[dict]:
    """axe-core's violations inside the elements matching ``selector`` (injected into the page once)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(axe_module.AXE_SCRIPT)
    return page.evaluate(JS_AXE_RUN, selector)


def describe(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])}): {v['help']}")
        lines.extend(f"    {n['target']}: {n['html']}" for n in v["nodes"][:3])
    return "\n".join(lines)


def run_and_check(lab, path) -> list[dict]:
    lab.run_notebook(f"notebooks/{path.name}")
    # Every widget drawn first: a widget still loading shows ipywidgets' spinner, an <svg role="img"> without a name.
    report = lab.wait_widgets_rendered()
    assert not report["broken"], f"widgets not displayed: {report['broken']}"
    assert report["rendered"] == report["outputs"] == report["expected"], f"widgets not all drawn: {report}"
    # The check looks at something: every notebook of the course has outputs.
    assert lab.page.locator(OUTPUTS).count() > 0
    violations = axe_violations(lab.page)
    print(f"\n{path.stem}: " + (describe(violations) or "no findings"))
    return violations


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_outputs_have_no_serious_accessibility_findings(lab, path):
    violations = run_and_check(lab, path)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{path.stem}: serious or critical axe findings in the outputs:\n{describe(blocking)}"


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_matrix_cells_are_named_by_matrix_row_and_column(lab, path):
    """A screen reader says which cell it is in: "X, row cat, column d1" (each input's own name; the grid's row and
    column labels show the same on screen)."""
    lab.run_notebook(f"notebooks/{path.name}")
    lab.wait_widgets_rendered()
    explorer = lab.notebook.locator(".attn-explorer").first
    cells = explorer.locator(".attn-editor-X .matrix-editor-grid input")
    assert cells.count() > 0
    names = cells.evaluate_all("es => es.map(e => e.getAttribute('aria-label')"
                               " || (e.labels.length ? e.labels[0].textContent : ''))")
    assert all(re.fullmatch(r"X, row \S+, column \S+", n) for n in names), names[:4]
    # The name is what the accessibility tree exposes, not just an attribute.
    assert explorer.get_by_role("textbox", name=names[0], exact=True).count() == 1


def active_cell(lab) -> str:
    return lab.page.evaluate("() => document.activeElement.getAttribute('aria-label') || ''")


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_the_keyboard_moves_between_cells(lab, path):
    """Arrow keys move to the next cell (left and right from the ends of the text), Enter keeps the text and moves
    down, Tab goes on along the row, Escape puts back the text the cell had."""
    lab.run_notebook(f"notebooks/{path.name}")
    lab.wait_widgets_rendered()
    grid = lab.notebook.locator(".attn-explorer .attn-editor-W_q .matrix-editor-grid").first
    rows = [r.strip() for r in grid.locator("tbody th").all_inner_texts()]
    cols = [c.strip() for c in grid.locator("thead th").all_inner_texts()]
    name = lambda i, j: f"W Q, row {rows[i]}, column {cols[j]}"  # noqa: E731
    first = grid.locator("input").first
    first.click()
    first.press("End")
    assert active_cell(lab) == name(0, 0)
    lab.page.keyboard.press("ArrowRight")
    assert active_cell(lab) == name(0, 1)
    lab.page.keyboard.press("ArrowDown")
    assert active_cell(lab) == name(1, 1)
    lab.page.keyboard.press("Enter")
    assert active_cell(lab) == name(2, 1)
    lab.page.keyboard.press("Tab")
    assert active_cell(lab) == name(2, 2)
    lab.page.keyboard.press("ArrowUp")
    assert active_cell(lab) == name(1, 2)
    cell = grid.locator("input").nth(1 * len(cols) + 2)
    old = cell.input_value()
    cell.press("Control+a")
    cell.press_sequentially("7")
    lab.page.keyboard.press("Escape")
    assert cell.input_value() == old and active_cell(lab) == name(1, 2)
    lab.page.keyboard.press("ArrowLeft")
    assert active_cell(lab) == name(1, 1)
