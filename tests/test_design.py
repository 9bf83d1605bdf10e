"""Design tasks: every task of the course (automatically, from the data modules) has a start that misses its goal, a
solution that meets it, a goal that random matrices rarely meet, and junk answered with Feedback; the explorers'
goal lines; and each task is set in its notebook.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from helpers.exercises import DesignTask, Feedback, check_design, design_tasks, progress
from helpers.exercises.design import design_task
from helpers.exercises.design.goals import attends_most
from helpers.widgets import AttentionExplorer, CrossAttentionExplorer

import junk
from conftest import NOTEBOOKS, as_shown, html_text

TASKS = design_tasks()
NAMES = sorted(TASKS)
RANDOM_TRIES = 200
RANDOM_LIMIT = 0.10  # at most this share of random integer matrices may meet a goal by chance


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


def test_there_are_tasks_and_an_unknown_name_raises():
    assert NAMES
    with pytest.raises(ValueError, match="no design task is called 'nope'; the tasks are 01-sat-attends-cat"):
        check_design("nope")


@pytest.mark.parametrize("name", NAMES)
def test_a_task_says_what_it_is(name):
    task = TASKS[name]
    assert isinstance(task, DesignTask) and task.name == name
    assert re.fullmatch(r"\d\d_[a-z_]+", task.notebook) and task.goal.strip().endswith(".")
    assert task.start and set(task.solution) == set(task.start)
    assert isinstance(task.given, dict)


@pytest.mark.parametrize("name", NAMES)
def test_the_start_does_not_meet_the_goal_and_the_solution_does(name):
    task = TASKS[name]
    start = check_design(name)
    assert isinstance(start, Feedback) and not start.correct and start.message.startswith("Not yet: ")
    assert check_design(name, **task.start).message == start.message  # what is not passed is the start
    assert name not in progress().designs
    solved = check_design(name, **task.solution)
    assert solved.correct and solved.message.startswith("Goal met: "), solved.message
    assert name in progress().designs
    # As nested lists too: a learner may type them.
    assert check_design(name, **{k: v.tolist() for k, v in task.solution.items()}).correct


@pytest.mark.parametrize("name", NAMES)
def test_random_integer_matrices_rarely_meet_the_goal(name):
    task = TASKS[name]
    rng = np.random.default_rng(2024)
    met = 0
    for _ in range(RANDOM_TRIES):
        arrays = {}
        for key, start in task.start.items():
            arrays[key] = (rng.integers(0, 2, size=start.shape).astype(bool) if start.dtype == bool
                           else rng.integers(-2, 3, size=start.shape).astype(float))
        met += check_design(name, **arrays).correct
    assert met / RANDOM_TRIES < RANDOM_LIMIT, f"{met} of {RANDOM_TRIES} random designs meet the goal of {name}"


@pytest.mark.parametrize("name", NAMES)
def test_junk_gets_feedback_naming_the_argument(name):
    task = TASKS[name]
    key = task.changeable[0]
    shape = task.start[key].shape
    shape_text = f"({', '.join(map(str, shape))})"
    for value in junk.ANSWERS + junk.sample(1) + [np.zeros((shape[0] + 1, shape[1])), np.zeros(shape[:1])]:
        fb = check_design(name, **{key: value})
        assert isinstance(fb, Feedback)
        if not fb.correct:
            assert fb.message.startswith((f"{key} ", "Not yet: ")), fb.message
    nan = np.array(task.start[key], dtype=float)
    nan[0, 0] = np.nan
    assert "must hold finite numbers; entry (0, 0) is nan" in check_design(name, **{key: nan}).message
    fb = check_design(name, **{key: np.zeros((shape[0] + 1, shape[1]))})
    assert fb.message.startswith(f"{key} must have shape {shape_text}")
    assert "got 'not_an_array'" in check_design(name, not_an_array=1).message
    huge = check_design(name, **{key: np.full(shape, 1e300)})
    assert not huge.correct and "cannot be computed" in huge.message


@pytest.mark.parametrize("name", [n for n in NAMES if TASKS[n].given])
def test_a_fixed_array_changed_is_named(name):
    task = TASKS[name]
    key, value = next(iter(task.given.items()))
    changed = value.copy()
    changed[0, 0] += 1
    fb = check_design(name, **task.solution, **{key: changed})
    assert not fb.correct and fb.message.startswith(f"{key} is fixed in this task")
    assert check_design(name, **task.solution, **{key: value}).correct


def test_attends_most_says_how_things_stand():
    w = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    assert attends_most(w, "abc", "abc", "a", "a", 0.5) == (True, "'a' gives 'a' 0.60 of its attention, more than any "
                                                               "other key (next: 'b', 0.30).")
    met, detail = attends_most(w, "abc", "abc", "b", "b", 0.5)
    assert not met and detail == ("'b' gives 'b' 0.30 of its attention, and 'c' 0.50; the goal is more than any other "
                                  "key and at least 0.5.")
    assert not attends_most(w, "abc", "abc", "b", "c", 0.6)[0]


def test_a_malformed_task_is_refused_when_it_is_made():
    task = design_task("01-sat-attends-cat")
    base = dict(name="01-x", notebook="01_intuition", goal="A goal.", start=task.start, solution=task.solution,
                judge=task.judge)
    DesignTask(**base)
    for change, words in ((dict(solution={}), "solution must have the arrays of start"),
                          (dict(given={"X": np.eye(2)}), "either changed"),
                          (dict(start={"X": np.zeros(3)}, solution={"X": np.zeros(3)}), "finite 2-D matrix"),
                          (dict(judge=None), "judge must be a function"),
                          (dict(name="x"), "name reads like")):
        with pytest.raises(ValueError, match=words):
            DesignTask(**{**base, **change})


# --------------------------------------------------------------------------- the explorers' goal line


def _explorer(name: str):
    task = TASKS[name]
    arrays = {**task.start, **task.given}
    n = arrays["X"].shape[0]
    return AttentionExplorer([f"t{k}" for k in range(n)], arrays["X"], arrays["W_q"], arrays["W_k"], arrays["W_v"],
                             goal=name, **task.settings)


SELF_TASKS = [n for n in NAMES if set(TASKS[n].names) == {"X", "W_q", "W_k", "W_v"}]


@pytest.mark.parametrize("name", SELF_TASKS)
def test_the_goal_line_follows_every_valid_change(name):
    task = TASKS[name]
    ex = _explorer(name)
    assert "attn-goal" in ex.goal_html._dom_classes and ex.goal is task
    line = html_text(ex.goal_html)
    assert line.startswith(f"Goal: {as_shown(task.goal)} ✗ Not yet: ") and not ex.goal_met
    assert ex.goal_feedback.message == check_design(name).message
    with ex.hold_trait_notifications():
        for key, value in task.solution.items():
            ex.editors[key].value = value
    assert ex.goal_met and html_text(ex.goal_html).startswith(f"Goal: {as_shown(task.goal)} ✓ Goal met: ")
    assert name in progress().designs
    before = ex.goal_html.value
    ex.editors[task.changeable[0]].set_text(0, 0, "abc")  # junk: the last valid matrix stays, so does the verdict
    assert ex.goal_html.value == before


def test_the_goal_line_names_a_setting_the_goal_does_not_assume():
    ex = _explorer("01-sat-attends-cat")
    ex.causal = True
    assert "The goal is judged without the causal mask" in html_text(ex.goal_html)
    ex.causal = False
    assert "judged" not in html_text(ex.goal_html)


def test_the_goal_line_says_what_is_wrong_when_the_explorer_changes_the_fixed_arrays_or_their_shapes():
    ex = _explorer("01-sat-attends-cat")
    ex.editors["W_k"].set_text(0, 0, "2")
    assert as_shown("✗ W_k is fixed in this task") in html_text(ex.goal_html) and not ex.goal_met
    ex.editors["W_k"].set_text(0, 0, "1")
    ex._dk_box.value = 3
    assert as_shown("✗ W_q must have shape (4, 4) (d_model × d_k); got (4, 3)") in html_text(ex.goal_html)


def test_an_explorer_without_a_goal_has_no_goal_line_and_a_goal_needs_the_explorers_arrays():
    ex = AttentionExplorer(["a", "b"], np.eye(2), np.eye(2), np.eye(2), np.eye(2))
    assert ex.goal is None and not ex.goal_met and ex.goal_html.layout.display == "none"
    with pytest.raises(ValueError, match="no design task"):
        AttentionExplorer(["a", "b"], np.eye(2), np.eye(2), np.eye(2), np.eye(2), goal="nope")
    with pytest.raises(ValueError, match="needs X, which this explorer does not have"):
        CrossAttentionExplorer(["a"], ["b"], np.eye(1), np.eye(1), np.eye(1), np.eye(1), np.eye(1),
                               goal="01-sat-attends-cat")


# --------------------------------------------------------------------------- each task is set in its notebook


def _sources(stem: str) -> str:
    nb = json.loads(next(p for p in NOTEBOOKS if p.stem == stem).read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("name", NAMES)
def test_each_task_is_set_in_its_notebook(name):
    """An explorer with goal="<name>" or a check_design("<name>", ...) call in the task's own notebook."""
    code = _sources(TASKS[name].notebook)
    assert re.search(rf'goal\s*=\s*"{name}"|check_design\(\s*"{name}"', code), (
        f"{TASKS[name].notebook} does not set {name}")
