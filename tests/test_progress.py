"""Progress that lasts: the JSON file (where it is, atomic writes, corrupt files), what records into it, the view in
00, and that tests and notebook runs never touch the user's file."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
from pathlib import Path

import pytest

from helpers.demos.progress import ROWS, ProgressView, course_totals, progress_view
from helpers.exercises import Progress, bugs, check_code, design_tasks, predictions, progress, record, reset_progress
from helpers.exercises.code_tasks import SOLUTIONS, YOUR_TURN_TASKS, check_task
from helpers.exercises.progress import ENV_VAR, KINDS, progress_path
from helpers.live import RUN_TO_SHOW

from conftest import NOTEBOOK_DIR, ROOT, html_text


@pytest.fixture
def progress_file(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "progress.json"
    monkeypatch.setenv(ENV_VAR, str(path))
    return path


def test_the_test_run_never_records_into_the_users_file():
    """conftest points COURSE_PROGRESS at a temporary file of this run, before any test."""
    chosen = Path(os.environ[ENV_VAR])
    assert chosen.name == "progress.json" and chosen.parent.name.startswith("course-progress-")
    assert not str(chosen).startswith(str(Path.home() / ".local" / "share"))


def test_record_progress_and_reset(progress_file):
    assert progress() == Progress() and progress().empty and not progress_file.exists()
    assert record("prediction", "01-pasta-weight", correct=False, answer="0.5")
    assert record("prediction", "01-pasta-weight", correct=True, answer="0.27")
    record("your-turn", "softmax", correct=True)
    record("design", "01-sat-attends-cat", correct=True)
    record("bug", "02-softmax-over-queries", correct=False, answer="softmax_over_queries")
    now = progress()
    assert now.predictions == ("01-pasta-weight",) and now.your_turns == ("softmax",)
    assert now.bugs == (), "a bug checked but not fixed is not done"
    assert now.counts == {"prediction": 1, "design": 1, "bug": 0, "your-turn": 1, "question": 0,
                          "inventory-pre": 0, "inventory-post": 0}
    stored = json.loads(progress_file.read_text(encoding="utf-8"))
    assert stored["format"] == 2
    assert stored["records"]["prediction"]["01-pasta-weight"] == {"correct": False, "tries": 2, "answer": "0.5",
                                                                   "solved_on": 2}
    reset_progress()
    assert progress() == Progress()
    assert [p.name for p in progress_file.parent.iterdir()] == ["progress.json"], "no temporary file left behind"


def test_a_predictions_verdict_is_its_first_tries_and_a_tasks_its_latest(progress_file):
    assert progress().result("prediction", "01-pasta-weight") is None
    record("prediction", "01-pasta-weight", correct=False, answer="0.5")
    record("prediction", "01-pasta-weight", correct=True, answer="0.27")
    first = progress().result("prediction", "01-pasta-weight")
    assert (first.correct, first.tries, first.answer, first.solved_on) == (False, 2, "0.5", 2)
    for kind in ("inventory-pre", "inventory-post"):
        record(kind, "row-of-weights", correct=True, answer="b")
        record(kind, "row-of-weights", correct=False, answer="c")
        kept = progress().result(kind, "row-of-weights")
        assert (kept.correct, kept.answer, kept.tries) == (True, "b", 2)
    for kind in ("bug", "your-turn", "question"):
        record(kind, "x", correct=False, answer="one")
        record(kind, "x", correct=True, answer="two")
        record(kind, "x", correct=False, answer="three")
        latest = progress().result(kind, "x")
        assert (latest.correct, latest.tries, latest.answer, latest.solved_on) == (False, 3, "three", 2)
        assert progress().names(kind) == ("x",), "right once is done, whatever came after"


def test_an_answer_is_kept_as_short_text(progress_file):
    record("question", "q5", correct=False, answer={"Q": [[1.0] * 200] * 20})
    kept = progress().result("question", "q5").answer
    assert kept.startswith("{'Q': [[1.0, 1.0") and len(kept) == 400 and kept.endswith("…")


def test_a_first_format_file_is_read_as_names_done(progress_file):
    progress_file.write_text(json.dumps({"format": 1, "done": {"prediction": ["01-pasta-weight"],
                                                               "bug": ["02-softmax-over-queries"]}}))
    old = progress()
    assert old.result("prediction", "01-pasta-weight").correct is None and old.predictions == ("01-pasta-weight",)
    assert old.result("bug", "02-softmax-over-queries").correct is True and old.bugs == ("02-softmax-over-queries",)
    record("prediction", "01-pasta-weight", correct=True, answer="0.27")
    again = progress().result("prediction", "01-pasta-weight")
    assert (again.correct, again.tries, again.answer) == (True, 2, "0.27"), "the first verdict known is kept"


def test_listeners_hear_every_record_and_never_stop_one(progress_file):
    from helpers.exercises.progress import subscribe

    heard = []
    stop = subscribe(heard.append)
    stop_broken = subscribe(lambda result: 1 / 0)
    try:
        assert record("prediction", "01-pasta-weight", correct=True, answer="0.27")
    finally:
        stop()
        stop_broken()
    record("prediction", "01-pasta-weight", correct=False)
    assert [(r.kind, r.name, r.correct, r.tries) for r in heard] == [("prediction", "01-pasta-weight", True, 1)]


@pytest.mark.parametrize("kind, name", [("nope", "x"), ("bug", ""), ("bug", None), ("bug", 3)])
def test_record_refuses_an_unknown_kind_or_an_empty_name(progress_file, kind, name):
    with pytest.raises(ValueError):
        record(kind, name)
    with pytest.raises(ValueError, match="kind must be one of prediction, design, bug, your-turn, question"):
        Progress().names("nope")
    with pytest.raises(ValueError, match="correct must be True, False or None"):
        record("bug", "x", correct="yes")


@pytest.mark.parametrize("content", [b"", b"{", b"[1, 2]", b'{"done": 3}', b'{"done": {"bug": "x", "design": [1]}}',
                                     b"\xff\xfe\x00", b'{"done": {"bug": ["ok", 7, ""]}}'])
def test_a_corrupt_file_counts_as_no_progress_and_is_replaced_on_the_next_record(progress_file, content):
    progress_file.write_bytes(content)
    before = progress()
    assert before.designs == () and before.predictions == ()
    assert before.bugs in ((), ("ok",))
    assert record("design", "01-sat-attends-cat", correct=True)
    assert progress().designs == ("01-sat-attends-cat",)


def test_an_unreadable_or_unwritable_place_raises_nothing_when_recording(tmp_path, monkeypatch):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv(ENV_VAR, str(folder))  # a folder where the file should be: unreadable, unwritable
    assert progress() == Progress()
    assert record("bug", "02-softmax-over-queries") is False
    with pytest.raises(OSError):
        reset_progress()


def test_the_default_file_is_in_the_users_data_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if os.name != "nt" and os.uname().sysname == "Linux":
        assert progress_path() == tmp_path / "data" / "attention-course" / "progress.json"
        monkeypatch.delenv("XDG_DATA_HOME")
        assert progress_path() == tmp_path / ".local" / "share" / "attention-course" / "progress.json"
    monkeypatch.setenv(ENV_VAR, "~/elsewhere.json")
    assert progress_path() == tmp_path / "elsewhere.json"


def test_a_your_turn_is_done_when_right_and_every_judged_check_is_a_try(progress_file):
    check_code("softmax", SKELETON_LIKE)  # not written yet: not a try
    assert progress().result("your-turn", "softmax") is None
    check_code("softmax", lambda x: x)  # wrong
    assert progress().your_turns == () and progress().result("your-turn", "softmax").correct is False
    check_task("softmax", SOLUTIONS["softmax"])  # checked without recording
    assert progress().your_turns == ()
    check_code("softmax", SOLUTIONS["softmax"])
    check_code("self_attention", SOLUTIONS["self_attention"])  # not a Your turn task
    assert progress().your_turns == ("softmax",)
    assert progress().result("your-turn", "softmax").solved_on == 2
    assert progress().result("your-turn", "self_attention") is None


def SKELETON_LIKE(x):
    """A Your turn skeleton: the body is ``...``."""
    ...


def test_the_progress_survives_a_new_python(progress_file):
    import subprocess
    import sys

    record("prediction", "01-pasta-weight", correct=False, answer="0.5")
    code = ("from helpers.exercises import progress; r = progress().result('prediction', '01-pasta-weight'); "
            "print(r.correct, r.answer)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, ENV_VAR: str(progress_file)})
    assert out.stdout.strip() == "False 0.5"


# --------------------------------------------------------------------------- the view in 00


def test_the_view_counts_what_is_done_out_of_what_the_course_defines(progress_file):
    totals = course_totals()
    assert totals == {"prediction": tuple(predictions()), "design": tuple(design_tasks()), "bug": tuple(bugs()),
                      "your-turn": YOUR_TURN_TASKS}
    assert [kind for kind, _, _ in ROWS] == list(KINDS[:4])
    view = progress_view()
    assert isinstance(view, ProgressView) and "course-progress" in view._dom_classes
    shown = html_text(view.table_html)
    for _kind, label, _where in ROWS:
        assert label in shown
    assert f"Your turns right 0 of {len(YOUR_TURN_TASKS)}" in shown
    record("your-turn", "softmax", correct=True)
    record("your-turn", "a-task-no-longer-in-the-course", correct=True)
    assert f"Your turns right 0 of {len(YOUR_TURN_TASKS)}" in html_text(view.table_html)  # read on Refresh
    view.refresh_button.click()
    assert f"Your turns right 1 of {len(YOUR_TURN_TASKS)}" in html_text(view.table_html)


def test_reset_asks_first_then_forgets_everything(progress_file):
    record("bug", "02-softmax-over-queries", correct=True)
    view = progress_view()
    assert "Bugs fixed 1 of" in html_text(view.table_html)
    view.reset_button.click()
    assert progress().bugs and "Forget everything recorded?" in html_text(view.children[2].children[0])
    view.cancel_button.click()
    assert progress().bugs and view.children[2].layout.display == "none"
    view.reset_button.click()
    view.confirm_button.click()
    assert progress() == Progress() and "Bugs fixed 0 of" in html_text(view.table_html)


def test_a_failed_reset_is_said_next_to_the_buttons(tmp_path, monkeypatch):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv(ENV_VAR, str(folder))
    view = progress_view()
    view.reset()
    assert "The progress file could not be written" in view.status


def test_the_views_text_form_holds_no_counts(progress_file):
    text = progress_view()._repr_mimebundle_()["text/plain"]
    assert text.endswith(f"({RUN_TO_SHOW})") and not any(ch.isdigit() for ch in text)


def test_notebook_00_shows_the_progress_view():
    nb = json.loads((NOTEBOOK_DIR / "00_index.ipynb").read_text(encoding="utf-8"))
    cells = nb["cells"]
    k = next(k for k, c in enumerate(cells) if "progress_view()" in "".join(c["source"]))
    assert cells[k - 1]["cell_type"] == "markdown"
    (output,) = cells[k]["outputs"]
    assert "".join(output["data"]["text/plain"]).startswith("Your progress: ")


def test_the_notebook_runner_records_into_a_temporary_file():
    """scripts/run_notebooks.py runs each kernel inside fresh_progress(): a new file, the old setting back after."""
    spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "scripts" / "run_notebooks.py")
    run_notebooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_notebooks)
    before = os.environ[ENV_VAR]
    with run_notebooks.fresh_progress():
        inside = Path(os.environ[ENV_VAR])
        assert inside != Path(before) and inside.parent.is_dir() and not inside.exists()
        record("bug", "02-softmax-over-queries")
        assert inside.exists()
    assert os.environ[ENV_VAR] == before and not inside.parent.exists()
    assert "with fresh_progress():" in inspect.getsource(run_notebooks.run)


def test_a_check_in_one_kernel_shows_in_the_view_of_another(progress_file):
    """What 00's view reads is what another notebook's kernel wrote: the same file."""
    assert check_code("softmax", SOLUTIONS["softmax"]).correct
    assert "softmax" in ProgressView().done["your-turn"]
