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
    assert progress() == Progress() and not progress_file.exists()
    assert record("prediction", "01-pasta-weight") and record("prediction", "01-pasta-weight")
    record("your-turn", "softmax")
    record("design", "01-sat-attends-cat")
    record("bug", "02-softmax-over-queries")
    now = progress()
    assert now.predictions == ("01-pasta-weight",) and now.your_turns == ("softmax",)
    assert now.counts == {"prediction": 1, "design": 1, "bug": 1, "your-turn": 1}
    assert now.names("bug") == ("02-softmax-over-queries",)
    stored = json.loads(progress_file.read_text(encoding="utf-8"))
    assert stored["done"]["prediction"] == ["01-pasta-weight"] and stored["format"] == 1
    reset_progress()
    assert progress() == Progress()
    assert [p.name for p in progress_file.parent.iterdir()] == ["progress.json"], "no temporary file left behind"


@pytest.mark.parametrize("kind, name", [("nope", "x"), ("bug", ""), ("bug", None), ("bug", 3)])
def test_record_refuses_an_unknown_kind_or_an_empty_name(progress_file, kind, name):
    with pytest.raises(ValueError):
        record(kind, name)
    with pytest.raises(ValueError, match="kind must be one of prediction, design, bug, your-turn"):
        Progress().names("nope")


@pytest.mark.parametrize("content", [b"", b"{", b"[1, 2]", b'{"done": 3}', b'{"done": {"bug": "x", "design": [1]}}',
                                     b"\xff\xfe\x00", b'{"done": {"bug": ["ok", 7, ""]}}'])
def test_a_corrupt_file_counts_as_no_progress_and_is_replaced_on_the_next_record(progress_file, content):
    progress_file.write_bytes(content)
    before = progress()
    assert before.designs == () and before.predictions == ()
    assert before.bugs in ((), ("ok",))
    assert record("design", "01-sat-attends-cat")
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


def test_a_correct_your_turn_is_recorded_and_nothing_else_is(progress_file):
    check_code("softmax", lambda x: x)  # wrong
    assert progress().your_turns == ()
    check_task("softmax", SOLUTIONS["softmax"])  # checked without recording
    assert progress().your_turns == ()
    check_code("softmax", SOLUTIONS["softmax"])
    check_code("self_attention", SOLUTIONS["self_attention"])  # not a Your turn task
    assert progress().your_turns == ("softmax",)


def test_the_progress_survives_a_new_python(progress_file):
    import subprocess
    import sys

    record("prediction", "01-pasta-weight")
    code = "from helpers.exercises import progress; print(progress().predictions)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, ENV_VAR: str(progress_file)})
    assert out.stdout.strip() == "('01-pasta-weight',)"


# --------------------------------------------------------------------------- the view in 00


def test_the_view_counts_what_is_done_out_of_what_the_course_defines(progress_file):
    totals = course_totals()
    assert totals == {"prediction": tuple(predictions()), "design": tuple(design_tasks()), "bug": tuple(bugs()),
                      "your-turn": YOUR_TURN_TASKS}
    assert [kind for kind, _, _ in ROWS] == list(KINDS)
    view = progress_view()
    assert isinstance(view, ProgressView) and "course-progress" in view._dom_classes
    shown = html_text(view.table_html)
    for _kind, label, _where in ROWS:
        assert label in shown
    assert f"Your turns right 0 of {len(YOUR_TURN_TASKS)}" in shown
    record("your-turn", "softmax")
    record("your-turn", "a-task-no-longer-in-the-course")
    assert f"Your turns right 0 of {len(YOUR_TURN_TASKS)}" in html_text(view.table_html)  # read on Refresh
    view.refresh_button.click()
    assert f"Your turns right 1 of {len(YOUR_TURN_TASKS)}" in html_text(view.table_html)


def test_reset_asks_first_then_forgets_everything(progress_file):
    record("bug", "02-softmax-over-queries")
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
