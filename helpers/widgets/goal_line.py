"""The goal line of a design task: the goal, and after every valid change ✓ or ✗ with what is still off.

One component for every widget that carries a design task (:mod:`helpers.exercises.design`): the explorers
(:mod:`helpers.widgets.explorer`) and notebook 07's pattern builder. The widget that holds it says when to judge and
with which arrays; the line judges them with :func:`helpers.exercises.design.check_design` and shows the verdict.
"""

from __future__ import annotations

import ipywidgets as widgets

from helpers.exercises.design import DesignTask, check_design
from helpers.exercises.feedback import Feedback
from helpers.look import theme

__all__ = ["GoalLine"]


class GoalLine(widgets.HTML):
    """A design task's goal line (CSS class ``attn-goal``), hidden when there is no task.

    Parameters
    ----------
    task : DesignTask or None
    large : bool, bigger text for a projector
    **kwargs : passed to ``ipywidgets.HTML`` (a shared ``style``, say)

    Attributes
    ----------
    task : DesignTask or None
    feedback : Feedback or None, the last verdict shown (None before the first)
    met : bool, whether the goal is met now (False without a task or before the first verdict)
    """

    def __init__(self, task: DesignTask | None, large: bool = False, **kwargs):
        super().__init__("", layout=widgets.Layout(max_width="100%"), **kwargs)
        self.task = task
        self.feedback: Feedback | None = None
        self._large = bool(large)
        self.add_class("attn-goal")
        self.layout.display = None if task is not None else "none"

    @property
    def met(self) -> bool:
        return self.feedback is not None and self.feedback.correct

    def judge(self, arrays: dict | None = None, feedback: Feedback | None = None, settings: list[str] = ()) -> Feedback:
        """Judge ``arrays`` (name -> array, the task's names) against the goal, or show ``feedback`` as it is (a
        verdict the widget gives itself), and return the verdict shown.

        ``settings`` names the settings the goal is judged with that the widget does not use now ("with the causal
        mask"): the line says that the views show the learner's settings.
        """
        task = self.task
        if feedback is None:
            feedback = check_design(task.name, **arrays)
        self.feedback = feedback
        note = ""
        if settings:
            sz = theme.sizes(self._large)
            note = (f'<div style="font-size:{sz.small};color:{theme.MUTED_FG}">The goal is judged '
                    f'{" and ".join(settings)}; the views here show your settings.</div>')
        self.value = theme.goal_html(task.goal, feedback.correct, feedback.message, task.hint, self._large, note)
        return feedback
