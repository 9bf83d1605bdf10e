"""How long a presenter waits for a lecture page: from the page request to the first live widget, and to every widget.

The lecture mode (``make present`` on the notebooks folder, as the browser tests start it: isolated folders, a copy of
the notebooks) serves each notebook from a pre-heated kernel that has already run it. Each notebook below is opened
twice in one headless Chromium profile at 1920 × 1080 (its cache holds the page's scripts, and from their third
run their compiled code, as a presenter's browser does; one page, not measured, is opened before the first), the second
time once its pool has a kernel again (the presenter switching back to it later). Printed per load:

* ``cells``: until the page shows the rendered cells;
* ``first widget``: until the first widget is drawn live (a ``.jupyter-widgets`` element);
* ``all widgets``: until no output says "Loading widget..." any more.

And where the time of a load goes, from the page's own timings and its kernel connection (``--why``):

* ``html``: until the page's HTML has arrived (Voila renders the notebook's outputs into it);
* ``scripts``: until the page's scripts have run (DOMContentLoaded);
* ``loaded``: until the load event;
* ``script``, ``start``, ``models`` and ``drawn``: the page's own marks (presentation/lecture-frontend): its script
  starts running; it has loaded and asks the kernel for the widgets' states; it has made every widget's model from
  them; it has drawn the first widget;
* ``socket``: until the kernel's websocket is open;
* ``states``: the span in which the kernel sent most (90 %) of what it sent (the widgets' states), and how much;
* ``blocked``: how long the page's main thread was busy in tasks of 50 ms or more before the first widget (its
  longest in brackets): a message from the kernel waits for the task in progress;
* ``math``: until the formulas of the prose are typeset (the lecture template does that once the widgets are live).

Goal: the second load's first widget within 1 s. The machine's load average is printed with the figures: on a busy
machine every figure grows.

The last notebook measured, ``one_slider.ipynb``, is not the course's: one markdown cell and one ``IntSlider``, put
in the copy of the notebooks by this script. It is what a lecture page needs on this machine with no course code, no
formulas and one widget model: Voila and the page's own front end (presentation/lecture-frontend). Measured on the
2-CPU machine the course is built on, second loads: that page 0.50-0.52 s; 02 0.73-0.80 s, 07 0.80-0.98 s, 09
0.83-0.91 s, 12 0.66-0.78 s. With Voila's own front end (a JupyterLab application, which the lecture page used before
it had its own) the one-slider page took 0.96-1.25 s and 02 1.22-1.64 s: the page's main thread was busy for all but
about 0.15 s of it, starting that application.

Run: .venv/bin/python bench/bench_lecture.py [--why] [NN_name.ipynb ...]   (needs Chromium: apt-get install chromium)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from course.browser import (
    CHROMIUM_FLAGS,
    find_chromium,
    make_jupyter_home,
    start_voila,
    stop_process,
)

NOTEBOOKS = ["02_projections.ipynb", "07_patterns.ipynb", "09_practice.ipynb", "12_real_model.ipynb"]
# A lecture page with no course code (see the docstring): written into the copy of the notebooks, measured last.
FLOOR_NOTEBOOK = "one_slider.ipynb"
# Voila refills a notebook's pool 10 s after a page takes its kernel (course/present.py), then runs the notebook.
REFILLED_S = 45.0
JS_CELLS = """() => { const r = document.querySelector('#rendered_cells');
  return r !== null && r.style.display !== 'none'; }"""
JS_FIRST_WIDGET = "() => document.querySelector('.jp-OutputArea-output .jupyter-widgets') !== null"
JS_ALL_WIDGETS = """() => document.querySelector('.jupyter-widgets') !== null &&
  ![...document.querySelectorAll('.jp-OutputArea-output')].some(n => n.textContent.includes('Loading widget...'))"""


JS_NAVIGATION = """() => { const n = performance.getEntriesByType('navigation')[0];
  return {html: n.responseEnd / 1000, scripts: n.domContentLoadedEventEnd / 1000, loaded: n.loadEventEnd / 1000}; }"""
# Every long task of the page (50 ms or more, the browser's own threshold), recorded from before its first script.
JS_RECORD_LONG_TASKS = """window.__longTasks = [];
new PerformanceObserver(list => list.getEntries().forEach(e => window.__longTasks.push([e.startTime, e.duration])))
  .observe({type: 'longtask', buffered: true});"""
# The long tasks that started before the page's first widget (``first``: seconds since the request): busy seconds and
# the longest.
JS_LONG_TASKS = """(first) => { const before = window.__longTasks.filter(([start]) => start / 1000 < first);
  return {blocked: before.reduce((sum, [, d]) => sum + d, 0) / 1000,
          longest: before.reduce((most, [, d]) => Math.max(most, d), 0) / 1000}; }"""
JS_MATH_TYPESET = "() => document.body.dataset.lectureMath === 'typeset'"
# The lecture page's own stages (performance marks of presentation/lecture-frontend), in seconds since the request.
PAGE_MARKS = {"lecture:script": "script", "lecture:start": "start", "lecture:states": "models",
              "lecture:first-widget": "drawn"}
JS_PAGE_MARKS = "() => Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime / 1000]))"


def load_page(context, url: str, why: bool = False) -> dict[str, float]:
    """Open ``url`` in a new page of ``context``; seconds from the request to each stage (``why``: and the stages of
    the module docstring's second list)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page = context.new_page()
    page.set_default_timeout(180_000)
    frames: list[tuple[float, int]] = []          # (seconds, bytes) of each message the kernel sent
    opened: list[float] = []
    start = time.perf_counter()

    def on_socket(ws):
        if "/channels" in ws.url:
            opened.append(time.perf_counter() - start)
            ws.on("framereceived", lambda payload: frames.append((time.perf_counter() - start, len(payload))))

    page.on("websocket", on_socket)
    if why:
        page.add_init_script(JS_RECORD_LONG_TASKS)
    page.goto(url, wait_until="commit")
    times = {}
    for name, js in (("cells", JS_CELLS), ("first widget", JS_FIRST_WIDGET), ("all widgets", JS_ALL_WIDGETS)):
        page.wait_for_function(js, polling=50)
        times[name] = time.perf_counter() - start
    if why:
        try:
            page.wait_for_function(JS_MATH_TYPESET, polling=50, timeout=30_000)
            math = time.perf_counter() - start
        except PlaywrightTimeoutError:  # a template that does not say so
            math = None
        # The navigation timings count from the request, as the figures above do (to within the goto's start).
        times.update(page.evaluate(JS_NAVIGATION))
        marks = page.evaluate(JS_PAGE_MARKS)
        times.update({label: marks[name] for name, label in PAGE_MARKS.items() if name in marks})
        if opened:
            times["socket"] = opened[0]
        total = sum(n for _, n in frames)
        if total:
            sent, first, last = 0, None, None
            for t, n in frames:
                sent += n
                first = t if first is None and sent >= 0.05 * total else first
                if last is None and sent >= 0.95 * total:
                    last = t
            times["states from"], times["states to"] = first, last
            times["kB"] = total / 1000
        long_tasks = page.evaluate(JS_LONG_TASKS, times["first widget"])
        times["blocked"], times["longest"] = long_tasks["blocked"], long_tasks["longest"]
        if math is not None:
            times["math"] = math
    page.close()
    return times


def write_floor_notebook(folder: Path) -> None:
    """One markdown cell and one slider, in ``folder`` as :data:`FLOOR_NOTEBOOK`."""
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# One slider\n\nThe lecture page and one widget, nothing of the course."),
        nbformat.v4.new_code_cell("import ipywidgets\n\nipywidgets.IntSlider(description='x')"),
    ])  # fmt: skip
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / FLOOR_NOTEBOOK)


def main(names: list[str], why: bool = False) -> None:
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no Chromium found: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        home = make_jupyter_home(Path(tmp))
        write_floor_notebook(home.root / "notebooks")
        proc, url = start_voila(home, "notebooks", fill_delay=None)  # refills as in make present
        try:
            # start_voila has waited for every notebook's pool to be filled; the machine still settles after running
            # them all (a page opened at once took 12 s instead of 2), and a presenter starts a minute before class.
            time.sleep(REFILLED_S)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
                # One browser profile for the whole lecture, as a presenter's: the page's scripts and styles come
                # from its cache after the first page.
                context = browser.new_context(viewport={"width": 1920, "height": 1080})
                # A page before the measured ones, not printed: a presenter's browser has shown a lecture page
                # before. Chromium keeps a script's compiled code from its second run and uses it from the third, so
                # without this the first notebook's second load would compile the page's script again and every later
                # one would not.
                load_page(context, f"{url}voila/render/{FLOOR_NOTEBOOK}")
                time.sleep(REFILLED_S)
                for name in [*names, FLOOR_NOTEBOOK]:
                    for load in ("first load", "second load"):
                        t = load_page(context, f"{url}voila/render/{name}", why)
                        figures = "  ".join(f"{k} {v:5.0f}" if k == "kB" else f"{k} {v:5.2f} s" for k, v in t.items())
                        print(f"{name:24s} {load:11s}  {figures}  (load average {os.getloadavg()[0]:.1f})",
                              flush=True)
                        time.sleep(REFILLED_S)
                browser.close()
        finally:
            stop_process(proc)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--why"]
    main(args or NOTEBOOKS, why="--why" in sys.argv[1:])
