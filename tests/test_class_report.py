"""The class report (python -m helpers.exercises.class_report) on made-up classes whose numbers are worked out here by
hand: learners record as they would in the course, hand their progress in, and the report reads the files back."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.exercises import predictions, record
from helpers.exercises.class_report import learner_of, main, read_class
from helpers.exercises.hand_in import hand_in
from helpers.exercises.inventory import items
from helpers.exercises.progress import ENV_VAR

from conftest import ROOT


def by_objective() -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    for name, item in items().items():
        names.setdefault(item.objective, []).append(name)
    return names


def learner(monkeypatch, tmp_path: Path, name: str, folder: Path, records) -> Path:
    """``name`` records ``records`` ((kind, item or name, correct, answer), in order) in a progress file of their
    own and hands it in into ``folder``."""
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "kernels" / name / "progress.json"))
    for kind, what, correct, answer in records:
        record(kind, what, correct=correct, answer=answer)
    folder.mkdir(parents=True, exist_ok=True)
    return hand_in(folder, learner=name)


@pytest.fixture
def made_up_class(tmp_path, monkeypatch):
    """Three learners. Objective 1's first two items A, B and objective 2's first item C:

    ======  ==================  ===================
            pre (A, B; C)       post (A, B; C)
    ======  ==================  ===================
    ana     right, wrong; wrong right, right; right
    ben     wrong, wrong; right right, wrong; right
    cy      right, right; right (no post-test)
    ======  ==================  ===================

    Objective 1, over ana and ben: pre (50 + 0) / 2 = 25, post (100 + 50) / 2 = 75, g = 50 / 75 = 0.667.
    Objective 2: pre (0 + 100) / 2 = 50, post 100, g = 50 / 50 = 1. cy took one test: not counted.
    Prediction 01-pasta-weight (truth 0.269): ana 0.25 and ben 1/4 (both wrong, the same answer), cy 0.27 right.
    """
    (a, b), c = by_objective()[1][:2], by_objective()[2][0]
    submitted = tmp_path / "grading" / "submitted"

    def inventory(kind, verdicts):
        return [(kind, item, right, "x") for item, right in zip((a, b, c), verdicts)]

    learner(monkeypatch, tmp_path, "ana", submitted / "ana" / "attention",
            inventory("inventory-pre", (True, False, False)) + inventory("inventory-post", (True, True, True))
            + [("prediction", "01-pasta-weight", False, "0.25"), ("your-turn", "softmax", False, "no_max"),
               ("your-turn", "softmax", True, None)])
    learner(monkeypatch, tmp_path, "ben", submitted / "ben" / "attention",
            inventory("inventory-pre", (False, False, True)) + inventory("inventory-post", (True, False, True))
            + [("prediction", "01-pasta-weight", False, "1/4")])
    learner(monkeypatch, tmp_path, "cy", tmp_path / "mailed",
            inventory("inventory-pre", (True, True, True)) + [("prediction", "01-pasta-weight", True, "0.27")])
    return {"submitted": submitted, "mailed": tmp_path / "mailed", "items": (a, b, c), "out": tmp_path / "report"}


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def run(*args: str, new_python: bool = False) -> subprocess.CompletedProcess:
    """The command as an instructor types it: its exit status and what it printed. ``new_python``: in a new Python,
    as ``python -m helpers.exercises.class_report`` (half a second each); else its ``main`` in this process, with the
    exit status that Python would give (argparse's own exit included)."""
    if new_python:
        return subprocess.run([sys.executable, "-m", "helpers.exercises.class_report", *args], capture_output=True,
                              text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def test_the_gain_per_objective_counts_the_learners_who_took_both_tests(made_up_class, capsys):
    out = made_up_class["out"]
    assert main([str(made_up_class["submitted"]), str(made_up_class["mailed"]), "--out", str(out)]) == 0
    gains = read_csv(out / "class_gain.csv")
    assert list(gains[0]) == ["objective", "pre", "post", "gain", "learners"]
    assert gains[0] == {"objective": "1", "pre": "25.0", "post": "75.0", "gain": "0.667", "learners": "2"}
    assert gains[1] == {"objective": "2", "pre": "50.0", "post": "100.0", "gain": "1.000", "learners": "2"}
    assert [g["learners"] for g in gains[2:]] == ["0", "0", "0"] and all(g["pre"] == g["gain"] == "" for g in gains[2:])
    assert "3 learners: wrote" in capsys.readouterr().out


def test_one_row_per_learner_and_record(made_up_class):
    out = made_up_class["out"]
    main([str(made_up_class["submitted"]), str(made_up_class["mailed"]), "--out", str(out)])
    rows = read_csv(out / "class_report.csv")
    assert list(rows[0]) == ["learner", "kind", "name", "objective", "correct", "tries", "answer"]
    assert sorted({row["learner"] for row in rows}) == ["ana", "ben", "cy"]
    a, b, c = made_up_class["items"]
    ana = [row for row in rows if row["learner"] == "ana"]
    assert len(ana) == 8  # three items twice, a prediction, a Your turn
    assert {"learner": "ana", "kind": "your-turn", "name": "softmax", "objective": "", "correct": "true",
            "tries": "2", "answer": ""} in ana
    assert {"learner": "ana", "kind": "prediction", "name": "01-pasta-weight", "objective": "", "correct": "false",
            "tries": "1", "answer": "0.25"} in ana
    assert {"learner": "ana", "kind": "inventory-post", "name": c, "objective": "2", "correct": "true",
            "tries": "1", "answer": "x"} in ana
    assert [row["objective"] for row in ana if row["kind"] == "inventory-pre" and row["name"] in (a, b)] == ["1", "1"]


def test_the_page_shows_bars_and_the_most_common_wrong_answer_and_reads_offline(made_up_class):
    out = made_up_class["out"]
    main([str(made_up_class["submitted"]), str(made_up_class["mailed"]), "--out", str(out)])
    page = (out / "class_report.html").read_text(encoding="utf-8")
    assert not re.search(r"https?:|//[a-z]|<script|<link|<img|@import|url\(|src=", page, flags=re.I)
    (pasta,) = [row for row in re.findall(r"<tr>.*?</tr>", page) if "Pasta recipes" in row]
    assert 'aria-label="33 %"' in pasta, "1 of 3 right at the first try"
    assert "0.25 (2)" in pasta, "0.25 and 1/4 are one answer, given twice"
    thought = predictions()["01-pasta-weight"].thought_for(0.25)
    assert thought and thought.replace("'", "&#x27;") in pasta
    (first,) = [row for row in re.findall(r"<tr>.*?</tr>", page) if row.startswith("<tr><td>1. ")]
    assert re.findall(r'aria-label="([^"]+)"', first) == ["25 %", "75 %"] and ">0.67<" in first


def test_learners_are_named_by_their_folder_under_submitted_or_their_file():
    assert learner_of(Path("/g/submitted/ana/attention/progress-xyz.json")) == "ana"
    assert learner_of(Path("submitted/ben/ps1/sub/progress.json")) == "ben"
    assert learner_of(Path("/home/t/mailed/progress-cy.json")) == "cy"
    assert learner_of(Path("dee.json")) == "dee"


def test_two_files_of_one_learner_are_one_learner_each_record_from_the_later(tmp_path, monkeypatch):
    first = learner(monkeypatch, tmp_path, "ana", tmp_path / "submitted" / "ana" / "ps1",
                    [("your-turn", "softmax", False, "no_max")])
    record("your-turn", "softmax", correct=True)  # the same kernel goes on, then hands in again elsewhere
    (tmp_path / "submitted" / "ana" / "ps2").mkdir()
    second = hand_in(tmp_path / "submitted" / "ana" / "ps2", learner="ana")
    assert first != second
    (ana,) = read_class([tmp_path / "submitted"]).values()
    assert (ana.result("your-turn", "softmax").tries, ana.result("your-turn", "softmax").correct) == (2, True)


def test_a_json_file_that_is_no_progress_file_is_skipped_with_a_warning(made_up_class, tmp_path):
    other = made_up_class["submitted"] / "ana" / "attention" / "metadata.json"
    other.write_text(json.dumps({"kernel": "python3"}))
    broken = made_up_class["mailed"] / "progress-dee.json"
    broken.write_text("{ not json")
    done = run(str(made_up_class["submitted"]), str(made_up_class["mailed"]), "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    assert f"skipped {other}: not a course progress file" in done.stderr.splitlines()
    assert any(line.startswith(f"skipped {broken}: not readable JSON") for line in done.stderr.splitlines())
    learners = {row["learner"] for row in read_csv(tmp_path / "r" / "class_report.csv")}
    assert learners == {"ana", "ben", "cy"}


def test_no_readable_progress_file_exits_with_one_line_and_writes_nothing(tmp_path):
    (tmp_path / "empty").mkdir()
    done = run(str(tmp_path / "empty"), "--out", str(tmp_path / "report"), new_python=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [f"python -m helpers.exercises.class_report: no readable progress file in "
                                        f"{tmp_path / 'empty'}: nothing written"]
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("args", [[], ["somewhere"], ["--out"], ["a", "--out", "b", "--colour"]])
def test_bad_arguments_give_one_line_and_status_2(args):
    done = run(*args)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "usage: python -m helpers.exercises.class_report PATH... --out DIR" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unwritable_report_folder_is_one_line(made_up_class, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    done = run(str(made_up_class["mailed"]), "--out", str(a_file / "report"))
    assert done.returncode == 1
    assert done.stderr.startswith("python -m helpers.exercises.class_report: cannot write the report")
    assert len(done.stderr.splitlines()) == 1


def test_make_class_report_runs_it(made_up_class):
    out = made_up_class["out"]
    done = subprocess.run(["make", "-s", "-o", ".venv/.installed", "class-report",
                           f"PROGRESS={made_up_class['submitted']}", f"OUT={out}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert {p.name for p in out.iterdir()} == {"class_report.csv", "class_gain.csv", "class_report.html"}
    missing = subprocess.run(["make", "-s", "-o", ".venv/.installed", "class-report"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode != 0 and "PROGRESS names the progress files" in missing.stdout + missing.stderr
