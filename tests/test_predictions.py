"""Predict, commit, reveal: the predictions' data and judging (every prediction of the course, automatically), the
widget of each form, and the ``predict-commit`` cells of the notebooks.

The data-driven tests run over :func:`predictions`, so a prediction added to ``helpers/exercises/predictions/nNN.py``
is covered without a line here: its truth is computed and readable, judged right, every other option judged wrong,
its thought table reachable, junk answered with a message, and its notebook shows it in a ``predict-commit`` cell.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys

import ipywidgets as widgets
import numpy as np
import pytest

from helpers.exercises import Judgement, Prediction, judge, predictions, progress, record, reset_progress
from helpers.exercises.predictions import region_kind, region_of, region_options
from helpers.exercises.progress import subscribe
from helpers.look import theme
from helpers.widgets.choices import ChoiceList
from helpers.widgets.live import RUN_TO_SHOW
from helpers.widgets.predict import PredictionWidget, predict

import junk
from conftest import NOTEBOOK_DIR, NOTEBOOKS, as_shown, html_text, walk
from test_sweep import Sweep

ALL = predictions()
NAMES = sorted(ALL)
TOKENS = ("The", "cat", "sat")


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    """Each test records into a progress file of its own."""
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


# --------------------------------------------------------------------------- made-up predictions of every form


def _choice(**change) -> Prediction:
    spec = dict(name="01-test-choice", notebook="01_intuition", question="Which token does 'sat' attend to most?",
                form="choice", options=TOKENS, truth=lambda: "cat", why="Its key is most like the query of 'sat'.",
                thought={"sat": "a token always attends to itself most", "*": "the first token wins"})
    return Prediction(**{**spec, **change})


def _cell() -> Prediction:
    return Prediction(name="02-test-cell", notebook="02_projections", question="Which weight is the largest?",
                      form="cell", row_labels=TOKENS, col_labels=TOKENS, truth=lambda: ("sat", "cat"),
                      why="q_sat · k_cat is the largest score.",
                      thought={"transposed": "the weights are symmetric", "diagonal": "self always wins",
                               ("The", "The"): "the first entry is the largest"})


def _region() -> Prediction:
    before = np.arange(9.0).reshape(3, 3)
    after = before.copy()
    after[:, 1] += 1

    return Prediction(name="02-test-region", notebook="02_projections",
                      question="You change the key of 'cat'. Which part of the scores changes?", form="region",
                      row_labels=TOKENS, col_labels=TOKENS,
                      truth=lambda: region_of(~np.isclose(before, after), TOKENS, TOKENS),
                      why="A key is a column of the scores.", thought={"row": "a key changes a query's row"})


def _number() -> Prediction:
    return Prediction(name="01-test-number", notebook="01_intuition", question="softmax([0, 0])[0]?",
                      form="number", truth=lambda: 0.5, tolerance=0.01, why="Two equal scores share evenly.",
                      thought={1.0: "the first one takes it all", "lower": "ties get less"})


MADE_UP = {"number": _number, "choice": _choice, "cell": _cell, "region": _region}


def test_region_of_names_rows_columns_entries_and_the_whole():
    rows, cols = ("a", "b", "c"), ("x", "y")
    changed = np.zeros((3, 2), dtype=bool)
    assert region_of(changed, rows, cols) == "nothing"
    changed[1] = True
    assert region_of(changed, rows, cols) == "row 'b'"
    changed[2] = True
    assert region_of(changed, rows, cols) == "rows 'b', 'c'"
    assert region_of(np.ones((3, 2)), rows, cols) == "the whole matrix"
    assert region_of(np.array([[0, 1], [0, 1], [0, 1]]), rows, cols) == "column 'y'"
    assert region_of(np.array([[0, 1], [0, 0], [0, 0]]), rows, cols) == "one entry: row 'a', column 'y'"
    assert region_of(np.array([[1, 1], [0, 1], [0, 0]]), rows, cols) == "some entries"
    for region, kind in (("row 'b'", "row"), ("rows 'b', 'c'", "rows"), ("column 'y'", "column"),
                         ("the whole matrix", "whole"), ("nothing", "nothing"), ("some entries", "some"),
                         ("one entry: row 'a', column 'y'", "entry")):
        assert region_kind(region) == kind
    assert region_options(rows, cols) == ("row 'a'", "row 'b'", "row 'c'", "column 'x'", "column 'y'",
                                          "the whole matrix", "nothing")
    with pytest.raises(ValueError, match="shape"):
        region_of(np.zeros((2, 2)), rows, cols)


@pytest.mark.parametrize("form", sorted(MADE_UP))
def test_each_form_judges_right_wrong_and_junk(form):
    p = MADE_UP[form]()
    truth = p.truth_value()
    right = p.judge(truth)
    assert isinstance(right, Judgement) and right.correct and right.thought == "" and right.readable
    assert right.answer == right.truth and right.truth
    assert "Right." in right.message and p.why in right.message
    for answer in junk.ANSWERS + [junk.LONG_NUMBER, "🙂", "\x00"]:
        j = p.judge(answer)
        assert isinstance(j, Judgement)
        if not j.readable:
            assert not j.correct and j.truth == "" and j.message.startswith("Your prediction is not judged: ")


def test_the_forms_read_answers_as_a_learner_gives_them():
    assert _number().judge("1/2").correct and _number().judge(0.495).correct and not _number().judge("0.52").correct
    assert _choice().judge("  CAT ").correct and _choice().judge("cat").answer == "cat"
    cell = _cell()
    for answer in (("sat", "cat"), ["SAT", "cat"], (2, 1), "sat, cat", "(sat, cat)", "'sat', 'cat'", "sat/cat"):
        assert cell.judge(answer).correct, answer
    assert cell.judge(("sat", "cat")).answer == "row 'sat', column 'cat'"
    assert _region().truth_value() == "column 'cat'"
    assert _region().judge("Column 'cat'").correct


def test_thoughts_follow_the_wrong_answer_or_its_kind():
    number, choice, cell, region = _number(), _choice(), _cell(), _region()
    assert number.judge(1).thought == "You probably thought the first one takes it all."
    assert number.judge(0.2).thought == "You probably thought ties get less."
    assert number.judge(0.8).thought == ""  # higher: the table is silent
    assert choice.judge("sat").thought == "You probably thought a token always attends to itself most."
    assert choice.judge("The").thought == "You probably thought the first token wins."
    assert cell.judge(("cat", "sat")).thought == "You probably thought the weights are symmetric."
    assert cell.judge(("cat", "cat")).thought == "You probably thought self always wins."
    assert cell.judge((0, 0)).thought == "You probably thought the first entry is the largest."
    assert region.judge("row 'The'").thought == "You probably thought a key changes a query's row."
    assert region.judge("nothing").thought == ""


@pytest.mark.parametrize("change, words", [
    (dict(name="pasta"), "name reads like '01-pasta-weight'"),
    (dict(name="02-x"), "its name starts with 01-"),
    (dict(notebook="intuition"), "notebook must be"),
    (dict(form="slider"), "form must be one of"),
    (dict(truth=0.5), "truth must be a function"),
    (dict(why=""), "why must be"),
    (dict(why="one\ntwo"), "why is one line"),
    (dict(options=("cat",)), "at least two"),
    (dict(options=("cat", "CAT")), "at least two different"),
    (dict(thought={"dog": "x"}), "thought key 'dog'"),
    (dict(thought={"sat": "You probably thought x"}), "leave those words out"),
])
def test_a_malformed_prediction_is_refused_when_it_is_made(change, words):
    with pytest.raises(ValueError, match=words):
        _choice(**change)


# --------------------------------------------------------------------------- every prediction of the course


def test_there_are_predictions_and_unknown_names_raise():
    assert NAMES
    with pytest.raises(ValueError, match="no prediction is called 'nope'; the predictions are 01-pasta-weight"):
        judge("nope", 1)
    with pytest.raises(ValueError, match="no prediction"):
        predict("nope")
    with pytest.raises(ValueError, match="no prediction is called '01-nope'; the predictions are 01-pasta-weight"):
        judge("01-nope", 1)  # a name of notebook 01 that is not there: every known one is listed


def test_a_notebooks_prediction_is_found_without_computing_the_other_notebooks():
    """A kernel that shows predict("01-...") computes 01's truths only (05's and 08's come from their demos)."""
    code = ("import sys; from helpers.predict import predict; predict('01-pasta-weight'); "
            "print(sorted(m for m in sys.modules if m.startswith('helpers.exercises.predictions.n')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['helpers.exercises.predictions.n01']"


def _wrong_answers(p: Prediction) -> list:
    """Possible answers of the prediction's form that are not the truth: the other options, entries, or numbers
    around it (and its bounds) beyond the close band."""
    truth = p.truth_value()
    if p.form in ("choice", "region"):
        return [o for o in p.options if o != truth]
    if p.form == "cell":
        return [(r, c) for r in p.row_labels for c in p.col_labels if (r, c) != truth]
    step = 3 * p.tolerance + 0.1
    below, above = truth - step, truth + step
    if p.whole:
        below, above = math.floor(below), math.ceil(above)
    low, high = p.bounds
    return [x for x in (below, above, 0.0, low, high)
            if x is not None and (low is None or x >= low) and (high is None or x <= high)
            and abs(x - truth) > 2 * p.tolerance + 1e-9]


@pytest.mark.parametrize("name", NAMES)
def test_a_predictions_truth_is_computed_readable_and_judged_right(name):
    p = ALL[name]
    truth = p.truth_value()
    if p.form == "number":
        assert math.isfinite(truth)
    right = judge(name, truth)
    assert right.correct and right.truth and right.why == p.why and right.thought == ""
    for wrong in _wrong_answers(p):
        j = judge(name, wrong)
        assert not j.correct and j.readable and j.truth == right.truth, wrong


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_of_a_thought_table_is_reached_by_some_wrong_answer(name):
    p = ALL[name]
    wrong = _wrong_answers(p) + ([k for k in p.thought if isinstance(k, float)] if p.form == "number" else [])
    said = {judge(name, w).thought for w in wrong}
    for key, clause in p.thought.items():
        assert f"You probably thought {clause.strip().rstrip('.')}." in said, f"thought[{key!r}] is never said"


@pytest.mark.parametrize("name", NAMES)
def test_junk_answers_get_a_message_and_reveal_nothing(name):
    for answer in junk.ANSWERS + junk.sample():
        j = judge(name, answer)
        assert isinstance(j, Judgement)
        if not j.readable:
            assert j.truth == "" and not j.correct and j.problem


NUMBERS = [name for name in NAMES if ALL[name].form == "number"]


def test_an_impossible_weight_is_refused_not_judged():
    j = judge("01-pasta-weight", "1.5")
    assert j.problem == "a weight is between 0 and 1; 1.5 is not"
    assert not j.correct and j.truth == "" and j.thought == "" and not j.close
    assert j.message == "Your prediction is not judged: a weight is between 0 and 1; 1.5 is not"
    assert judge("01-pasta-weight", -0.2).problem == "a weight is between 0 and 1; \u22120.2 is not"
    assert judge("03-head-width", "64.5").problem.endswith("is a whole number; 64.5 is not")


@pytest.mark.parametrize("name", NUMBERS)
def test_every_number_prediction_declares_what_is_possible_and_refuses_the_rest(name):
    p = ALL[name]
    low, high = p.bounds
    assert low is not None or high is not None, f"{name} says nothing of what is possible"
    truth = p.truth_value()
    assert (low is None or truth >= low) and (high is None or truth <= high)
    beyond = ([low - 0.5, low - 1e-6, low - 1000] if low is not None else []) + \
             ([high + 0.5, high + 1e-6, high * 10 + 1] if high is not None else [])
    if p.whole:
        beyond.append(truth + 0.5)
    for answer in beyond:
        for given in (answer, str(answer)):
            j = judge(name, given)
            assert j.problem and not j.correct and j.truth == "" and j.answer == "" and not j.close, given
            assert j.problem.endswith(" is not"), j.problem
    # The bounds themselves are possible: judged, never refused.
    for bound in (low, high):
        if bound is not None:
            assert judge(name, bound).readable


@pytest.mark.parametrize("name", NUMBERS)
def test_a_close_number_is_rounding_not_a_misconception(name):
    p = ALL[name]
    truth, tol = p.truth_value(), p.tolerance
    low, high = p.bounds
    possible = [x for x in (truth - 1.5 * tol, truth + 1.5 * tol)
                if (low is None or x >= low) and (high is None or x <= high)]
    if tol == 0:
        assert p.whole and judge(name, truth + 1).close is False  # a whole number asked exactly: no close band
        return
    assert possible
    for answer in possible:
        j = judge(name, answer)
        assert j.readable and not j.correct and j.close and j.thought == "", answer
        assert "Close: a matter of rounding" in j.message and f"±{tol:g}" in j.message
        assert "You probably thought" not in j.message
    for answer in (truth - 0.5 * tol, truth + 0.5 * tol):
        j = judge(name, answer)
        assert j.correct and not j.close
    for answer in _wrong_answers(p):
        assert not judge(name, answer).close, answer


@pytest.mark.parametrize("name", NUMBERS)
def test_every_thought_of_a_number_lies_beyond_the_close_band_and_within_the_bounds(name):
    p = ALL[name]
    truth = p.truth_value()
    low, high = p.bounds
    for key in p.thought:
        if isinstance(key, float):
            assert abs(key - truth) > 2 * p.tolerance, f"thought[{key}] would be called close"
            assert (low is None or key >= low) and (high is None or key <= high)


def test_a_mental_estimate_is_right():
    """The worked estimates: 1 / (1 + e) with e as 2.7 gives 0.27 (truth 0.269), e^3 / (e^3 + 3) with e^3 as 20 gives
    0.87 and with 27, 0.9; e^2 / (e^2.5 + e^1.5 + e^2 + 1) about 0.3."""
    for name, estimates in (("04-weight-after-the-mask", ("0.27", "0.28", "0.25", "1/3.7")),
                            ("06-chat-black-weight", ("0.87", "0.9", "20/23")),
                            ("01-pasta-weight", ("0.3", "0.29")),
                            ("06-reversed-black-le", ("0.33", "1/3", "0.3")),
                            ("07-stronger-head", ("0.83", "30/36", "0.8"))):
        for estimate in estimates:
            assert judge(name, estimate).correct, (name, estimate)


@pytest.mark.parametrize("name", NUMBERS)
def test_every_number_predictions_box_says_how_precise_to_be(name):
    p = ALL[name]
    shown = html_text(predict(name).question_html)
    assert as_shown(p.question) in shown
    low, high = p.bounds
    if p.tolerance:
        assert f"to within ±{p.tolerance:g}" in shown
    else:
        assert "A whole number" in shown
    if low is not None and high is not None:
        assert f"from {low:g} to {high:g}" in shown
    elif low is not None:
        assert f"{low:g} or more" in shown


def test_a_number_predictions_new_fields_refuse_what_cannot_be():
    for change, words in ((dict(quantity="speed"), "quantity must be one of"),
                          (dict(quantity=None), "quantity must be one of"),
                          (dict(minimum="zero"), "minimum must be a finite number"),
                          (dict(maximum=float("nan")), "maximum must be a finite number"),
                          (dict(minimum=True), "minimum must be a finite number"),
                          (dict(quantity="weight", maximum=-1), "must be below maximum"),
                          (dict(quantity="weight", thought={1.5: "x"}), "thought key 1.5")):
        with pytest.raises(ValueError, match=words):
            Prediction(**{**_number().__dict__, **change})
    with pytest.raises(ValueError, match="for the \"number\" form only"):
        _choice(quantity="weight")
    weight = Prediction(**{**_number().__dict__, "quantity": "weight"})
    for answer in junk.ANSWERS + junk.sample() + [1.5, "2", -1, 1e308]:
        j = weight.judge(answer)
        assert isinstance(j, Judgement) and (j.readable or (j.problem and not j.truth))


# --------------------------------------------------------------------------- the widget


def _classes(w) -> set:
    return set(w._dom_classes)


def test_commit_locks_records_and_reveals_the_truth_beside_the_prediction():
    w = predict(NAMES[0])
    assert isinstance(w, widgets.Box) and {"predict", "course-widget"} <= _classes(w)
    for part, cls in ((w.input, "predict-input"), (w.commit_button, "predict-commit"),
                      (w.reveal_html, "predict-reveal"), (w.reveal_button, "predict-reveal-button")):
        assert cls in _classes(part)
    p = w.prediction
    wrong = _wrong_answers(p)[0]
    w.set_answer(str(wrong) if p.form == "number" else wrong)
    w.commit_button.click()
    assert w.committed and w.revealed and w.input.disabled and w.commit_button.disabled
    assert name_recorded(p.name)
    j = w.judgement
    shown = html_text(w.reveal_html)
    assert all(as_shown(t) in shown for t in (j.answer, j.truth, p.why, j.thought))
    # Not an error: neutral colours, no alert box.
    assert 'role="alert"' not in w.reveal_html.value and theme.ERROR_BORDER not in w.reveal_html.value
    assert "var(--jp-" in w.reveal_html.value
    w.try_again_button.click()
    assert not w.committed and not w.revealed and not w.input.disabled and w.reveal_html.value == ""
    w.set_answer(p.truth_value() if p.form != "number" else str(p.truth_value()))
    assert w.commit().correct and "✓ Right." in html_text(w.reveal_html)


def name_recorded(name: str) -> bool:
    return name in progress().predictions


def test_in_the_lecture_mode_the_reveal_waits_for_the_presenters_click_and_so_does_the_record(monkeypatch):
    monkeypatch.setenv("COURSE_LECTURE", "1")
    heard = []
    unsubscribe = subscribe(lambda result: heard.append((result.name, html_text(w.reveal_html))))
    try:
        w = PredictionWidget(_choice())
        assert w.lecture
        w.set_answer("sat")
        w.commit_button.click()
        assert w.committed and not w.revealed and w.reveal_html.value == ""
        assert w.reveal_button.layout.display != "none" and w.input.disabled
        assert progress().result("prediction", "01-test-choice") is None and heard == []  # nothing before Reveal
        w.reveal_button.click()
    finally:
        unsubscribe()
    assert w.revealed and "cat" in html_text(w.reveal_html) and w.reveal_button.layout.display == "none"
    assert "You probably thought a token always attends to itself most." in html_text(w.reveal_html)
    recorded = progress().result("prediction", "01-test-choice")
    assert recorded.correct is False and recorded.answer == "sat" and recorded.tries == 1
    # The listener heard the record with the result already on screen.
    assert len(heard) == 1 and heard[0][0] == "01-test-choice" and "Your prediction" in heard[0][1]


def test_outside_the_lecture_the_record_comes_with_the_reveal_at_commit():
    heard = []
    w = PredictionWidget(_number())
    unsubscribe = subscribe(lambda result: heard.append(html_text(w.reveal_html)))
    try:
        w.set_answer("0.5")
        w.commit()
    finally:
        unsubscribe()
    assert len(heard) == 1 and "✓ Right." in heard[0]
    assert progress().result("prediction", "01-test-number").correct is True


@pytest.mark.parametrize("form", sorted(MADE_UP))
def test_after_a_restart_the_box_shows_the_first_answer_and_its_verdict(form):
    p = MADE_UP[form]()
    first = PredictionWidget(p)
    wrong = _wrong_answers(p)[0]
    first.set_answer(str(wrong) if form == "number" else wrong)
    j = first.commit()
    first.try_again()
    first.set_answer(str(p.truth_value()) if form == "number" else p.truth_value())
    assert first.commit().correct
    kept = progress().result("prediction", p.name)
    assert kept.tries == 2 and kept.correct is False and kept.answer == j.answer

    again = PredictionWidget(p)  # the kernel restarted: a new box, the same progress file
    assert again.restored and again.committed and again.revealed
    assert again.input.disabled and again.commit_button.disabled
    assert again.try_again_button.layout.display != "none" and again.reveal_button.layout.display == "none"
    shown = html_text(again.reveal_html)
    assert all(as_shown(t) in shown for t in (j.answer, j.truth, p.why)) and "Not quite" in shown
    assert "first of your 2 tries" in shown and (not j.thought or as_shown(j.thought) in shown)
    if form == "number":
        assert again.input.value == j.answer
    elif form == "cell":
        assert again.answer == wrong and again._cells[p.truth_value()].button_style == "success"
    else:
        assert again.input.value == wrong
    assert progress().result("prediction", p.name).tries == 2  # showing it again records nothing
    again.try_again()
    assert not again.committed and not again.restored and again.reveal_html.value == ""
    again.set_answer(str(p.truth_value()) if form == "number" else p.truth_value())
    assert again.commit().correct and progress().result("prediction", p.name).tries == 3


def test_a_restored_box_judges_the_kept_answer_as_it_is_now_and_ignores_junk():
    record("prediction", "01-test-number", correct=True, answer="0.52")  # right under an older tolerance
    shown = html_text(PredictionWidget(_number()).reveal_html)
    assert "0.52" in shown and "Close: a matter of rounding" in shown and "✓ Right." not in shown
    for junk_answer in ("🙂", "", "1e999", "[[1, 2]]", "9" * 500):
        reset_progress()
        record("prediction", "01-test-number", correct=False, answer=junk_answer)
        w = PredictionWidget(_number())
        assert not w.committed and not w.restored and w.reveal_html.value == "" and w.message_html.value == ""
    reset_progress()
    record("prediction", "01-test-number", correct=None)  # the first file format: no answer kept
    assert not PredictionWidget(_number()).committed


def test_the_lecture_mode_restores_nothing():
    record("prediction", "01-test-choice", correct=False, answer="sat")
    w = PredictionWidget(_choice(), lecture=True)
    assert not w.committed and not w.revealed and w.reveal_html.value == "" and w.input.value is None


def test_nothing_or_junk_is_not_committed_and_the_reason_sits_next_to_the_input():
    w = PredictionWidget(_number())
    w.commit_button.click()
    assert not w.committed and "Make a prediction first: type a number" in html_text(w.message_html)
    w.input.value = "1,5"
    assert "decimals with a point" in html_text(w.message_html) and not w.committed
    w.commit_button.click()
    assert not w.committed and w.reveal_html.value == ""
    w.input.value = ""
    assert w.message_html.value == ""
    cell = PredictionWidget(_cell())
    cell.commit_button.click()
    assert "click one entry of the matrix" in html_text(cell.message_html)


def test_the_cell_grid_picks_one_entry_names_every_entry_and_marks_the_truth():
    w = PredictionWidget(_cell())
    cells = [c for c in walk(w) if "predict-cell" in _classes(c)]
    assert len(cells) == 9 and all(c.tooltip.startswith("row '") and ", column '" in c.tooltip for c in cells)
    by_name = {c.tooltip: c for c in cells}
    by_name["row 'The', column 'cat'"].value = True
    by_name["row 'sat', column 'cat'"].value = True
    assert w.answer == ("sat", "cat") and not by_name["row 'The', column 'cat'"].value
    w.commit()
    assert w.judgement.correct and by_name["row 'sat', column 'cat'"].button_style == "success"
    assert all(c.disabled for c in cells)
    w.try_again()
    assert w.answer is None and not any(c.value or c.disabled or c.button_style for c in cells)


@pytest.mark.parametrize("form", sorted(MADE_UP))
def test_every_control_has_an_accessible_name_and_nothing_is_an_output(form):
    w = PredictionWidget(MADE_UP[form]())
    for part in walk(w):
        assert not isinstance(part, widgets.Output)
        if isinstance(part, (widgets.Button, widgets.ToggleButton)):
            assert (part.description or part.tooltip).strip()
        if isinstance(part, (widgets.Text, widgets.ToggleButtons, ChoiceList)):
            assert part.description.strip()
    assert f"predict-form-{form}" in _classes(w)


@pytest.mark.parametrize("form", sorted(MADE_UP))
def test_the_junk_sweep_finds_nothing_in_any_form(form):
    found = Sweep("predict").run([PredictionWidget(MADE_UP[form]())])
    assert not found.escapes and not found.not_recovered and not found.unexpected
    if form == "number":
        assert found.fields == 1 and found.reacted == {"PredictionWidget"}


def test_the_text_form_is_the_question_and_says_to_run_the_cell():
    w = predict(NAMES[0])
    text = w._repr_mimebundle_()["text/plain"]
    assert text.startswith(f"Predict {NAMES[0]}: ") and text.endswith(f"({RUN_TO_SHOW})") and len(text) < 200


def test_a_large_widget_has_larger_text():
    assert theme.sizes(True).font in PredictionWidget(_choice(), large=True).question_html.value


# --------------------------------------------------------------------------- the predict-commit cells


def predict_cells():
    """(notebook stem, cell, the name in its last line) of every cell tagged predict-commit."""
    found = []
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if "predict-commit" in cell.get("metadata", {}).get("tags", []):
                last = ast.parse("".join(cell["source"])).body[-1]
                call = last.value if isinstance(last, ast.Expr) else None
                ok = isinstance(call, ast.Call) and getattr(call.func, "id", "") == "predict" \
                    and call.args and isinstance(call.args[0], ast.Constant)
                found.append((path.stem, cell, call.args[0].value if ok else None))
    return found


CELLS = predict_cells()


def test_every_prediction_is_shown_by_one_predict_commit_cell_of_its_notebook():
    shown = [(stem, name) for stem, _cell, name in CELLS]
    assert all(name is not None for _stem, name in shown), "a predict-commit cell ends with predict(\"<name>\")"
    assert sorted(name for _stem, name in shown) == NAMES, "each prediction is shown once, and only those defined"
    for stem, name in shown:
        assert ALL[name].notebook == stem, f"{name} is shown in {stem}, not in {ALL[name].notebook}"
        assert (NOTEBOOK_DIR / f"{stem}.ipynb").exists()


@pytest.mark.parametrize("stem, cell, name", CELLS, ids=[n or "?" for _s, _c, n in CELLS])
def test_a_predict_commit_cell_stores_the_widgets_text_form(stem, cell, name):
    (output,) = cell["outputs"]
    text = "".join(output["data"]["text/plain"])
    assert text.startswith(f"Predict {name}: ") and text.endswith(f"({RUN_TO_SHOW})")
