"""Sphinx configuration of the course's web site (``make site``; :mod:`course.site` says how it is built).

``site/conf.py``, the file Sphinx reads (``-c site``), takes everything from here, so the configuration is an ordinary
module the site's build and the tests import. The pages are the stored notebooks, read by myst-nb and never run; the
index page is generated from ``course.toml``. Everything a page loads is served from the site itself: the theme's
styles, fonts and icons (sphinx-book-theme and the pydata theme ship them), MathJax 3 (the ``sphinx-mathjax-offline``
package) and the search index.

The title and the launch links' owner, repository, branch and hub are set in ``site/site.toml``, not here.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from urllib.parse import quote

from docutils import nodes

from course.plan import ROOT, course_plan

HERE = ROOT / "site"

with open(HERE / "site.toml", "rb") as _f:
    SITE = tomllib.load(_f)
PLAN = course_plan()
NOTEBOOKS = PLAN.notebooks

project = SITE["title"]
html_title = SITE["title"]
author = ""
copyright = ""

extensions = [
    "myst_nb",
    "sphinx_book_theme",
    # MathJax 3 copied into _static/mathjax: formulas typeset with no network (its module name has dashes).
    "sphinx-mathjax-offline",
]
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["course.css"]

# -- the notebooks: read, never run

nb_execution_mode = "off"
# The stored figures are HTML <img> outputs with alt text, and a widget's stored picture is a text/html output beside
# its text form: a page shows the HTML whenever an output has it (myst-nb's order already does; said here so it stays).
nb_mime_priority_overrides = [("html", "text/html", 0), ("html", "text/plain", 100)]
# The notebooks are stored without widget state: no ipywidgets bundle to load (myst-nb's default is a CDN script).
nb_ipywidgets_js = {}
nb_merge_streams = True
# $...$ and $$...$$ as in Jupyter; <details> and the other raw HTML of the markdown cells pass through.
myst_enable_extensions = ["dollarmath", "amsmath"]
# A notebook's "## 3. Worked example" heading gets an anchor, so links between sections resolve.
myst_heading_anchors = 3

# -- MathJax: the local copy in _static/mathjax (sphinx-mathjax-offline copies it there and sets this path itself)

mathjax_path = "mathjax/tex-chtml.js"

# -- the theme

html_theme = "sphinx_book_theme"
html_copy_source = True  # _sources/NN_x.ipynb: the page's "download .ipynb" button
html_sourcelink_suffix = ""
html_last_updated_fmt = None
html_show_sphinx = False
html_show_copyright = False
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "article_header_end": ["launch-links.html", "article-header-buttons.html"],
    "navbar_persistent": [],  # the search field is in the sidebar; no second one in a bar above the page
    "navigation_with_keys": False,
    "pygments_light_style": "a11y-high-contrast-light",
    "pygments_dark_style": "a11y-high-contrast-dark",
}


# -- the launch links: Binder, and the class hub through nbgitpuller

# site.toml's owner as shipped: a copy of the course that has not said where it lives yet.
PLACEHOLDER_OWNER = "OWNER"


def named_repository(site: dict) -> str:
    """The GitHub repository ``site`` (site.toml's settings) names, "owner/repo"; '' while its owner is empty or
    still the placeholder "OWNER" (a launch link would send readers to github.com/OWNER, which is nobody's)."""
    owner, repo = str(site.get("owner", "")).strip(), str(site.get("repo", "")).strip()
    if not owner or owner == PLACEHOLDER_OWNER or not repo:
        return ""
    return f"{owner}/{repo}"


def binder_url(notebook: str) -> str:
    """The Binder link that builds the repository and opens ``notebook`` ("02_projections") in JupyterLab; '' when
    site.toml names no repository."""
    if not named_repository(SITE):
        return ""
    ref = SITE.get("branch") or "HEAD"
    return (f"{SITE['binder'].rstrip('/')}/v2/gh/{SITE['owner']}/{SITE['repo']}/{ref}"
            f"?urlpath=lab/tree/notebooks/{notebook}.ipynb")


def hub_url(notebook: str) -> str:
    """The nbgitpuller link that copies the repository into a learner's home folder on the class hub (or brings in
    the updates) and opens ``notebook`` there; '' when no hub is set or site.toml names no repository."""
    if not SITE.get("hub") or not named_repository(SITE):
        return ""
    repo = quote(f"https://github.com/{SITE['owner']}/{SITE['repo']}", safe="")
    url = (f"{SITE['hub'].rstrip('/')}/hub/user-redirect/git-pull?repo={repo}"
           f"&urlpath=lab/tree/{SITE['repo']}/notebooks/{notebook}.ipynb")
    return url + (f"&branch={SITE['branch']}" if SITE.get("branch") else "")


def add_launch_links(app, pagename, templatename, context, doctree):
    """Give each page the links of ``launch-links.html``: its own notebook's, or the course index's on the site's
    index page (and on any other page that is not a notebook)."""
    notebook = pagename if pagename in NOTEBOOKS else PLAN.index
    context["course_binder_url"] = binder_url(notebook)
    context["course_hub_url"] = hub_url(notebook)
    context["course_notebook"] = f"{notebook}.ipynb"


# -- the notebooks' numbers in the table of contents and the previous / next links


def number_titles(app, doctree):
    """Put the notebook's number before its title where other pages name it ("02 · Linear projections: ..."), as
    the notebooks' own navigation lines do; the page's heading stays as written."""
    docname = app.env.docname
    if docname not in NOTEBOOKS:
        return
    number = nodes.Text(f"{docname[:2]} · ")
    if docname in app.env.titles:  # the previous / next links
        app.env.titles[docname].insert(0, number.deepcopy())
    toc = app.env.tocs.get(docname)  # the table of contents: its first entry is the notebook's title
    first = next(iter(toc.findall(nodes.reference)), None) if toc is not None else None
    if first is not None:
        first.insert(0, number.deepcopy())


def keep_notebook_copies_in_build(app):
    """myst-nb writes a copy of each notebook into ``jupyter_execute/`` beside the output folder (for the site that is
    the repository's root): put it beside Sphinx's saved environment instead, in the build folder."""
    folder = Path(app.doctreedir).parent / "jupyter_execute"
    app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder))


def setup(app):
    # After myst-nb's own set-up of its configuration (priority 500).
    app.connect("builder-inited", keep_notebook_copies_in_build, priority=600)
    app.connect("html-page-context", add_launch_links)
    # MathJax on every page, not only on those with formulas of their own: the sidebar's titles have formulas too.
    app.set_html_assets_policy("always")
    # After Sphinx's own title collector (priority 500) has stored the title.
    app.connect("doctree-read", number_titles, priority=600)
