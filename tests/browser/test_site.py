"""The course as a static web site (``make site``, course/site.py): built once into a temporary folder, served on
this machine, and every page opened in headless Chromium with every request for anything outside this machine
refused and recorded.

Each page: nothing requested from outside the machine (scripts, styles, fonts, icons and MathJax all come from the
site) and everything it asks the site for there answered; its formulas typeset by MathJax (no ``\\(`` left in a
formula, no ``$...$`` left in the prose); every link into the site answered by the local server and every anchor
present, the notebooks' ``NN_x.ipynb`` links turned into links between the pages; the stored HTML outputs shown (a
figure as its ``<img>`` with alt text, never the ``<IPython.core.display.HTML object>`` text beside it); the Binder and
class-hub links of ``site/site.toml``; the table of contents and the previous / next links in course.toml's order;
and no serious or critical axe-core finding on the whole page, in the light mode and (two notebooks) the dark one.
The search works offline. With ``COURSE_SCREENSHOTS`` set, a screenshot of each page at 1400 × 900 goes there.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import json
import os
import re
import threading
import tomllib
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from urllib.parse import quote, urldefrag, urljoin, urlsplit

import pytest

from course import site as build_site
from course.browser import PATIENCE_MS, REPO
from course.plan import course_plan

from .conftest import screenshot_on_failure
from .test_a11y import BLOCKING, axe_violations, describe

SHOTS = os.environ.get("COURSE_SCREENSHOTS")  # a folder to keep a screenshot of each page in, when set
PLAN = course_plan()
NOTEBOOKS = list(PLAN.notebooks)
PAGES = ["index", *NOTEBOOKS]
LOCAL = re.compile(r"(https?|wss?)://(127\.0\.0\.1|localhost)[:/]|(data|blob|about):")
# Text that looks like a formula MathJax did not typeset: $$, or a $...$ pair around something.
RAW_DOLLARS = re.compile(r"\$\$|\$[^\s$][^$]*\$")

# What a page reports once MathJax is done: the formulas, those without MathJax's output, raw dollars in the prose
# (text outside code, formulas and outputs), the stored outputs shown, the figures, and every link.
JS_PAGE_REPORT = r"""
() => {
  const prose = [...document.querySelectorAll('.bd-article p, .bd-article li, .bd-article td, .bd-article th,'
    + ' .bd-article h1, .bd-article h2, .bd-article h3, .bd-article h4, .bd-article dt, .bd-article dd')]
    .filter(e => !e.closest('.cell_output, pre, .highlight'));
  const text = e => {
    const copy = e.cloneNode(true);
    copy.querySelectorAll('code, pre, mjx-container, .math, script').forEach(n => n.remove());
    return copy.textContent;
  };
  const math = [...document.querySelectorAll('.math')];
  const outputs = [...document.querySelectorAll('.cell_output .output')];
  return {
    math: math.length,
    untypeset: math.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.slice(0, 80)),
    typeset: document.querySelectorAll('mjx-container').length,
    raw_dollars: prose.map(text).filter(t => /\$\$|\$[^\s$][^$]*\$/.test(t)).map(t => t.trim().slice(0, 120)),
    html_outputs: outputs.filter(o => o.classList.contains('text_html')).length,
    plain_html_reprs: outputs.filter(o => /<IPython\.core\.display\.HTML object>/.test(o.textContent)).length,
    figures: [...document.querySelectorAll('.cell_output img, .cell_output svg[role=img]')].map(i => ({
      alt: (i.getAttribute('alt') || i.getAttribute('aria-label') || '').trim(),
      loaded: i.tagName.toLowerCase() === 'svg' ? i.getBoundingClientRect().width > 0
                                                : i.complete && i.naturalWidth > 0})),
    links: [...document.querySelectorAll('a[href]')].map(a => ({href: a.href, text: a.textContent.trim()})),
    sidebar: [...document.querySelectorAll('.bd-sidenav a.reference')].map(a => a.getAttribute('href')),
    rel: Object.fromEntries(['prev', 'next'].map(r => [r, document.querySelector(`link[rel=${r}]`)
      ?.getAttribute('href') ?? null])),
  };
}
"""


def site_config() -> dict:
    with open(REPO / "site" / "site.toml", "rb") as f:
        return tomllib.load(f)


def expected_launch_links(notebook: str) -> dict[str, str]:
    """The links README's "The course as a web site" gives, for ``notebook`` and site/site.toml's settings: none while
    site.toml names no repository (its owner still "OWNER")."""
    cfg = site_config()
    owner, repo, branch = cfg["owner"], cfg["repo"], cfg.get("branch", "")
    if owner.strip() in ("", "OWNER") or not repo.strip():
        return {}
    links = {"Launch on Binder": f"{cfg['binder'].rstrip('/')}/v2/gh/{owner}/{repo}/{branch or 'HEAD'}"
                                 f"?urlpath=lab/tree/notebooks/{notebook}.ipynb"}
    if cfg.get("hub"):
        links["Open on the class hub"] = (
            f"{cfg['hub'].rstrip('/')}/hub/user-redirect/git-pull?repo="
            f"{quote(f'https://github.com/{owner}/{repo}', safe='')}&urlpath=lab/tree/{repo}/notebooks/{notebook}.ipynb"
            + (f"&branch={branch}" if branch else ""))
    return links


def stored_outputs(notebook: str) -> dict[str, int]:
    """How many of the committed notebook's outputs carry HTML, and how many figures (<img>, and <svg> of a themed
    figure) those hold."""
    nb = json.loads((REPO / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    htmls = ["".join(out["data"]["text/html"]) for cell in nb["cells"] for out in cell.get("outputs", ())
             if "text/html" in out.get("data", {})]
    return {"html": len(htmls), "img": sum(h.count("<img") + h.count('<svg xmlns:xlink') for h in htmls)}


class _Anchors(html.parser.HTMLParser):
    """The ids (and old-style ``<a name>``) of an HTML page: where its anchors can point."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (tag == "a" and key == "name"):
                self.ids.add(value or "")


@functools.cache
def fetch(url: str) -> tuple[int, frozenset[str]]:
    """The local server's status for ``url`` and, for an HTML page, its anchors (each URL fetched once per run)."""
    try:
        with urllib.request.urlopen(url, timeout=PATIENCE_MS / 1000) as response:
            body = response.read()
            status = response.status
            kind = response.headers.get_content_type()
    except urllib.error.HTTPError as err:
        return err.code, frozenset()
    anchors = _Anchors()
    if kind == "text/html":
        anchors.feed(body.decode("utf-8", "replace"))
    return status, frozenset(anchors.ids)


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory) -> Path:
    """The site built from the notebooks on disk now, once, into a temporary folder."""
    folder = tmp_path_factory.mktemp("site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the theme's and MyST's use of Sphinx's old API
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        build_site.build(out=folder / "html", work=folder / "work")
    return folder / "html"


@pytest.fixture(scope="module")
def site_url(site_dir):
    """The site served on this machine, as a static host would (a missing file is a 404)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site_page(browser, site_url):
    """One page in its own browser context at 1400 × 900. Every request for anything outside this machine is refused
    and kept in ``page.external_requests``."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    page.external_requests = []

    def refuse_outside(route):
        if LOCAL.match(route.request.url):
            route.continue_()
        else:
            page.external_requests.append(route.request.url)
            route.abort()

    context.route("**/*", refuse_outside)
    # Anything of the site itself that does not load: a style sheet, a script, a font, a figure.
    page.failed_loads = []
    page.on("response", lambda r: page.failed_loads.append(f"{r.url}: HTTP {r.status}") if r.status >= 400 else None)
    page.on("requestfailed", lambda r: page.failed_loads.append(f"{r.url}: {r.failure}") if LOCAL.match(r.url)
            else None)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def site(request, site_page, site_url):
    """``open_page("02_projections")``: the page loaded and its formulas typeset, with the external requests of this
    page alone."""

    def open_page(name: str):
        site_page.external_requests.clear()
        site_page.failed_loads.clear()
        site_page.goto(f"{site_url}{name}.html", wait_until="load")
        # MathJax is on every page (conf.py) and, a deferred script, has run by the load event; its startup promise
        # settles once the page is typeset.
        loaded = site_page.evaluate(
            "async () => { if (!(window.MathJax && MathJax.startup)) return false;"
            " await MathJax.startup.promise; return true; }")
        assert loaded, f"{name}: MathJax did not load (requests refused: {site_page.external_requests[:3]})"
        return site_page

    yield open_page
    screenshot_on_failure(request, site_page)


def internal_links(report: dict, base: str) -> list[str]:
    return [link["href"] for link in report["links"] if link["href"].startswith(base)]


@pytest.mark.parametrize("name", PAGES)
def test_page_is_offline_typeset_linked_and_accessible(site, site_url, name):
    page = site(name)
    report = page.evaluate(JS_PAGE_REPORT)

    assert page.external_requests == [], f"{name}: requests leaving the machine: {page.external_requests[:5]}"
    assert page.failed_loads == [], f"{name}: parts of the page that did not load: {page.failed_loads[:5]}"

    # Formulas: every one typeset (the sidebar's titles have some on every page), none left as dollars.
    assert report["math"] > 0 and report["typeset"] >= report["math"], report
    assert report["untypeset"] == [], f"{name}: formulas MathJax did not typeset: {report['untypeset'][:3]}"
    assert report["raw_dollars"] == [], f"{name}: $...$ left in the text: {report['raw_dollars'][:3]}"

    # Every link into the site answers, and every anchor it names exists on its page.
    broken = []
    for href in sorted(set(internal_links(report, site_url))):
        url, fragment = urldefrag(href)
        status, anchors = fetch(url)
        if status != 200:
            broken.append(f"{href}: HTTP {status}")
        elif fragment and fragment not in anchors:
            broken.append(f"{href}: no element with id {fragment!r}")
    assert not broken, f"{name}: broken links:\n" + "\n".join(broken)
    # The notebooks' navigation lines link NN_x.ipynb: on the site those are links to the pages; the only notebook
    # files linked are the downloads (_sources/NN_x.ipynb).
    notebook_files = [h for h in internal_links(report, site_url) if urlsplit(h).path.endswith(".ipynb")]
    assert all(urlsplit(h).path.startswith("/_sources/") for h in notebook_files), notebook_files

    # The table of contents: the site's index, then every notebook, in course.toml's order.
    assert [urlsplit(urljoin(page.url, h)).path.strip("/") for h in report["sidebar"]] == [
        f"{p}.html" for p in PAGES], report["sidebar"]

    # Previous and next: the course's order, as in the notebooks' navigation lines, whose NN_x.ipynb links (checked
    # above) are links between the pages.
    k = PAGES.index(name)
    assert report["rel"] == {"prev": f"{PAGES[k - 1]}.html" if k else None,
                             "next": f"{PAGES[k + 1]}.html" if k + 1 < len(PAGES) else None}, report["rel"]

    # Run it: Binder and the class hub, each with the link site/site.toml and README give.
    notebook = name if name in NOTEBOOKS else PLAN.index
    launch = {link["text"]: link["href"] for link in report["links"]
              if link["text"] in ("Launch on Binder", "Open on the class hub")}
    assert launch == expected_launch_links(notebook)

    if name in NOTEBOOKS:
        # The stored HTML outputs are what the page shows (not their text form), figures with their alt text.
        stored = stored_outputs(name)
        assert report["html_outputs"] == stored["html"], (report["html_outputs"], stored)
        assert report["plain_html_reprs"] == 0
        assert len(report["figures"]) == stored["img"]
        assert all(f["alt"] and f["loaded"] for f in report["figures"]), report["figures"]

    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"site-{name}.png"))

    violations = axe_violations(page, "html")
    print(f"\n{name}: " + (describe(violations) or "no axe findings"))
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{name}: serious or critical axe findings:\n{describe(blocking)}"


def test_stored_widgets_show_their_pictures(site):
    """A widget cannot run on the site: each shows the picture its stored output carries (helpers/widgets/snapshot.py),
    so 09 shows its eight questions and 02 its explorer's weights, not "run this cell"."""
    from helpers.demos.practice import question_text
    from helpers.exercises import QUESTIONS
    from helpers.look.mathtext import math_html

    page = site("09_practice")
    questions = page.locator(".cell_output .course-snapshot .practice-question-text")
    # The questions' math is typeset (d<sub>model</sub>): the page's text is the markup's text.
    assert [" ".join(t.split()) for t in questions.all_inner_texts()] == [
        " ".join(html.unescape(re.sub(r"<[^>]+>", "", math_html(question_text(q)))).split())
        for q in QUESTIONS.values()]
    assert all(questions.nth(k).is_visible() for k in range(questions.count()))
    if SHOTS:
        questions.first.scroll_into_view_if_needed()
        page.screenshot(path=str(Path(SHOTS) / "site-09-questions.png"))
    page = site("02_projections")
    weights = page.locator(".cell_output .course-snapshot .attn-explorer-self .attn-view-weights table").first
    weights.wait_for(state="visible")
    assert weights.locator("td").count() >= 4
    if SHOTS:
        weights.scroll_into_view_if_needed()
        page.screenshot(path=str(Path(SHOTS) / "site-02-weights.png"))


def test_search_finds_a_word_offline(site, site_url):
    page = site("search")
    page.goto(f"{site_url}search.html?q=softmax", wait_until="load")
    results = page.locator("#search-results li")
    results.first.wait_for(state="visible")
    assert results.count() >= 3
    assert page.external_requests == [], page.external_requests[:5]


@pytest.mark.parametrize("name", ["02_projections", "09_practice", "15_learning"])
def test_outputs_are_readable_in_the_dark_mode(site, site_page, name):
    """In the theme's dark mode (the reader's system asks for it), the stored outputs take JupyterLab's dark colours
    (site/_static/course.css) and axe finds no contrast problem: no light text left on a light panel."""
    site_page.emulate_media(color_scheme="dark")
    try:
        page = site(name)
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        if SHOTS:
            page.locator(".cell_output .text_html").first.scroll_into_view_if_needed()
            page.screenshot(path=str(Path(SHOTS) / f"site-dark-{name}.png"))
        violations = axe_violations(page, "html")
    finally:
        site_page.emulate_media(color_scheme="light")
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{name}, dark mode: serious or critical axe findings:\n{describe(blocking)}"
