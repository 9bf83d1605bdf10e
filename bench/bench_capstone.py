"""Kernel time of the capstone notebook (NN_capstone in course.toml): as stored, and with its three Your turns solved.

Run: .venv/bin/python bench/bench_capstone.py   (or `make bench`)

Goal: under 5 s of kernel time each way. Each run starts a fresh kernel (as Run All after a restart does) and reads the
kernel's own CPU time (user + system, its start-up and imports included) in a last cell; the wall time of the cells
is measured around the execution. The solved run replaces each skeleton with its reference solution, so its checks
run the model with the learner's code in every layer and the last cell computes "bank" from it.
"""

from __future__ import annotations

import json
import time

import nbformat
from nbclient import NotebookClient

from course.plan import course_notebooks
from helpers.exercises.code_tasks import SKELETONS, solution_source

# Found by name, so a renumbering in course.toml does not leave the benchmark behind.
NOTEBOOK = next(path for path in course_notebooks() if path.stem.endswith("_capstone"))
GOAL = 5.0
KERNEL_TIME = """
import json, resource
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": usage.ru_utime + usage.ru_stime}))
"""


def solved(nb):
    """``nb`` with each Your turn's skeleton replaced by its task's reference solution (the same function name)."""
    for cell in nb.cells:
        if "your-turn" in cell.metadata.get("tags", []):
            task = cell.source.rsplit('check_code("', 1)[1].split('"', 1)[0]
            cell.source = cell.source.replace(SKELETONS[task].rstrip("\n"), solution_source(task).rstrip("\n"))
    return nb


def kernel_time(nb) -> tuple[float, float, list[str]]:
    """(the kernel's CPU seconds, the cells' wall seconds, the verdicts the checks printed) of one fresh run."""
    nb.cells.append(nbformat.v4.new_code_cell(KERNEL_TIME))
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
                   ).execute()
    wall = time.perf_counter() - start
    cpu = json.loads(nb.cells[-1].outputs[0]["text"])["cpu"]
    verdicts = ["".join(o["data"]["text/plain"]).split("\n")[0] for cell in nb.cells for o in cell.get("outputs", [])
                if o.get("output_type") == "execute_result" and "".join(o["data"]["text/plain"])[:1] in "✓✗…"]
    return cpu, wall, verdicts


def main() -> None:
    print(f"{NOTEBOOK.name}: a fresh kernel each run (goal: under {GOAL:g} s of kernel time)")
    for name, nb in (("as stored", nbformat.read(NOTEBOOK, as_version=4)),
                     ("solved", solved(nbformat.read(NOTEBOOK, as_version=4)))):
        cpu, wall, verdicts = kernel_time(nb)
        print(f"  {name:10s} kernel CPU {cpu:.2f} s (start-up included), cells {wall:.2f} s wall")
        for line in verdicts:
            print(f"      {line[:110]}")


if __name__ == "__main__":
    main()
