"""Real-browser tests: the notebooks as a learner sees them in JupyterLab, the lecture mode in Voila, and the course's
static web site (test_site.py, which builds and serves it itself and uses only the browser from here).

``make test-browser`` runs them (``make test`` leaves them out; CI runs both). They need Chromium: ``apt-get install
chromium`` (Debian's /usr/bin/chromium) or a Chromium installed by ``playwright install chromium``. Without one they
are skipped with that advice, except under ``CI=true`` where a missing browser is a failure. A failing test leaves a
screenshot in tests/browser-failures/.

One JupyterLab server, one Voila server and one headless Chromium serve all the browser tests; they are made when the
first browser test starts and stopped as soon as the last one is done (package scope), not at the end of the whole
run. Each notebook is run once in JupyterLab and opened once in the lecture mode, and every test of that notebook
looks at the same page. The servers see a copy of notebooks/ in a temporary folder, so running cells never touches
the committed notebooks, and they run with their own Jupyter config, runtime, settings and workspace folders, so
nothing the developer configured changes what is tested.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from course.browser import (
    CHROMIUM_FLAGS,
    LECTURE_VIEWPORT,
    NO_CHROMIUM,
    PATIENCE_MS,
    REPO,
    ServerError,
    find_chromium,
    make_jupyter_home,
    open_lab,
    start_lab,
    start_voila,
    stop_process_soon,
    wait_stopped,
)

FAILURES = REPO / "tests" / "browser-failures"
HERE = Path(__file__).resolve().parent


def pytest_configure(config):
    from playwright.sync_api import expect

    # Playwright's assertions wait for a state up to 5 s by default: too little on a busy machine.
    expect.set_options(timeout=PATIENCE_MS)
    config.addinivalue_line(
        "markers", "browser: drives JupyterLab or Voila in headless Chromium (deselect with -m 'not browser')"
    )


def pytest_terminal_summary(terminalreporter):
    """Repeat at the end why the browser tests were skipped, if Chromium was missing: a skip is easy to miss in
    "-q" output. Read from the test reports, so it works under pytest-xdist too (the workers skip, this prints)."""
    if any(NO_CHROMIUM in str(report.longrepr) for report in terminalreporter.stats.get("skipped", [])):
        terminalreporter.write_sep("!", "browser tests SKIPPED", yellow=True, bold=True)
        terminalreporter.write_line(NO_CHROMIUM, yellow=True, bold=True)


def notebook_of(item) -> str:
    """The notebook a browser test looks at ("02" for 02_projections), from its ``path`` parameter; "" if none."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return Path(str(params.get("path", ""))).name[:2]


def pytest_collection_modifyitems(config, items):
    """Mark the browser tests, and run them notebook by notebook (in file order within a notebook): each notebook is
    run once in JupyterLab and once in the lecture mode, and the page then holds that notebook alone."""
    browser_tests = [k for k, item in enumerate(items) if HERE in Path(str(item.path)).resolve().parents]
    for k in browser_tests:
        items[k].add_marker(pytest.mark.browser)
    ordered = sorted((items[k] for k in browser_tests), key=notebook_of)  # stable: file order within a notebook
    for k, item in zip(browser_tests, ordered):
        items[k] = item


def pytest_sessionfinish(session):
    wait_stopped()  # the servers the browser tests stopped without waiting


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # Keep each phase's report on the item so fixtures can tell, at teardown, whether the test failed.
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


def test_failed(request) -> bool:
    reports = [getattr(request.node, f"rep_{when}", None) for when in ("setup", "call")]
    return any(r is not None and r.failed for r in reports)


def screenshot_on_failure(request, page) -> None:
    """Keep a screenshot of ``page`` named after the test if it failed; drop an old one if it now passes."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")
    if not test_failed(request):
        (FAILURES / f"{name}.png").unlink(missing_ok=True)
        return
    FAILURES.mkdir(parents=True, exist_ok=True)
    try:
        page.screenshot(path=str(FAILURES / f"{name}.png"), full_page=True)
    except Exception as exc:  # the page may be gone; the test's own failure is what matters
        print(f"no screenshot for {name}: {exc}")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(NO_CHROMIUM)
        pytest.skip(NO_CHROMIUM)  # tests/conftest.py repeats the reason at the end of the run
    return path


@pytest.fixture(scope="package")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Scrollbars shown, as a learner's browser shows them (headless Chromium hides them by default): a layout
        # test then sees the room they take.
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_FLAGS, headless=True,
                              ignore_default_args=["--hide-scrollbars"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="package")
def jupyter_home(tmp_path_factory):
    # Copied when the first browser test starts: the browser tests test the notebooks on disk then.
    return make_jupyter_home(tmp_path_factory.mktemp("jupyter"))


@pytest.fixture(scope="package")
def lab_server(jupyter_home, chromium_path):
    # chromium_path first: without a browser there is no point starting JupyterLab.
    try:
        server = start_lab(jupyter_home)
    except ServerError as err:
        pytest.fail(str(err))
    try:
        yield server
    finally:
        server.stop(wait=False)  # the tests go on while it shuts its kernels down


@pytest.fixture(scope="package")
def lab_page(browser, lab_server):
    """The session's JupyterLab page, at the smallest size the course supports (1024 × 768 with the file browser
    open), so that the tests of what a learner sees and the layout tests share one Run All per notebook."""
    lab = open_lab(browser, lab_server, viewport=(1024, 768), one_at_a_time=True)
    lab.page.evaluate("async () => { await window.jupyterapp.commands.execute('filebrowser:activate'); }")
    lab.page.locator(".jp-FileBrowser").first.wait_for(state="visible")
    try:
        yield lab
    finally:
        lab.page.context.close()


@pytest.fixture
def lab(request, lab_page):
    """The session's JupyterLab page. After a failure the notebook in front is closed (its kernel shut down), so
    that whatever state broke it does not carry over to the next test."""
    lab_page.page.set_viewport_size({"width": 1024, "height": 768})  # a test may have resized it
    yield lab_page
    screenshot_on_failure(request, lab_page.page)
    if test_failed(request):
        lab_page.close_current()


@pytest.fixture(scope="package")
def voila_server(jupyter_home, chromium_path):
    """The lecture mode serving the copy's notebooks/ folder: one server, a fresh kernel per page."""
    try:
        proc, url = start_voila(jupyter_home, "notebooks")
    except ServerError as err:
        pytest.fail(str(err))
    try:
        yield url
    finally:
        stop_process_soon(proc)  # on SIGTERM Voila stops its loop and shuts its kernels down, while the tests go on


class LecturePages(dict):
    """The lecture-mode pages open now, by notebook name, and (``opened``) every notebook a page was opened for."""

    def __init__(self):
        super().__init__()
        self.opened: set[str] = set()


@pytest.fixture(scope="package")
def voila_pages(browser, voila_server):
    """The lecture-mode page open now, by notebook name (the tests run notebook by notebook: each notebook is rendered
    and run once, and its page closed when the next notebook's opens)."""
    pages = LecturePages()
    yield pages
    for page in pages.values():
        page.context.close()  # the page's kernel lives on until the server stops


def open_lecture_page(browser, voila_server: str, name: str):
    """Notebook ``name`` in the lecture mode, in a page of its own at a projector's 1920 × 1080, once Voila shows its
    cells and their formulas are typeset."""
    context = browser.new_context(viewport=LECTURE_VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    # Every request for something outside this machine, kept for the offline check of the lecture mode.
    page.external_requests = []
    page.on(
        "request",
        lambda req: None if re.match(r"(https?|wss?)://(127\.0\.0\.1|localhost)[:/]|(data|blob):", req.url)
        else page.external_requests.append(req.url),
    )
    page.goto(f"{voila_server}voila/render/{name}")
    # Voila shows the cells once every one has run; until then only its spinner.
    page.wait_for_function(
        "() => { const r = document.querySelector('#rendered_cells');"
        " return r !== null && r.style.display !== 'none'; }",
        polling=100,
    )
    # The page typesets the formulas of its prose once its widgets are live (the lecture template's last script), and
    # says so on <body>: what the tests measure is the prose as the room reads it.
    page.wait_for_function("() => document.body.dataset.lectureMath === 'typeset'", polling=100)
    return page


@pytest.fixture
def voila(request, browser, voila_server, voila_pages):
    """Notebook ``name`` in the lecture mode: ``page = voila("02_projections.ipynb")``. Every test of a notebook gets
    the same page (one Voila run per notebook); after a failure that page is closed, so the next test of the notebook
    gets a fresh one."""
    used: dict = {}

    def open_notebook(name: str):
        if name not in voila_pages:
            for other in list(voila_pages):
                if other not in used:
                    voila_pages.pop(other).context.close()
            # A notebook's pre-run kernel serves its first page only, and Voila runs the next one TEST_FILL_DELAY_S
            # later: a second page asked for meanwhile (after a failure closed the first) waited for it and failed
            # the next test too. Voila uses a pre-run kernel only for a page of the theme it was run with, so a second
            # page asks for the same light theme by its full name, which Voila runs in a kernel of its own at once.
            query = "?theme=JupyterLab%20Light" if name in voila_pages.opened else ""
            voila_pages.opened.add(name)
            voila_pages[name] = open_lecture_page(browser, voila_server, name + query)
        used[name] = voila_pages[name]
        return used[name]

    yield open_notebook
    for page in used.values():
        screenshot_on_failure(request, page)
    if test_failed(request):
        for name, page in used.items():
            voila_pages.pop(name, None)
            page.context.close()
