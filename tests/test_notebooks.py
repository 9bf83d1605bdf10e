"""The stored notebooks: one fresh in-order run each, fresh navigation, and the whole lesson covered.

nbval (``pytest --nbval``) re-runs every cell and compares outputs; these tests check what nbval
does not: how the notebooks were stored and whether the course, taken together, teaches the lesson.
"""

import json
import re

import pytest

from course import navigation as build_navigation
from course.plan import course_plan

from conftest import NOTEBOOKS, ROOT

LESSON = ROOT / "lesson" / "self-attention-qkv.txt"  # the source lesson, kept with the course


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_the_notebooks_on_disk_are_the_ones_course_toml_plans():
    on_disk = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert on_disk == sorted(p.name for p in NOTEBOOKS), "course.toml and notebooks/ disagree"
    assert [p.stem[:2] for p in NOTEBOOKS] == [f"{k:02d}" for k in range(len(NOTEBOOKS))], "numbered in course order"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_as_one_fresh_in_order_run(path):
    code = [c for c in load(path)["cells"] if c["cell_type"] == "code" and source(c).strip()]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), f"execution counts {counts}: run `make notebooks`"
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"stored error output: {errors[0].get('ename')}: {errors[0].get('evalue')}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_loads_nothing_from_the_network(path):
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=[\"']?https?://", text), "an output loads a script from the network"
    assert not re.search(r"<link[^>]+href=[\"']?https?://", text), "an output loads a stylesheet from the network"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_a_title_and_objectives_and_ends_with_a_summary(path):
    cells = [c for c in load(path)["cells"] if "navigation" not in c.get("metadata", {}).get("tags", [])]
    first = source(cells[0])
    assert first.startswith("# "), "the first cell after the navigation is the title"
    if path.stem != "00_index":
        assert re.search(r"objective|you will", first, re.I), "objectives at the top"
        tail = " ".join(source(c) for c in cells[-4:] if c["cell_type"] == "markdown")
        assert re.search(r"summary", tail, re.I), "a summary near the end"


def test_navigation_and_course_map_are_fresh(capsys):
    # `build_navigation.py --check`, run in this process: a new Python would spend a second importing nbformat.
    assert build_navigation.main(["--check"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_navigation_links_point_to_existing_notebooks(path):
    cells = load(path)["cells"]
    for nav in (cells[0], cells[-1]):
        assert "navigation" in nav["metadata"].get("tags", [])
        for target in re.findall(r"\]\(([^)]+\.ipynb)\)", source(nav)):
            assert (path.parent / target).exists(), target


def lesson_sections():
    """Sections of the lesson: numbered subsections (1.1 ... 1.7) and emoji-headed top-level ones (4, 5, 6).

    Section 7 (cross-references) is the course map's job; plain numbered list items
    ("1. Diagonal attention") are not sections.
    """
    text = LESSON.read_text(encoding="utf-8")
    subsections = re.findall(r"^(\d+\.\d+(?:\.\d+)?)\s+\S", text, re.M)
    top = re.findall(r"^(\d+)\.\s+[^\x00-\x7F]", text, re.M)
    return sorted(set(subsections) | (set(top) - {"1"}), key=lambda s: [int(x) for x in s.split(".")])


def test_every_lesson_section_is_taught_in_some_notebook():
    covered = set()
    for path in NOTEBOOKS:
        meta = load(path)["metadata"].get("course", {})
        covered |= {s.strip() for s in meta.get("sections", "").split(",")}
    sections = lesson_sections()
    assert "1.5.2" in sections and "6" in sections, sections
    missing = [s for s in sections if s not in covered]
    assert not missing, f"lesson sections no notebook claims: {missing}"


def test_index_links_every_learning_objective():
    text = LESSON.read_text(encoding="utf-8")
    objectives = re.findall(r"^• (.+)$", text.split("📋")[0], re.M)
    index = " ".join(source(c) for c in load(ROOT / "notebooks" / "00_index.ipynb")["cells"])
    assert len(objectives) == 5, objectives
    for objective in objectives:
        assert objective.strip() in index, f"objective not in the index: {objective}"


MAX_WORDS = 2200  # one sitting: about 35-40 minutes of reading with the work
MAX_CELLS = 55  # every cell, navigation included


def markdown_words(path) -> int:
    """Words (whitespace-separated) in a notebook's markdown cells, navigation cells left out."""
    cells = load(path)["cells"]
    return sum(len(source(c).split()) for c in cells
               if c["cell_type"] == "markdown" and "navigation" not in c.get("metadata", {}).get("tags", []))


def test_markdown_words_counts_prose_and_skips_navigation(tmp_path):
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {"tags": ["navigation"]}, "source": "[← 01](01_x.ipynb) · [Index]"},
        {"cell_type": "markdown", "metadata": {}, "source": ["# A title\n", "three  more\twords"]},
        {"cell_type": "code", "metadata": {}, "source": "print('not prose either')", "outputs": []},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "01_x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert markdown_words(path) == 6  # '#', 'A', 'title', 'three', 'more', 'words'


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_fits_one_sitting(path):
    words = markdown_words(path)
    assert words <= MAX_WORDS, (f"{words} words of markdown (limit {MAX_WORDS}): move what goes deeper than a first "
                                "encounter to a going-further notebook")
    cells = len(load(path)["cells"])
    assert cells <= MAX_CELLS, (f"{cells} cells (limit {MAX_CELLS}): merge cells that belong together, or move what "
                                "goes deeper than a first encounter to a going-further notebook")


def test_course_map_lists_the_core_path_and_the_going_further_notebooks_apart():
    cells = load(ROOT / "notebooks" / "00_index.ipynb")["cells"]
    (course_map,) = [source(c) for c in cells if "course-map" in c.get("metadata", {}).get("tags", [])]
    core, _, further = course_map.partition("Going further")
    assert further, "the going-further list is missing"

    def linked(text):
        return re.findall(r"\]\((\d\d)_[^)]+\.ipynb\)", text)

    plan = course_plan()
    assert linked(core) == [name[:2] for name in plan.core], core
    assert linked(further) == [name[:2] for name in plan.going_further], further
