"""The course's plan for the authoring tools: ``course.toml`` read once, and the notebooks it lists as paths.

The reading itself is :func:`helpers.core.course.read_course_plan`, the one reader of ``course.toml`` (the learner's
progress view uses it too); this module reads the checkout's file once and names the folders the tools work in.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from helpers.core.course import PLAN_FILE, CoursePlan, read_course_plan

__all__ = ["ROOT", "NOTEBOOKS", "course_plan", "course_notebooks"]

# The checkout: course/ sits at its top, beside course.toml and notebooks/.
ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


@cache
def course_plan() -> CoursePlan:
    """``course.toml``: the index, the core path and the notebooks that go further (names without ``.ipynb``)."""
    return read_course_plan(ROOT / PLAN_FILE)


def course_notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    """Every notebook of the course in course order (index, core path, going further), as paths in ``folder``."""
    return [Path(folder) / f"{name}.ipynb" for name in course_plan().notebooks]
