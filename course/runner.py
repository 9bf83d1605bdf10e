"""Re-run notebooks fresh, top to bottom, and store them so that a re-run changes no byte.

Usage: ``python scripts/run_notebooks.py [notebooks/NN_name.ipynb ...]`` (default: all; ``python -m course.runner``
is the same), or ``python scripts/run_notebooks.py --to DIR notebooks/NN_name.ipynb`` to write the results into DIR
instead of in place.

What a run would otherwise change every time is left out of the stored file (:func:`reproducible`):

* the execution timestamps nbclient writes into each cell's metadata;
* how a cell's printed text happened to be cut into stream messages: consecutive pieces of one stream are joined;
* nothing else: but figures are stored as 256-colour PNGs (:func:`smaller_png`), which look the same and take a
  third of the room (nbval does not compare images; a re-run in JupyterLab draws them at full colour);
* the saved widget state (``metadata.widgets``) and the widget views in the outputs: their model ids are random,
  and the state is most of a notebook's size. JupyterLab then shows each widget's text form until its cell runs,
  and every course widget's text form says what it is and to run the cell (``helpers.widgets.live``).

Each notebook's kernel records the learner's progress (``helpers.exercises.progress``) in a fresh temporary file
(``COURSE_PROGRESS``), never in the user's: a run neither reads nor changes what the author has done as a learner.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course.plan import course_notebooks
from helpers.look import render

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "widgets"


def smaller_png(encoded: str) -> str:
    """A base64 PNG figure as a 256-colour PNG (:func:`helpers.look.render.smaller_png`), base64 again."""
    return base64.b64encode(render.smaller_png(base64.b64decode(encoded))).decode("ascii")


def reproducible(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` without what changes from run to run (timestamps, widget ids and state); changed in place."""
    nb.metadata.pop(WIDGET_STATE, None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.outputs:
            data = output.get("data")
            if data is not None and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
            if data is not None and "image/png" in data:
                data["image/png"] = smaller_png(data["image/png"])
            previous = outputs[-1] if outputs else None
            if (output.output_type == "stream" and previous is not None and previous.output_type == "stream"
                    and previous.name == output.name):
                previous.text += output.text  # the order of outputs stays as the learner sees it
            else:
                outputs.append(output)
        cell.outputs = outputs
    return nb


@contextmanager
def fresh_progress():
    """``COURSE_PROGRESS`` set to a new temporary file while the block runs (a kernel started in it inherits it)."""
    before = os.environ.get("COURSE_PROGRESS")
    with tempfile.TemporaryDirectory(prefix="course-progress-") as folder:
        os.environ["COURSE_PROGRESS"] = os.path.join(folder, "progress.json")
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("COURSE_PROGRESS", None)
            else:
                os.environ["COURSE_PROGRESS"] = before


def run(path: Path, target: Path) -> float:
    """Execute the notebook at ``path`` fresh and write the reproducible result to ``target``; returns seconds."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    # iopub_timeout: after a cell's reply, wait for the rest of its output until the kernel is idle (nbclient's 4 s
    # would drop the output of a cell that sends hundreds of widget messages on a busy machine), and never store a
    # notebook with an output left out.
    with fresh_progress():
        NotebookClient(nb, timeout=600, kernel_name="python3", iopub_timeout=120, raise_on_iopub_timeout=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(reproducible(nb), target)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook of course.toml")
    parser.add_argument("--to", type=Path, help="write the executed notebooks into this folder instead of in place")
    args = parser.parse_args(argv)
    if args.to:
        args.to.mkdir(parents=True, exist_ok=True)
    paths = args.notebooks or course_notebooks()
    for p in paths:
        target = args.to / p.name if args.to else p
        print(f"{p.name}: {run(p, target):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
