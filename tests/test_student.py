"""The student edition (``make student``, ``course/student.py``): every notebook of course.toml, no solution
left in it, every graded cell there with nbgrader's metadata, the same bytes from the same notebooks, and nbgrader's
own autograde giving full points to the reference solutions and none to the skeletons.

The build runs once per module, into a temporary folder. The nbgrader run is marked ``slow`` (it imports nbgrader,
creates a gradebook and runs 02_projections twice in a kernel: 10 to 30 seconds): ``make test-binder`` runs it.
"""

from __future__ import annotations

import ast
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course import student as build_student
from helpers.exercises import solution_source
from helpers.exercises.bugs import bug as find_bug
from helpers.exercises.code_tasks import MISTAKES, TASKS, YOUR_TURN_TASKS

from conftest import NOTEBOOKS, ROOT
from test_code_check import _fill

GRADED_TAGS = {"your-turn": "check_code", "find-the-bug": "check_fix"}
CHECK_LINE = re.compile(r'^(check_code|check_fix)\("([\w-]+)", ([A-Za-z_]\w*)\)$')
ASSIGNMENT = "attention"


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    """The folder the student edition was built into, from the stored notebooks."""
    out = tmp_path_factory.mktemp("student")
    build_student.build(ROOT / "notebooks", out)
    return out


def read(path: Path):
    return nbformat.read(path, as_version=4)


def tags(cell) -> list[str]:
    return list(cell.metadata.get("tags", []))


def nbgrader(cell) -> dict:
    return dict(cell.metadata.get("nbgrader", {}))


def students(edition: Path) -> list[tuple[Path, object]]:
    return [(edition / path.name, read(edition / path.name)) for path in NOTEBOOKS]


def check_call(source: str) -> tuple[str, str, str]:
    """(checker, task or bug, function) of a graded cell's last line."""
    match = CHECK_LINE.match(source.strip().split("\n")[-1])
    assert match, f"a graded cell ends with check_code(task, fn) or check_fix(bug, fn): {source!r}"
    return match[1], match[2], match[3]


# --------------------------------------------------------------------------------------------------- what it holds


def test_every_notebook_of_the_course_has_its_student_edition_and_nothing_else(edition):
    assert sorted(p.name for p in edition.iterdir()) == sorted(p.name for p in NOTEBOOKS)
    for path, nb in students(edition):
        nbformat.validate(nb)
        assert nb.metadata.kernelspec.name == read(ROOT / "notebooks" / path.name).metadata.kernelspec.name


def test_the_build_is_deterministic_and_leaves_the_stored_notebooks_alone(tmp_path, edition):
    before = {p.name: p.read_bytes() for p in NOTEBOOKS}
    build_student.build(ROOT / "notebooks", tmp_path)
    for path in NOTEBOOKS:
        assert (tmp_path / path.name).read_bytes() == (edition / path.name).read_bytes(), path.name
        assert path.read_bytes() == before[path.name], f"the build changed {path.name}"


def test_a_second_build_into_the_same_folder_rewrites_nothing_and_drops_a_stale_notebook(tmp_path):
    build_student.build(ROOT / "notebooks", tmp_path)
    stale = tmp_path / "99_gone.ipynb"
    stale.write_text("{}", encoding="utf-8")
    times = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("[0-9]*_*.ipynb") if p != stale}
    build_student.build(ROOT / "notebooks", tmp_path)
    assert not stale.exists()
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.ipynb")} == times


# --------------------------------------------------------------------------------------------------- no solutions


def body_lines(source: str) -> list[str]:
    """The normalised code lines of a function's body (after its docstring), comments left out."""
    func = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    body = func.body[1:] if ast.get_docstring(func) is not None else func.body
    lines = source.split("\n")[body[0].lineno - 1:func.end_lineno]
    return [s for s in (" ".join(line.split("#", 1)[0].split()) for line in lines) if s]


def stored_code_lines() -> set[str]:
    """Every normalised line of the stored notebooks' code cells, those tagged solution left out: code the course
    shows openly (the buggy function of a find-the-bug cell, the notebooks' own steps)."""
    return {" ".join(line.split("#", 1)[0].split())
            for path in NOTEBOOKS for cell in read(path).cells
            if cell.cell_type == "code" and "solution" not in tags(cell) for line in cell.source.split("\n")}


def distinctive_lines() -> dict[str, set[str]]:
    """For each task, the lines of its reference solution that only the solution has (12 characters or more)."""
    shown = stored_code_lines()
    return {task: {line for line in body_lines(solution_source(task)) if len(line) >= 12 and line not in shown}
            for task in TASKS}


def shown_text(cell) -> str:
    """A cell's source and the text of its outputs (HTML tags out, entities decoded, spaces collapsed)."""
    parts = [cell.source]
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        for mime, value in output.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append("".join(value) if isinstance(value, list) else value)
    raw = "\n".join(parts)
    return raw + "\n" + " ".join(html.unescape(re.sub(r"<[^>]*>", " ", raw)).split())


def test_every_task_has_lines_only_its_solution_has():
    """Else the next test would look for nothing."""
    lines = distinctive_lines()
    assert all(lines[task] for task in YOUR_TURN_TASKS), {t: lines[t] for t in YOUR_TURN_TASKS if not lines[t]}


def test_no_student_notebook_shows_a_solution(edition):
    lines = set().union(*distinctive_lines().values())
    for path, nb in students(edition):
        for cell in nb.cells:
            at = f"{path.name}, cell {cell.get('id')}"
            assert "solution" not in tags(cell), at
            text = shown_text(cell)
            for word in ("show_solution", "instructor_switch", "Instructor switch", "instructor switch",
                         'class="code-solution"', "click to open"):
                assert word not in text, f"{at}: {word}"
            assert not re.search(r"solutions? (is |are )?(below|folded|under)", text, re.IGNORECASE), at
            if cell.cell_type == "markdown":
                assert not re.search(r"^#+ .*instructors?\b", cell.source, re.IGNORECASE | re.MULTILINE), at
            found = {line for line in lines if line in text}
            assert not found, f"{at} shows a reference solution's code: {sorted(found)}"


def test_the_solution_imports_go_and_the_rest_of_their_cells_stays(edition):
    for path in NOTEBOOKS:
        student = {cell.id: cell for cell in read(edition / path.name).cells}
        for cell in read(path).cells:
            if cell.cell_type != "code" or "helpers.solutions" not in cell.source:
                continue
            rest = [line for line in cell.source.split("\n") if "helpers.solutions" not in line
                    and not re.match(r"\s*(show_solution|instructor_switch)\(", line)]
            if any(line.strip() and not line.lstrip().startswith("#") for line in rest):
                assert student[cell.id].source.split("\n") == rest, f"{path.name}, cell {cell.id}"


def test_every_exercise_keeps_its_hint_ladder_without_the_solution(edition):
    """After each graded cell and its test: ``hints(name, solution=False)``, its stored picture as the course's (a
    ladder shows the same before a press with and without its solution), naming no mistake and showing no code."""
    lines = set().union(*distinctive_lines().values())
    for path in NOTEBOOKS:
        course = {cell.id: cell for cell in read(path).cells}
        cells = read(edition / path.name).cells
        graded = [k for k, cell in enumerate(cells) if GRADED_TAGS.keys() & set(tags(cell))]
        for k in graded:
            _, key, _ = check_call(cells[k].source)
            ladder = cells[k + 2]
            at = f"{path.name}, cell {ladder.id}"
            assert ladder.source == f'hints("{key}", solution=False)', at
            assert ladder.outputs == course[ladder.id].outputs and ladder.outputs, at
            text = shown_text(ladder)
            assert "Stuck? Press Hint" in text and not {line for line in lines if line in text}, at
            if "-" in key:
                assert MISTAKES[find_bug(key).mistake].title not in text, at
        calls = sum(cell.source.count("hints(") for cell in cells if cell.cell_type == "code")
        assert calls == len(graded), f"{path.name}: one ladder per exercise, no other"


def test_a_hint_ladder_loses_its_solution_and_nothing_else():
    drop = build_student.hints_without_solution
    assert drop('hints("attention")', "t") == 'hints("attention", solution=False)'
    assert drop('x = 1\nhints(\n    "softmax",\n)', "t") == 'x = 1\nhints(\n    "softmax", solution=False,\n)'
    assert drop('hints("softmax", solution=False)', "t") == 'hints("softmax", solution=False)'
    assert drop("from helpers.hints import hints  # hints", "t") == "from helpers.hints import hints  # hints"
    assert drop("print('no hints here')", "t") == "print('no hints here')"
    for unsafe in ('h = hints("softmax")', 'if True:\n    hints("softmax")', 'hints("softmax", solution=True)'):
        with pytest.raises(build_student.BuildError):
            drop(unsafe, "t")


def test_every_student_code_cell_is_python_that_parses(edition):
    for _, nb in students(edition):
        for cell in nb.cells:
            if cell.cell_type == "code":
                build_student.parse(cell.source)  # raises on a syntax error


# --------------------------------------------------------------------------------------------------- what stays


def test_every_exercise_prediction_and_design_check_cell_stays_as_written(edition):
    for path in NOTEBOOKS:
        student = {cell.id: cell for cell in read(edition / path.name).cells}
        for cell in read(path).cells:
            keep = ({"your-turn", "find-the-bug", "predict-commit"} & set(tags(cell))
                    or (cell.cell_type == "code" and re.search(r"check_design\(|\bgoal=", cell.source)))
            if keep:
                assert cell.id in student, f"{path.name}: cell {cell.id} ({tags(cell)}) is missing"
                assert student[cell.id].source == cell.source
                assert set(tags(cell)) <= set(tags(student[cell.id]))


def test_figures_and_other_outputs_stay(edition):
    """Every stored output of a cell that stays, but one that shows a solution (none does today)."""
    lines = set().union(*distinctive_lines().values())
    for path in NOTEBOOKS:
        student = {cell.id: cell for cell in read(edition / path.name).cells}
        for cell in read(path).cells:
            if cell.cell_type == "code" and cell.id in student and not GRADED_TAGS.keys() & set(tags(cell)):
                kept = [output for output in cell.outputs if not build_student.reveals(output, lines)]
                assert student[cell.id].outputs == kept, f"{path.name}, cell {cell.id}"


def test_prose_that_points_to_the_instructor_switch_loses_that_sentence_only():
    text = ("**In a lecture.** Serve it with `make present`. In 07, the instructor switch reveals every solution\n"
            "at once. The explorers take `large=True`.\n\n**Alone.** Run it.")
    assert build_student.drop_pointer_sentences(text) == ("**In a lecture.** Serve it with `make present`. The "
                                                          "explorers take `large=True`.\n\n**Alone.** Run it.")
    last = "First paragraph.\n\nOpen the solution below with one click."
    assert build_student.drop_pointer_sentences(last) == "First paragraph."
    assert build_student.drop_pointer_sentences("Nothing to drop. Worked solutions stay.") == \
        "Nothing to drop. Worked solutions stay."


def test_a_section_for_instructors_goes_up_to_the_next_heading_of_its_level():
    cells = [nbformat.v4.new_markdown_cell(s) for s in ("## Practice", "## For instructors\n\nTick it.",
                                                        "### Details", "more", "## Summary")]
    cells.insert(3, nbformat.v4.new_code_cell("instructor_switch()"))
    assert build_student.instructor_sections(cells) == {1, 2, 3, 4}


def test_solution_calls_go_from_a_cell_and_the_other_code_stays():
    strip = build_student.strip_solution_code
    source = ('import numpy as np\nfrom helpers.solutions import show_solution, INSTRUCTOR  # folds\n'
              'x = 1\nshow_solution("softmax")\ny = 2')
    assert strip(source, "t") == "import numpy as np\nfrom helpers.solutions import INSTRUCTOR  # folds\nx = 1\ny = 2"
    assert strip("from helpers.solutions import show_solution\n%matplotlib inline\nz = 3", "t") == \
        "%matplotlib inline\nz = 3"
    assert strip('show_solution(\n    "attention",\n)', "t") == ""
    for unsafe in ('fold = show_solution("softmax")', 'if True:\n    show_solution("softmax")',
                   'x = 1; show_solution("softmax")', 'f = show_solution\nf("softmax")'):
        with pytest.raises(build_student.BuildError):
            strip(unsafe, "t")


def test_a_graded_cell_that_does_not_end_with_its_check_stops_the_build():
    cell = nbformat.v4.new_code_cell("def my_softmax(x):\n    ...\n\nprint(check_code('softmax', my_softmax))")
    with pytest.raises(build_student.BuildError, match='ends with check_code\\("name", function\\)'):
        build_student.make_graded(cell, "your-turn", "your-turn-softmax", "t")


# --------------------------------------------------------------------------------------------------- nbgrader


def nbgrader_schema() -> dict:
    """nbgrader's JSON schema of its cell metadata, version 3, read from its package without importing it (importing
    nbgrader loads its server extensions: seconds)."""
    spec = importlib.util.find_spec("nbgrader")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return json.loads((folder / "nbgraderformat" / "v3.json").read_text(encoding="utf-8"))


def test_every_graded_cell_is_an_answer_cell_followed_by_its_locked_test(edition):
    import jsonschema

    schema = nbgrader_schema()
    for path in NOTEBOOKS:
        stored = [cell for cell in read(path).cells if GRADED_TAGS.keys() & set(tags(cell))]
        nb = read(edition / path.name)
        ids = [nbgrader(cell)["grade_id"] for cell in nb.cells if nbgrader(cell)]
        assert len(ids) == len(set(ids)) == 2 * len(stored), f"{path.name}: grade_ids {ids}"
        position = {cell.id: k for k, cell in enumerate(nb.cells)}
        for cell in stored:
            (tag,) = GRADED_TAGS.keys() & set(tags(cell))
            checker, key, fn = check_call(cell.source)
            assert checker == GRADED_TAGS[tag]
            k = position[cell.id]
            answer, test = nb.cells[k], nb.cells[k + 1]
            grade_id = f"{tag}-{key}"
            assert nbgrader(answer) == {"grade": False, "grade_id": grade_id, "locked": False, "schema_version": 3,
                                        "solution": True}
            assert answer.outputs == [] and answer.execution_count is None
            assert nbgrader(test) == {"grade": True, "grade_id": f"{grade_id}-test", "locked": True, "points": 1,
                                      "schema_version": 3, "solution": False}
            assert test.metadata["editable"] is False and test.metadata["deletable"] is False
            assert "raises-exception" in tags(test), "Run All goes on past an exercise not done yet"
            assert f'assert {checker}("{key}", {fn}).correct' in test.source
            assert f"from helpers.exercises import {checker}" in test.source
            for graded in (answer, test):
                jsonschema.validate(nbgrader(graded), schema)
        others = [cell for cell in nb.cells if nbgrader(cell) and not nbgrader(cell)["grade_id"].startswith(
            ("your-turn-", "find-the-bug-"))]
        assert not others, "nbgrader metadata on the graded cells only"


def test_the_grade_ids_name_tasks_and_bugs_the_course_knows(edition):
    for _, nb in students(edition):
        for cell in nb.cells:
            grade_id = nbgrader(cell).get("grade_id", "")
            if grade_id.startswith("your-turn-"):
                assert grade_id.removeprefix("your-turn-").removesuffix("-test") in YOUR_TURN_TASKS
            elif grade_id:
                find_bug(grade_id.removeprefix("find-the-bug-").removesuffix("-test"))  # raises if unknown


# --------------------------------------------------------------------------------------------------- autograde


def filled(nb):
    """A copy of ``nb`` with every graded cell's function replaced by the reference solution of its task or bug."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    for cell in nb.cells:
        if nbgrader(cell).get("solution"):
            checker, key, _ = check_call(cell.source)
            task = key if checker == "check_code" else find_bug(key).task
            cell.source = _fill(cell.source, solution_source(task))
    return nb


def nbgrader_run(course: Path, *args: str) -> subprocess.CompletedProcess:
    """``nbgrader ARGS`` in the course directory, from the course's environment (its alembic and kernel on PATH)."""
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    result = subprocess.run([str(bin_dir / "nbgrader"), *args], cwd=course, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.mark.slow
def test_nbgrader_autograde_gives_the_solutions_full_points_and_the_skeletons_none(tmp_path, edition):
    """The README's way: scripts/nbgrader_config.py in a course directory, the student edition as the source,
    ``nbgrader generate_assignment``, two submissions of 02_projections, ``nbgrader autograde``."""
    name = "02_projections.ipynb"
    course = tmp_path / "course"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copy(edition / name, course / "source" / ASSIGNMENT / name)
    nbgrader_run(course, "generate_assignment", ASSIGNMENT)
    released = read(course / "release" / ASSIGNMENT / name)
    student = read(edition / name)
    assert [c.source for c in released.cells] == [c.source for c in student.cells], "the release is the edition"
    assert [c.get("outputs") for c in released.cells] == [c.get("outputs") for c in student.cells]

    for who, nb in (("solved", filled(released)), ("untouched", released)):
        (course / "submitted" / who / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(nb, course / "submitted" / who / ASSIGNMENT / name)
    nbgrader_run(course, "autograde", ASSIGNMENT)

    from nbgrader.api import Gradebook

    points = {nbgrader(c)["grade_id"]: nbgrader(c)["points"] for c in student.cells if nbgrader(c).get("grade")}
    exercises = [c for c in read(ROOT / "notebooks" / name).cells if GRADED_TAGS.keys() & set(tags(c))]
    assert len(points) == len(exercises) >= 3  # Your turns and find-the-bugs
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for who, expected in (("solved", lambda p: p), ("untouched", lambda p: 0)):
            grades = {g.name: g.auto_score for g in gb.find_submission_notebook(name[:-6], ASSIGNMENT, who).grades}
            assert grades == {k: expected(p) for k, p in points.items()}, who
            assert gb.find_submission(ASSIGNMENT, who).score == sum(expected(p) for p in points.values())

    # The solved notebook ran cleanly; the untouched one failed in its tests only, and ran to its end.
    for who, failing in (("solved", set()), ("untouched", set(points))):
        graded = read(course / "autograded" / who / ASSIGNMENT / name)
        errors = {nbgrader(c).get("grade_id", c.id) for c in graded.cells
                  if any(o.output_type == "error" for o in c.get("outputs", []))}
        assert errors == failing, who
        code = [c for c in graded.cells if c.cell_type == "code"]
        assert all(c.execution_count for c in code), f"{who}: every cell ran"
