"""Starting JupyterLab and Voila for the browser tests and the browser benchmark, and driving JupyterLab's page.

Plain functions and classes (no pytest here), so that the benchmarks (bench/bench_browser.py, bench/bench_lecture.py)
use the very same set-up as the browser tests (tests/browser/).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from course.plan import ROOT as REPO, course_notebooks

# Another folder of course notebooks can be tested in place of notebooks/ (e.g. a draft): set COURSE_NOTEBOOKS.
NOTEBOOKS = Path(os.environ.get("COURSE_NOTEBOOKS", REPO / "notebooks")).resolve()
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# How long a browser test waits for a state (a server answering, a page drawn, a kernel idle, a view updated) before
# it fails. Every wait is for a state, never for a fixed time; this is only the limit, set for a busy machine (a
# `make test` running beside the browser tests, two cores): a healthy page is there in seconds.
PATIENCE = float(os.environ.get("COURSE_PATIENCE", "180"))
PATIENCE_MS = PATIENCE * 1000
# The lecture pages are looked at on a projector of this size (a test may make one smaller for a while).
LECTURE_VIEWPORT = {"width": 1920, "height": 1080}


def stored_widget_outputs(path) -> int:
    """How many widgets the committed notebook shows: it stores no widget views (their ids are random), only each
    widget's text form, which says to run the cell (``helpers.widgets.live.RUN_TO_SHOW``)."""
    from helpers.widgets.live import RUN_TO_SHOW

    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return sum(1 for cell in nb["cells"] for out in cell.get("outputs", ())
               if RUN_TO_SHOW in "".join(out.get("data", {}).get("text/plain", "")))
NO_CHROMIUM = (
    "Chromium not found, so the browser tests cannot run: apt-get install chromium "
    "(or .venv/bin/playwright install chromium)"
)


class ServerError(RuntimeError):
    """A server did not start; the message holds the end of its log."""


def notebook_paths() -> list[Path]:
    """The course notebooks present in the folder under test, in course order."""
    return [path for path in course_notebooks(NOTEBOOKS) if path.exists()]


# --------------------------------------------------------------------------------------------------- Chromium


def find_chromium() -> str | None:
    """Debian's Chromium if present, else the one ``playwright install chromium`` put in its cache, else None."""
    if DEBIAN_CHROMIUM.exists():
        return str(DEBIAN_CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            path = p.chromium.executable_path
        return path if path and Path(path).exists() else None
    except Exception:  # playwright without its driver or browser: treated as "no Chromium"
        return None


# ------------------------------------------------------------------------------------------------ processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a process we started: SIGTERM (Jupyter servers and Voila then shut their kernels down), SIGKILL if it
    still runs after ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


_stopping: list[subprocess.Popen] = []


def stop_process_soon(proc: subprocess.Popen) -> None:
    """Ask a process we started to stop (SIGTERM) and return at once: a server shutting its kernels down takes a
    second or more, and the tests can go on meanwhile. :func:`wait_stopped` waits for it."""
    if proc.poll() is None:
        proc.terminate()
        _stopping.append(proc)


def wait_stopped(timeout: float = 10.0) -> None:
    """Wait for every process handed to :func:`stop_process_soon` to end (SIGKILL after ``timeout`` seconds)."""
    while _stopping:
        stop_process(_stopping.pop(), timeout)


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_for_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = PATIENCE, headers=None) -> None:
    """Poll ``url`` until it answers 200; raise ServerError with the log if the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers=headers or {})
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(f"server exited with code {proc.returncode}:\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise ServerError(f"server did not answer {url} within {timeout:.0f} s:\n{log_tail(log)}")


@dataclass
class JupyterHome:
    """Isolated Jupyter folders plus a copy of the course notebooks."""

    root: Path  # the servers' root folder: holds notebooks/ (a copy)
    env: dict = field(default_factory=dict)


def make_jupyter_home(base: Path) -> JupyterHome:
    """Fresh Jupyter config, data, runtime, settings and workspace folders under ``base``, and a copy of notebooks/
    (so running cells never touches the committed notebooks)."""
    root = base / "root"
    root.mkdir(parents=True)
    shutil.copytree(NOTEBOOKS, root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    dirs = {name: base / name for name in ("config", "data", "runtime", "settings", "workspaces")}
    for d in dirs.values():
        d.mkdir()
    # Settings as a learner would set them, written where JupyterLab keeps user settings.
    user_settings = {
        # No announcements fetched from the network, and no "news?" pop-up over the notebook.
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
        # Every cell in the DOM: with windowing, cells outside the viewport (and their widgets) are not rendered.
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for rel, value in user_settings.items():
        target = dirs["settings"] / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value))
    (dirs["config"] / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "LabApp": {
                    "news_url": None,
                    "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
                    "extension_manager": "readonly",
                    "expose_app_in_browser": True,
                },
                "ServerApp": {"open_browser": False, "port_retries": 0},
            }
        )
    )
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        # The user data folder moves to the temporary one; the venv's share/jupyter (sys.prefix), where the
        # jupyterlab_widgets and voila labextensions and the python3 kernel spec live, stays on the path.
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        PYTHONDONTWRITEBYTECODE="1",
    )
    for var in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTER_PREFER_ENV_PATH"):
        env.pop(var, None)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return JupyterHome(root=root, env=env)


@dataclass
class Server:
    url: str  # base URL with trailing slash
    token: str
    proc: subprocess.Popen
    log: Path

    def api(self, method: str, path: str):
        request = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def stop(self, wait: bool = True) -> None:
        """Stop the server; with ``wait=False`` return at once (see :func:`stop_process_soon`)."""
        # On SIGTERM the server shuts every kernel down, all at once; asking it to shut them down one by one first
        # took a second or two per handful of kernels.
        if wait:
            stop_process(self.proc)
        else:
            stop_process_soon(self.proc)


def start_lab(home: JupyterHome) -> Server:
    """JupyterLab from the course's Python on a free loopback port, with a token; returns once it answers."""
    port = free_port()
    token = secrets.token_hex(16)
    log = home.root.parent / "lab.log"
    cmd = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={home.root}",
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers and CI runners often run as root
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=home.env, cwd=home.root, stdout=out, stderr=subprocess.STDOUT)
    server = Server(url=f"http://127.0.0.1:{port}/", token=token, proc=proc, log=log)
    try:
        wait_for_http(server.url + "api/status", proc, log, headers={"Authorization": f"token {token}"})
    except BaseException:
        server.stop()
        raise
    return server


# The tests open each notebook's page once. make present refills a notebook's kernel pool 10 s after a page takes its
# kernel (for a reload), by running the notebook again inside Voila's own process; with the tests opening a page every
# few seconds, that run kept Voila busy while the next page asked its kernel for its widgets, and on a 2-core machine
# the answer sometimes came after ipywidgets' 4 s: "Error displaying widget: model not found". In the tests the refill
# comes after an hour, so it never overlaps a page's load (bench/bench_lecture.py measures the refilled, second load).
TEST_FILL_DELAY_S = 3600


def voila_command(target: Path, port: int, fill_delay: float | None = TEST_FILL_DELAY_S) -> list[str]:
    """The lecture mode (``make present``, :mod:`course.present`) for a notebook or a folder of notebooks, on ``port``,
    no browser opened; a notebook's kernel pool refilled ``fill_delay`` seconds after a page takes its kernel (None:
    as ``make present`` does)."""
    refill = [] if fill_delay is None else [f"--VoilaKernelManager.fill_delay={fill_delay}"]
    return [
        sys.executable, "-m", "course.present", str(target),
        f"--port={port}", "--Voila.port_retries=0", "--no-browser", "--Voila.ip=127.0.0.1", *refill,
    ]  # fmt: skip


def start_voila(home: JupyterHome, target_rel: str, fill_delay: float | None = TEST_FILL_DELAY_S
                ) -> tuple[subprocess.Popen, str]:
    """The lecture mode on a notebook or folder of the copy; returns the process and the base URL once it answers
    (``fill_delay``: see :func:`voila_command`).

    For a folder, notebook ``name`` is at ``<base URL>voila/render/<name>``."""
    port = free_port()
    log = home.root.parent / f"voila-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            voila_command(home.root / target_rel, port, fill_delay),
            env=home.env, cwd=home.root, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    target = home.root / target_rel
    notebooks = sorted(target.glob("*.ipynb")) if target.is_dir() else [target]
    try:
        # A static file: asking for a notebook would start a kernel just to see whether the server is up.
        wait_for_http(f"http://127.0.0.1:{port}/voila/static/voila.js", proc, log)
        wait_for_kernel_pools(log, proc, len(notebooks))
    except BaseException:
        stop_process(proc)
        raise
    return proc, f"http://127.0.0.1:{port}/"


def wait_for_kernel_pools(log: Path, proc: subprocess.Popen, count: int, timeout: float = PATIENCE) -> None:
    """Wait until Voila has run each of ``count`` notebooks in its pre-heated kernel (its log says "Kernel pool of
    <notebook> is filled" once per notebook).

    At start every notebook runs at once. A page opened meanwhile asks its kernel for its widgets while the machine is
    busy with the others, and ipywidgets gives that request 4 s before the page draws "model not found"."""
    deadline = time.monotonic() + timeout
    while True:
        filled = log.read_text(encoding="utf-8", errors="replace").count("Kernel pool of ")
        if filled >= count:
            return
        if proc.poll() is not None:
            raise ServerError(f"Voila stopped (exit code {proc.returncode}); its log: {log}")
        if time.monotonic() > deadline:
            raise ServerError(f"Voila ran {filled} of {count} notebooks in its kernels within {timeout:.0f} s; "
                              f"its log: {log}")
        time.sleep(0.2)


# ------------------------------------------------------------------------------------------------ JupyterLab page


# JupyterLab's own objects, reached through window.jupyterapp (LabApp.expose_app_in_browser).
JS_OPEN = """
async (path) => {
  const app = window.jupyterapp;
  const widget = await app.commands.execute('docmanager:open',
      {path, factory: 'Notebook', kernel: {name: 'python3'}});
  app.shell.activateById(widget.id);
  await widget.context.ready;
  await widget.sessionContext.ready;
  return widget.id;
}
"""
JS_KERNEL_STATUS = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.status : 'none';
}
"""
JS_RUN_ALL = """
() => {
  window.__runAll = {done: false};
  window.jupyterapp.commands.execute('notebook:run-all-cells').then(
    (result) => { window.__runAll = {done: true, result: result === undefined ? null : result}; },
    (error) => { window.__runAll = {done: true, error: String(error)}; });
}
"""
JS_RUN_STATE = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  const pending = [];
  let failed = false;
  w.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const prompt = cell.node.querySelector('.jp-InputPrompt');
    if (cell.model.executionCount === null || (prompt && prompt.textContent.includes('*'))) pending.push(index);
    const outputs = cell.model.outputs;
    for (let k = 0; k < outputs.length; k++) if (outputs.get(k).type === 'error') failed = true;
  });
  const idle = !!k && k.status === 'idle';
  // Done: the kernel is idle after Run All, and every code cell has run, or one failed (Run All stops there).
  const done = window.__runAll.done && idle && (pending.length === 0 || failed);
  return {done, kernel: k ? k.status : 'none', runAll: window.__runAll, pending, failed};
}
"""
JS_OUTPUT_PROBLEMS = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  const problems = [];
  w.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    for (const out of cell.model.outputs.toJSON()) {
      if (out.output_type === 'error') {
        problems.push(`cell ${index}: ${out.ename}: ${out.evalue}`);
      } else if (out.output_type === 'stream' && out.name === 'stderr' && /Traceback|Error/.test(out.text)) {
        problems.push(`cell ${index} stderr: ${String(out.text).slice(0, 400)}`);
      }
    }
    for (const node of cell.node.querySelectorAll(
        '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]')) {
      if (/Traceback|Error/.test(node.textContent)) {
        problems.push(`cell ${index} shows: ${node.textContent.slice(0, 400)}`);
      }
    }
  });
  return problems;
}
"""
JS_WIDGET_REPORT = """
(mime) => {
  // Pair each widget output in the model with its node in the page (the output area's children are in
  // model order); a widget's node carries no mime type of its own.
  const w = window.jupyterapp.shell.currentWidget;
  let expected = 0, outputs = 0, rendered = 0;
  const broken = [];
  w.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const models = cell.model.outputs.toJSON();
    const children = cell.outputArea ? [...cell.outputArea.node.children] : [];
    models.forEach((out, k) => {
      if (!(out.data && out.data[mime])) return;
      expected += 1;
      const node = children[k] && children[k].querySelector('.jp-OutputArea-output');
      if (!node) return;
      outputs += 1;
      const text = node.textContent;
      if (text.includes('Error displaying widget') || text.includes('Loading widget...')) {
        broken.push(`cell ${index}: ${text.slice(0, 200)}`);
      } else if (node.querySelector('.jupyter-widgets, [class*="widget-"]')) {
        rendered += 1;
      }
    });
  });
  return {expected, outputs, rendered, broken};
}
"""


JS_ACTIVATE = """
(path) => {
  const app = window.jupyterapp;
  for (const w of app.shell.widgets('main')) {
    if (w.context && w.context.path === path && !w.isDisposed) { app.shell.activateById(w.id); return true; }
  }
  return false;
}
"""
JS_CURRENT_PATH = """
() => { const w = window.jupyterapp.shell.currentWidget; return w && w.context ? w.context.path : null; }
"""


class Lab:
    """One JupyterLab page kept open for the whole session.

    A notebook is opened and run once (:meth:`run_notebook`) and then stays open, so that the tests of one notebook
    (does it run, do its widgets respond) share one Run All. With ``one_at_a_time`` (the browser tests, which run
    notebook by notebook) opening the next notebook closes the others first: a page holding every notebook's cells
    made each switch of notebook, resize and theme change re-lay out all of them.
    """

    def __init__(self, page, server: Server, one_at_a_time: bool = False):
        self.page = page
        self.server = server
        self.one_at_a_time = one_at_a_time
        self._ran: set[str] = set()

    def run_notebook(self, rel_path: str, timeout: float = PATIENCE) -> None:
        """Show ``rel_path`` run top to bottom: run it now, or bring it to the front if this session already did."""
        if rel_path in self._ran and self.page.evaluate(JS_ACTIVATE, rel_path):
            self.page.wait_for_function(f"() => ({JS_CURRENT_PATH})() === {json.dumps(rel_path)}")
            return
        if self.one_at_a_time:
            self.close_all()
        self._ran.discard(rel_path)
        self.open(rel_path)
        self.run_all(timeout)
        self._ran.add(rel_path)

    def close_current(self) -> None:
        """Close the notebook in front (shutting its kernel down), so the next test runs it afresh."""
        path = self.page.evaluate(JS_CURRENT_PATH)
        self._ran.discard(path)
        self.page.evaluate(
            """async () => {
              const w = window.jupyterapp.shell.currentWidget;
              if (!w) return;
              if (w.context) { w.context.model.dirty = false; }
              if (w.sessionContext) { try { await w.sessionContext.shutdown(); } catch (e) {} }
              w.dispose();
            }"""
        )

    def open(self, rel_path: str, timeout: float = PATIENCE) -> None:
        self.page.evaluate(JS_OPEN, rel_path)
        self.page.wait_for_function(
            f"() => ({JS_KERNEL_STATUS})() === 'idle'", timeout=timeout * 1000, polling=50
        )

    def run_all(self, timeout: float = PATIENCE) -> None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        self.page.evaluate(JS_RUN_ALL)
        deadline = time.monotonic() + timeout
        # Run All's promise settles when every cell has answered (or one failed); the page checks that cheaply, and
        # the full state (every cell run, kernel idle) is read once it has.
        try:
            self.page.wait_for_function("() => window.__runAll.done", timeout=timeout * 1000, polling=50)
        except PlaywrightTimeout:
            pass  # the state below says what is still running
        state = self.page.evaluate(JS_RUN_STATE)
        while not state["done"]:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"Run All not finished after {timeout:.0f} s: kernel {state['kernel']}, "
                    f"Run All {state['runAll']}, code cells not run: {state['pending']}"
                )
            time.sleep(0.05)
            state = self.page.evaluate(JS_RUN_STATE)
        error = state["runAll"].get("error")
        assert error is None, f"Run All failed: {error}"

    def wait_idle(self, timeout: float = PATIENCE) -> None:
        """Wait until the current notebook's kernel is idle. Called once the page shows the first effect of an action
        (so the kernel is known to have started on it): the kernel says "idle" after every update the action caused,
        on the same channel, so then the page has them all (a widget's parts update one message at a time)."""
        self.page.wait_for_function(f"() => ({JS_KERNEL_STATUS})() === 'idle'", timeout=timeout * 1000, polling=50)

    def output_problems(self) -> list[str]:
        return self.page.evaluate(JS_OUTPUT_PROBLEMS)

    def widget_report(self) -> dict:
        return self.page.evaluate(JS_WIDGET_REPORT, WIDGET_MIME)

    def wait_widgets_rendered(self, timeout: float = PATIENCE) -> dict:
        """Wait until every widget output of the current notebook shows a widget (not an error, not "Loading")."""
        deadline = time.monotonic() + timeout
        report = self.widget_report()
        while time.monotonic() < deadline:
            report = self.widget_report()
            if report["rendered"] == report["expected"] == report["outputs"] and not report["broken"]:
                return report
            time.sleep(0.1)
        return report

    @property
    def notebook(self):
        """Locator of the current notebook panel's content."""
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")

    def close_all(self) -> None:
        self._ran.clear()
        # Marked clean first so closing never asks "save your changes?"; the kernels are shut down explicitly.
        self.page.evaluate(
            """async () => {
              const app = window.jupyterapp;
              const widgets = [...app.shell.widgets('main')];
              for (const w of widgets) {
                if (w.context) { w.context.model.dirty = false; }
                if (w.sessionContext) { try { await w.sessionContext.shutdown(); } catch (e) {} }
                w.dispose();
              }
            }"""
        )



def open_lab(browser, server: Server, viewport=(1400, 1000), one_at_a_time: bool = False) -> Lab:
    """A new page with JupyterLab loaded and restored (nothing open but the launcher); ``one_at_a_time``: see
    :class:`Lab`."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    page.goto(f"{server.url}lab?reset&token={server.token}")
    page.wait_for_function("() => window.jupyterapp !== undefined")
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    return Lab(page, server, one_at_a_time)
