"""The site's launch links (``make site``; course/site_conf.py, site/_templates/launch-links.html, course/site.py):
none until site/site.toml names the course's repository, and the build says so once. (tests/browser/test_site.py
builds the whole site and looks at its pages.)"""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = {"title": "t", "owner": "OWNER", "repo": "attention-course", "branch": "", "hub": "https://hub.example.org",
               "binder": "https://mybinder.org"}
NAMED = {**PLACEHOLDER, "owner": "ada"}


@pytest.fixture(scope="module")
def conf():
    from course import site_conf

    return site_conf


@pytest.fixture(scope="module")
def build_site():
    from course import site

    return site


def launch_html(conf, site: dict, monkeypatch, pagename: str = "02_projections") -> str:
    """The launch links a page of the site gets with ``site`` as site.toml: the template rendered with the context
    conf.py gives it."""
    monkeypatch.setattr(conf, "SITE", site)
    context: dict = {}
    conf.add_launch_links(None, pagename, "page.html", context, None)
    template = (ROOT / "site" / "_templates" / "launch-links.html").read_text(encoding="utf-8")
    return jinja2.Template(template).render(**context)


@pytest.mark.parametrize("site", [PLACEHOLDER, {**PLACEHOLDER, "owner": ""}, {**NAMED, "repo": " "}],
                         ids=["placeholder", "no-owner", "no-repo"])
def test_no_launch_link_until_a_repository_is_named(conf, monkeypatch, site):
    html = launch_html(conf, site, monkeypatch)
    assert "Launch on Binder" not in html
    assert "class hub" not in html
    assert "github.com" not in html and "OWNER" not in html


def test_a_named_repository_gets_both_links(conf, monkeypatch):
    html = launch_html(conf, NAMED, monkeypatch)
    assert 'href="https://mybinder.org/v2/gh/ada/attention-course/HEAD?urlpath=lab/tree/notebooks/' \
           '02_projections.ipynb"' in html
    assert "Launch on Binder" in html and "Open on the class hub" in html
    assert "github.com%2Fada%2Fattention-course" in html


def test_the_build_says_once_that_there_are_no_launch_links(build_site, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(build_site, "build", lambda out: ["index", "00_index"])  # the pages, without Sphinx
    monkeypatch.setattr(build_site, "read_site_config", lambda: dict(PLACEHOLDER))
    assert build_site.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    said = (out.out + out.err).splitlines()
    assert [line for line in said if "launch" in line] == [build_site.NO_REPOSITORY]

    monkeypatch.setattr(build_site, "read_site_config", lambda: dict(NAMED))
    assert build_site.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "launch" not in out.out + out.err


def test_the_index_page_offers_binder_only_with_links(build_site):
    paths = build_site.nav.course_notebooks()
    import nbformat

    notebooks = {p.name: nbformat.read(p, as_version=4) for p in paths}
    assert "Launch on Binder" not in build_site.index_page(paths, notebooks, "t", launch=False)
    assert "make lab" in build_site.index_page(paths, notebooks, "t", launch=False)
    assert "Launch on Binder" in build_site.index_page(paths, notebooks, "t", launch=True)
