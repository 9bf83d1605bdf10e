"""The checking code stays below the widgets: ``helpers.exercises`` and ``helpers.feedback`` import no widget library,
and importing the practice widgets (or the solution folds) builds no widget.

The imports are checked in a fresh interpreter: in this one, other tests have imported ipywidgets long ago.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from conftest import ROOT

CHECKING = ["helpers/feedback.py", *sorted(p.relative_to(ROOT).as_posix()
                                          for p in (ROOT / "helpers" / "exercises").rglob("*.py"))]
# What the checking code must not reach, even inside a function: widgets (layers 4 and 5).
WIDGET_MODULES = ("ipywidgets", "traitlets", "helpers.live", "helpers.widgets", "helpers.matrix_editor",
                  "helpers.explorer", "helpers.solutions", "helpers.demos")


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_importing_the_checking_code_imports_no_ipywidgets():
    result = run_python("import sys\n"
                        "import helpers.exercises, helpers.feedback\n"
                        "import helpers.exercises.code_tasks.engine\n"
                        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'traitlets'))\n"
                        "assert not loaded, loaded\n")
    assert result.returncode == 0, result.stderr[-3000:]


def imported_modules(path: str) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function (relative imports made absolute)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    parts = path[: -len(".py")].split("/")  # helpers/exercises/answers -> the package is all but the last part
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(parts[: len(parts) - node.level] + ([base] if base else []))
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("path", CHECKING)
def test_no_checking_module_imports_a_widget_module_even_inside_a_function(path):
    reached = {m for m in imported_modules(path) for w in WIDGET_MODULES if m == w or m.startswith(w + ".")}
    assert not reached, f"{path} imports {', '.join(sorted(reached))}"


@pytest.mark.parametrize("module", ["helpers.demos.practice", "helpers.solutions"])
def test_importing_a_widget_module_of_the_checking_code_builds_no_widget(module):
    result = run_python("import ipywidgets\n"
                        "from ipywidgets.widgets.widget import _instances\n"
                        "before = set(_instances)\n"
                        f"import {module}\n"
                        "built = [type(_instances[k]).__name__ for k in set(_instances) - before]\n"
                        "assert not built, built\n")
    assert result.returncode == 0, result.stderr[-3000:]
