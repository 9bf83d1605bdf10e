"""Find the bug: every bug of the course (automatically, from the data modules) is the mistake it says it is, and
every ``find-the-bug`` cell of the notebooks stores ✗ naming that mistake and gets ✓ once the bug is fixed."""

from __future__ import annotations

import ast
import json
import re

import numpy as np
import pytest

from helpers.exercises import Bug, Feedback, bugs, check_fix, progress
from helpers.exercises.code_tasks import MISTAKES, SOLUTIONS, TASKS
from helpers.solutions import show_solution

from conftest import NOTEBOOKS
from test_code_check import _fill, solution_source

ALL = bugs()
NAMES = sorted(ALL)
CHECK_LINE = re.compile(r'^check_fix\("([0-9a-z-]+)", ([A-Za-z_][A-Za-z0-9_]*)\)$')


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


def bug_cells():
    """(notebook path, cell index, cells) of every cell tagged find-the-bug."""
    found = []
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        found += [(path, k, cells) for k, c in enumerate(cells)
                  if "find-the-bug" in c.get("metadata", {}).get("tags", [])]
    return found


CELLS = bug_cells()
IDS = [f"{p.stem}-{k}" for p, k, _ in CELLS]


def run_cell(source: str):
    """Run a find-the-bug cell as the kernel would (with the notebook's imports); returns its last value."""
    namespace = {"np": np, "check_fix": check_fix, "show_solution": show_solution}
    tree = ast.parse(source)
    last = tree.body.pop()
    exec(compile(tree, "<cell>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)


# --------------------------------------------------------------------------- the bugs as data


def test_there_are_bugs_and_an_unknown_name_raises():
    assert NAMES
    with pytest.raises(ValueError, match="no bug is called 'nope'; the bugs are 02-softmax-over-queries"):
        check_fix("nope", lambda: None)


@pytest.mark.parametrize("name", NAMES)
def test_a_bug_is_a_mistake_its_task_names(name):
    bug = ALL[name]
    assert isinstance(bug, Bug) and bug.task in TASKS
    assert MISTAKES[bug.mistake] in TASKS[bug.task].mistakes


@pytest.mark.parametrize("name", NAMES)
def test_the_fix_is_recorded_and_junk_gets_feedback(name):
    bug = ALL[name]
    assert check_fix(name, SOLUTIONS[bug.task]).correct
    assert progress().bugs == (name,) and progress().your_turns == ()  # a fix is not a Your turn
    for fn in (None, 42, lambda *a: None, lambda *a: "x", lambda *a: 1 / 0):
        fb = check_fix(name, fn)
        assert isinstance(fb, Feedback) and not fb.correct and fb.message


@pytest.mark.parametrize("change, words", [
    (dict(task="nope"), "task must be one of"),
    (dict(mistake="mask_after_softmax"), "mistake must be one that task 'self_attention' names"),
    (dict(name="2-x"), "name reads like"),
])
def test_a_malformed_bug_is_refused_when_it_is_made(change, words):
    spec = dict(name="02-x", notebook="02_projections", task="self_attention", mistake="softmax_over_queries")
    with pytest.raises(ValueError, match=words):
        Bug(**{**spec, **change})


# --------------------------------------------------------------------------- the find-the-bug cells


def test_every_bug_is_in_one_find_the_bug_cell_of_its_notebook():
    shown = []
    for path, k, cells in CELLS:
        match = CHECK_LINE.match("".join(cells[k]["source"]).strip().splitlines()[-1])
        assert match, f"{path.stem} cell {k}: the last line is check_fix(\"<bug name>\", <function>)"
        assert ALL[match.group(1)].notebook == path.stem
        shown.append(match.group(1))
    assert sorted(shown) == NAMES, "each bug is shown once, and only those defined"


@pytest.mark.parametrize("path, k, cells", CELLS, ids=IDS)
def test_a_find_the_bug_cell_stores_the_mistake_and_passes_once_fixed(path, k, cells):
    cell = cells[k]
    source = "".join(cell["source"])
    name, _fn = CHECK_LINE.match(source.strip().splitlines()[-1]).groups()
    bug = ALL[name]
    assert "lecture-hide-output" in cell["metadata"]["tags"], "in the lecture mode a verdict alone is orphaned"
    earlier = "".join("".join(c["source"]) for c in cells[:k] if c["cell_type"] == "code")
    assert re.search(r"from helpers\.exercises import .*check_fix", earlier)
    assert re.search(r"from helpers\.solutions import .*show_solution", earlier)
    assert "".join(cells[k + 1]["source"]).strip() == f'show_solution("{bug.task}")', "the fixed code, folded"
    assert cells[k - 1]["cell_type"] == "markdown" and "Find the bug" in "".join(cells[k - 1]["source"])

    (output,) = cell["outputs"]
    stored = "".join(output["data"]["text/plain"])
    assert stored.startswith("✗ ") and f"This looks like: {MISTAKES[bug.mistake].title}." in stored

    buggy = run_cell(source)
    assert not buggy.correct and buggy.mistake == bug.mistake, buggy.message
    fixed = run_cell(_fill(source, solution_source(bug.task)))
    assert fixed.correct, fixed.message
