"""helpers.demos.practice (notebook 09) driven like a learner: type answers, press Check, read the feedback."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from helpers.core import questions as data
from helpers.demos.practice import PracticeQuestion, PracticeSession
from helpers.exercises import (
    QUESTIONS,
    Generated,
    Kind,
    generate,
    given_matrix,
    progress,
    record,
    register_kind,
    unregister_kind,
)
from helpers.widgets import MatrixEditor

import junk
from conftest import as_shown, html_text


def _lines(shown: str) -> list[str]:
    """The text lines of a message box (one <div> per line), unescaped."""
    return [html.unescape(line) for line in re.findall(r"<div>(.*?)</div>", shown)]


def _type_matrix(editor: MatrixEditor, M) -> None:
    M = np.atleast_2d(M)
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            editor.set_text(i, j, f"{M[i, j]:.2f}")


def _answer_right(w: PracticeQuestion) -> None:
    """Fill in the right answer the way a learner would (values written out, not read from the module)."""
    a = w.answer_widgets
    if w.qid == "q1":
        for k, v in {"d_k": "64", "Q": "(8, 12, 20, 64)", "K": "8, 12, 20, 64", "V": "(8,12,20,64)",
                     "weights": "(8, 12, 20, 20)", "output": "(8, 20, 768)"}.items():
            a[k].value = v
    elif w.qid == "q2":
        a["case1"].value, a["case2"].value = "32", "64"
    elif w.qid == "q5":
        _type_matrix(a["Q"], [[2, 1], [0, 3]])
        _type_matrix(a["K"], [[1, 2], [3, 0]])
        _type_matrix(a["V"], [[1.5, 1.5], [1.5, 1.5]])
    elif w.qid == "q7":
        a["count"].value = "10,000"
    else:
        a["choice"].value = {"q3": "c", "q4": "b", "q6": "d", "q8": "a"}[w.qid]


@pytest.fixture
def sess():
    return PracticeSession()


@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_right_answer_typed_and_checked(sess, qid):
    w = sess.question(qid)
    assert w.feedback_html.value == ""
    _answer_right(w)
    w.check_button.click()
    assert w.last_feedback is not None and w.last_feedback.correct
    assert "✓" in w.feedback_html.value
    assert qid in sess.progress.solved


@pytest.mark.parametrize(
    "qid, fill, words",
    [
        ("q1", {"Q": "(8, 20, 64)"}, "shape per head"),
        ("q2", {"case1": "2048", "case2": "64"}, "you multiplied"),
        ("q7", {"count": "9900"}, "itself"),
    ],
)
def test_wrong_answer_shows_the_reason(sess, qid, fill, words):
    w = sess.question(qid)
    _answer_right(w)
    for k, v in fill.items():
        w.answer_widgets[k].value = v
    fb = w.check()
    assert not fb.correct
    assert words in w.feedback_html.value
    assert "✗" in w.feedback_html.value
    assert qid not in sess.progress.solved


def test_q5_wrong_cell_points_at_the_arithmetic(sess):
    w = sess.question("q5")
    _answer_right(w)
    w.answer_widgets["K"].set_text(1, 0, "0")
    w.check()
    assert "row 2, column 1 of K" in w.feedback_html.value
    assert "0·0 + 3·1" in w.feedback_html.value


def test_q5_invalid_cell_asks_to_fix_it_and_does_not_judge(sess):
    w = sess.question("q5")
    _answer_right(w)
    w.answer_widgets["V"].set_text(0, 0, "one and a half")
    assert w.check() is None
    assert "Fix the marked cells" in w.feedback_html.value
    assert "q5" not in sess.progress.solved


def test_every_invalid_cell_is_said_once_beside_its_grid_and_check_names_the_grids(sess):
    w = sess.question("q5")
    w.answer_widgets["V"].set_text(0, 0, "one and a half")
    w.answer_widgets["K"].set_text(1, 1, "2,5")
    w.answer_widgets["K"].set_text(0, 0, "x")
    assert w.check() is None
    # Each grid says what is wrong with its cells, by the row and column labels the learner sees, beside it.
    K, V = w.answer_widgets["K"], w.answer_widgets["V"]
    assert "matrix-editor-message-beside" in K._dom_classes
    assert "row 'token 2', column col 2: '2,5': write decimals with a point (2.5)" in K.message
    assert "row 'token 1', column col 1: 'one and a half' is not a number" in V.message
    # Check names the grids, first to last, and does not repeat the reasons (nor promise old values).
    (line,) = _lines(w.feedback_html.value)
    assert line == "Fix the marked cells first (2 cells in K, 1 cell in V): beside each grid it says what is wrong."
    assert "last valid" not in K.message_html + w.feedback_html.value
    g = sess.generator("masked", "easy", 3)
    g.answer_widgets["weights"].set_text(1, 0, "1/0")
    assert g.check() is None
    assert "1 cell in weights" in g.feedback_html.value
    assert "'1/0' divides by zero" in g.answer_widgets["weights"].message


@pytest.mark.parametrize("qid", ["q3", "q4", "q6", "q8"])
def test_choice_wrong_option_explained_and_no_choice_asked_for(sess, qid):
    w = sess.question(qid)
    w.check()
    assert "choose one of" in w.feedback_html.value
    wrong = next(c for c in QUESTIONS[qid].choices if not c.correct)
    w.answer_widgets["choice"].value = wrong.key
    w.check()
    assert not w.last_feedback.correct
    # The explanation is shown (HTML-escaped, so compare a stretch without quotes).
    assert as_shown(wrong.explanation) in html_text(w.feedback_html)


@pytest.mark.parametrize("qid", ["q1", "q2", "q7"])
def test_junk_typed_gives_a_message_never_a_traceback(sess, qid):
    w = sess.question(qid)
    for text in junk.sample():
        for field in w.answer_widgets.values():
            field.value = text
        w.check_button.click()
        assert w.feedback_html.value.strip(), junk.label(text)
        assert "Traceback" not in w.feedback_html.value, junk.label(text)
        assert qid not in sess.progress.solved, junk.label(text)


def test_hint_and_solution_are_hidden_until_asked(sess):
    w = sess.question("q1")
    assert not w.hint_visible and not w.solution_visible
    w.show_hint()
    assert w.hint_visible and not w.solution_visible
    w.show_solution()
    assert w.solution_visible
    assert "768 / 12 = 64" in w.solution_text


def test_solutions_carry_the_lesson_notes_and_every_option(sess):
    assert "per head" in sess.question("q1").solution_text
    assert "lesson" in sess.question("q3").solution_text
    q8 = sess.question("q8").solution_text
    for c in QUESTIONS["q8"].choices:
        assert f"<b>{c.key})</b>" in q8


def test_instructor_switch_reveals_and_hides_everything(sess):
    ws = [sess.question(q) for q in QUESTIONS]
    g = sess.generator("attention", "easy", 3)
    assert not any(w.solution_visible for w in ws) and not g.solution_visible
    sess.instructor.value = True
    assert all(w.solution_visible for w in ws) and g.solution_visible
    g.new_problem()  # a new problem keeps the solutions revealed
    assert g.solution_visible
    late = sess.generator("masked", "easy", 4)
    assert late.solution_visible
    sess.instructor.value = False
    assert not any(w.solution_visible for w in ws) and not g.solution_visible


def test_progress_counts_questions_and_generated_problems(sess):
    for qid in ("q2", "q7", "q3"):
        w = sess.question(qid)
        _answer_right(w)
        w.check()
    w = sess.question("q4")
    w.answer_widgets["choice"].value = "a"
    w.check()
    g = sess.generator("softmax", "easy", 5)
    _type_matrix(g.answer_widgets["weights"], g.problem.answer["weights"].reshape(1, -1))
    g.check()
    g.check()  # the same problem twice counts once
    g.set_seed(6)
    _type_matrix(g.answer_widgets["weights"], g.problem.answer["weights"].reshape(1, -1))
    g.check_button.click()
    assert "Solved 3 of 8 lesson questions, 2 generated problems." in sess.progress.widget.value
    assert sess.progress.attempts == 7


def test_answers_are_recorded_and_a_new_session_counts_them(sess):
    """What 09 checks is in the learner's progress file: a kernel started later (a new session) counts it, and a
    question answered right says so when it is built again."""
    for qid in ("q3", "q7"):
        _answer_right(sess.question(qid))
        sess.question(qid).check()
    sess.question("q4").answer_widgets["choice"].value = "a"
    sess.question("q4").check()
    g = sess.generator("softmax", "easy", 5)
    _type_matrix(g.answer_widgets["weights"], g.problem.answer["weights"].reshape(1, -1))
    g.check()
    assert [(r.name, r.correct, r.tries, r.answer) for r in progress().results("question").values()] == [
        ("q3", True, 1, "c"), ("q4", False, 1, "a"), ("q7", True, 1, "10,000"),
        ("softmax-5-easy", True, 1, progress().result("question", "softmax-5-easy").answer)]
    later = PracticeSession()
    assert later.progress.summary == ("Solved 2 of 8 lesson questions, 1 generated problem. Done: Q3, Q7.")
    assert later.progress.attempts == 0
    assert html.unescape(later.question("q3").feedback_html.value).count("✓ Answered right before (your answer: "
                                                                          "'c'). Check again any time.") == 1
    assert later.question("q4").feedback_html.value == "", "a question not right yet starts afresh"
    assert later.question("q1").feedback_html.value == ""


def test_the_progress_line_follows_the_courses_one_progress_record(sess):
    """09's progress line reads the learner's progress, whoever records there: a check recorded by another widget (or
    another session in this kernel) shows in it at once."""
    assert sess.progress.summary.startswith("Solved 0 of 8 lesson questions")
    record("question", "q2", correct=True, answer="(32, 64)")
    assert "Solved 1 of 8 lesson questions, 0 generated problems. Done: Q2." in html_text(sess.progress.widget)
    other = PracticeSession()
    _answer_right(other.question("q5"))
    other.question("q5").check()
    assert sess.progress.summary.startswith("Solved 2 of 8 lesson questions") and sess.progress.attempts == 2
    assert progress().result("question", "q5").correct is True


def test_progress_summary_singular(sess):
    g = sess.generator("softmax", "easy", 5)
    _type_matrix(g.answer_widgets["weights"], g.problem.answer["weights"].reshape(1, -1))
    g.check()
    assert sess.progress.summary.startswith("Solved 0 of 8 lesson questions, 1 generated problem.")


# ---------------------------------------------------------------- generated practice


def test_generator_shows_the_seed_and_reproduces_a_typed_seed(sess):
    g = sess.generator("masked", "medium", 42)
    assert g.seed_text.value == "42"
    assert "Problem 42" in g.prompt_html.value
    g.set_seed(7)
    ref = generate("masked", 7, "medium")
    assert g.problem.prompt == ref.prompt
    np.testing.assert_array_equal(g.problem.inputs["mask"], ref.inputs["mask"])


def test_new_problem_picks_a_new_seed_and_shows_it(sess):
    g = sess.generator("attention", "easy", 42, rng_seed=0)
    g.new_button.click()
    assert g.problem.seed != 42
    assert g.seed_text.value == str(g.problem.seed)
    assert g.problem.prompt == generate("attention", g.problem.seed, "easy").prompt


def test_bad_seed_keeps_the_problem_and_says_why(sess):
    g = sess.generator("attention", "easy", 42)
    for bad, why in (("abc", "'abc' is not a number"), ("-3", "'-3' is negative"),
                     ("4.5", "'4.5' is not a whole number"), ("", "is empty")):
        g.set_seed(bad)
        assert g.problem.seed == 42
        shown = " ".join(_lines(g.seed_message_html.value))
        assert why in shown and "not a problem number" in shown and "still showing problem 42" in shown, shown
    g.set_seed("1,000")  # a problem number is a count: thousands may be grouped
    assert g.problem.seed == 1000 and g.seed_message_html.value == ""
    g.set_seed("43")
    assert g.problem.seed == 43 and g.seed_message_html.value == ""


@pytest.mark.parametrize("kind, difficulty", [("projection", "hard"), ("attention", "hard"), ("masked", "easy"),
                                              ("softmax", "medium")])
def test_editors_fit_the_problem_and_a_right_answer_checks(sess, kind, difficulty):
    g = sess.generator(kind, difficulty, 11)
    p = g.problem
    assert set(g.answer_widgets) == set(p.answer)
    for name, value in p.answer.items():
        editor = g.answer_widgets[name]
        assert editor.value.shape == np.atleast_2d(value).shape
        _type_matrix(editor, value)  # rounded to 2 decimals, as the prompt allows
    fb = g.check()
    assert fb.correct, fb.message
    assert "✓" in g.feedback_html.value


def test_generated_wrong_answer_and_invalid_cell(sess):
    g = sess.generator("attention", "medium", 8)
    fb = g.check()  # all zeros: rows do not sum to 1
    assert not fb.correct and "sum" in g.feedback_html.value
    g.answer_widgets["output"].set_text(0, 0, "1/0")
    assert g.check() is None
    assert "Fix the marked cells" in g.feedback_html.value


def test_shapes_problem_has_text_fields(sess):
    g = sess.generator("shapes", "easy", 5)
    p = g.problem
    assert set(g.answer_widgets) == {"d_k", "Q", "K", "V", "weights", "output"}
    for k, v in p.answer.items():
        g.answer_widgets[k].value = str(v)
    assert g.check().correct
    g.answer_widgets["Q"].value = "(("
    assert not g.check().correct
    assert "Q" in g.feedback_html.value


def test_changing_kind_rebuilds_the_answer_area_and_clears_feedback(sess):
    g = sess.generator("projection", "easy", 3)
    g.check()
    assert g.feedback_html.value
    g.kind_dropdown.value = "softmax"
    assert g.problem.kind == "softmax"
    assert set(g.answer_widgets) == {"weights"}
    assert g.feedback_html.value == ""
    g.difficulty_dropdown.value = "hard"
    assert g.problem.difficulty == "hard"
    assert g.answer_widgets["weights"].value.shape == (1, 5)


def test_show_solution_button_toggles_and_shows_every_number(sess):
    g = sess.generator("attention", "easy", 12)
    assert not g.solution_visible
    g.solution_button.click()
    assert g.solution_visible and g.solution_button.description == "Hide solution"
    for v in np.ravel(g.problem.answer["output"]):
        assert f"{v:.2f}".rstrip("0").rstrip(".") in g.solution_html.value
    g.solution_button.click()
    assert not g.solution_visible


def test_reprs_are_short_and_stable(sess):
    assert repr(sess.question("q3")) == "PracticeQuestion('q3')"
    assert repr(sess.generator("masked", "hard", 9)) == "GeneratedPractice(kind='masked', seed=9, difficulty='hard')"


def test_module_level_functions_share_one_session():
    from helpers.demos import practice

    assert practice.question("q2") is practice.question("Q2")
    assert practice.instructor_switch() is practice.session().instructor
    assert practice.progress() is practice.session().progress.widget


def test_the_kernels_instructor_switch_is_one_for_practice_and_code_solutions():
    from helpers.demos import practice
    from helpers.widgets import solutions

    switch = solutions.instructor_switch()
    assert practice.instructor_switch() is switch and switch.mode is solutions.INSTRUCTOR
    q, fold = practice.question("q3"), solutions.show_solution("softmax")
    try:
        solutions.INSTRUCTOR.show_solutions = True  # the mode set directly: the checkbox follows it
        assert switch.value and q.solution_visible and fold.is_open
        switch.value = False  # the checkbox unticked: the mode follows it
        assert not solutions.INSTRUCTOR.show_solutions and not q.solution_visible and not fold.is_open
    finally:
        solutions.INSTRUCTOR.show_solutions = False


def test_a_session_of_its_own_has_an_instructor_mode_of_its_own(sess):
    from helpers.widgets.solutions import INSTRUCTOR

    w = sess.question("q3")
    try:
        INSTRUCTOR.show_solutions = True
        assert not sess.instructor.value and not w.solution_visible
    finally:
        INSTRUCTOR.show_solutions = False
    sess.mode.show_solutions = True
    assert sess.instructor.value and w.solution_visible


def test_unknown_question_raises(sess):
    with pytest.raises(KeyError):
        sess.question("q9")


def _flaky_kind(name: str) -> Kind:
    """A registered kind whose generator breaks for problem 43 and whose checker always breaks."""

    def make(rng, difficulty):
        a = int(rng.integers(0, 1000))
        if a == int(np.random.default_rng(43).integers(0, 1000)):
            raise RuntimeError("boom")
        return Generated({"a": a}, {"total": np.array([[a]])}, f"Copy {a}.", f"{a}", (given_matrix("a", [[a]]),))

    def broken(problem, answer):
        raise RuntimeError("boom")

    return Kind(name, make, check=broken)


@pytest.fixture
def flaky_kind():
    register_kind(_flaky_kind("flaky"))
    yield "flaky"
    unregister_kind("flaky")


def test_an_internal_error_becomes_a_message_not_a_traceback(sess, flaky_kind):
    g = sess.generator(flaky_kind, "easy", 42)
    g.set_seed(43)  # the generator raises: must not escape; the last problem stays
    assert g.problem.seed == 42
    assert "Something went wrong (RuntimeError: boom)" in html.unescape(g.seed_message_html.value)
    assert g.seed_text.value == "42"  # the field shows the problem that is on screen
    g.set_seed(44)
    assert g.problem.seed == 44 and g.seed_message_html.value == ""
    g.check_button.click()  # the checker raises: must not escape
    assert "could not check this answer (RuntimeError)" in g.feedback_html.value
    assert not g.last_feedback.correct and not sess.progress.solved_problems


def test_a_problem_that_cannot_be_made_puts_the_controls_back_and_keeps_the_one_on_screen(sess, flaky_kind):
    g = sess.generator("attention", "easy", 42)
    shown = g.problem
    g.answer_widgets["output"].set_text(0, 0, "7")  # the learner has started answering
    prompts = []
    g.prompt_html.observe(lambda change: prompts.append(change["new"]), names="value")
    g.set_seed("abc")  # not a problem number: nothing changes
    g.kind_dropdown.value = flaky_kind  # still no problem number: nothing changes
    g.set_seed(43)  # flaky problem 43 cannot be made: kind and number go back together
    assert (g.kind_dropdown.value, g.difficulty_dropdown.value, g.seed_text.value) == ("attention", "easy", "42")
    assert g.problem is shown and prompts == []  # the problem on screen was never replaced, not even for a moment
    assert g.answer_widgets["output"].value[0, 0] == 7  # so the answer typed so far is still there
    assert "Something went wrong (RuntimeError: boom)" in html.unescape(g.seed_message_html.value)
    g.set_seed(44)  # the controls are heard again
    assert (g.problem.kind, g.problem.seed) == ("attention", 44) and g.seed_message_html.value == ""


def test_a_registered_kind_is_offered_and_gets_its_grids_from_its_fields(sess, flaky_kind):
    g = sess.generator("attention", "easy", 42)
    assert flaky_kind in g.kind_dropdown.options
    g.kind_dropdown.value = flaky_kind
    field = g.problem.fields[0]
    editor = g.answer_widgets["total"]
    assert (editor.value.shape, editor.row_labels, editor.col_labels) == (
        field.shape, list(field.row_labels), list(field.col_labels))
    assert g.problem.instruction in html.unescape(g.prompt_html.value)


# ---------------------------------------------------------------- the words and grids come from the data


@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_every_word_of_a_question_comes_from_the_data_and_is_shown(sess, qid):
    words = data.QUESTIONS[qid]
    w = sess.question(qid)
    shown_text = html_text(_with_class(w, "practice-question-text")[0])
    # The title is the notebook's heading above the widget: the widget does not say it again.
    assert words["title"] not in shown_text
    if QUESTIONS[qid].given:
        # The matrices are drawn as tables under the question, so the text does not write them out again.
        assert as_shown(words["text"].split(" for ")[0]) in shown_text and "for the matrices below" in shown_text
        assert "[[" not in shown_text
    else:
        assert as_shown(words["text"]) in shown_text
    assert as_shown(words["hint"]) in html_text(w.hint_text)
    # The solution's prose is typeset; its worked arithmetic (fixed-width) is shown as written.
    solution, solution_words = html.unescape(w.solution_text), html_text(w.solution_text)
    for line in words["solution"]:
        assert line in solution or as_shown(line) in solution_words
    assert as_shown(words.get("lesson_note", "")) in solution_words
    options = [label for choice in _with_class(w, "course-choice") for label, _ in choice.options]
    for c in words.get("choices", ()):
        # Each option once, its whole text the label of its radio button (clicking the text picks it).
        assert [label for label in options if c["text"] in label] == [f"{c['key']}) {c['text']}"]
        assert as_shown(c["explanation"]) in solution_words


@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_answer_fields_are_the_questions_fields(sess, qid):
    w = sess.question(qid)
    fields = QUESTIONS[qid].fields
    assert list(w.answer_widgets) == [f.name for f in fields]
    for f in fields:
        shown = w.answer_widgets[f.name]
        if f.widget == "matrix":
            assert (shown.value.shape, shown.row_labels, shown.col_labels) == (
                f.shape, list(f.row_labels), list(f.col_labels))
        elif f.widget == "choice":
            # One line per option, its whole text the label (the letter in front), its key the value.
            assert [value for _, value in shown.options] == [key for key, _ in f.options]
            for (label, _), (key, text) in zip(shown.options, f.options):
                assert label.startswith(key) and label.endswith(text)
            assert "course-choice" in shown._dom_classes
        else:
            assert shown.description == f.label


def test_q5_given_matrices_are_the_datas(sess):
    given = _with_class(sess.question("q5"), "practice-given")[0].value
    for name, M in data.QUESTIONS["q5"]["inputs"].items():
        for v in np.ravel(M):
            # A table shows whole numbers as they are, or every entry with two decimals.
            assert f">{v:g}<" in given or f">{v:.2f}<" in given, (name, v)
    assert "token 1" in given and "row 2" in given


def _visible_buttons(root) -> list[str]:
    found, stack = [], [(root, True)]
    while stack:
        w, visible = stack.pop()
        visible = visible and getattr(getattr(w, "layout", None), "display", None) != "none"
        if visible and hasattr(w, "on_click") and hasattr(w, "description"):
            found.append(w.description)
        stack.extend((c, visible) for c in getattr(w, "children", ()))
    return found


def test_answer_grids_have_no_randomize_or_reset(sess):
    q5 = sess.question("q5")
    assert _visible_buttons(q5) == ["Check"]
    g = sess.generator("projection", "easy", seed=3)
    shown = _visible_buttons(g)
    assert "Random" not in shown and "Reset" not in shown and "numpy" not in shown
    assert {"Check", "New problem", "Show solution"} <= set(shown)
    g.kind_dropdown.value = "attention"  # rebuilt grids are answer grids too
    assert "Random" not in _visible_buttons(g)


def _with_class(root, cls):
    found, stack = [], [root]
    while stack:
        w = stack.pop()
        if cls in getattr(w, "_dom_classes", ()):
            found.append(w)
        stack.extend(getattr(w, "children", ()))
    return found


def test_practice_parts_carry_stable_css_classes(sess):
    q = sess.question("q7")
    assert _with_class(q, "practice-question") == [q] and _with_class(q, "practice-q7") == [q]
    assert _with_class(q, "practice-check") == [q.check_button]
    assert _with_class(q, "practice-feedback") == [q.feedback_html]
    assert _with_class(q, "practice-hint") == [q.hint_accordion]
    assert _with_class(q, "practice-solution") == [q.solution_accordion]
    assert "n = 100" in _with_class(q, "practice-question-text")[0].value
    g = sess.generator()
    assert _with_class(g, "practice-generator") == [g]
    assert _with_class(g, "practice-check") == [g.check_button]
    assert _with_class(g, "practice-feedback") == [g.feedback_html]
    assert _with_class(g, "practice-seed") == [g.seed_text]
    assert _with_class(g, "practice-new") == [g.new_button]
    assert "practice-progress" in sess.progress_widget()._dom_classes
    assert "practice-instructor" in sess.instructor_switch()._dom_classes


def test_progress_and_instructor_switch_read_well_as_text(sess):
    # The text form is what a notebook viewer without widgets shows in place of the widget.
    assert repr(sess.progress_widget()) == "Progress: Solved 0 of 8 lesson questions, 0 generated problems."
    w = sess.question("q7")
    w.answer_widgets["count"].value = "10000"
    w.check()
    assert repr(sess.progress_widget()) == ("Progress: Solved 1 of 8 lesson questions, 0 generated problems. "
                                            "Done: Q7.")
    assert repr(sess.instructor_switch()) == "Instructor switch: show all solutions (off)"
    sess.instructor_switch().value = True
    assert repr(sess.instructor_switch()) == "Instructor switch: show all solutions (on)"


# ---------------------------------------------------------------- reading a heatmap


def _text(widget_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", widget_html))


def test_heatmap_problem_shows_a_labelled_heatmap_and_four_questions(sess):
    g = sess.generator("heatmap", "medium", 11)
    p = g.problem
    shown = g.inputs_html.value
    # One picture (not a table), described for a screen reader with every token on both axes.
    assert shown.count('<svg xmlns') == 1 and "<table" not in shown
    alt = html.unescape(re.search(r'role="img" aria-label="([^"]*)"', shown).group(1))
    for token in (*p.inputs["queries"], *p.inputs["keys"]):
        assert token in alt
    assert "Read the heatmap" in _text(g.prompt_html.value)
    labels = {name: w.description for name, w in g.answer_widgets.items()}
    assert labels == {"pattern": "Which pattern is it?", "mask": "Which mask produced it?",
                      "attention": "One sequence on both axes (self) or two (cross)?",
                      "strongest": f"Which key does the query «{p.inputs['query']}» read most?"}
    assert list(g.answer_widgets["pattern"].options) == [(k, k) for k in ("diagonal", "previous-token", "vertical",
                                                                          "block", "long-range")]
    assert [v for _, v in g.answer_widgets["strongest"].options] == [k for k in p.inputs["keys"] if k != "[PAD]"]
    # No lettered option list: each option is its own name.
    assert not any("<li" in c.value for c in g.answer_box.children if type(c).__name__ == "HTML")


def test_heatmap_widget_wrong_then_right(sess):
    g = sess.generator("heatmap", "easy", 5)
    p = g.problem
    a = g.answer_widgets
    wrong_pattern = next(v for _, v in a["pattern"].options if v != p.answer["pattern"])
    a["pattern"].value = wrong_pattern
    a["mask"].value = p.answer["mask"]
    g.check_button.click()
    seen = _text(g.feedback_html.value)
    assert not g.last_feedback.correct
    assert f"not {wrong_pattern}: that is the {p.answer['pattern']} pattern" in seen
    assert "mask: " + p.answer["mask"] in seen and "attention: missing" in seen
    assert not sess.progress.solved_problems
    for name, w in a.items():
        w.value = p.answer[name]
    g.check_button.click()
    assert g.last_feedback.correct and "All four read right." in _text(g.feedback_html.value)
    assert sess.progress.solved_problems == {("heatmap", 5, "easy")}
    g.solution_button.click()
    assert g.solution_visible and "Read the heatmap row by row" in _text(g.solution_html.value)


def test_heatmap_picture_is_the_same_for_the_same_problem_and_new_for_a_new_one(sess):
    g = sess.generator("heatmap", "hard", 3, rng_seed=1)
    first = g.inputs_html.value
    again = sess.generator("heatmap", "hard", 3)
    assert again.inputs_html.value == first
    g.new_button.click()
    assert g.problem.kind == "heatmap" and g.problem.seed != 3
    assert g.inputs_html.value != first and set(g.answer_widgets) == {"pattern", "mask", "attention", "strongest"}


def test_a_problem_shown_again_is_not_drawn_again(sess, monkeypatch):
    """Back to a problem (or a mistyped number put back): its heatmap is on screen at once."""
    import helpers.demos.practice as practice

    drawn, draw = [], practice.heatmap
    monkeypatch.setattr(practice, "heatmap", lambda *a, **kw: drawn.append(1) or draw(*a, **kw))
    g = sess.generator("heatmap", "hard", 3)
    first = g.inputs_html.value
    g.set_seed(4)
    g.set_seed("1e999")  # refused: problem 4 stays on show
    assert g.problem.seed == 4 and g.seed_message_html.value
    g.set_seed(3)
    assert g.inputs_html.value == first and g.problem.seed == 3
    assert len(drawn) == 2  # problems 3 and 4, each once


# ---------------------------------------------------------------- 09 as a learner reads it

NOTEBOOK = __import__("pathlib").Path(__file__).resolve().parents[1] / "notebooks" / "09_practice.ipynb"


def _cells():
    import json

    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def test_07_states_each_question_once():
    cells = _cells()
    for k, cell in enumerate(cells):
        m = re.search(r"practice\.question\(\"(q\d)\"\)", "".join(cell["source"]))
        if not m:
            continue
        qid = m.group(1)
        heading = "".join(cells[k - 1]["source"])
        assert cells[k - 1]["cell_type"] == "markdown" and heading.startswith("## "), qid
        # The heading names the question; the widget states it; neither repeats the other.
        assert data.QUESTIONS[qid]["title"] in heading.replace("$", "")
        assert data.QUESTIONS[qid]["text"][:40] not in heading
        shown = html.unescape(_with_class(PracticeQuestion(qid), "practice-question-text")[0].value)
        assert data.QUESTIONS[qid]["title"] not in shown


def test_07_has_a_read_the_heatmap_section_with_a_heatmap_generator():
    cells = _cells()
    k = next(k for k, c in enumerate(cells) if "".join(c["source"]).startswith("## Read the heatmap"))
    after = ["".join(c["source"]) for c in cells[k:k + 4] if c["cell_type"] == "code"]
    assert any(re.search(r"practice\.generator\(\"heatmap\"", src) for src in after)
