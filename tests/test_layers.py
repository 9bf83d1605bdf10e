"""The layers of ``helpers`` as a contributor meets them.

``make lint`` checks the imports themselves (import-linter, contracts in pyproject.toml): one package a layer
(``core`` math and data, ``look``, ``exercises`` checking, ``widgets``, ``demos`` the views of one notebook), each
importing only from the ones below it, no widget library below the widgets, and no import cycle. Here: that the tree
is what the contracts name, that the modules directly in ``helpers/`` are only the notebooks' import paths, the naming
rule a contributor follows (a topic's math and data in ``helpers/core/X.py``, its notebook's widgets in
``helpers/demos/X.py``), that a misplaced import fails ``make lint`` while a new module needs no edit to
pyproject.toml, and that importing the package builds no widget (a widget made at import time would be registered in
every kernel that imports the module, and sent to the browser of every notebook).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib

from conftest import ROOT

HELPERS = ROOT / "helpers"

# The views whose math has another name than their own: notebook 12's views draw the model and the measurements of
# its heads; notebook 09's check answers with the checking code, the progress view (00) reads what the checking
# code records, and the concept inventory's test and results (00, 09) judge and score with it.
MATH_OF = {"real_model": ["pretrained", "head_analysis"], "practice": [], "progress": [], "inventory": []}


def layers() -> list[str]:
    """The packages of import-linter's layers contract, top first."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    assert contract["containers"] == ["helpers"]
    return contract["layers"]


def test_every_package_of_helpers_is_a_layer_and_every_layer_a_package():
    packages = sorted(p.name for p in HELPERS.iterdir() if (p / "__init__.py").is_file())
    assert packages == sorted(layers())


def test_the_modules_directly_in_helpers_are_the_notebooks_import_paths_and_nothing_else():
    for path in sorted(HELPERS.glob("*.py")):
        if path.stem == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        body = [node for node in tree.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        assert len(body) == 1 and isinstance(body[0], ast.ImportFrom), (
            f"helpers/{path.name} holds code: a module goes in the folder of its layer (helpers/core, look, exercises, "
            "widgets, demos); only a one-line import path for the notebooks stays in helpers/")
        source = body[0].module
        assert source.split(".")[1] in layers() and source.rsplit(".", 1)[1] == path.stem, (
            f"helpers/{path.name} imports {source}, not the module of its own name in a layer")


def test_every_topic_with_views_has_its_math_and_data_below_the_widgets():
    for demo in sorted((HELPERS / "demos").glob("*.py")):
        if demo.stem == "__init__":
            continue
        for topic in MATH_OF.get(demo.stem, [demo.stem]):
            assert (HELPERS / "core" / f"{topic}.py").is_file(), (
                f"helpers/demos/{demo.name} has no helpers/core/{topic}.py")


def lint_copy(tmp_path, module: str, source: str) -> subprocess.CompletedProcess:
    """``make lint`` on a copy of the checkout's code with one more module, ``module`` (a path below helpers/)."""
    for name in ["helpers", "tests", "scripts", "bench", "site", "course"]:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    for name in ["pyproject.toml", "Makefile", "requirements.txt", "requirements-model.txt"]:
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / module).write_text(source, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    # The copy's files are newer than the environment's stamp; -o tells make the environment is up to date.
    return subprocess.run(["make", "-o", ".venv/.installed", "lint"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_widget_import_in_the_math_layer_fails_make_lint(tmp_path):
    done = lint_copy(tmp_path, "helpers/core/window.py",
                     '"""Window sizes."""\n\nimport ipywidgets\n\nSLIDER = ipywidgets\n')
    assert done.returncode != 0
    assert "no widget library below the widget layer BROKEN" in done.stdout
    assert "helpers.core.window -> ipywidgets" in done.stdout


def test_a_new_module_in_its_layers_folder_passes_make_lint_with_no_edit_elsewhere(tmp_path):
    done = lint_copy(tmp_path, "helpers/core/window.py",
                     '"""Window sizes."""\n\nfrom helpers.core.arrays import as_matrix\n\nWINDOW = as_matrix\n')
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Contracts: 4 kept, 0 broken." in done.stdout


def test_importing_any_module_of_helpers_builds_no_widget():
    modules = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                     for p in HELPERS.rglob("*.py"))
    code = ("import importlib, sys, ipywidgets\n"
            "from ipywidgets.widgets.widget import _instances\n"
            "built = {}\n"
            f"for name in {modules!r}:\n"
            "    before = set(_instances)\n"
            "    importlib.import_module(name)\n"
            "    new = [type(_instances[k]).__name__ for k in set(_instances) - before]\n"
            "    if new:\n"
            "        built[name] = new\n"
            "assert not built, built\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
