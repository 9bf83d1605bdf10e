"""Progress that lasts: the JSON file (where it is, atomic writes, corrupt files), what records into it, the view in
00, and that tests and notebook runs never touch the user's file."""

from __future__ import annotations

import inspect
import json
import os
import re
import tomllib
from pathlib import Path

import pytest

from helpers.core.course import find_course_plan
from helpers.demos.progress import NOTHING_TO_REVIEW, ROWS, ProgressView, course_totals, progress_view
from helpers.exercises import Progress, bugs, check_code, design_tasks, predictions, progress, record, reset_progress
from helpers.exercises.attempts import last, reset_attempts
from helpers.exercises.bugs import check_fix, judge_fix
from helpers.exercises.code_tasks import SOLUTIONS, YOUR_TURN_TASKS, check_task
from helpers.exercises.design import check_design, judge_design
from helpers.exercises.progress import ENV_VAR, KINDS, progress_path, read_progress_file
from helpers.widgets.live import RUN_TO_SHOW
from helpers.widgets.snapshot import snapshot_html

from conftest import NOTEBOOK_DIR, ROOT, as_shown, html_text


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


def test_checking_code_writes_nothing_and_the_cells_check_records_its_verdict(progress_file):
    """Checking returns a verdict (code_tasks.check_task, whatever the function); the Your turn cell's check_code is
    the caller that records it."""
    for fn in (SKELETON_LIKE, lambda x: x, SOLUTIONS["softmax"], None, "junk", lambda x: 1 / 0):
        assert check_task("softmax", fn).correct is (fn is SOLUTIONS["softmax"])
    assert not progress_file.exists()
    feedback = check_code("softmax", SOLUTIONS["softmax"])
    assert feedback.correct and progress_file.exists()
    assert progress().result("your-turn", "softmax").correct is True


def test_checking_a_fix_writes_nothing_and_the_cells_check_fix_records_its_verdict(progress_file):
    """A bug's check (bugs.judge_fix) returns a verdict whatever the function and notes no try; the cell's check_fix
    notes the try for the stage and records it."""
    name = "02-softmax-over-queries"
    task = bugs()[name].task
    reset_attempts()
    for fn in (lambda *args: None, SOLUTIONS[task], None, "junk", lambda *args: 1 / 0):
        assert judge_fix(name, fn).correct is (fn is SOLUTIONS[task])
    assert not progress_file.exists() and last("bug", name) is None
    assert check_fix(name, SOLUTIONS[task]).correct and progress_file.exists()
    assert progress().result("bug", name).correct is True and last("bug", name).correct


def test_judging_a_design_writes_nothing_and_check_design_records_a_goal_met(progress_file):
    """A design task's check (design.judge_design) returns a verdict; check_design records a goal met."""
    name = "01-sat-attends-cat"
    task = design_tasks()[name]
    assert not judge_design(name).correct and judge_design(name, **task.solution).correct
    assert not judge_design(name, X="junk").correct
    assert not progress_file.exists()
    assert check_design(name, **task.solution).correct and progress_file.exists()
    assert progress().designs == (name,)


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
                      "your-turn": YOUR_TURN_TASKS, "question": ("q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8")}
    assert [kind for kind, _, _ in ROWS] == list(KINDS[:5])
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
    assert progress().bugs and "Forget everything recorded?" in html_text(view.confirm_row.children[0])
    view.cancel_button.click()
    assert progress().bugs and view.confirm_row.layout.display == "none"
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
    """The notebook runner (course.runner, scripts/run_notebooks.py) runs each kernel inside fresh_progress(): a new
    file, the old setting back after."""
    from course import runner as run_notebooks

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


# --------------------------------------------------------------------------- per notebook, the review list, Hand in


def shown_items(html_widget) -> list[str]:
    """The list items an HTML widget shows, each as its words."""
    return [html_text(item) for item in re.findall(r"<li>(.*?)</li>", html_widget.value, flags=re.S)]


def links(html_widget) -> list[str]:
    return re.findall(r'<a href="([^"]+)"', html_widget.value)


def line_of(view, title: str) -> tuple[str, list[str]]:
    """The line of the notebook called ``title`` ("02 · Projections") in the view's list of notebooks, and what it
    says is left there (a folded list under it)."""
    lines = re.split(r'<li class="progress-notebook">', view.notebooks_html.value)[1:]
    (line,) = [item for item in lines if html_text(item).startswith(title + " :")]
    head, _, left = line.partition("<details")
    return html_text(head), [html_text(item) for item in re.findall(r"<li>(.*?)</li>", left, flags=re.S)]


def cells_tagged(stem: str, tag: str) -> list[str]:
    """The sources of the cells of notebook ``stem`` tagged ``tag``."""
    nb = json.loads((NOTEBOOK_DIR / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if tag in c.get("metadata", {}).get("tags", [])]


def test_each_notebook_says_what_is_done_and_what_is_left(progress_file):
    """The counts of 02's line, worked out from its cells: its Predict, Find the bug and Your turn cells."""
    predicted = [re.search(r'predict\("([^"]+)"\)', src)[1] for src in cells_tagged("02_projections", "predict-commit")]
    fixes = [re.search(r'check_fix\("([^"]+)"', src)[1] for src in cells_tagged("02_projections", "find-the-bug")]
    written = [re.search(r'check_code\("([^"]+)"', src)[1] for src in cells_tagged("02_projections", "your-turn")]
    assert (len(predicted), len(fixes), written) == (4, 2, ["project_qkv", "attention"])
    record("prediction", "02-output-shape", correct=False, answer="(10, 64)")
    record("bug", fixes[0], correct=False)
    record("bug", fixes[0], correct=True)
    record("your-turn", "attention", correct=True)
    view = progress_view(folder=NOTEBOOK_DIR)
    line, left = line_of(view, "02 · Projections")
    assert line == "02 · Projections : 1 of 4 predictions, 0 of 1 design goal, 1 of 2 bugs, 1 of 2 Your turns"
    assert len(left) == 3 + 1 + 1 + 1 and "left: 6" in view.notebooks_html.value
    assert "predict: What shape is the output softmax(QKᵀ/√d_k)V?" not in left
    assert "predict: How much attention will the query of 'The' give 'cat'?" in left
    assert "write my_project_qkv" in left and "write my_attention" not in left
    assert "find the bug 2 of 2" in left, "a bug not tried yet is not named"
    assert not any("transposed" in item for item in left)
    # 06 asks for a task of its own (cross-attention over a padded source): 02's attention does not count there.
    assert line_of(view, "06 · Cross attention")[0].endswith("0 of 1 Your turn")
    real_model = len(cells_tagged("12_real_model", "predict-commit"))
    assert line_of(view, "12 · Real model")[0] == f"12 · Real model : 0 of {real_model} predictions"
    nine, questions = line_of(view, "09 · Practice")
    assert nine.endswith("0 of 8 lesson questions") and questions[:2] == ["Q1 Shapes with batch and heads",
                                                                           as_shown("Q2 The per-head dimension d_k")]
    efficiency = [re.search(r'predict\("([^"]+)"\)', src)[1] for src in cells_tagged("14_efficiency", "predict-commit")]
    record("your-turn", "online_softmax", correct=True)
    for name in efficiency:
        record("prediction", name, correct=False)  # committed counts as done, right or not
    view.refresh_button.click()
    assert line_of(view, "14 · Efficiency") == (
        f"14 · Efficiency : {len(efficiency)} of {len(efficiency)} predictions, 1 of 2 Your turns",
        ["write my_sliding_window_mask"])
    record("your-turn", "sliding_window_mask", correct=True)
    view.refresh_button.click()
    assert line_of(view, "14 · Efficiency") == (
        f"14 · Efficiency : {len(efficiency)} of {len(efficiency)} predictions, 2 of 2 Your turns ✓ all done", [])


def test_the_core_path_and_going_further_are_apart_in_course_order(progress_file):
    plan = tomllib.loads((ROOT / "course.toml").read_text(encoding="utf-8"))
    view = progress_view(folder=NOTEBOOK_DIR)
    text = html_text(view.notebooks_html)
    assert text.index("The core path") < text.index("01 · Intuition") < text.index("Going further") \
        < text.index("10 · Multi head")
    assert links(view.notebooks_html) == [f"{name}.ipynb" for name in plan["core"] + plan["going_further"]]
    assert all((NOTEBOOK_DIR / href).is_file() for href in links(view.notebooks_html))


def test_the_plan_is_found_next_to_the_notebooks_and_without_one_the_notebooks_go_by_number(tmp_path, monkeypatch):
    import helpers.core.course

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "course.toml").write_text('index = "00_index"\ncore = ["02_projections"]\n'
                                          'going_further = ["01_intuition"]\n')
    assert find_course_plan(tmp_path / "notebooks").core == ("02_projections",)
    (tmp_path / "course.toml").write_text("core = 3")
    monkeypatch.setattr(helpers.core.course, "_CHECKOUT", tmp_path / "elsewhere")
    assert find_course_plan(tmp_path / "notebooks") is None
    view = progress_view(folder=tmp_path / "notebooks")
    assert [title for title, _ in view.groups] == ["The notebooks"]
    numbers = [href[:2] for href in links(view.notebooks_html)]
    assert numbers == sorted(numbers) and "09" in numbers and "00" not in numbers  # the index asks for nothing


def test_a_notebook_that_asks_for_nothing_says_so(tmp_path, monkeypatch):
    import helpers.core.course

    monkeypatch.setattr(helpers.core.course, "_CHECKOUT", tmp_path / "elsewhere")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "course.toml").write_text('index = "00_index"\ncore = ["02_projections"]\n'
                                          'going_further = ["16_further_reading"]\n')
    view = progress_view(folder=tmp_path / "notebooks")
    assert line_of(view, "16 · Further reading") == (
        "16 · Further reading : nothing to check here: read it and explore", [])


def test_the_review_list_holds_the_predictions_missed_and_the_tasks_of_several_tries(progress_file):
    view = progress_view(folder=NOTEBOOK_DIR)
    assert html_text(view.review_html) == "To review " + NOTHING_TO_REVIEW
    record("prediction", "02-output-shape", correct=False, answer="(10, 64)")
    record("prediction", "02-output-shape", correct=True, answer="(10, 32)")  # a second try changes nothing
    record("prediction", "01-pasta-weight", correct=True, answer="0.27")
    # 0.31 for 0.269, within ±0.025 twice over: close, a matter of rounding, not a misconception to review
    record("prediction", "04-weight-after-the-mask", correct=False, answer="0.31")
    for correct in (False, False, True):
        record("your-turn", "padding_causal_mask", correct=correct)
    for correct in (False, True):
        record("your-turn", "softmax", correct=correct)  # right on the second try: not listed
    record("bug", "05-mask-after-softmax", correct=False)  # the cell as given, run once: not a try of the learner's
    for _ in range(2):
        record("bug", "02-softmax-over-queries", correct=False)
    record("question", "q3", correct=False, answer="a")
    record("question", "attention-42-easy", correct=False)
    record("your-turn", "a-task-no-longer-in-the-course", correct=False)
    view.refresh_button.click()
    assert shown_items(view.review_html) == [
        as_shown("02 · Projections : predict: What shape is the output softmax(QKᵀ/√d_k)V? (you predicted (10, 64))"),
        "02 · Projections : find the bug: softmax over queries (not right yet after 2 tries)",
        "04 · Masking : write my_padding_causal_mask (right on try 3)",
        "09 · Practice : Q3 Why the decoder is causal (not right yet after 1 try)",
        "09 · Practice : problem 42 (attention, easy) (not right yet after 1 try)",
    ]
    assert links(view.review_html) == ["02_projections.ipynb", "02_projections.ipynb", "04_masking.ipynb",
                                       "09_practice.ipynb", "09_practice.ipynb"]
    assert [r.result.name for r in view.reviews][:1] == ["02-output-shape"]


def test_hand_in_writes_the_progress_that_the_class_report_reads_back(progress_file, tmp_path, monkeypatch):
    record("prediction", "02-output-shape", correct=False, answer="(10, 64)")
    record("your-turn", "softmax", correct=True)
    monkeypatch.setenv("JUPYTERHUB_USER", "ana@uni.edu")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    view = progress_view(folder=folder)
    assert view.hand_in_html.value == ""
    view.hand_in_button.click()
    written = folder / "progress-ana-uni.edu.json"
    assert [p.name for p in folder.iterdir()] == ["progress-ana-uni.edu.json"]
    assert read_progress_file(written) == progress()
    assert json.loads(written.read_text(encoding="utf-8"))["learner"] == "ana-uni.edu"
    said = html_text(view.hand_in_html)
    assert said.startswith(f"Handed in: progress-ana-uni.edu.json in {folder} (2 records).") and not view.status
    monkeypatch.delenv("JUPYTERHUB_USER")
    monkeypatch.setattr("getpass.getuser", lambda: "bob smith")
    assert view.hand_in() == folder / "progress-bob-smith.json"


def test_hand_in_where_it_cannot_write_says_why_next_to_the_button(progress_file, tmp_path):
    record("your-turn", "softmax", correct=True)
    view = progress_view(folder=tmp_path / "no-such-folder")
    view.hand_in_button.click()  # no exception leaves the handler
    said = html_text(view.hand_in_html)
    assert said.startswith("Your progress could not be handed in: No such file or directory")
    assert "Traceback" not in said
    assert str(tmp_path / "no-such-folder") in said and view.last_unexpected is None
    assert view.hand_in(learner="ana") is None
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert progress_view(folder=a_file).hand_in(learner="ana") is None


def test_the_text_form_and_the_picture_hold_none_of_the_learners_data(progress_file):
    record("prediction", "02-output-shape", correct=False, answer="(10, 64)")
    record("your-turn", "softmax", correct=True)
    view = progress_view(folder=NOTEBOOK_DIR)
    picture = snapshot_html(view)
    text = view._repr_mimebundle_()["text/plain"]
    for shown in (picture, text):
        assert "(10, 64)" not in shown and "Projections" not in shown and "1 of" not in shown
    assert "Hand in" in picture and "Refresh" in picture
    assert snapshot_html(progress_view(folder=NOTEBOOK_DIR)) == picture, "the picture is the same for any progress"


@pytest.mark.parametrize("given, safe", [("ana", "ana"), ("ana@uni.edu", "ana-uni.edu"), ("../../etc/passwd",
                                         "etc-passwd"), ("", "learner"), ("  ", "learner"), (".hidden", "hidden"),
                                         ("Zoë Smith", "Zo-Smith")])
def test_a_learners_name_is_made_safe_for_a_file_name(given, safe):
    from helpers.exercises.hand_in import safe_name

    assert safe_name(given) == safe


def test_notebooks_copied_away_from_the_checkout_still_find_its_plan(tmp_path):
    # A copy of notebooks/ with no course.toml beside or above it (a class folder, the browser tests' server root)
    # reads the plan of the checkout the helpers come from.
    plan = tomllib.loads((ROOT / "course.toml").read_text(encoding="utf-8"))
    (tmp_path / "copy" / "notebooks").mkdir(parents=True)
    found = find_course_plan(tmp_path / "copy" / "notebooks")
    assert found is not None and found.going_further == tuple(plan["going_further"])
