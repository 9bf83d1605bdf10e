"""The course's plan: which notebooks, in which order, on the core path or going further (``course.toml``).

``course.toml`` at the top of the course's folder is the one list of the notebooks (the navigation, the index's
course map and the tests read it). A learner's view that follows the course (00's progress) reads it here::

    plan = find_course_plan()          # None where no course.toml is found
    plan.core                          # ("01_intuition", ..., "09_practice")

:func:`find_course_plan` looks next to the notebooks first (the kernel's working folder and the folder above it:
``notebooks/`` sits in the course's folder), then in the folder the ``helpers`` package was installed from (an
editable install, an author's checkout). A course copied without its ``course.toml`` (notebooks handed out alone)
has no plan: the caller falls back to what it knows from the notebooks' names.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PLAN_FILE", "CoursePlan", "read_course_plan", "find_course_plan", "notebook_title"]

PLAN_FILE = "course.toml"
# The folder that holds the helpers package: an author's checkout (and an editable install) has course.toml there.
_CHECKOUT = Path(__file__).resolve().parents[2]  # helpers/core/course.py -> the checkout


@dataclass(frozen=True)
class CoursePlan:
    """The notebooks of the course by name, without ``.ipynb`` (``"01_intuition"``).

    Attributes
    ----------
    index : str
        The index notebook (``"00_index"``).
    core : tuple of str
        The core path, in order.
    going_further : tuple of str
        The notebooks that go further, in order.
    """

    index: str
    core: tuple[str, ...]
    going_further: tuple[str, ...]

    @property
    def notebooks(self) -> tuple[str, ...]:
        """Every notebook in course order: the index, the core path, going further."""
        return (self.index, *self.core, *self.going_further)


def read_course_plan(path) -> CoursePlan:
    """The plan in the ``course.toml`` at ``path``.

    Raises
    ------
    OSError
        If the file cannot be read.
    ValueError
        If it is not TOML, or lacks ``index`` (a name) or ``core`` and ``going_further`` (lists of names).
    """
    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as err:
            raise ValueError(f"{path}: not a TOML file ({err})") from None
    index, core, further = data.get("index"), data.get("core"), data.get("going_further")
    names = [index, *(core if isinstance(core, list) else [None]), *(further if isinstance(further, list) else [None])]
    if not all(isinstance(name, str) and name for name in names):
        raise ValueError(f"{path}: index must be a notebook's name and core and going_further lists of names")
    return CoursePlan(index, tuple(core), tuple(further))


def find_course_plan(folder=None) -> CoursePlan | None:
    """The course's plan, from the first readable ``course.toml`` in ``folder`` (default: the working folder), the
    folder above it, or the folder the ``helpers`` package comes from; None if there is none."""
    here = Path.cwd() if folder is None else Path(folder)
    for place in (here, here.parent, _CHECKOUT):
        try:
            return read_course_plan(place / PLAN_FILE)
        except (OSError, ValueError):
            continue
    return None


def notebook_title(name: str) -> str:
    """A notebook's short title from its name: ``"06_cross_attention"`` -> ``"06 · Cross attention"``."""
    number, _, words = name.partition("_")
    return f"{number} · {words.replace('_', ' ').capitalize()}" if words else name
