"""Build the student edition: every notebook of ``course.toml`` without its solutions, graded with nbgrader.

``python scripts/build_student.py`` (``make student``, or ``python -m course.student``) reads ``notebooks/`` and
writes ``student/`` (``--out DIR`` writes elsewhere): one notebook for each notebook of ``course.toml``, under the same
name. The same notebooks give the same bytes.

What is taken out, found by tags and call names, never by a cell's position or its words:

* cells tagged ``solution``;
* every statement that calls ``show_solution`` or ``instructor_switch`` (a cell left with no code goes), and those
  names in ``from helpers.widgets.solutions import ...`` (the line goes when it imports nothing else);
* the last step of every hint ladder: ``hints("attention")`` becomes ``hints("attention", solution=False)``, the
  idea and the failing example (and a bug's mistake) without the solution. Its stored output stays: before a press,
  a ladder shows the same with and without it;
* a section whose heading names instructors ("## For instructors"), up to the next heading of its level or higher;
* every sentence of prose that points to the folded solutions or to the instructor switch (:data:`POINTERS`);
* every stored output that shows a solution: a fold or the instructor switch (:data:`REVEALING`), or a line of a
  reference solution (:func:`helpers.exercises.solution_source`) that the course's own code cells do not show anyway
  (:func:`solution_lines`).

What is added, for nbgrader (cell metadata schema 3):

* each ``your-turn`` and ``find-the-bug`` cell becomes an autograded answer cell (``solution: true``, grade_id
  ``your-turn-<task>`` or ``find-the-bug-<bug>``), its outputs cleared. It still ends with its check, so the learner
  sees what is right or wrong;
* after it, a locked autograder test cell (grade_id ``<answer's grade_id>-test``, :data:`POINTS` points) asserts that
  check, ``check_code(task, fn).correct`` or ``check_fix(bug, fn).correct``: nbgrader's ``autograde`` gives the points
  when the learner's function is right. It imports what it uses, and is tagged ``raises-exception`` so that "Run All"
  in JupyterLab goes on past an exercise not done yet;
* nothing on the other cells: the learner may edit and re-run every one of them, as in the course.

Every other cell and its outputs (figures, tables, the widgets' pictures) stay as stored. What the build cannot take
apart safely (``show_solution`` inside a block or assigned to a name, a Your turn cell that does not end with its
check) stops it with a message naming the notebook and the cell.
"""

from __future__ import annotations

import argparse
import ast
import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from course.plan import NOTEBOOKS, ROOT, course_notebooks

OUT = ROOT / "student"

SOLUTION_TAG = "solution"
# The cells the learner's code is graded in, and the check their last line calls.
ANSWER_TAGS = {"your-turn": "check_code", "find-the-bug": "check_fix"}
GRADE_ID_PREFIX = {"your-turn": "your-turn", "find-the-bug": "find-the-bug"}
# The calls that show solutions, and the module they come from.
REMOVED_CALLS = ("show_solution", "instructor_switch")
# The call of a hint ladder, and the argument that leaves its solution out.
HINTS_CALL = "hints"
NO_SOLUTION = "solution=False"
SOLUTIONS_MODULE = "helpers.solutions"
POINTS = 1
SCHEMA_VERSION = 3
# A sentence of prose that points to what the student edition no longer has.
POINTERS = re.compile(
    r"instructor[ _]switch|show_solution|solutions? (?:is |are )?(?:below|under|folded)"
    r"|(?:fixed|reference) code is folded|folded under it", re.IGNORECASE)
# A heading that opens a section for instructors.
INSTRUCTOR_HEADING = re.compile(r"^(#{1,6})\s+.*\binstructors?\b", re.IGNORECASE)
HEADING = re.compile(r"^(#{1,6})\s")
# A stored output that shows a solution: a fold (helpers.widgets.solutions.SolutionFold, as HTML or as its text form)
# or the instructor switch.
REVEALING = re.compile(r'class="code-solution"|practice-instructor|Instructor switch'
                       r"|Solution: \w+(?:, folded|, open| \(click to open\))")
# A reference solution's line counts as its own only from this length on ("heads = []" is anybody's).
MIN_LINE = 12
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex")


class BuildError(ValueError):
    """A notebook the build cannot turn into its student edition safely; the message names the notebook and cell."""


@dataclass
class Report:
    """What the build did to one notebook."""

    path: Path
    graded: list[str]
    cells_removed: int = 0
    outputs_removed: int = 0

    def __str__(self) -> str:
        graded, points = len(self.graded), POINTS * len(self.graded)
        return (f"{self.path}: {graded} graded {'cell' if graded == 1 else 'cells'} ({points} "
                f"{'point' if points == 1 else 'points'}), {self.cells_removed} cells and {self.outputs_removed} "
                "outputs taken out")


# ------------------------------------------------------------------------------------------------ the notebooks


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def where(path: Path, cell) -> str:
    return f"{path.name}, cell {cell.get('id', '?')}"


# ------------------------------------------------------------------------------------------------ code


def parse(source: str) -> ast.Module:
    """``source`` as Python, its IPython line magics and shell escapes read as comments (line numbers kept)."""
    masked = "\n".join("#" + line if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
    return ast.parse(masked)


def called_names(node: ast.AST) -> set[str]:
    """The names of the functions called anywhere in ``node`` (``f(...)`` and ``obj.f(...)`` both give ``f``)."""
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
    return names


def used_names(node: ast.AST) -> set[str]:
    """Every name ``node`` reads, imports or looks up as an attribute."""
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            names.add(sub.attr)
        elif isinstance(sub, ast.alias):
            names.add(sub.name.rsplit(".", 1)[-1])
    return names


def only_comments(source: str) -> bool:
    """True if ``source`` holds no code: blank lines and comments only."""
    return all(not line.strip() or line.lstrip().startswith("#") for line in source.split("\n"))


def strip_solution_code(source: str, at: str) -> str:
    """``source`` without its ``show_solution``/``instructor_switch`` statements and their imports.

    Raises
    ------
    BuildError
        If a call sits where it cannot be taken out alone (in a block, in an assignment, on a line shared with
        another statement), or a name is still used after the statements that call it are gone.
    """
    if not any(name in source for name in REMOVED_CALLS):
        return source
    if source.lstrip().startswith("%%"):
        raise BuildError(f"{at}: a cell magic cell uses {' or '.join(REMOVED_CALLS)}; take it out by hand")
    tree = parse(source)
    lines = source.split("\n")
    spans = [(stmt.lineno - 1, stmt.end_lineno) for stmt in tree.body]
    drop: set[int] = set()  # indices of the lines that go
    for k, (stmt, (start, end)) in enumerate(zip(tree.body, spans)):
        if isinstance(stmt, ast.ImportFrom) and stmt.module == SOLUTIONS_MODULE:
            keep = [alias for alias in stmt.names if alias.name not in REMOVED_CALLS]
            if len(keep) == len(stmt.names):
                continue
            if keep:  # the other names stay, on one line, with the comment of a one-line import
                names = ", ".join(alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in keep)
                rest = lines[end - 1].encode()[stmt.end_col_offset:].decode().strip() if end - start == 1 else ""
                lines[start] = f"from {SOLUTIONS_MODULE} import {names}" + (f"  {rest}" if rest else "")
                drop.update(range(start + 1, end))
            else:
                drop.update(range(start, end))
        elif called_names(stmt) & set(REMOVED_CALLS):
            if not isinstance(stmt, ast.Expr):
                raise BuildError(f"{at}: line {stmt.lineno} uses {' or '.join(REMOVED_CALLS)} inside a larger "
                                 "statement; call it on a line of its own")
            drop.update(range(start, end))
        else:
            continue
        if any(j != k and other[0] < end and start < other[1] for j, other in enumerate(spans)):
            raise BuildError(f"{at}: line {start + 1} holds another statement beside the solution's; split it")
    kept = [line for i, line in enumerate(lines) if i not in drop]
    result = "\n".join(kept).strip("\n")
    left = used_names(parse(result)) & set(REMOVED_CALLS) if result.strip() else set()
    if left:
        raise BuildError(f"{at}: {', '.join(sorted(left))} is still used after its calls were taken out")
    return result


def hints_without_solution(source: str, at: str) -> str:
    """``source`` with ``, solution=False`` added to every statement that calls ``hints(...)`` without a ``solution``
    argument: the ladder stops before the solution.

    Raises
    ------
    BuildError
        If ``hints`` is called where the argument cannot be added safely (inside a larger statement).
    """
    if HINTS_CALL not in source or source.lstrip().startswith("%%"):
        return source
    tree = parse(source)
    lines = source.split("\n")
    for stmt in reversed(tree.body):  # from the end: an edit leaves the positions before it as they were
        if HINTS_CALL not in called_names(stmt):
            continue
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == HINTS_CALL):
            raise BuildError(f"{at}: line {stmt.lineno} calls {HINTS_CALL} inside a larger statement; call it on a "
                             "line of its own")
        given = [keyword for keyword in call.keywords if keyword.arg == "solution"]
        if given:
            if not (isinstance(given[0].value, ast.Constant) and given[0].value.value is False):
                raise BuildError(f"{at}: line {stmt.lineno} asks {HINTS_CALL} for its solution; leave the solution "
                                 "argument out")
            continue
        last = ([*call.args, *call.keywords] or [None])[-1]
        if last is None:  # hints(): the argument goes before the closing parenthesis
            row, col, text = call.end_lineno - 1, call.end_col_offset - 1, NO_SOLUTION
        else:  # after the last argument, before a trailing comma if there is one
            row, col, text = last.end_lineno - 1, last.end_col_offset, f", {NO_SOLUTION}"
        line = lines[row].encode()  # ast's columns count bytes
        lines[row] = (line[:col] + text.encode() + line[col:]).decode()
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ prose


def drop_pointer_sentences(text: str) -> str:
    """``text`` without the sentences that match :data:`POINTERS`; the paragraph breaks around them stay."""
    pieces = re.split(r"(?<=[.!?])(\s+)", text)  # sentence, space, sentence, ...
    sentences, gaps = pieces[0::2], pieces[1::2]
    keep = [not POINTERS.search(s) for s in sentences]
    if all(keep):
        return text
    out, last = [], None
    for i, sentence in enumerate(sentences):
        if not keep[i]:
            continue
        if last is not None:
            # Between two kept sentences, the widest gap (most line breaks) of those between them: a paragraph
            # break around a dropped sentence stays a paragraph break.
            out.append(max(gaps[last:i], key=lambda gap: gap.count("\n")))
        out.append(sentence)
        last = i
    return "".join(out).strip()


def instructor_sections(cells) -> set[int]:
    """The indices of the cells in sections for instructors: from a heading that names them to the next heading of
    the same level or higher."""
    inside, level, found = False, 0, set()
    for i, cell in enumerate(cells):
        first = cell.source.lstrip().split("\n", 1)[0] if cell.cell_type == "markdown" else ""
        heading = HEADING.match(first)
        if inside and heading and len(heading[1]) <= level:
            inside = False
        if not inside and (match := INSTRUCTOR_HEADING.match(first)):
            inside, level = True, len(match[1])
        if inside:
            found.add(i)
    return found


# ------------------------------------------------------------------------------------------------ outputs


def normalise(line: str) -> str:
    """A line of code without its comment, its spaces collapsed."""
    return " ".join(line.split("#", 1)[0].split())


def body_lines(source: str) -> list[str]:
    """The lines of the function ``source`` defines, after its signature and docstring, normalised, non-empty."""
    func = next(node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef))
    body = func.body[1:] if ast.get_docstring(func) is not None else func.body
    if not body:
        return []
    lines = source.split("\n")[body[0].lineno - 1:func.end_lineno]
    return [line for line in map(normalise, lines) if line]


def solution_lines(stored: list) -> set[str]:
    """The lines of the reference solutions that show a solution: at least :data:`MIN_LINE` characters long and in
    no code cell of the ``stored`` notebooks but those tagged ``solution`` (code the course shows openly anyway,
    such as the buggy function of a find-the-bug cell, reveals nothing)."""
    from helpers.exercises import solution_source
    from helpers.exercises.code_tasks import TASKS

    shown = {normalise(line) for nb in stored for cell in nb.cells
             if cell.cell_type == "code" and SOLUTION_TAG not in tags(cell) for line in cell.source.split("\n")}
    return {line for task in TASKS for line in body_lines(solution_source(task))
            if len(line) >= MIN_LINE and line not in shown}


def output_text(output) -> tuple[str, str]:
    """What an output shows as text: ``(raw, read)``, its stream or text data as stored, and the same with the HTML
    tags taken out, the entities decoded and the spaces collapsed."""
    parts = [output.get("text", "")] if output.get("output_type") == "stream" else []
    data = output.get("data", {})
    for mime in TEXT_MIMES:
        value = data.get(mime, "")
        parts.append("".join(value) if isinstance(value, list) else value)
    raw = "\n".join(parts)
    return raw, " ".join(html.unescape(re.sub(r"<[^>]*>", " ", raw)).split())


def reveals(output, lines: set[str]) -> bool:
    """True if the stored ``output`` shows a fold, the instructor switch or a line of a reference solution."""
    raw, text = output_text(output)
    return bool(REVEALING.search(raw) or REVEALING.search(text) or any(line in text for line in lines))


# ------------------------------------------------------------------------------------------------ graded cells


def answer_check(cell, tag: str, at: str) -> tuple[str, str, str]:
    """``(checker, key, function)`` from the last line of a graded cell: ``check_code("attention", my_attention)``
    gives ``("check_code", "attention", "my_attention")``.

    Raises
    ------
    BuildError
        If the cell does not end with its tag's check called on a name and a function.
    """
    checker = ANSWER_TAGS[tag]
    body = parse(cell.source).body
    last = body[-1] if body else None
    call = last.value if isinstance(last, ast.Expr) else None
    ok = (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == checker
          and len(call.args) == 2 and not call.keywords and isinstance(call.args[0], ast.Constant)
          and isinstance(call.args[0].value, str) and isinstance(call.args[1], ast.Name))
    if not ok:
        raise BuildError(f'{at}: a {tag} cell ends with {checker}("name", function); this one does not')
    return checker, call.args[0].value, call.args[1].id


def nbgrader_metadata(grade_id: str, *, grade: bool, solution: bool, locked: bool) -> dict:
    """nbgrader's cell metadata, schema version 3 (``points`` on grade cells only)."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA_VERSION,
            "solution": solution}
    if grade:
        meta["points"] = POINTS
    return meta


def test_source(checker: str, key: str, fn: str) -> str:
    """The source of the autograder test cell that follows a graded cell."""
    check = f'{checker}("{key}", {fn})'
    plural = "" if POINTS == 1 else "s"
    return (f"# Graded by nbgrader ({POINTS} point{plural}) once the check above passes; until then this cell stops\n"
            "# with an AssertionError.\n"
            f"from helpers.exercises import {checker}\n"
            "\n"
            f'assert {check}.correct, "{fn} does not pass the check above yet"')


def make_graded(cell, tag: str, grade_id: str, at: str):
    """Turn ``cell`` into nbgrader's autograded answer cell; returns the autograder test cell that follows it."""
    checker, key, fn = answer_check(cell, tag, at)
    cell.outputs = []
    cell.execution_count = None
    cell.metadata["nbgrader"] = nbgrader_metadata(grade_id, grade=False, solution=True, locked=False)
    cell.metadata["deletable"] = False  # as nbgrader's LockCells leaves an answer cell
    test = nbformat.v4.new_code_cell(source=test_source(checker, key, fn))
    test.id = f"{grade_id}-test"
    test.metadata = {
        "deletable": False,
        "editable": False,
        "nbgrader": nbgrader_metadata(f"{grade_id}-test", grade=True, solution=False, locked=True),
        "tags": ["raises-exception"],
    }
    return test


def graded_key(cell, tag: str, at: str) -> str:
    """The stable part of a graded cell's grade_id: its task (your-turn) or its bug (find-the-bug)."""
    return answer_check(cell, tag, at)[1]


# ------------------------------------------------------------------------------------------------ one notebook


def student_edition(nb, path: Path, lines: set[str]) -> tuple[object, Report]:
    """The student edition of the notebook ``nb`` (read from ``path``; changed in place) and what was done."""
    report = Report(path=path, graded=[])
    cells = nb.cells
    drop = instructor_sections(cells)
    kept = []
    seen_ids: dict[str, int] = {}
    for i, cell in enumerate(cells):
        at = where(path, cell)
        if i in drop or SOLUTION_TAG in tags(cell):
            report.cells_removed += 1
            continue
        if cell.cell_type == "markdown":
            text = drop_pointer_sentences(cell.source)
            if not text.strip():
                report.cells_removed += 1
                continue
            cell.source = text
            kept.append(cell)
            continue
        if cell.cell_type != "code":
            kept.append(cell)
            continue
        source = hints_without_solution(strip_solution_code(cell.source, at), at)
        if only_comments(source):
            report.cells_removed += 1
            continue
        cell.source = source
        graded = [tag for tag in ANSWER_TAGS if tag in tags(cell)]
        if len(graded) > 1:
            raise BuildError(f"{at}: a cell is either your-turn or find-the-bug, not both")
        if graded:
            tag = graded[0]
            base = f"{GRADE_ID_PREFIX[tag]}-{graded_key(cell, tag, at)}"
            seen_ids[base] = seen_ids.get(base, 0) + 1
            grade_id = base if seen_ids[base] == 1 else f"{base}-{seen_ids[base]}"
            test = make_graded(cell, tag, grade_id, at)
            kept.extend([cell, test])
            report.graded.append(grade_id)
            continue
        outputs = [output for output in cell.outputs if not reveals(output, lines)]
        report.outputs_removed += len(cell.outputs) - len(outputs)
        cell.outputs = outputs
        kept.append(cell)
    ids = [cell.get("id") for cell in kept]
    if len(set(ids)) != len(ids):
        raise BuildError(f"{path.name}: two cells share an id once the graded cells' tests are added")
    nb.cells = kept
    return nb, report


def build(source: Path = NOTEBOOKS, out: Path = OUT) -> list[Report]:
    """Write the student edition of every notebook of ``course.toml`` from ``source`` into ``out``.

    Notebooks in ``out`` that the course no longer has are removed; a file whose bytes would not change is not
    rewritten.

    Returns
    -------
    list of Report
        One per notebook, in course order.

    Raises
    ------
    BuildError
        If a notebook cannot be turned into its student edition safely.
    """
    paths = course_notebooks(source)
    stored = [nbformat.read(path, as_version=4) for path in paths]
    lines = solution_lines(stored)
    out.mkdir(parents=True, exist_ok=True)
    names = {path.name for path in paths}
    for old in out.glob("*.ipynb"):
        if old.name not in names:
            old.unlink()
    reports = []
    for path, nb in zip(paths, stored):
        edition, report = student_edition(nb, path, lines)
        nbformat.validate(edition)
        text = nbformat.writes(edition)
        if not text.endswith("\n"):
            text += "\n"
        target = out / path.name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        report.path = target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target
        reports.append(report)
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--from", dest="source", type=Path, default=NOTEBOOKS,
                        help="the folder of the course's notebooks (default: notebooks/)")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the student edition (default: student/)")
    args = parser.parse_args(argv)
    try:
        reports = build(args.source, args.out)
    except BuildError as error:
        print(f"build_student: {error}", file=sys.stderr)
        return 1
    for report in reports:
        print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
