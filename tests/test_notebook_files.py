"""The stored notebook files: small, reproducible byte for byte, and readable before they run.

An author reviews a notebook change as a diff, so a re-run of an unchanged notebook must give the same bytes, and a
notebook opened before its cells run must still say what each widget is and show a picture of it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.widgets.live import RUN_TO_SHOW
from helpers.widgets.snapshot import SNAPSHOT_CLASS

from conftest import NOTEBOOKS, ROOT

MAX_BYTES = 200 * 1024
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CLASS_ATTR = re.compile(r"""\sclass=(?:'([^']*)'|"([^"]*)")""")
# A notebook with live widgets, a figure-free explorer, a figure and printed checks: the quickest to run of those
# that have all four, and it would show any random id, timestamp or stream split that the storing step lets through.
RERUN = ROOT / "notebooks" / "04_masking.ipynb"


def outputs(path: Path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        for output in cell.get("outputs", ()):
            yield cell, output


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_file_is_at_most_200_kb(path):
    assert path.stat().st_size <= MAX_BYTES, f"{path.name} is {path.stat().st_size / 1024:.0f} KB"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_file_holds_nothing_that_changes_between_runs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in nb["metadata"], "saved widget state (random model ids) is stored"
    for cell in nb["cells"]:
        assert "execution" not in cell["metadata"], "execution timestamps are stored"
    for _cell, output in outputs(path):
        assert WIDGET_VIEW not in output.get("data", {}), "a widget view (random model id) is stored"


@pytest.mark.parametrize("notebook_run", NOTEBOOKS, indirect=True, ids=lambda p: p.stem)
def test_every_widget_a_notebook_shows_says_what_it_is_and_to_run_its_cell(notebook_run):
    """Without saved widget state, JupyterLab shows a widget's text form until its cell runs."""
    import ipywidgets as widgets

    shown = [v for v in notebook_run.displayed if isinstance(v, widgets.Widget)]
    for w in shown:
        text = w._repr_mimebundle_()["text/plain"]
        assert text.endswith(f"({RUN_TO_SHOW})"), f"{notebook_run.path.name}: the text form {text!r}"
    stored = ["".join(o["data"]["text/plain"]) for _c, o in outputs(notebook_run.path)
              if RUN_TO_SHOW in "".join(o.get("data", {}).get("text/plain", ""))]
    assert len(stored) == len(shown), "the stored notebook is not the run of the current code: make notebooks"


@pytest.mark.parametrize("notebook_run", NOTEBOOKS, indirect=True, ids=lambda p: p.stem)
def test_every_stored_widget_output_carries_a_picture_with_the_widgets_css_classes(notebook_run):
    """GitHub, nbviewer, the course's web site and JupyterLab before "Run All" show a widget's text/html picture."""
    import ipywidgets as widgets

    shown = [v for v in notebook_run.displayed if isinstance(v, widgets.Widget)]
    stored = [o["data"] for _c, o in outputs(notebook_run.path)
              if RUN_TO_SHOW in "".join(o.get("data", {}).get("text/plain", ""))]
    assert len(stored) == len(shown), "the stored notebook is not the run of the current code: make notebooks"
    for w, data in zip(shown, stored):
        picture = "".join(data.get("text/html", ""))
        what = f"{notebook_run.path.name}: {''.join(data['text/plain'])[:60]}"
        assert picture.startswith(f"<div class='{SNAPSHOT_CLASS} "), f"{what}: no picture (make notebooks)"
        classes = {c for attr in CLASS_ATTR.findall(picture) for c in "".join(attr).split()}
        missing = [c for c in w._dom_classes if c not in classes]
        assert not missing, f"{what}: the picture lacks the widget's classes {missing}"
        assert "<script" not in picture.lower(), f"{what}: a script in the picture"


def test_a_re_run_of_an_unchanged_notebook_gives_the_same_bytes(tmp_path):
    # `make notebooks`' own runner, in this process (a new Python would spend seconds importing nbformat again).
    from course import runner as run_notebooks

    run_notebooks.run(RERUN, tmp_path / RERUN.name)
    again = (tmp_path / RERUN.name).read_bytes()
    stored = RERUN.read_bytes()
    if again != stored:
        old, new = stored.decode().splitlines(), again.decode().splitlines()
        first = next((k for k, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        pytest.fail(f"{RERUN.name} changes when re-run (first at line {first + 1}): "
                    f"{old[first][:100] if first < len(old) else '<end>'!r} -> "
                    f"{new[first][:100] if first < len(new) else '<end>'!r}; run `make notebooks` and commit")


# Math in the short form of code ("W^Q", "W^Q_1", "x_cat", "d_k", "e^(s_i)") where a learner reads it: widgets set it
# as the prose does (helpers.look.mathtext). Code and the text a learner edits keep it as written.
SHORT_MATH = re.compile(r"\b[A-Za-z]\^[A-Za-z0-9(]|(?<![A-Za-z0-9_.])[A-Za-zΣ]_[A-Za-z0-9]+\b")
NOT_READ_AS_MATH = re.compile(r"<(code|pre|textarea|style|script)\b.*?</\1\s*>", re.S | re.I)
TAG = re.compile(r"<[^>]*>")


def shown_html(w) -> list[str]:
    """The HTML a widget shows as text: an HTML view's value, a matrix editor's title, an option list's question and
    option labels; and the labels of ipywidgets' own option widgets (radio and option buttons, drop-downs), which
    the page shows as plain text, escaped here as the page escapes them."""
    import html

    import ipywidgets as widgets

    if isinstance(w, (widgets.HTML, widgets.HTMLMath)):
        return [w.value]
    if isinstance(w, widgets.widget_selection._Selection):
        return [html.escape(str(label)) for label in w._options_labels]
    return [getattr(w, "title_html", ""), getattr(w, "description_html", ""), *getattr(w, "labels", ())]


@pytest.mark.parametrize("notebook_run", NOTEBOOKS, indirect=True, ids=lambda p: p.stem)
def test_widgets_typeset_their_math(notebook_run):
    """No widget text a notebook shows writes math as "W^Q" or "x_cat": W<sup>Q</sup>, x<sub>cat</sub>."""
    from conftest import walk, widget_roots

    found = set()
    for root in widget_roots(notebook_run):
        for w in walk(root):
            for markup in shown_html(w):
                text = TAG.sub(" ", NOT_READ_AS_MATH.sub(" ", markup or ""))
                found.update(f"{type(w).__name__}: …{text[max(0, m.start() - 30):m.end() + 10]}…"
                             for m in SHORT_MATH.finditer(text))
    assert not found, f"{notebook_run.path.name}: math as code in widget text:\n" + "\n".join(sorted(found))
