"""The lecture page's front end (presentation/lecture-frontend) is committed built: the built files must be those of
the checkout's sources, and every file the lecture template asks for must be one Voila can serve.

The page itself (its widgets live, its formulas typeset, nothing fetched from the network) is tested in the browser:
tests/browser/test_present.py and test_lecture.py.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from course.plan import ROOT

FRONTEND = ROOT / "presentation" / "lecture-frontend"
TEMPLATE = ROOT / "presentation" / "voila" / "templates" / "lecture"
BUILT = TEMPLATE / "static"
# The same list, in the same order, as digest.mjs's SOURCES (then src/, sorted by name).
SOURCES = ["package.json", "package-lock.json", "build.mjs", "digest.mjs"]


def source_files(root: Path) -> list[str]:
    """The sources under ``root``, as digest.mjs lists them."""
    return SOURCES + [f"src/{name}" for name in sorted(p.name for p in (root / "src").iterdir())]


def source_digest(root: Path = FRONTEND) -> str:
    """What digest.mjs computes: SHA-256 over each source's name and bytes."""
    digest = hashlib.sha256()
    for name in source_files(root):
        digest.update(f"{name}\n".encode())
        digest.update((root / name).read_bytes())
    return digest.hexdigest()


def test_the_committed_front_end_is_built_from_the_checkouts_sources():
    built_from = (BUILT / "lecture.digest").read_text().strip()
    assert built_from == source_digest(), (
        "presentation/lecture-frontend changed since its files in presentation/voila/templates/lecture/static were "
        "built: run `make lecture-frontend` and commit what it writes"
    )


def test_the_digest_follows_every_source(tmp_path):
    # A digest that left a file out would let that file change unseen: changing any one changes the digest.
    copy = tmp_path / "lecture-frontend"
    for name in source_files(FRONTEND):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FRONTEND / name, copy / name)
    before = source_digest(copy)
    assert before == source_digest(FRONTEND)
    for name in source_files(copy):
        original = (copy / name).read_bytes()
        (copy / name).write_bytes(original + b"\n")
        assert source_digest(copy) != before, f"the digest does not depend on {name}"
        (copy / name).write_bytes(original)


@pytest.mark.parametrize("name", ["lecture.js", "lecture.css", "mathjax/tex-chtml.js"])
def test_the_built_files_are_there(name):
    assert (BUILT / name).stat().st_size > 10_000, f"{name} is missing or empty: run `make lecture-frontend`"


def test_mathjax_has_its_fonts_and_tex_extensions():
    fonts = list((BUILT / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert len(fonts) >= 20, f"MathJax's CHTML fonts: {len(fonts)} found"
    # Loaded on demand by autoload when a formula uses one of their macros (\boldsymbol, \color, \cancel...).
    for extension in ("boldsymbol", "color", "cancel", "mathtools"):
        assert (BUILT / "mathjax" / "input" / "tex" / "extensions" / f"{extension}.js").exists(), extension


def test_every_static_file_the_template_asks_for_is_served(monkeypatch):
    from voila.paths import collect_static_paths

    monkeypatch.setenv("JUPYTER_PATH", str(ROOT / "presentation"))
    static_dirs = collect_static_paths(["voila", "nbconvert"], "lecture")
    template = (TEMPLATE / "index.html.j2").read_text()
    asked = set(re.findall(r"""include_(?:js|css|url)\(\s*["']([^"']+)["']""", template))
    assert {"static/lecture.js", "static/lecture.css", "static/mathjax/tex-chtml.js"} <= asked
    for name in asked:
        relative = name.removeprefix("static/")
        assert any((Path(d) / relative).exists() for d in static_dirs), (
            f"the lecture template asks for {name}, which no static folder of its templates has: {static_dirs}"
        )
