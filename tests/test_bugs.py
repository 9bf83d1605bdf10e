"""Find the bug: every bug of the course (automatically, from the data modules) is the mistake it says it is; its check
is a search in two stages (the failing example first, the mistake named on the second failed check or once the hint
ladder named it); every ``find-the-bug`` cell of the notebooks stores the first stage only and gets ✓ once fixed."""

from __future__ import annotations

import ast
import json
import re

import nbformat
import numpy as np
import pytest

from helpers.exercises import Bug, Feedback, bugs, check_fix, progress, reset_attempts
from helpers.exercises.bugs import ONE_LINE
from helpers.exercises.code_tasks import MISTAKES, SOLUTIONS, TASKS
from helpers.widgets.hints import hints

from conftest import NOTEBOOKS, as_shown, html_text, run_notebook
from test_code_check import _fill, solution_source

ALL = bugs()
NAMES = sorted(ALL)
CHECK_LINE = re.compile(r'^check_fix\("([0-9a-z-]+)", ([A-Za-z_][A-Za-z0-9_]*)\)$')


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    """Each test records into its own progress file and starts as a new kernel would, with no check made yet."""
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))
    reset_attempts()
    yield
    reset_attempts()


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
    namespace = {"np": np, "check_fix": check_fix, "hints": hints}
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


# The mistakes a Find the bug cell must show, each a realistic slip: K not transposed where a square example hides it,
# a padding mask on the queries instead of the keys, the scores divided by d_k, the heads merged without moving the
# head axis back.
MUST_SHOW = {"k_not_transposed", "pad_mask_on_queries", "scale_dk", "merge_no_transpose"}


def test_no_two_bugs_are_the_same_mistake():
    mistakes = [bug.mistake for bug in ALL.values()]
    repeated = sorted({m for m in mistakes if mistakes.count(m) > 1})
    assert not repeated, f"a mistake shown twice: {repeated}"
    assert len(mistakes) >= 6 and MUST_SHOW <= set(mistakes)


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
    (dict(idea=" "), "idea must say in words what the function must do"),
    (dict(idea=None), "idea must say in words"),
])
def test_a_malformed_bug_is_refused_when_it_is_made(change, words):
    spec = dict(name="02-x", notebook="02_projections", task="self_attention", mistake="softmax_over_queries",
                idea="Each row of the weights adds up to 1.")
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


def buggy_function(name: str):
    """The function of the find-the-bug cell of ``name``, as the cell defines it."""
    for _path, k, cells in CELLS:
        source = "".join(cells[k]["source"])
        if f'check_fix("{name}"' in source:
            namespace = {"np": np}
            tree = ast.parse(source)
            tree.body.pop()  # the check
            exec(compile(tree, "<cell>", "exec"), namespace)
            return CHECK_LINE.match(source.strip().splitlines()[-1]).group(2), namespace
    raise AssertionError(f"no find-the-bug cell checks {name}")


def named_words(name: str) -> list[str]:
    """What naming the mistake of the bug ``name`` would say: its title, its advice, where it is explained."""
    mistake = MISTAKES[ALL[name].mistake]
    return [mistake.title, mistake.advice, "This looks like", "Where the course explains it",
            *(place for place in mistake.where.split("; ") if place)]


def assert_first_stage(feedback: Feedback, name: str) -> None:
    """✗, "one line is wrong" and the failing example (input, expected against got), and no word of the mistake."""
    text = str(feedback)
    assert text.startswith("✗ ") and ONE_LINE in text
    assert feedback.example and feedback.example in feedback.message
    task = TASKS[ALL[name].task]
    assert feedback.example.startswith("The example: ")
    for argument in list(task.solution.__code__.co_varnames[:task.solution.__code__.co_argcount]):
        assert f"\n{argument} " in feedback.example, f"the input {argument} is shown"
    assert "expected" in feedback.example
    assert "yours" in feedback.example or "What happened: your function raised" in feedback.example
    assert feedback.mistake == ""
    for words in named_words(name):
        assert words not in text, f"the first stage says {words!r}"
    assert 'role="status"' in feedback._repr_html_() and "<pre" in feedback._repr_html_()


def assert_named(feedback: Feedback, name: str) -> None:
    mistake = MISTAKES[ALL[name].mistake]
    assert not feedback.correct and feedback.mistake == mistake.key
    assert f"This looks like: {mistake.title}." in feedback.message and mistake.advice in feedback.message
    assert feedback.example in feedback.message and ONE_LINE not in feedback.message


@pytest.mark.parametrize("name", NAMES)
def test_the_first_failed_check_shows_an_example_the_second_names_the_mistake(name):
    fn_name, namespace = buggy_function(name)
    first = check_fix(name, namespace[fn_name])
    assert_first_stage(first, name)
    second = check_fix(name, namespace[fn_name])
    assert_named(second, name)
    assert second.example == first.example
    assert_named(check_fix(name, namespace[fn_name]), name)  # and from then on
    assert progress().result("bug", name).tries == 3
    reset_attempts()  # a new kernel: the search starts again
    assert_first_stage(check_fix(name, namespace[fn_name]), name)


@pytest.mark.parametrize("name", NAMES)
def test_the_hint_ladder_names_the_mistake_and_the_next_check_names_it_too(name):
    fn_name, namespace = buggy_function(name)
    assert_first_stage(check_fix(name, namespace[fn_name]), name)
    ladder = hints(name)
    ladder.next_hint()  # the idea
    ladder.next_hint()  # the failing example
    reset_attempts()    # the count is gone; only the ladder's naming is left to name it
    assert_first_stage(check_fix(name, namespace[fn_name]), name)
    ladder.next_hint()  # the mistake
    assert ladder.steps_shown == ("idea", "example", "mistake")
    assert as_shown(MISTAKES[ALL[name].mistake].title) in html_text(ladder.steps_box.children[-1])
    assert_named(check_fix(name, namespace[fn_name]), name)


def test_the_count_is_per_bug():
    first, second = NAMES[:2]
    for _ in range(3):
        check_fix(first, lambda *args: None)
    fn_name, namespace = buggy_function(second)
    assert_first_stage(check_fix(second, namespace[fn_name]), second)


def test_a_fix_is_right_at_any_stage_and_junk_never_names_a_mistake():
    name = NAMES[0]
    assert check_fix(name, SOLUTIONS[ALL[name].task]).correct  # first check: right, nothing to search
    for fn in (None, "self_attention", lambda *a: 1 / 0, lambda *a: (None, None), lambda *a: "x"):
        for _ in range(2):
            fb = check_fix(name, fn)
            assert isinstance(fb, Feedback) and not fb.correct and fb.mistake in ("", ALL[name].mistake)
    assert check_fix(name, SOLUTIONS[ALL[name].task]).correct


def test_the_in_process_runner_starts_each_notebook_as_a_new_kernel(tmp_path):
    """tests/conftest.py's run_notebook resets the checks, so a find-the-bug cell shows its first stage each run."""
    name = NAMES[0]
    k, cells = next((k, c) for _p, k, c in CELLS if f'check_fix("{name}"' in "".join(c[k]["source"]))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np\nfrom helpers.exercises import check_fix"),
                nbformat.v4.new_code_cell("".join(cells[k]["source"]))]
    notebook = tmp_path / "02_x.ipynb"
    nbformat.write(nb, notebook)
    for _ in range(2):
        (verdict,) = run_notebook(notebook).displayed
        assert_first_stage(verdict, name)


@pytest.mark.parametrize("path, k, cells", CELLS, ids=IDS)
def test_a_find_the_bug_cell_stores_the_first_stage_and_passes_once_fixed(path, k, cells):
    cell = cells[k]
    source = "".join(cell["source"])
    name, _fn = CHECK_LINE.match(source.strip().splitlines()[-1]).groups()
    assert "lecture-hide-output" in cell["metadata"]["tags"], "in the lecture mode a verdict alone is orphaned"
    earlier = "".join("".join(c["source"]) for c in cells[:k] if c["cell_type"] == "code")
    assert re.search(r"from helpers\.exercises import .*check_fix", earlier)
    assert re.search(r"from helpers\.hints import .*hints", earlier)
    assert "".join(cells[k + 1]["source"]).strip() == f'hints("{name}")', "the bug's hint ladder follows"
    heading = "".join(cells[k - 1]["source"])
    assert cells[k - 1]["cell_type"] == "markdown" and "Find the bug" in heading
    assert "**Hint**" in heading and "example" in heading, "the heading says how the search goes"

    *printed, output = cell["outputs"]
    assert all(o["output_type"] == "stream" and o["name"] == "stdout" for o in printed), "the verdict comes last"
    stored = "".join(output["data"]["text/plain"])
    shown = stored + "".join(output["data"]["text/html"])
    assert stored.startswith("✗ ") and ONE_LINE in stored and "The example: " in stored
    for words in named_words(name):
        assert words not in shown, f"the stored verdict says {words!r}"
    ladder = "".join(cells[k + 1]["outputs"][0]["data"]["text/html"])
    for words in named_words(name):
        assert words not in ladder, f"the stored hint ladder says {words!r}"

    buggy = run_cell(source)
    assert str(buggy) == stored, "the stored verdict is the first run's"
    assert_first_stage(buggy, name)
    assert_named(run_cell(source), name)
    fixed = run_cell(_fill(source, solution_source(ALL[name].task)))
    assert fixed.correct, fixed.message


def test_the_square_example_passes_silently_in_the_cell_and_the_check_shows_a_non_square_one():
    """02's K not transposed: the cell runs its author's square try (n = d_k) first, which gives weights of the right
    shape whose rows sum to 1 and wrong numbers; the stored verdict's example is one where n ≠ d_k."""
    name = "02-k-not-transposed"
    fn_name, namespace = buggy_function(name)
    (path, k, cells), = [(p, k, c) for p, k, c in CELLS if f'check_fix("{name}"' in "".join(c[k]["source"])]
    printed = "".join("".join(o["text"]) for o in cells[k]["outputs"] if o["output_type"] == "stream")
    assert "weights (3, 3)" in printed and "row sums [1. 1. 1.]" in printed
    X, W_q, W_k, W_v = (namespace[v] for v in ("X_try", "W_q_try", "W_k_try", "W_v_try"))
    assert X.shape[0] == W_k.shape[1] != X.shape[1], "a square Q and K: n = d_k, and d_model differs"
    _, weights = namespace[fn_name](X, W_q, W_k, W_v)
    _, right = SOLUTIONS["self_attention"](X, W_q, W_k, W_v)
    assert weights.shape == right.shape and np.allclose(weights.sum(axis=1), 1)
    assert not np.allclose(weights, right), "the square try hides the bug in the numbers, not in the shapes"
    verdict = check_fix(name, namespace[fn_name])
    assert_first_stage(verdict, name)
    assert verdict.example.startswith('The example: "The cat sat" (02), X 3×4, W 4×2')  # n = 3, d_k = 2
    assert "What happened: your function raised ValueError" in verdict.example
