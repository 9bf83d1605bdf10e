"""Hints before answers: the ladder of every Your turn and every Find the bug, one step at a time.

A ladder (:func:`ladder`) is for a Your turn task (``"attention"``) or a bug (``"02-softmax-over-queries"``). Its
steps, in order:

1. ``"idea"``: what the function must do, in words (the task's or the bug's ``idea``, data beside it);
2. ``"example"``: the example the learner's function failed on at the last check of it in this kernel (its input,
   the results expected beside the function's own), or what to do first when there is none;
3. for a bug, ``"mistake"``: the mistake named, what to change and where the course explains it. Showing it
   (:func:`step_shown`) makes the bug's next check name it too;
4. with ``solution=True``, ``"solution"``: the reference solution (for a bug, its task's: the fixed code), which a
   notebook shows folded. The student edition asks for ladders without it.

What the learner sees is built by :mod:`helpers.widgets.hints` (a Hint button that shows the next step); here is only
what each step says, so it can be read and tested without widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.exercises import attempts
from helpers.exercises.bugs import bug, bugs, mistake_text
from helpers.exercises.code_tasks import NOT_WRITTEN, TASKS, YOUR_TURN_TASKS, solution_source

__all__ = ["STEP_KINDS", "Step", "Ladder", "ladder", "ladder_names", "step_shown", "NO_CHECK_YET"]

STEP_KINDS = ("idea", "example", "mistake", "solution")
NO_CHECK_YET = "Run the check above first: the example your function fails on appears here."


@dataclass(frozen=True)
class Step:
    """One step of a ladder.

    Attributes
    ----------
    kind : str
        One of :data:`STEP_KINDS`.
    title : str
        What the step is ("The idea", "Your failing example", "The mistake", "The solution").
    text : str
        What it says, in words ('' for the solution).
    code : str
        Text shown in a fixed-width font after it: the failing example, or the solution's source; '' if none.
    """

    kind: str
    title: str
    text: str
    code: str = ""


@dataclass(frozen=True)
class Ladder:
    """The hint ladder of a Your turn task or a bug, as it stands now.

    Attributes
    ----------
    name : str
        The task or the bug.
    kind : str
        ``"your-turn"`` or ``"bug"``.
    task : str
        The code task checked (a bug's task; the task itself for a Your turn).
    steps : tuple of Step
        In the order they are shown.
    """

    name: str
    kind: str
    task: str
    steps: tuple[Step, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(step.kind for step in self.steps)


def ladder_names() -> tuple[str, ...]:
    """Every name a ladder exists for: the Your turn tasks in course order, then the bugs."""
    return (*YOUR_TURN_TASKS, *bugs())


def _example_step(kind: str, name: str) -> Step:
    title = "Your failing example"
    last = attempts.last(kind, name)
    if last is None:
        return Step("example", title, NO_CHECK_YET)
    if last.mistake == NOT_WRITTEN:
        return Step("example", title, "Your function is not written yet: write it, run the check, and the example "
                                      "it fails on appears here.")
    if last.correct:
        return Step("example", title, "Your last check passed: no example fails.")
    if not last.example:
        return Step("example", title, f"Your last check could not try your function on an example: {last.message}")
    return Step("example", title, "Your last check failed on this example:", last.example)


def ladder(name: str, solution: bool = True) -> Ladder:
    """The hint ladder of ``name``, a Your turn task or a bug, with its failing example as of now.

    Parameters
    ----------
    name : str
        A task of :data:`~helpers.exercises.code_tasks.YOUR_TURN_TASKS` or a bug's name.
    solution : bool
        End with the solution (the course's notebooks) or not (the student edition).

    Raises
    ------
    ValueError
        If ``name`` is neither, naming the ones there are.
    """
    if isinstance(name, str) and name in YOUR_TURN_TASKS:
        kind, task, idea, mistake = "your-turn", name, TASKS[name].idea, None
    elif isinstance(name, str) and name in bugs():
        found = bug(name)
        kind, task, idea, mistake = "bug", found.task, found.idea, mistake_text(name)
    else:
        raise ValueError(f"name must be a Your turn task or a bug: {', '.join(ladder_names())}; got {name!r}")
    steps = [Step("idea", "The idea", idea), _example_step(kind, name)]
    if mistake is not None:
        steps.append(Step("mistake", "The mistake", mistake))
    if solution:
        steps.append(Step("solution", "The fixed code" if kind == "bug" else "The solution", "",
                          solution_source(task)))
    return Ladder(name, kind, task, tuple(steps))


def step_shown(ladder_: Ladder, kind: str) -> None:
    """What showing a step of ``ladder_`` changes beyond the page: a bug's mistake, once shown, is named by its next
    check too (:func:`helpers.exercises.attempts.name_mistake`)."""
    if ladder_.kind == "bug" and kind == "mistake":
        attempts.name_mistake(ladder_.name)
