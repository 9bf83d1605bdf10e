"""Find the bug: attention code with one realistic bug, checked as a code task, until the learner fixes it.

A "Find the bug" cell (tags ``find-the-bug`` and ``lecture-hide-output``) holds a function with one bug and, as its
last line, ``check_fix("02-softmax-over-queries", self_attention)``. The function is checked as a code task
(:func:`helpers.exercises.check_code`'s examples and probes), so while the bug is in, the verdict is ✗ and names the
bug's mistake; once it is fixed, ✓ (and the fix is recorded in the learner's progress, kind ``"bug"``). The cell
after it shows the task's reference solution, folded: ``show_solution("self_attention")``.

Each notebook's bugs are one module, ``n02.py`` for ``02_projections`` and so on, holding a list ``BUGS`` of
:class:`Bug`; the modules are found automatically, so adding a notebook's bugs touches no other file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from helpers.exercises.code_tasks import TASKS, check_task
from helpers.exercises.per_notebook import check_names, collect, find_entry
from helpers.exercises.progress import record
from helpers.feedback import Feedback

__all__ = ["Bug", "bugs", "bug", "check_fix"]


@dataclass(frozen=True)
class Bug:
    """One "Find the bug" cell's bug.

    Parameters
    ----------
    name : str
        ``"02-softmax-over-queries"``: the notebook's number, then lower-case words joined by ``-``.
    notebook : str
        ``"02_projections"``: the notebook whose ``find-the-bug`` cell holds it.
    task : str
        The code task the cell's function is checked as (a key of
        :data:`helpers.exercises.code_tasks.TASKS`): its signature is the function's.
    mistake : str
        The mistake the bug is: a key of that task's mistake table (``TASKS[task].mistakes``), so the verdict on
        the buggy function names it.
    """

    name: str
    notebook: str
    task: str
    mistake: str

    def __post_init__(self) -> None:
        check_names(self.name, self.notebook, "bug")
        if self.task not in TASKS:
            raise ValueError(f"bug {self.name!r}: task must be one of {', '.join(TASKS)}; got {self.task!r}")
        keys = [m.key for m in TASKS[self.task].mistakes]
        if self.mistake not in keys:
            raise ValueError(f"bug {self.name!r}: mistake must be one that task {self.task!r} names "
                             f"({', '.join(keys)}); got {self.mistake!r}")


@cache
def _all() -> dict[str, Bug]:
    return collect(__name__, "BUGS")


def bugs() -> dict[str, Bug]:
    """Every bug of the course, by name, in notebook order (a new dict: changing it changes nothing)."""
    return dict(_all())


def bug(name: str) -> Bug:
    """The bug called ``name``.

    Raises
    ------
    ValueError
        If there is none, naming the known ones.
    """
    return find_entry(__name__, "BUGS", name, "bug", "bugs")


def check_fix(name: str, fn) -> Feedback:
    """Check the function of the "Find the bug" cell ``name``: ✗ naming the mistake while the bug is in, ✓ once fixed.

    Parameters
    ----------
    name : str
        The bug's name (``"02-softmax-over-queries"``).
    fn : callable
        The cell's function, with the bug's task's signature.

    Returns
    -------
    Feedback
        As :func:`helpers.exercises.check_code` returns for the bug's task: ``.correct``, ``.message`` (what is
        wrong, on which example, the mistake's name and where the course explains it), ``.mistake``. Never raises
        for a broken ``fn``. Every check is recorded in the learner's progress (kind ``"bug"``), right or not.

    Raises
    ------
    ValueError
        If no bug is called ``name``.
    """
    feedback = check_task(bug(name).task, fn)
    record("bug", name, correct=feedback.correct, answer=feedback.mistake or None)
    return feedback
