"""A result folded until its prediction is committed (helpers.widgets.reveal): folded at first, opened by the
prediction's record (in this kernel or earlier) or by Show anyway, and a closed <details> on a page that cannot run
it."""

from __future__ import annotations

import json
import re
import textwrap

import nbformat
import pytest

from helpers.exercises import predictions, progress
from helpers.exercises.progress import record
from helpers.widgets.predict import PredictionWidget
from helpers.widgets.reveal import FOLDED, PICTURE_STYLE, PredictionFold, after_prediction, fold_summary

import junk
from conftest import ROOT, html_text

NAME = "04-weight-after-the-mask"  # a number: its answer has a form a test can look for
OTHER = "06-sat-column-sum"
TRUTH = predictions()[NAME].truth_value()
# What the cell after NAME's box prints: the answer itself, at 3 decimals, and a table.
PRINTED = {"output_type": "stream", "name": "stdout", "text": f"row 'cat': [{TRUTH:.3f} {1 - TRUTH:.3f} 0.   ]\n"}
TABLE = {"output_type": "display_data", "metadata": {}, "data": {"text/plain": "<IPython.core.display.HTML object>",
                                                                 "text/html": f"<table><td>{TRUTH:.2f}</td></table>"}}


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    """Each test records into a progress file of its own: nothing is predicted at first."""
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


def shown(fold: PredictionFold) -> bool:
    """Whether the learner sees the folded outputs (the Output is laid out), and not the reason and the button."""
    return fold.output.layout.display != "none" and fold.header.layout.display == "none"


def folded(fold: PredictionFold) -> bool:
    return fold.output.layout.display == "none" and fold.header.layout.display != "none"


def test_folded_at_first_with_the_reason_the_question_and_show_anyway():
    fold = PredictionFold(NAME, [PRINTED, TABLE])
    assert folded(fold) and not fold.unfolded
    reason = html_text(fold.reason_html)
    assert reason.startswith(FOLDED) and "row 'cat' give 'The'" in reason
    assert fold.show_button.description == "Show anyway" and fold.show_button.layout.display != "none"
    assert fold.output.outputs == (PRINTED, TABLE)  # held, in order, as the cell made them
    assert {"prediction-fold", "course-widget"} <= set(fold._dom_classes)


def test_a_record_of_the_prediction_opens_it_and_nothing_else_does():
    fold = PredictionFold(NAME, [PRINTED])
    record("prediction", OTHER, correct=True)
    record("design", NAME, correct=True)  # another kind with the same name
    assert folded(fold)
    record("prediction", NAME, correct=False)  # a wrong prediction is committed too
    assert shown(fold) and fold.unfolded


def test_committing_the_predict_box_above_opens_it():
    box = PredictionWidget(NAME)
    fold = PredictionFold(NAME, [PRINTED])
    box.set_answer("0.9")
    box.commit_button.click()
    assert box.committed and shown(fold)


def test_open_from_the_start_when_the_prediction_was_recorded_earlier():
    record("prediction", NAME, correct=True)
    fold = PredictionFold(NAME, [PRINTED])
    assert shown(fold)
    assert repr(fold).startswith("Shown after the prediction above")


def test_show_anyway_opens_it_without_a_prediction():
    fold = PredictionFold(NAME, [PRINTED])
    fold.show_button.click()
    assert shown(fold) and progress().result("prediction", NAME) is None
    record("prediction", NAME, correct=True)  # later: nothing more happens
    assert shown(fold)


def test_the_stored_picture_is_a_closed_details_saying_why_and_the_text_form_gives_nothing_away():
    fold = PredictionFold(NAME, [PRINTED, TABLE])
    picture = fold.picture_html()
    details = re.search(r"<details([^>]*)>(.*)</details>", picture, re.S)
    assert details and "open" not in details.group(1), "the picture's fold is open"
    summary = html_text(re.search(r"<summary[^>]*>(.*?)</summary>", picture, re.S).group(1))
    assert summary.startswith(fold_summary(NAME)) and "show it anyway" in summary
    # The outputs are inside the <details>, and nowhere else.
    outside = html_text(picture.replace(details.group(0), ""))
    assert f"{TRUTH:.3f}" in html_text(details.group(2)) and f"{TRUTH:.2f}" in html_text(details.group(2))
    assert f"{TRUTH:.2f}" not in outside and f"{TRUTH:.2f}" not in summary
    # In the theme's colours, written once per page.
    assert picture.startswith("<div class='course-snapshot prediction-fold ") and PICTURE_STYLE in picture
    assert "var(--jp-layout-color2" in PICTURE_STYLE
    assert "<style" not in fold.picture_html(style=False)
    fold._repr_mimebundle_()
    assert "<style" not in PredictionFold(NAME, [PRINTED])._repr_mimebundle_()["text/html"]
    assert picture == PredictionFold(NAME, [PRINTED, TABLE]).picture_html()  # the same outputs, the same bytes
    # The text form: which prediction, how much it holds (a change of the outputs changes it), never what.
    text = fold._repr_mimebundle_()["text/plain"]
    assert text.startswith(f"{FOLDED} ({NAME}): 2 outputs, 1 line of text, 1 table")
    assert f"{TRUTH:.2f}" not in text
    assert PredictionFold(NAME, [PRINTED])._repr_mimebundle_()["text/plain"] != text
    # Also once the prediction is recorded: a page without the kernel shows it closed.
    record("prediction", NAME, correct=True)
    assert re.search(r"<div class='[^']*prediction-fold[^']*'[^>]*>(<style>.*?</style>)?<details>",
                     fold._repr_mimebundle_()["text/html"])


def test_nothing_escapes_a_handler(monkeypatch):
    fold = PredictionFold(NAME, [PRINTED])

    def broken():
        raise RuntimeError("the layout is gone")

    monkeypatch.setattr(fold, "unfold", broken)
    fold.show_button.click()  # raises nothing
    assert "Something went wrong (RuntimeError: the layout is gone)" in html_text(fold.status_html)
    fold.status_html.value = ""
    assert record("prediction", NAME, correct=True) is True  # the listener's failure does not stop the record
    assert "RuntimeError" in html_text(fold.status_html)


@pytest.mark.parametrize("name", ["04-no-such-prediction", "", "04", None, 4, ["04-weight-after-the-mask"],
                                  *junk.TEXT[:12]])
def test_junk_names_are_refused_at_build_naming_the_predictions(name):
    for build in (lambda: PredictionFold(name), lambda: after_prediction(name)):
        with pytest.raises(ValueError, match=r"no prediction is called .*; the predictions are 01-pasta-weight"):
            build()


def test_a_cell_that_folds_its_output_stores_one_output_the_closed_fold(tmp_path):
    """In a kernel, as the learner runs it: the block's prints and displays, in order, are the fold's outputs; the
    cell's only output is the fold (nothing written into an Output while the cell runs); a record opens it."""
    from nbclient import NotebookClient

    cells = [
        "from IPython.display import HTML, display\nfrom helpers.reveal import after_prediction",
        textwrap.dedent(f"""\
            print("before the block")
            with after_prediction("{NAME}") as block:
                print("first")
                display(HTML("<b>the table</b>"))
                print("last")"""),
        textwrap.dedent(f"""\
            from helpers.exercises.progress import record
            print(block.fold.unfolded)
            record("prediction", "{NAME}", correct=True)
            print(block.fold.unfolded)"""),
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(ROOT)}}).execute()
    before, fold = nb.cells[1].outputs
    assert before.output_type == "stream" and before.text == "before the block\n"
    assert fold.output_type == "display_data"
    assert fold.data["text/plain"].startswith(f"{FOLDED} ({NAME}): 3 outputs, 2 lines of text, 1 table")
    inside = re.search(r"<details>.*</details>", fold.data["text/html"], re.S)
    assert inside and re.search(r"first.*the table.*last", html_text(inside.group(0)), re.S)
    assert [o.text for o in nb.cells[2].outputs] == ["False\nTrue\n"]
    assert json.dumps(fold.data).count("before the block") == 0
