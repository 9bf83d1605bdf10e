"""Real-browser tests: the notebooks as a learner sees them in JupyterLab, and the lecture mode in Voila.

Run them alone with ``.venv/bin/python -m pytest tests/browser -q`` (``make test`` runs them too; ``make
test-fast`` leaves them out). They need Chromium: ``apt-get install chromium`` (Debian's /usr/bin/chromium) or a
Chromium installed by ``playwright install chromium``. Without one they are skipped with that advice, except under
``CI=true`` where a missing browser is a failure. A failing test leaves a screenshot in tests/browser-failures/.

One JupyterLab server and one headless Chromium serve the whole session. The server sees a copy of notebooks/
in a temporary folder, so running cells never touches the committed notebooks, and it runs with its own Jupyter
config, runtime, settings and workspace folders, so nothing the developer configured changes what is tested.
"""

from __future__ import annotations

import json
import os
import re
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

import pytest

REPO = Path(__file__).resolve().parents[2]
# Another folder of course notebooks can be tested in place of notebooks/ (e.g. a draft): set COURSE_NOTEBOOKS.
NOTEBOOKS = Path(os.environ.get("COURSE_NOTEBOOKS", REPO / "notebooks")).resolve()
FAILURES = REPO / "tests" / "browser-failures"
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
HERE = Path(__file__).resolve().parent
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: drives JupyterLab or Voila in headless Chromium (deselect with -m 'not browser')"
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # Keep each phase's report on the item so fixtures can tell, at teardown, whether the test failed.
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


def notebook_paths() -> list[Path]:
    """The course notebooks present right now, in course order."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def find_notebook(prefix: str) -> Path | None:
    """The notebook whose name starts with ``prefix`` (e.g. "02"), or None while it does not exist yet."""
    found = sorted(NOTEBOOKS.glob(f"{prefix}_*.ipynb"))
    return found[0] if found else None


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


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        message = (
            "Chromium not found, so the browser tests cannot run: apt-get install chromium "
            "(or .venv/bin/playwright install chromium)"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


# ------------------------------------------------------------------------------------------------ processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a process this session started: SIGTERM (Jupyter servers and Voila then shut their kernels down),
    SIGKILL if it still runs after ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_for_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 60.0, headers=None) -> None:
    """Poll ``url`` until it answers 200; fail with the server's log if the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers=headers or {})
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with code {proc.returncode}:\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    pytest.fail(f"server did not answer {url} within {timeout:.0f} s:\n{log_tail(log)}")


@dataclass
class JupyterHome:
    """Isolated Jupyter folders plus a copy of the course notebooks."""

    root: Path  # the server's root folder: holds notebooks/ (a copy)
    env: dict = field(default_factory=dict)


@pytest.fixture(scope="session")
def jupyter_home(tmp_path_factory) -> JupyterHome:
    base = tmp_path_factory.mktemp("jupyter")
    root = base / "root"
    root.mkdir()
    # Copy at session start: the notebooks the session tests are the ones on disk now.
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
        JUPYTER_PLATFORM_DIRS="1",
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

    def shutdown_kernels(self) -> None:
        for kernel in self.api("GET", "api/kernels") or []:
            try:
                self.api("DELETE", f"api/kernels/{kernel['id']}")
            except urllib.error.HTTPError:
                pass  # already gone


@pytest.fixture(scope="session")
def lab_server(jupyter_home, chromium_path):
    # chromium_path first: without a browser there is no point starting JupyterLab.
    port = free_port()
    token = secrets.token_hex(16)
    log = jupyter_home.root.parent / "lab.log"
    cmd = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={jupyter_home.root}",
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers and CI runners often run as root
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=jupyter_home.env, cwd=jupyter_home.root, stdout=out, stderr=subprocess.STDOUT)
    server = Server(url=f"http://127.0.0.1:{port}/", token=token, proc=proc, log=log)
    try:
        wait_for_http(server.url + "api/status", proc, log, headers={"Authorization": f"token {token}"})
        yield server
    finally:
        if proc.poll() is None:
            try:
                server.shutdown_kernels()
            except (urllib.error.URLError, OSError):
                pass
        stop_process(proc)


# ------------------------------------------------------------------------------------------------ pages


def screenshot_on_failure(request, page) -> None:
    """Keep a screenshot of ``page`` named after the test if it failed; drop an old one if it now passes."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")
    reports = [getattr(request.node, f"rep_{when}", None) for when in ("setup", "call")]
    if not any(r is not None and r.failed for r in reports):
        (FAILURES / f"{name}.png").unlink(missing_ok=True)
        return
    FAILURES.mkdir(parents=True, exist_ok=True)
    try:
        page.screenshot(path=str(FAILURES / f"{name}.png"), full_page=True)
    except Exception as exc:  # the page may be gone; the test's own failure is what matters
        print(f"no screenshot for {name}: {exc}")


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
JS_RUN_DONE = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!window.__runAll.done || !k || k.status !== 'idle') return false;
  // Every code cell has run: an execution count and no pending "[*]" prompt.
  for (const cell of w.content.widgets) {
    if (cell.model.type !== 'code') continue;
    if (cell.model.executionCount === null) return false;
    const prompt = cell.node.querySelector('.jp-InputPrompt');
    if (prompt && prompt.textContent.includes('*')) return false;
  }
  return true;
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


class Lab:
    """One JupyterLab page kept open for the whole session; tests open, run and close notebooks in it."""

    def __init__(self, page, server: Server):
        self.page = page
        self.server = server

    def open(self, rel_path: str, timeout: float = 30.0) -> None:
        self.page.evaluate(JS_OPEN, rel_path)
        self.page.wait_for_function(f"() => ({JS_KERNEL_STATUS})() === 'idle'", timeout=timeout * 1000)

    def run_all(self, timeout: float = 60.0) -> None:
        self.page.evaluate(JS_RUN_ALL)
        self.page.wait_for_function(JS_RUN_DONE, timeout=timeout * 1000, polling=100)
        error = self.page.evaluate("() => window.__runAll.error || null")
        assert error is None, f"run-all failed: {error}"

    def output_problems(self) -> list[str]:
        return self.page.evaluate(JS_OUTPUT_PROBLEMS)

    def widget_report(self) -> dict:
        return self.page.evaluate(JS_WIDGET_REPORT, WIDGET_MIME)

    def wait_widgets_rendered(self, timeout: float = 20.0) -> dict:
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


@pytest.fixture(scope="session")
def lab_page(browser, lab_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{lab_server.url}lab?reset&token={lab_server.token}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def lab(request, lab_page, lab_server):
    """JupyterLab with nothing open; whatever the test opens is closed (and its kernel shut down) afterwards."""
    session = Lab(lab_page, lab_server)
    session.close_all()
    yield session
    screenshot_on_failure(request, lab_page)
    session.close_all()


# ------------------------------------------------------------------------------------------------ Voila


def voila_command(notebook: Path, port: int) -> list[str]:
    """The lecture-mode command (``make present``) for one notebook, on a given port, without opening a browser."""
    return [
        sys.executable, str(REPO / "scripts" / "present.py"), str(notebook),
        f"--port={port}", "--no-browser", "--Voila.ip=127.0.0.1",
    ]  # fmt: skip


@pytest.fixture
def voila(request, jupyter_home, browser):
    """Start the lecture mode on a notebook (a copy) and open it in a fresh page: ``page = voila("02")``."""
    started: list[tuple[subprocess.Popen, object]] = []

    def start(notebook_rel: str):
        port = free_port()
        log = jupyter_home.root.parent / f"voila-{port}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                voila_command(jupyter_home.root / notebook_rel, port),
                env=jupyter_home.env, cwd=jupyter_home.root, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        started.append((proc, context))
        # A static file: asking for the page itself would start a kernel just to see whether the server is up.
        wait_for_http(f"http://127.0.0.1:{port}/voila/static/voila.js", proc, log)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"http://127.0.0.1:{port}/")
        return page

    yield start
    for proc, context in started:
        for page in context.pages:
            screenshot_on_failure(request, page)
        context.close()
        stop_process(proc)  # on SIGTERM Voila stops its loop and shuts its kernels down
