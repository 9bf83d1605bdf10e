"""Build the course as a static web site in ``_site/``, from the stored notebooks, without running them.

Usage::

    .venv/bin/python scripts/build_site.py [--out=_site]        # or: .venv/bin/python -m course.site

(``make site`` runs this.) Open ``_site/index.html`` in a browser, or serve the folder
(``.venv/bin/python -m http.server -d _site``); every script, style, font and formula renderer is in it, so it works
offline and from any static host.

The pages are made by Sphinx with myst-nb and sphinx-book-theme (configured in :mod:`course.site_conf`, which
``site/conf.py`` reads, with the title and the launch links' owner, repository and hub in ``site/site.toml``). Sphinx
reads a staging folder, ``build/site/src``, that holds a copy of the course's notebooks (only those ``course.toml``
lists) and an index page generated here from ``course.toml`` and the notebooks' titles and metadata: the course map of
:mod:`course.navigation`, and the site's table of contents in course order. The notebooks are shown as stored: run
``make notebooks`` first after editing one. Sphinx keeps what it read in ``build/site/doctrees``, so a second build
rereads only what changed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
import tomllib
from pathlib import Path

from course import navigation as nav, site_conf
from course.plan import ROOT

CONF_DIR = ROOT / "site"
WORK = ROOT / "build" / "site"
OUT = ROOT / "_site"

INTRO = """\
Interactive Jupyter notebooks that teach self-attention and the Q/K/V computation. This site shows each notebook as
it was last run: its text, formulas, code and outputs as stored; the widgets come alive only where the notebook runs.
"""
# How to run the notebooks: with a launch link when site.toml names the course's repository, on one's own computer
# always.
RUN_LAUNCHED = """\
To change the numbers and watch the attention change, run the notebook: **Launch on Binder** at the top of every page
builds the course on mybinder.org and opens that notebook in JupyterLab (the first build takes some minutes);
**Open on the class hub** copies the course into your own folder on your class's JupyterHub. On your own computer:
clone the repository and run `make lab`.
"""
RUN_LOCALLY = """\
To change the numbers and watch the attention change, run the notebook on your own computer: clone the repository and
run `make lab`.
"""
NO_REPOSITORY = ("site: no launch links (Binder, class hub): site/site.toml names no repository; set its owner and "
                 "repo to add them")


def read_site_config() -> dict:
    """``site/site.toml``: the title and the launch links' settings."""
    with open(CONF_DIR / "site.toml", "rb") as f:
        return tomllib.load(f)


def launch_notice(site: dict) -> str:
    """What the build says about the launch links: '' when ``site`` names a repository (every page links to it),
    else :data:`NO_REPOSITORY`."""
    return "" if site_conf.named_repository(site) else NO_REPOSITORY


def index_page(paths: list[Path], notebooks: dict, title: str, launch: bool = True) -> str:
    """The site's index page (MyST markdown): the title, how to use the site, the course map, and the table of
    contents (hidden: the sidebar shows it) in course order, the index notebook first. ``launch``: whether the pages
    have launch links to speak of."""
    plan = nav.PLAN
    start = paths[0]
    parts = [
        f"# {title}",
        "",
        INTRO + (RUN_LAUNCHED if launch else RUN_LOCALLY),
        f"Start with [{nav.short_title(start, notebooks[start.name])}]({start.name}): each learning objective and "
        "where it is taught and practised, and how to use the course on your own or in a lecture.",
        "",
        # The course map's headings one level up: on this page they follow the title.
        nav.course_map(paths, notebooks).replace("\n### ", "\n## ").replace("### ", "## ", 1),
        "",
    ]
    for caption, names in (("Start", [plan.index]), ("The core path", plan.core),
                           ("Going further", plan.going_further)):
        if names:
            parts += ["```{toctree}", ":hidden:", f":caption: {caption}", "", *names, "```", ""]
    return "\n".join(parts)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` unless it already holds exactly that (Sphinx then leaves the page alone)."""
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def stage(src: Path) -> list[str]:
    """Fill ``src`` with the course's notebooks and the generated ``index.md``; drop anything else in it. Returns the
    page names, index first."""
    import nbformat

    site = read_site_config()
    paths = nav.course_notebooks()
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        raise SystemExit(f"course.toml lists notebooks that are not in notebooks/: {', '.join(missing)}")
    notebooks = {p.name: nbformat.read(p, as_version=4) for p in paths}
    keep = {"index.md", *(p.name for p in paths)}
    src.mkdir(parents=True, exist_ok=True)
    for old in src.iterdir():
        if old.name not in keep:
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    index = index_page(paths, notebooks, site["title"], launch=not launch_notice(site))
    write_if_changed(src / "index.md", index.encode("utf-8"))
    for p in paths:
        write_if_changed(src / p.name, p.read_bytes())
    return ["index", *(p.stem for p in paths)]


def up_to_date(environment: Path) -> bool:
    """Whether Sphinx's saved environment is newer than everything that configures the site (``site/``,
    ``course.toml``, this module and the Sphinx configuration's, :mod:`course.site_conf`)."""
    if not environment.exists():
        return False
    made = environment.stat().st_mtime
    inputs = [ROOT / "course.toml", Path(__file__), Path(site_conf.__file__),
              *(p for p in CONF_DIR.rglob("*") if p.is_file())]
    return all(p.stat().st_mtime < made for p in inputs)


def build(out: Path = OUT, work: Path = WORK, quiet: bool = True) -> list[str]:
    """Stage the sources in ``work``/src and build the HTML site into ``out``. Returns the page names. Raises
    ``RuntimeError`` if Sphinx fails."""
    from sphinx.cmd.build import build_main

    pages = stage(work / "src")
    doctrees = work / "doctrees"
    args = ["-b", "html", "-c", str(CONF_DIR), "-d", str(doctrees), str(work / "src"), str(out)]
    if not up_to_date(doctrees / "environment.pickle"):
        args.insert(0, "-E")  # the configuration's code changed: read every page afresh (Sphinx sees only its values)
    if quiet:
        args.insert(0, "-q")
    status = build_main(args)
    if status != 0:
        raise RuntimeError(f"Sphinx failed (exit status {status}); see its messages above")
    return pages


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the site goes (default: _site)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        pages = build(args.out.resolve())
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    where = os.path.relpath(args.out.resolve())
    print(f"site: {len(pages)} pages in {where}/ ({time.perf_counter() - start:.1f} s); open {where}/index.html")
    notice = launch_notice(read_site_config())
    if notice:
        print(notice)
    return 0


if __name__ == "__main__":
    sys.exit(main())
