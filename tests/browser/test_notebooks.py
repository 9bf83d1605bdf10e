"""Every course notebook, opened in JupyterLab and run top to bottom in a real browser.

nbval runs each cell in a kernel but never shows a widget to a browser; these tests look at what the learner sees:
no error output, every widget drawn (not "Error displaying widget", not stuck on "Loading widget..."), and every
formula typeset.
"""

from __future__ import annotations

import pytest

from course.browser import notebook_paths, stored_widget_outputs


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_notebook_runs_and_widgets_render(lab, jupyter_home, path):
    lab.run_notebook(f"notebooks/{path.name}")

    problems = lab.output_problems()
    assert not problems, "error output after Run All:\n" + "\n".join(problems)

    report = lab.wait_widgets_rendered()
    assert not report["broken"], f"widgets not displayed: {report['broken']}"
    assert report["rendered"] == report["outputs"] == report["expected"], (
        f"{report['expected']} widget outputs, {report['outputs']} in the page, {report['rendered']} drawn"
    )
    # A fresh run in the browser shows at least the widgets the stored run holds (the session's copy: the file in
    # notebooks/ may have been edited since the session started).
    assert report["expected"] >= stored_widget_outputs(jupyter_home.root / "notebooks" / path.name)

    # MathJax marks a formula it cannot typeset with <mjx-merror>.
    bad_math = lab.notebook.locator("mjx-merror")
    assert bad_math.count() == 0, f"formulas MathJax could not typeset: {bad_math.all_inner_texts()}"
