"""Write the navigation lines and the index's course map from the notebook files.

The notebooks and their order come from ``course.toml`` (the index, the core path, the
notebooks that go further). Every notebook gets a markdown cell tagged ``navigation`` first
and last: ``← previous · Index · next →``. The index gets its course map in the cell tagged
``course-map``: two tables, the core path and the notebooks that go further, one row per
notebook, from each notebook's title (its first ``# `` heading) and
``metadata["course"]["sections"]``.

Safe to re-run: a notebook is only rewritten when something changed. ``--check`` writes
nothing and exits 1 listing the stale notebooks (the test suite uses it). ``python scripts/build_navigation.py``
(``make navigation``) and ``python -m course.navigation`` run it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from course.plan import course_notebooks, course_plan

NAV_TAG = "navigation"
MAP_TAG = "course-map"


PLAN = course_plan()
INDEX = PLAN.index + ".ipynb"
CORE = PLAN.core
CORE_HEADING = f"### The core path: {CORE[0][:2]} to {CORE[-1][:2]}, in order"
FURTHER_HEADING = "### Going further: after the core path, or straight after the notebook each one follows"


def title_of(nb) -> str:
    """The notebook's first level-1 heading, without the ``# ``."""
    for cell in nb.cells:
        if cell.cell_type != "markdown" or NAV_TAG in cell.metadata.get("tags", []):
            continue
        for line in cell.source.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return "(untitled)"


def short_title(path: Path, nb) -> str:
    return f"{path.stem[:2]} · {title_of(nb)}"


def navigation_line(paths: list[Path], titles: dict[str, str], here: Path) -> str:
    i = paths.index(here)
    parts = []
    if i > 0:
        prev = paths[i - 1]
        parts.append(f"[← {titles[prev.name]}]({prev.name})")
    if here.name != INDEX:
        parts.append(f"[Index]({INDEX})")
    if i + 1 < len(paths):
        nxt = paths[i + 1]
        parts.append(f"[{titles[nxt.name]} →]({nxt.name})")
    return " · ".join(parts)


def is_core(path: Path) -> bool:
    """Whether the notebook is on the core path rather than going further."""
    return path.stem in CORE


def _table(paths: list[Path], notebooks: dict[str, object]) -> list[str]:
    rows = ["| notebook | lesson sections | what you do |", "|---|---|---|"]
    for p in paths:
        meta = notebooks[p.name].metadata.get("course", {})
        link = f"[{short_title(p, notebooks[p.name])}]({p.name})"
        rows.append(f"| {link} | {meta.get('sections', '')} | {meta.get('summary', '')} |")
    return rows


def course_map(paths: list[Path], notebooks: dict[str, object]) -> str:
    """The index's course map: the core path, then (if any exist) the notebooks that go further."""
    body = [p for p in paths if p.name != INDEX]
    core = [p for p in body if is_core(p)]
    further = [p for p in body if not is_core(p)]
    parts = [CORE_HEADING, "", *_table(core, notebooks)]
    if further:
        parts += ["", FURTHER_HEADING, "", *_table(further, notebooks)]
    return "\n".join(parts)


def _nav_cell(text: str):
    return nbformat.v4.new_markdown_cell(text, metadata={"tags": [NAV_TAG]})


def _is_nav(cell) -> bool:
    return cell.cell_type == "markdown" and NAV_TAG in cell.metadata.get("tags", [])


def updated(nb, nav: str, table: str | None):
    """A copy of ``nb`` with fresh navigation (and course map, if ``table``)."""
    nb = nbformat.from_dict(nb)
    body = [c for c in nb.cells if not _is_nav(c)]
    for cell in body:
        if table is not None and MAP_TAG in cell.metadata.get("tags", []):
            cell.source = table
    top, bottom = _nav_cell(nav), _nav_cell(nav)
    # Keep the cell ids stable across runs so re-running changes nothing.
    old_navs = [c for c in nb.cells if _is_nav(c)]
    if len(old_navs) == 2:
        top["id"], bottom["id"] = old_navs[0].get("id"), old_navs[1].get("id")
    else:
        top["id"], bottom["id"] = "nav-top", "nav-bottom"
    nb.cells = [top, *body, bottom]
    return nb


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything is stale")
    args = parser.parse_args(argv)
    paths = course_notebooks()
    notebooks = {p.name: nbformat.read(p, as_version=4) for p in paths}
    titles = {p.name: short_title(p, notebooks[p.name]) for p in paths}
    table = course_map(paths, notebooks)
    stale = []
    for p in paths:
        nb = notebooks[p.name]
        new = updated(nb, navigation_line(paths, titles, p), table if p.name == INDEX else None)
        if nbformat.writes(new) != nbformat.writes(nb):
            stale.append(p.name)
            if not args.check:
                nbformat.write(new, p)
    if args.check and stale:
        print("stale navigation in: " + ", ".join(stale) + " (run `make navigation`)")
        return 1
    if not args.check:
        print(f"navigation: {len(paths)} notebooks, {len(stale)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
