"""Accessibility of what the course puts on the page: axe-core over every notebook's outputs after Run All.

axe-core comes from the ``axe-playwright-python`` package, which ships ``axe.min.js``, so the check runs offline. The
run is scoped to the notebook's output areas: JupyterLab's own chrome (menus, toolbars, the file browser) is not the
course's to fix. Goal: no finding of "serious" or "critical" impact (an input without an accessible name, an image
without alt text, a scrollable region that cannot get keyboard focus, ...).
"""

from __future__ import annotations

import pytest

from .jupyter_servers import notebook_paths

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


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_outputs_have_no_serious_accessibility_findings(lab, path):
    lab.run_notebook(f"notebooks/{path.name}")
    report = lab.wait_widgets_rendered(timeout=20)
    assert not report["broken"], f"widgets not displayed: {report['broken']}"
    # The check looks at something: every notebook of the course has outputs.
    assert lab.page.locator(OUTPUTS).count() > 0
    violations = axe_violations(lab.page)
    print(f"\n{path.stem}: " + (describe(violations) or "no findings"))
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{path.stem}: serious or critical axe findings in the outputs:\n{describe(blocking)}"
