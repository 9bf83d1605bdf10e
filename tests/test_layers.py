"""The layers of ``helpers`` (DESIGN §2): the math and data never import widgets, nor anything above them.

A topic's math and data live in ``helpers/X.py`` (layer 1) and the widgets and figures that show it in its notebook
in ``helpers/demos/X.py`` (layer 5). Importing every layer-1 module in a fresh interpreter must load no ipywidgets and
no ``helpers`` module outside layer 1 (the look, the checking, the widgets and the views all come later).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Layer 1: math and data, numpy only. A new helpers/X.py that holds a topic's math or data goes here.
LAYER_1 = (
    "helpers.arrays",
    "helpers.attention",
    "helpers.explain",
    "helpers.parsing",
    "helpers.pretrained",
    "helpers.questions",
    "helpers.efficiency",
    "helpers.head_analysis",
    "helpers.learning",
    "helpers.lookup",
    "helpers.masking",
    "helpers.multihead",
    "helpers.patterns",
    "helpers.pitfalls",
    "helpers.translation",
)


def loaded_after_importing(modules) -> set[str]:
    """The names in ``sys.modules`` of a fresh interpreter after it imports ``modules``."""
    code = ("import importlib, json, sys\n"
            f"for name in {list(modules)!r}:\n"
            "    importlib.import_module(name)\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"importing {list(modules)} failed:\n{run.stderr}"
    return set(json.loads(run.stdout))


def what_is_wrong(loaded: set[str]) -> list[str]:
    """ipywidgets, and every ``helpers`` module outside layer 1, among ``loaded``."""
    above = sorted(name for name in loaded if name.startswith("helpers.") and name not in LAYER_1)
    return (["ipywidgets"] if "ipywidgets" in loaded else []) + above


def test_layer_1_loads_no_widgets_and_nothing_above_it():
    wrong = what_is_wrong(loaded_after_importing(LAYER_1))
    if wrong:
        # One interpreter per module, only now: name the module that pulls each one in.
        culprits = {name: what_is_wrong(loaded_after_importing([name])) for name in LAYER_1}
        pytest.fail("layer-1 modules load what they must not: "
                    + "; ".join(f"{name} loads {', '.join(bad)}" for name, bad in culprits.items() if bad))


def test_every_topic_with_a_demo_has_its_math_in_layer_1():
    # helpers/demos/X.py draws the topic whose math is helpers/X.py; notebook 09's views (demos/real_model.py)
    # draw the model of pretrained.py and the measurements of head_analysis.py.
    math_of = {"real_model": ["pretrained", "head_analysis"]}
    for demo in sorted((ROOT / "helpers" / "demos").glob("*.py")):
        if demo.stem == "__init__":
            continue
        for topic in math_of.get(demo.stem, [demo.stem]):
            assert (ROOT / "helpers" / f"{topic}.py").is_file(), f"helpers/demos/{demo.name} has no helpers/{topic}.py"
            assert f"helpers.{topic}" in LAYER_1, f"helpers.{topic} is missing from LAYER_1"
