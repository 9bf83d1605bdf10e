"""Accessibility of what the course puts on the page: axe-core over every notebook's outputs after Run All.

axe-core comes from the ``axe-playwright-python`` package, which ships ``axe.min.js``, so the check runs offline. The
run is scoped to the notebook's output areas: JupyterLab's own chrome (menus, toolbars, the file browser) is not the
course's to fix. Goal: no finding of "serious" or "critical" impact (an input without an accessible name, an image
without alt text, a scrollable region that cannot get keyboard focus, ...).
"""

from __future__ import annotations

import re

import pytest

from .jupyter_servers import notebook_paths
from .widget_pages import projections_notebook

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
    """A screen reader says which cell it is in: "X, row cat, column d1" (each input's own label, visually
    hidden because the grid's row and column labels show the same on screen)."""
    lab.run_notebook(f"notebooks/{path.name}")
    lab.wait_widgets_rendered()
    explorer = lab.notebook.locator(".attn-explorer").first
    cells = explorer.locator(".attn-editor-X .matrix-editor-grid input")
    assert cells.count() > 0
    names = [cells.nth(k).evaluate("e => e.labels.length ? e.labels[0].textContent : ''") for k in range(cells.count())]
    assert all(re.fullmatch(r"X, row \S+, column \S+", n) for n in names), names[:4]
    first = names[0]
    # The name is what the accessibility tree exposes, not just an attribute; and the label takes no room.
    named = explorer.get_by_role("textbox", name=first, exact=True)
    assert named.count() == 1
    label_box = named.evaluate("e => e.labels[0].getBoundingClientRect().width")
    assert label_box <= 1
