"""Find the bug: attention code with one realistic bug, checked as a code task, until the learner fixes it.

A "Find the bug" cell (tags ``find-the-bug`` and ``lecture-hide-output``) holds a function with one bug and, as its
last line, ``check_fix("02-softmax-over-queries", self_attention)``. The function is checked as a code task
(:func:`helpers.exercises.check_code`'s examples and probes); once it is right, ✓ (and the fix is recorded in the
learner's progress, kind ``"bug"``). While it is wrong, the check is a search in two stages:

1. the first failed check shows ✗, "one line is wrong" and the example the function fails on (its input, the
   results expected beside the function's own), and names no mistake;
2. from the second failed check on in this kernel, or once the hint ladder has named it, the check names the
   mistake it sees, what to change and where the course explains it.

The checks are counted per bug in this kernel (:mod:`helpers.exercises.attempts`, where :func:`reset_attempts`
starts the count afresh), never from the progress file: a notebook run top to bottom always shows the first stage.
The cell after it is the bug's hint ladder, ``hints("02-softmax-over-queries")`` (:mod:`helpers.exercises.hints`):
the idea, the failing example, the mistake named, then the fixed code, folded.

Each notebook's bugs are one module, ``n02.py`` for ``02_projections`` and so on, holding a list ``BUGS`` of
:class:`Bug`; the modules are found automatically, so adding a notebook's bugs touches no other file.
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.exercises import attempts
from helpers.exercises.code_tasks import MISTAKES, TASKS, Verdict, judge_task
from helpers.exercises.feedback import Feedback
from helpers.exercises.per_notebook import Entries, check_names
from helpers.exercises.progress import record

__all__ = ["Bug", "bugs", "bug", "judge_fix", "fix_feedback", "check_fix", "mistake_text", "NAMED_FROM", "ONE_LINE",
           "SEARCH_ON"]

# The failed check of a bug, counted in this kernel, from which the check names the mistake it sees.
NAMED_FROM = 2
# What the first stage says instead of a mistake's name.
ONE_LINE = "One line is wrong."
SEARCH_ON = ("Find that line, fix it and run the cell again. Run it again as it is, or press Hint under this cell, "
             "to have the mistake named.")


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
    idea : str
        The first step of the bug's hint ladder: what the function must do, in words, where the bug is, without
        naming the mistake or its fix.
    """

    name: str
    notebook: str
    task: str
    mistake: str
    idea: str

    def __post_init__(self) -> None:
        check_names(self.name, self.notebook, "bug")
        if self.task not in TASKS:
            raise ValueError(f"bug {self.name!r}: task must be one of {', '.join(TASKS)}; got {self.task!r}")
        keys = [m.key for m in TASKS[self.task].mistakes]
        if self.mistake not in keys:
            raise ValueError(f"bug {self.name!r}: mistake must be one that task {self.task!r} names "
                             f"({', '.join(keys)}); got {self.mistake!r}")
        if not isinstance(self.idea, str) or not self.idea.strip():
            raise ValueError(f"bug {self.name!r}: idea must say in words what the function must do; got {self.idea!r}")


_ENTRIES = Entries(__name__, "BUGS", "bug", "bugs")


def bugs() -> dict[str, Bug]:
    """Every bug of the course, by name, in notebook order (a new dict: changing it changes nothing)."""
    return _ENTRIES.all()


def bug(name: str) -> Bug:
    """The bug called ``name``.

    Raises
    ------
    ValueError
        If there is none, naming the known ones.
    """
    return _ENTRIES.one(name)


def judge_fix(name: str, fn) -> Verdict:
    """The verdict on the function of the "Find the bug" cell ``name``, checked as the bug's code task in its notebook:
    the verdict alone, noting and recording nothing (:func:`check_fix` is the cell's check that does both).

    Raises
    ------
    ValueError
        If no bug is called ``name``.
    """
    found = bug(name)
    return judge_task(found.task, fn, found.notebook)


def fix_feedback(name: str, verdict: Verdict, failed: int) -> Feedback:
    """What the check of the bug ``name`` says of ``verdict`` when ``failed`` of its checks in this kernel have failed,
    this one included: right; or the failing example and "one line is wrong" (the first stage); or, from the
    :data:`NAMED_FROM`-th failed check on or once the hint ladder named it, the example and the mistake."""
    if verdict.correct or not verdict.example:  # right, or nothing ran: there is no example to search from
        return verdict.feedback()
    if failed >= NAMED_FROM or attempts.mistake_named(name):
        return verdict.feedback("\n".join(part for part in (verdict.header, verdict.example, verdict.diagnosis)
                                           if part))
    return verdict.feedback(f"{verdict.header} {ONE_LINE}\n{verdict.example}\n{SEARCH_ON}", named=False)


def check_fix(name: str, fn) -> Feedback:
    """Check the function of the "Find the bug" cell ``name``: ✓ once fixed; while not, ✗ with the failing example,
    and the mistake named from the second failed check on (or once the hint ladder named it).

    The check is :func:`judge_fix`'s verdict, worded for its stage by :func:`fix_feedback`; this caller notes it for
    the stage and the hint ladder (:mod:`helpers.exercises.attempts`) and records it in the learner's progress.

    Parameters
    ----------
    name : str
        The bug's name (``"02-softmax-over-queries"``).
    fn : callable
        The cell's function, with the bug's task's signature.

    Returns
    -------
    Feedback
        ``.correct``; ``.example``, the example the function fails on. ``.message``: on the first failed check of
        this bug in this kernel, "one line is wrong", the example and how to go on, and no mistake's name (and
        ``.mistake`` is ''); from the second on, or once :func:`helpers.exercises.attempts.name_mistake` was called
        for it, the example and the mistake recognised (its name, what to change, where the course explains it;
        ``.mistake`` its key). Never raises for a broken ``fn``. Every check is recorded in the learner's progress
        (kind ``"bug"``, the mistake recognised as its answer), right or not.

    Raises
    ------
    ValueError
        If no bug is called ``name``.
    """
    verdict = judge_fix(name, fn)
    feedback = verdict.feedback()
    failed = attempts.note("bug", name, feedback)
    record("bug", name, correct=feedback.correct, answer=feedback.mistake or None)
    return fix_feedback(name, verdict, failed)


def mistake_text(name: str) -> str:
    """The mistake of the bug ``name`` in words: its name, what to change and where the course explains it.

    Raises
    ------
    ValueError
        If no bug is called ``name``.
    """
    return MISTAKES[bug(name).mistake].explained(bug(name).notebook)
