"""Shared test helpers: run a notebook's code in this process, walk the widgets it built, read them as text.

Everything here goes through public behaviour only (widget traits such as ``value``, ``children`` and
``description``), so it keeps working when the widget classes are rewritten behind the same API.

* :func:`run_notebook` executes a notebook's code cells here, with the notebooks folder as working directory
  and matplotlib's Agg backend, and returns the namespace and the value each cell displayed.
* :func:`widget_roots`, :func:`walk` and :func:`text_fields` find the widgets a run built and, in each, the
  fields a learner can type into.
* :func:`html_text` reads an HTML widget (or an HTML string) as the words a learner sees.
* The ``notebook_run`` fixture runs one notebook once per test session (indirect parametrization by path).
* Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``), :func:`pytest_collection_modifyitems` gives the
  tests that share costly state one ``xdist_group`` (each notebook's nbval cells; each test module; the JupyterLab
  tests) and puts the longest groups first.
* Hypothesis runs with the profile ``course`` (``make test``) or, with ``HYPOTHESIS_PROFILE=ci``, ``ci`` (more
  examples: ``make test-properties``).
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import html
import io
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import settings

from course.plan import course_notebooks

# Nobody watches a test run: widgets that animate while a cell runs (a training monitor) show each frame at once,
# here, in the kernels nbval starts and in the servers of the browser tests (they inherit this process's environment).
os.environ.setdefault("COURSE_ANIMATION", "off")
# The learner's progress (helpers.exercises.progress) goes to a file of this test run, never to the user's: the tests,
# the kernels nbval starts and the browser tests' servers (they inherit this environment) all record there.
_PROGRESS_DIR = tempfile.mkdtemp(prefix="course-progress-")
atexit.register(shutil.rmtree, _PROGRESS_DIR, ignore_errors=True)
os.environ["COURSE_PROGRESS"] = os.path.join(_PROGRESS_DIR, "progress.json")
_progress_files = iter(range(1, 10**9))


@pytest.fixture(autouse=True)
def progress_of_its_own(monkeypatch):
    """Each test records into a progress file of its own (in this run's folder, made when first written): what one
    test records is not in another's counts, nor in the notebooks that nbval runs (09 shows the questions solved)."""
    monkeypatch.setenv("COURSE_PROGRESS", os.path.join(_PROGRESS_DIR, f"course-progress-{next(_progress_files)}",
                                                       "progress.json"))

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
# The course's notebooks in order, from course.toml: every test that walks the notebooks uses this list.
NOTEBOOKS = course_notebooks(NOTEBOOK_DIR)



# -- Hypothesis: one profile for make test, a longer one for make test-properties (tests that set max_examples keep
# theirs)

# make test tries 30 examples of each property (each 30 more cost it about three seconds); make test-properties, which
# CI runs after it, tries 120 (HYPOTHESIS_PROFILE=ci).
settings.register_profile("course", max_examples=30, deadline=None)
settings.register_profile("ci", max_examples=120, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or "course")


# -- spreading the tests over pytest-xdist workers

# ``make test`` runs ``pytest -n 2 --dist loadgroup --no-loadscope-reorder``: pytest-xdist sends the tests that carry
# one ``xdist_group`` marker to one worker. The groups (marked here, from each test's id): each test module (its
# module fixtures are made once), each notebook's nbval cells (they run in order in one kernel), each notebook's tests
# that run it in this process (the notebook runs once per worker, so all of them on one), and in ``make
# test-browser`` the JupyterLab tests (one server, one page, one Run All per notebook), the lecture-mode tests
# (their own server) and the site's (its own build and server). The groups that take longest go first, so that the
# short ones fill in the end of the run on whichever worker is free.
JUPYTERLAB_GROUP = "tests/browser (JupyterLab)"
# The lecture mode (Voila) tests: their own server, their own group.
LECTURE_GROUP = "tests/browser (lecture mode)"
LECTURE_FILES = ("tests/browser/test_present.py", "tests/browser/test_lecture.py")
# The static site (make site): its own build, server and page, so its own group; the shortest of the three, it runs on
# whichever worker is free first.
SITE_GROUP = "tests/browser (site)"
SITE_FILES = ("tests/browser/test_site.py",)
# The modules whose tests run a notebook in this process (``notebook_runner``), parametrized by the notebook.
IN_PROCESS_FILES = ("tests/test_sweep.py", "tests/test_notebook_files.py")
IN_PROCESS_PREFIX = "notebook run in this process: "
LONGEST_FIRST = (JUPYTERLAB_GROUP, LECTURE_GROUP, SITE_GROUP)


def xdist_group(nodeid: str) -> str:
    """The pytest-xdist group of the test ``nodeid``: its file, except that a test that runs a notebook in this
    process joins that notebook's group, every browser test file but the lecture mode's and the site's shares the
    JupyterLab group, and the lecture mode's files share one."""
    path = nodeid.split("::", 1)[0]
    notebook = re.search(r"\[(\d\d_\w+)\]$", nodeid)
    if path in IN_PROCESS_FILES and notebook:
        return IN_PROCESS_PREFIX + notebook[1]
    if path in LECTURE_FILES:
        return LECTURE_GROUP
    if path in SITE_FILES:
        return SITE_GROUP
    if path.startswith("tests/browser/"):
        return JUPYTERLAB_GROUP
    return path


def group_rank(group: str) -> tuple[int, int]:
    """Where a group goes in the queue: the browser groups first, then the notebooks run in this process, the
    longest (the highest-numbered: the going-further notebooks compute most) first, then the rest in file order."""
    if group in LONGEST_FIRST:
        return (LONGEST_FIRST.index(group), 0)
    if group.startswith(IN_PROCESS_PREFIX):
        return (len(LONGEST_FIRST), -int(group.removeprefix(IN_PROCESS_PREFIX)[:2]))
    return (len(LONGEST_FIRST) + 1, 0)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the markers
def pytest_collection_modifyitems(config, items):
    """Leave out the tests marked ``slow`` unless ``RUN_SLOW=1`` (``make test-binder``, which CI runs after ``make
    test``); mark each test with its :func:`xdist_group`; in a pytest-xdist worker, order the groups by
    :func:`group_rank` (the scheduler hands groups out in the order of the collection); elsewhere keep pytest's
    order."""
    if os.environ.get("RUN_SLOW") != "1":
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
    if config.pluginmanager.hasplugin("xdist"):  # the marker is pytest-xdist's (not there with -p no:xdist)
        for item in items:
            item.add_marker(pytest.mark.xdist_group(xdist_group(item.nodeid)))
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: group_rank(xdist_group(item.nodeid)))  # stable: the rest keep their order

# -- running a notebook in this process


@dataclass
class NotebookRun:
    """What executing a notebook's code cells left behind.

    Attributes
    ----------
    path : Path
        The notebook.
    namespace : dict
        The global names after the last cell (as in the kernel after "Run all").
    displayed : list
        The value of each cell whose last statement is an expression (what Jupyter would display), in order;
        ``None`` values left out.
    """

    path: Path
    namespace: dict = field(default_factory=dict)
    displayed: list = field(default_factory=list)


def code_cells(path: Path) -> list[str]:
    """The source of every code cell of the notebook at ``path``, in order (empty cells left out)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def without_magics(source: str) -> str:
    """``source`` without IPython's line magics and shell escapes (``%matplotlib inline``, ``!pip ...``).

    A cell magic (``%%...`` on the first line) makes the whole cell IPython-only: it becomes ''.
    """
    if source.lstrip().startswith("%%"):
        return ""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def run_cell(source: str, namespace: dict):
    """Execute one cell's Python in ``namespace``; returns the value of a final expression, as Jupyter shows it."""
    tree = ast.parse(without_magics(source))
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), namespace)
    if last is not None:
        return eval(compile(last, "<cell>", "eval"), namespace)
    return None


def run_notebook(path: Path) -> NotebookRun:
    """Execute every code cell of ``path`` in this process, top to bottom, as "Run all" would.

    The working directory is the notebook's folder while the cells run; matplotlib draws with Agg; what the
    cells print is swallowed. What a cell shows with ``display(...)`` counts as displayed, as a final expression
    does, unless a block that holds what it shows has taken the output over (a result folded until its prediction,
    :mod:`helpers.widgets.reveal`: the fold is what the cell shows). An exception in a cell propagates (the stored
    notebooks run cleanly). The checks of earlier runs in this process are forgotten first
    (:func:`helpers.exercises.reset_attempts`), as a new kernel starts without them: a Find the bug cell shows its
    first stage, as in the stored notebook.
    """
    from unittest import mock

    import matplotlib
    import numpy as np

    from helpers.exercises import reset_attempts

    matplotlib.use("Agg")
    reset_attempts()
    run = NotebookRun(path=path, namespace={"__name__": "__main__"})
    cwd, print_options = os.getcwd(), np.get_printoptions()
    printed = io.StringIO()

    def display(*objs, **_kwargs):
        if sys.stdout is printed:  # else a block that holds its output runs, and what it shows is its own
            run.displayed.extend(objs)

    os.chdir(path.parent)
    try:
        with contextlib.redirect_stdout(printed), mock.patch("IPython.display.display", display):
            for source in code_cells(path):
                value = run_cell(source, run.namespace)
                if value is not None:
                    run.displayed.append(value)
    finally:
        # Notebooks set numpy's print options; other tests compare printed arrays.
        os.chdir(cwd)
        np.set_printoptions(**print_options)
    return run


_runs: dict[Path, NotebookRun] = {}


@pytest.fixture(scope="session")
def notebook_runner():
    """A function ``path -> NotebookRun`` that runs each notebook at most once per test session."""

    def get(path: Path) -> NotebookRun:
        path = Path(path).resolve()
        if path not in _runs:
            _runs[path] = run_notebook(path)
        return _runs[path]

    return get


@pytest.fixture
def notebook_run(request, notebook_runner) -> NotebookRun:
    """The run of the notebook given by indirect parametrization: ``@pytest.mark.parametrize("notebook_run",
    NOTEBOOKS, indirect=True)``."""
    return notebook_runner(request.param)


# -- walking widgets


def widget_roots(run: NotebookRun) -> list:
    """The ipywidgets a notebook run put on screen or kept in a name, each once, displayed ones first."""
    import ipywidgets as widgets

    roots, seen = [], set()
    for value in list(run.displayed) + list(run.namespace.values()):
        if isinstance(value, widgets.Widget) and id(value) not in seen:
            seen.add(id(value))
            roots.append(value)
    return roots


def walk(root):
    """``root`` and every widget below it through ``children``, depth first, in screen order, each once."""
    import ipywidgets as widgets

    seen, stack = set(), [root]
    while stack:
        w = stack.pop()
        if not isinstance(w, widgets.Widget) or id(w) in seen:
            continue
        seen.add(id(w))
        yield w
        stack.extend(reversed(tuple(getattr(w, "children", ()) or ())))


def text_fields(root) -> list:
    """Every widget below ``root`` a learner can type into: Text, Textarea and the numeric text boxes.

    Password and Combobox are Text subclasses and included; sliders and dropdowns are not text fields.
    """
    import ipywidgets as widgets

    kinds = (widgets.Text, widgets.Textarea, widgets.IntText, widgets.FloatText,
             widgets.BoundedIntText, widgets.BoundedFloatText)
    return [w for w in walk(root) if isinstance(w, kinds) and not getattr(w, "disabled", False)]


def is_numeric_box(w) -> bool:
    """True for IntText, FloatText and their bounded forms: the browser sends them numbers, never text."""
    import ipywidgets as widgets

    return isinstance(w, (widgets.IntText, widgets.FloatText, widgets.BoundedIntText, widgets.BoundedFloatText))


_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"


def field_name(w) -> str:
    """A short name for a field in a report: its description, else its tooltip or placeholder, else ''.

    Zero-width descriptions (used to keep grid cells aligned) count as no description.
    """
    for name in (getattr(w, "description", ""), getattr(w, "tooltip", ""), getattr(w, "placeholder", "")):
        name = (name or "").strip().strip(_INVISIBLE).strip()
        if name:
            return name
    return ""


# -- reading what a learner sees

_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


def html_text(widget_or_html) -> str:
    """The words an HTML widget (or an HTML string) shows: tags removed, entities decoded, spaces collapsed."""
    text = widget_or_html if isinstance(widget_or_html, str) else getattr(widget_or_html, "value", "")
    text = _TAG.sub(" ", str(text))
    return _SPACE.sub(" ", html.unescape(text)).strip()


def as_shown(text) -> str:
    """The words a widget shows for a plain ``text`` with math in it ("W^Q" typeset as W<sup>Q</sup>:
    :mod:`helpers.look.mathtext`), as :func:`html_text` reads them ("W Q")."""
    from helpers.look.mathtext import math_html

    return html_text(math_html(text))


# How visible_state reads each widget class: (what it shows: "value", "image", "output" or None, has children).
# Worked out once per class: the sweep reads every widget of a view thousands of times.
_SHOWN_AS: dict[type, tuple[str | None, bool]] = {}


def _shown_as(cls: type) -> tuple[str | None, bool]:
    entry = _SHOWN_AS.get(cls)
    if entry is None:
        import ipywidgets as widgets

        shown = (widgets.HTML, widgets.HTMLMath, widgets.Label, widgets.Text, widgets.Textarea,
                 widgets.IntText, widgets.FloatText, widgets.BoundedIntText, widgets.BoundedFloatText)
        read = ("value" if issubclass(cls, shown) else "image" if issubclass(cls, widgets.Image)
                else "output" if issubclass(cls, widgets.Output) else None)
        entry = _SHOWN_AS[cls] = (read, hasattr(cls, "children"))
    return entry


def visible_state(root) -> list[tuple[tuple, str, object]]:
    """What ``root`` shows, as comparable data: every HTML, HTMLMath, Label, text field, Image and Output below it.

    Returns
    -------
    list of (path, class name, value) in screen order; ``path`` is the tuple of child indices from ``root``.
    """
    state, stack = [], [((), root)]
    while stack:
        path, w = stack.pop()
        read, has_children = _shown_as(type(w))
        if read == "value":
            state.append((path, type(w).__name__, w.value))
        elif read == "image":
            state.append((path, "Image", bytes(w.value)))
        elif read == "output":
            state.append((path, "Output", repr(w.outputs)))
        children = w.children if has_children else None
        if children:
            stack.extend((path + (k,), children[k]) for k in range(len(children) - 1, -1, -1))
    return state
