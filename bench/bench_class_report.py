"""The class report (python -m helpers.exercises.class_report) on made-up classes: time, and memory as the class grows.

Each made-up learner has done most of the course: a first-try verdict and an answer for every prediction, each task
checked one to five times, and both concept inventory tests, right about half the time before and two thirds after.
Their progress files sit in nbgrader's layout, submitted/<learner>/attention/progress-<learner>.json. The time is
the whole command (reading every file, the three files of the report written); the goal is under 5 s for 300
learners. The memory is tracemalloc's peak while the report is made: it should grow about linearly with the class.

Run: .venv/bin/python bench/bench_class_report.py
"""

from __future__ import annotations

import contextlib
import io
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from helpers.exercises import QUESTIONS, bugs, design_tasks, predictions
from helpers.exercises.class_report import main as class_report
from helpers.exercises.code_tasks import YOUR_TURN_TASKS
from helpers.exercises.inventory import items
from helpers.exercises.progress import KINDS, Progress, Result, progress_json

SIZES = (100, 300, 1000)
GOAL_S = 5.0


def made_up_learner(rng: random.Random) -> Progress:
    """One learner's progress, drawn with ``rng``."""
    records: dict[str, dict[str, Result]] = {kind: {} for kind in KINDS}
    for name in predictions():
        right = rng.random() < 0.6
        records["prediction"][name] = Result("prediction", name, right, 1, "0.5" if not right else "right", 1 if right
                                             else None)
    for kind, names in (("design", design_tasks()), ("bug", bugs()), ("your-turn", YOUR_TURN_TASKS),
                        ("question", QUESTIONS)):
        for name in names:
            tries = rng.randint(1, 5)
            solved = rng.randint(1, tries) if rng.random() < 0.8 else None
            records[kind][name] = Result(kind, name, solved is not None, tries, "a", solved)
    for kind, p_right in (("inventory-pre", 0.5), ("inventory-post", 0.67)):
        for name in items():
            right = rng.random() < p_right
            records[kind][name] = Result(kind, name, right, 1, "b", 1 if right else None)
    return Progress(records)


def write_class(folder: Path, n: int) -> Path:
    """``n`` made-up learners' files under ``folder/submitted``; returns that folder."""
    rng = random.Random(n)
    submitted = folder / "submitted"
    for k in range(n):
        learner = f"learner{k:04d}"
        place = submitted / learner / "attention"
        place.mkdir(parents=True)
        (place / f"progress-{learner}.json").write_text(progress_json(made_up_learner(rng), learner=learner))
    return submitted


def run(submitted: Path, out: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        status = class_report([str(submitted), "--out", str(out)])
    if status != 0:
        raise SystemExit(f"the class report failed with status {status}")


def main() -> None:
    print("learners   seconds   peak MB   peak KB per learner")
    for n in SIZES:
        with tempfile.TemporaryDirectory(prefix="class-report-bench-") as tmp:
            submitted = write_class(Path(tmp), n)
            start = time.perf_counter()
            run(submitted, Path(tmp) / "report")
            seconds = time.perf_counter() - start
            tracemalloc.start()
            run(submitted, Path(tmp) / "report-again")
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            size_kb = (Path(tmp) / "report" / "class_report.csv").stat().st_size / 1e3
        verdict = f"  (goal: under {GOAL_S:.0f} s: {'met' if seconds < GOAL_S else 'NOT met'})" if n == 300 else ""
        print(f"{n:8d} {seconds:9.2f} {peak / 1e6:9.1f} {peak / 1e3 / n:12.1f}   csv {size_kb:,.0f} KB{verdict}")


if __name__ == "__main__":
    main()
