"""Hints before answers: every Your turn and every bug has a hint ladder (the idea in words, then the failing example of
the last check, for a bug then the mistake named, then the solution, folded), shown one step per press of Hint; the
instructor switch opens the solution; junk never escapes a handler; before a press the ladder names nothing."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.exercises import bugs, check_code, check_fix, ladder, ladder_names, reset_attempts, solution_source
from helpers.exercises.code_tasks import MISTAKES, SKELETONS, SOLUTIONS, TASKS, YOUR_TURN_TASKS
from helpers.exercises.hints import NO_CHECK_YET
from helpers.widgets import hints as hints_module
from helpers.widgets.hints import HintLadder, hints
from helpers.widgets.snapshot import snapshot_html
from helpers.widgets.solutions import INSTRUCTOR

from conftest import html_text
from test_code_check import define

BUGS = bugs()
NAMES = ladder_names()


@pytest.fixture(autouse=True)
def fresh_kernel(tmp_path, monkeypatch):
    """Each test as in a new kernel: its own progress file, no check made yet, the instructor switch off."""
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))
    reset_attempts()
    INSTRUCTOR.show_solutions = False
    yield
    reset_attempts()
    INSTRUCTOR.show_solutions = False


def task_of(name: str) -> str:
    return BUGS[name].task if name in BUGS else name


def check(name: str, fn):
    """The check of a Your turn or of a bug, as its cell calls it."""
    return check_fix(name, fn) if name in BUGS else check_code(name, fn)


def wrong(name: str):
    """A wrong implementation of ``name``: the bug's own mistake, or a Your turn task's first catalogued one."""
    models = dict((m.key, f) for m, f in TASKS[task_of(name)].models)
    return models[BUGS[name].mistake] if name in BUGS else next(iter(models.values()))


def solution_statements(task: str) -> set[str]:
    """Every statement of the task's reference solution and its right-hand side (after ``return`` or ``=``), without
    spaces, from 12 characters on: what a message must not give away."""
    import ast

    source = solution_source(task)
    func = ast.parse(source).body[0]
    found = set()
    for stmt in ast.walk(func):
        if stmt is func or not isinstance(stmt, ast.stmt) or isinstance(stmt, ast.Expr):
            continue
        parts = [ast.get_source_segment(source, stmt)]
        if isinstance(stmt, (ast.Return, ast.Assign, ast.AugAssign)) and stmt.value is not None:
            parts.append(ast.get_source_segment(source, stmt.value))
        found.update("".join(part.split("#")[0].split()) for part in parts if part)
    return {part for part in found if len(part) >= 12}


def squeezed(text: str) -> str:
    return "".join(text.split())


# --------------------------------------------------------------------------- the ladders as data


def test_every_your_turn_and_every_bug_has_a_ladder():
    assert set(NAMES) == set(YOUR_TURN_TASKS) | set(BUGS)
    with pytest.raises(ValueError, match="name must be a Your turn task or a bug: softmax, project_qkv"):
        ladder("nope")
    for junk in (None, 42, "self_attention", ["softmax"]):  # self_attention is checked by bugs only
        with pytest.raises(ValueError, match="name must be a Your turn task or a bug"):
            hints(junk)


@pytest.mark.parametrize("name", NAMES)
def test_the_ladder_goes_idea_example_then_the_mistake_for_a_bug_then_the_solution(name):
    steps = ladder(name).kinds
    expected = ("idea", "example", "mistake", "solution") if name in BUGS else ("idea", "example", "solution")
    assert steps == expected
    assert ladder(name, solution=False).kinds == expected[:-1]
    assert ladder(name).steps[-1].code == solution_source(task_of(name))


@pytest.mark.parametrize("name", NAMES)
def test_each_idea_is_words_that_give_away_neither_the_solution_nor_the_mistake(name):
    idea = ladder(name).steps[0].text
    assert idea == (BUGS[name].idea if name in BUGS else TASKS[name].idea)
    assert len(idea.split()) >= 15 and idea.endswith((".", "?")), "a sentence or two in words"
    assert not {s for s in solution_statements(task_of(name)) if s in squeezed(idea)}
    if name in BUGS:
        mistake = MISTAKES[BUGS[name].mistake]
        assert mistake.title not in idea and mistake.advice not in idea


@pytest.mark.parametrize("name", NAMES)
def test_the_example_step_is_the_last_checks_failing_example(name):
    assert ladder(name).steps[1].text == NO_CHECK_YET
    feedback = check(name, wrong(name))
    step = ladder(name).steps[1]
    assert not feedback.correct and step.code == feedback.example
    assert step.code.startswith("The example: ") and "expected" in step.code
    right = check(name, define(solution_source(task_of(name))))
    assert right.correct and "passed" in ladder(name).steps[1].text and ladder(name).steps[1].code == ""
    if name not in BUGS:  # a skeleton, as the Your turn cell holds it
        check(name, define(SKELETONS[name]))
        assert "not written yet" in ladder(name).steps[1].text
    check(name, 42)
    assert "could not try your function" in ladder(name).steps[1].text


def test_a_bugs_mistake_step_names_its_mistake():
    for name, found in BUGS.items():
        mistake = MISTAKES[found.mistake]
        text = ladder(name).steps[2].text
        assert mistake.title in text and mistake.advice in text and mistake.where in text


# --------------------------------------------------------------------------- the widget


@pytest.mark.parametrize("name", NAMES)
def test_hint_shows_one_step_per_press_in_the_ladders_order(name):
    widget = hints(name)
    expected = ladder(name).kinds
    assert widget.shown == 0 and widget.steps_shown == () and not widget.steps_box.children
    assert widget.next_button.description == "Hint: the idea"
    for k in range(1, len(expected) + 1):
        widget.next_hint()
        assert widget.steps_shown == expected[:k]
        assert len(widget.steps_box.children) == k
    assert widget.next_button.layout.display == "none", "nothing left to show"
    widget.next_hint()  # one press too many changes nothing
    assert widget.steps_shown == expected and widget.message_html.value == ""
    texts = [html_text(view.value) for view in widget.steps_box.children]
    assert texts[0].startswith("The idea")
    assert texts[1].startswith("Your failing example") and NO_CHECK_YET in texts[1]
    fold = widget.solution_fold
    assert fold is widget.steps_box.children[-1] and not fold.is_open, "the solution comes folded"
    assert "Solution: " + task_of(name) in fold.value


def test_the_buttons_label_says_what_comes_next():
    widget = hints(next(iter(BUGS)))
    labels = []
    while widget.next_button.layout.display != "none":
        labels.append(widget.next_button.description)
        widget.next_hint()
    assert labels == ["Hint: the idea", "Next hint: your failing example", "Next hint: the mistake",
                      "Show the solution"]


def test_the_example_on_screen_follows_the_next_check():
    widget = hints("softmax")
    widget.next_hint()
    widget.next_hint()
    assert NO_CHECK_YET in html_text(widget.steps_box.children[1].value)
    feedback = check_code("softmax", lambda x: np.exp(x) / np.exp(x).sum())
    shown = html_text(widget.steps_box.children[1].value)
    assert "Your last check failed on this example" in shown
    assert html_text(f"<pre>{feedback.example.splitlines()[1]}</pre>") in shown
    check_code("softmax", SOLUTIONS["softmax"])
    assert "Your last check passed" in html_text(widget.steps_box.children[1].value)
    check_code("attention", lambda Q, K, V: None)  # another task's check leaves this ladder as it was
    assert "Your last check passed" in html_text(widget.steps_box.children[1].value)


def test_before_a_press_the_ladder_shows_the_same_with_and_without_the_solution_and_names_nothing():
    """What a stored notebook keeps: the same picture in the course and in the student edition, no mistake, no
    solution."""
    for name in NAMES:
        full, student = hints(name), hints(name, solution=False)
        assert full._repr_mimebundle_()["text/plain"] == student._repr_mimebundle_()["text/plain"]
        assert snapshot_html(full) == snapshot_html(student)
        full = {"text/plain": repr(full), "text/html": snapshot_html(full)}
        shown = full["text/plain"] + html_text(full["text/html"])
        assert "Stuck? Press Hint" in shown and "Hint: the idea" in shown
        assert "code-solution" not in full["text/html"] and "Solution" not in shown
        assert not {s for s in solution_statements(task_of(name)) if s in squeezed(shown)}
        if name in BUGS:
            mistake = MISTAKES[BUGS[name].mistake]
            assert mistake.title not in shown and mistake.advice not in shown


def test_without_the_solution_the_ladder_ends_before_it():
    widget = hints("attention", solution=False)
    for _ in range(4):
        widget.next_hint()
    assert widget.steps_shown == ("idea", "example") and widget.solution_fold is None
    INSTRUCTOR.show_solutions = True
    assert widget.steps_shown == ("idea", "example") and widget.solution_fold is None


def test_the_instructor_switch_opens_the_solution_at_any_step():
    widget = hints("padding_causal_mask")
    INSTRUCTOR.show_solutions = True
    assert widget.steps_shown == ("solution",) and widget.solution_fold.is_open
    assert "not_later" in widget.solution_fold.value
    assert widget.next_button.description == "Hint: the idea", "the hints stay for the learner"
    fresh = hints("merge_heads")  # made while the switch is on
    assert fresh.steps_shown == ("solution",) and fresh.solution_fold.is_open
    INSTRUCTOR.show_solutions = False
    assert widget.steps_shown == () and not widget.steps_box.children
    for _ in range(3):
        widget.next_hint()
    assert widget.steps_shown == ("idea", "example", "solution") and not widget.solution_fold.is_open
    INSTRUCTOR.show_solutions = True
    assert widget.solution_fold.is_open
    INSTRUCTOR.show_solutions = False
    assert widget.steps_shown[-1] == "solution" and not widget.solution_fold.is_open, "reached: it stays, folded"


def test_the_text_form_says_what_is_shown():
    widget = hints("softmax")
    assert repr(widget) == "Hints for softmax: none shown yet (press Hint)"
    assert widget._repr_mimebundle_()["text/plain"].startswith("Hints for softmax: none shown yet")
    widget.next_hint()
    assert repr(widget) == "Hints for softmax: idea shown"
    assert "hint-ladder" in widget._dom_classes and "hint-next" in widget.next_button._dom_classes


# --------------------------------------------------------------------------- junk never escapes a handler


def test_a_failure_inside_a_press_is_shown_next_to_the_button(monkeypatch):
    widget = hints("attention")

    def broken(*args, **kwargs):
        raise RuntimeError("the ladder is broken")

    monkeypatch.setattr(hints_module, "ladder", broken)
    widget.next_button.click()  # as the browser does: no exception leaves the handler
    assert "Something went wrong (RuntimeError: the ladder is broken)" in html_text(widget.message_html.value)
    assert isinstance(widget.last_unexpected, RuntimeError)
    assert widget.shown == 0 and widget.steps_shown == (), "the last valid state stays"
    check_code("attention", lambda Q, K, V: None)  # a check while broken: recorded, the widget keeps quiet
    INSTRUCTOR.show_solutions = True  # the switch while broken
    monkeypatch.undo()
    INSTRUCTOR.show_solutions = False
    widget.next_hint()
    assert widget.steps_shown == ("idea",) and widget.message_html.value == ""


@pytest.mark.parametrize("fn", [None, 42, "softmax", lambda: 1, lambda x: 1 / 0, lambda x: "x", lambda x: {"a": 1},
                                lambda x: [1, [2, 3]], lambda x: np.full_like(x, np.nan)])
def test_junk_checked_then_hinted_gets_words_never_an_exception(fn):
    widget = hints("softmax")
    widget.next_hint()
    widget.next_hint()
    feedback = check_code("softmax", fn)
    text = html_text(widget.steps_box.children[1].value)
    assert text.startswith("Your failing example") and widget.message_html.value == ""
    if feedback.example:
        assert "Your last check failed on this example" in text
    else:
        assert "could not try your function" in text


def test_a_closed_ladder_stops_listening_to_checks_and_to_the_switch():
    widget = hints("softmax")
    widget.next_hint()
    widget.next_hint()
    widget.close()
    check_code("softmax", lambda x: x)  # nothing is drawn into a closed widget, and nothing raises
    assert NO_CHECK_YET in html_text(widget.steps_box.children[1].value)
    INSTRUCTOR.show_solutions = True
    assert widget.solution_fold is None and len(widget.steps_box.children) == 2


def test_the_ladder_is_a_course_widget_that_wraps():
    widget = HintLadder("02-softmax-over-queries")
    assert "course-widget" in widget._dom_classes and widget.layout.max_width == "100%"
    offer = html_text(widget.offer_html.value)
    assert offer == ("Stuck? Press Hint for one hint at a time: the idea, then the example your function fails on, "
                     "then the mistake named.")
    assert re.search(r"max-width:\s*50em", widget.offer_html.value)
