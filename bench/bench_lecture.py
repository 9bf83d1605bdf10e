"""How long a presenter waits for a lecture page: from the page request to the first live widget, and to every widget.

The lecture mode (``make present`` on the notebooks folder, as the browser tests start it: isolated folders, a copy of
the notebooks) serves each notebook from a pre-heated kernel that has already run it. Each notebook below is opened
twice in one headless Chromium profile at 1920 × 1080 (its cache holds Voila's scripts after the first page,
as a presenter's browser does), the second time once its pool has a kernel again (the presenter switching
back to it later). Printed per load:

* ``cells``: until Voila shows the rendered cells;
* ``first widget``: until the first widget is drawn live (a ``.jupyter-widgets`` element);
* ``all widgets``: until no output says "Loading widget..." any more.

Goal: the second load's first widget within 2 s. The machine's load average is printed with the figures: on a busy
machine every figure grows.

Run: .venv/bin/python bench/bench_lecture.py [NN_name.ipynb ...]   (needs Chromium: apt-get install chromium)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from browser.jupyter_servers import (  # noqa: E402  (the tests' own set-up, found through sys.path)
    CHROMIUM_FLAGS,
    find_chromium,
    make_jupyter_home,
    start_voila,
    stop_process,
)

NOTEBOOKS = ["02_projections.ipynb", "07_patterns.ipynb", "09_practice.ipynb", "12_real_model.ipynb"]
# Voila refills a notebook's pool 10 s after a page takes its kernel (scripts/present.py), then runs the notebook.
REFILLED_S = 45.0
JS_CELLS = """() => { const r = document.querySelector('#rendered_cells');
  return r !== null && r.style.display !== 'none'; }"""
JS_FIRST_WIDGET = "() => document.querySelector('.jp-OutputArea-output .jupyter-widgets') !== null"
JS_ALL_WIDGETS = """() => document.querySelector('.jupyter-widgets') !== null &&
  ![...document.querySelectorAll('.jp-OutputArea-output')].some(n => n.textContent.includes('Loading widget...'))"""


def load_page(context, url: str) -> dict[str, float]:
    """Open ``url`` in a new page of ``context``; seconds from the request to each stage."""
    page = context.new_page()
    page.set_default_timeout(180_000)
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    times = {}
    for name, js in (("cells", JS_CELLS), ("first widget", JS_FIRST_WIDGET), ("all widgets", JS_ALL_WIDGETS)):
        page.wait_for_function(js, polling=50)
        times[name] = time.perf_counter() - start
    page.close()
    return times


def main(names: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no Chromium found: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        home = make_jupyter_home(Path(tmp))
        proc, url = start_voila(home, "notebooks", fill_delay=None)  # refills as in make present
        try:
            # start_voila has waited for every notebook's pool to be filled; the machine still settles after running
            # them all (a page opened at once took 12 s instead of 2), and a presenter starts a minute before class.
            time.sleep(REFILLED_S)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
                # One browser profile for the whole lecture, as a presenter's: Voila's scripts and styles come from
                # its cache after the first page.
                context = browser.new_context(viewport={"width": 1920, "height": 1080})
                for name in names:
                    for load in ("first load", "second load"):
                        t = load_page(context, f"{url}voila/render/{name}")
                        figures = "  ".join(f"{k} {v:5.1f} s" for k, v in t.items())
                        print(f"{name:24s} {load:11s}  {figures}  (load average {os.getloadavg()[0]:.1f})",
                              flush=True)
                        time.sleep(REFILLED_S)
                browser.close()
        finally:
            stop_process(proc)


if __name__ == "__main__":
    main(sys.argv[1:] or NOTEBOOKS)
