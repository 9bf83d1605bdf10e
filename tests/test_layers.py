"""The layers of ``helpers`` (README, "For authors": the table of layers) as a contributor meets them.

``make lint`` checks the imports themselves (import-linter, contracts in pyproject.toml): each layer imports only from
the ones below it, the math, data and checking import no widget library, and no package has an import cycle. Here:
the naming rule a contributor follows (a topic's math and data in ``helpers/X.py``, its notebook's widgets in
``helpers/demos/X.py``), and that importing the package builds no widget (a widget made at import time would be
registered in every kernel that imports the module, and sent to the browser of every notebook).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

from conftest import ROOT

# The views whose math has another name than their own: notebook 12's views draw the model and the measurements of
# its heads; notebook 09's check answers with the checking code, the progress view (00) reads what the checking
# code records, and the concept inventory's test and results (00, 09) judge and score with it.
MATH_OF = {"real_model": ["pretrained", "head_analysis"], "practice": ["exercises"], "progress": ["exercises"],
           "inventory": ["exercises"]}


def layers() -> list[set[str]]:
    """The layers of import-linter's layers contract, top first, each a set of module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [{name.strip() for name in layer.replace("|", ":").split(":")} for layer in contract["layers"]]


def test_every_topic_with_views_has_its_math_and_data_below_the_widgets():
    below_widgets = set().union(*layers()[2:])
    for demo in sorted((ROOT / "helpers" / "demos").glob("*.py")):
        if demo.stem == "__init__":
            continue
        for topic in MATH_OF.get(demo.stem, [demo.stem]):
            assert (ROOT / "helpers" / f"{topic}.py").is_file() or (ROOT / "helpers" / topic).is_dir(), (
                f"helpers/demos/{demo.name} has no helpers/{topic}.py")
            assert f"helpers.{topic}" in below_widgets, f"helpers.{topic} is in no layer below the widgets"


def test_every_module_of_helpers_is_in_a_layer():
    named = set().union(*layers())
    for path in sorted((ROOT / "helpers").glob("*.py")):
        if path.stem != "__init__":
            assert f"helpers.{path.stem}" in named, f"helpers/{path.name} is in no layer of pyproject.toml's contract"
    for path in sorted(p for p in (ROOT / "helpers").iterdir() if (p / "__init__.py").is_file()):
        assert f"helpers.{path.name}" in named, f"helpers/{path.name}/ is in no layer of pyproject.toml's contract"


def test_importing_any_module_of_helpers_builds_no_widget():
    modules = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                     for p in (ROOT / "helpers").rglob("*.py"))
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
