"""The reference solutions of the "Your turn" cells, folded, and the instructor switch that opens them.

In a notebook::

    from helpers.widgets.solutions import show_solution, instructor_switch
    show_solution("attention")   # the solution's code, folded: one click opens it
    instructor_switch()          # "Instructor: show all solutions": ticking it opens every fold of the kernel

The course's notebooks show a solution as the last step of a hint ladder (:func:`helpers.widgets.hints.hints`), which
folds it with :class:`SolutionFold`.

Whether solutions are shown is state, not a widget: an :class:`InstructorMode` (a traitlets ``HasTraits``) with
one Bool trait, ``show_solutions``. The switch is a checkbox linked to it; every :class:`SolutionFold`, and
the practice widgets of notebook 09 (:mod:`helpers.demos.practice`), observe it. This kernel's mode is
:data:`INSTRUCTOR`; nothing here builds a widget before it is asked for.
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from helpers.exercises import solution_source
from helpers.look import theme
from helpers.widgets.live import TextForm

__all__ = ["InstructorMode", "InstructorSwitch", "INSTRUCTOR", "instructor_switch", "SolutionFold", "show_solution"]


class InstructorMode(traitlets.HasTraits):
    """Whether every solution is shown (``show_solutions``), for the folds and practice widgets that observe it."""

    show_solutions = traitlets.Bool(False, help="True while the instructor switch is ticked")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._switch: InstructorSwitch | None = None

    def switch(self) -> InstructorSwitch:
        """The checkbox linked to this mode: made on the first call, the same one afterwards."""
        if self._switch is None:
            self._switch = InstructorSwitch(self)
        return self._switch


class InstructorSwitch(TextForm, widgets.Checkbox):
    """The checkbox "Instructor: show all solutions", linked to an :class:`InstructorMode`'s ``show_solutions``.

    Its text form is short (``Instructor switch: show all solutions (off)``) instead of the Checkbox's full
    state. CSS class ``practice-instructor``.
    """

    def __init__(self, mode: InstructorMode):
        super().__init__(value=mode.show_solutions, description="Instructor: show all solutions", indent=False,
                         layout=widgets.Layout(width="auto"))
        self.mode = mode
        self.add_class("practice-instructor")
        widgets.link((self, "value"), (mode, "show_solutions"))

    def __repr__(self) -> str:
        return f"Instructor switch: show all solutions ({'on' if self.value else 'off'})"


# This kernel's mode: every fold and the practice session of the notebook follow it.
INSTRUCTOR = InstructorMode()


def instructor_switch() -> InstructorSwitch:
    """The checkbox "Instructor: show all solutions" of this kernel (:data:`INSTRUCTOR`)."""
    return INSTRUCTOR.switch()


def _fold_html(task: str, open_: bool) -> str:
    code = solution_source(task).rstrip("\n")
    return (f'<details class="code-solution"{" open" if open_ else ""} style="color:{theme.PANEL_FG};'
            f'font-size:{theme.sizes().font};margin:4px 0">'
            f'<summary style="cursor:pointer">Solution: {task} (click to open)</summary>'
            f'{theme.code_block_html(code)}</details>')


class SolutionFold(TextForm, widgets.HTML):
    """A task's reference solution, folded (an HTML ``<details>``): one click opens it.

    It opens and closes with ``mode.show_solutions`` (the instructor switch), and is open from the start
    when the mode is on.
    """

    def __init__(self, task: str, mode: InstructorMode = INSTRUCTOR):
        self.task = task
        self.mode = mode
        # An unknown task raises ValueError here, in solution_source, before the widget is made.
        super().__init__(value=_fold_html(task, mode.show_solutions))
        self.add_class("code-solution")
        mode.observe(self._follow, names="show_solutions")

    @property
    def is_open(self) -> bool:
        return " open" in self.value.split(">", 1)[0]

    def show(self, show: bool = True) -> None:
        self.value = _fold_html(self.task, bool(show))

    def _follow(self, change) -> None:
        try:
            self.show(change["new"])
        except Exception:  # noqa: BLE001 - nothing may leave a handler
            pass

    def __repr__(self) -> str:
        return f"Solution: {self.task}, " + ("open" if self.is_open else "folded (click to open)")


def show_solution(task: str) -> SolutionFold:
    """The reference solution of ``task``, folded; open already when the instructor switch is on.

    Raises
    ------
    ValueError
        If ``task`` is not a known task (:data:`helpers.exercises.code_tasks.TASKS`).
    """
    return SolutionFold(task)
