"""Notebook 00's view of the learner's progress: predictions, design tasks, bugs and Your turns done, out of all.

In a notebook::

    from helpers.demos.progress import progress_view
    progress_view()

The counts come from the progress file (:mod:`helpers.exercises.progress`), which every notebook's kernel writes
to, so the view reads it when it is built and again on **Refresh**. **Reset** forgets everything recorded, after a
second click to confirm. The totals are what the course defines: every prediction, design task and bug in the data
modules, and every code task a "Your turn" cell asks for.
"""

from __future__ import annotations

import ipywidgets as widgets

from helpers import theme
from helpers.exercises import bugs, design_tasks, predictions, progress, reset_progress
from helpers.exercises.code_tasks import YOUR_TURN_TASKS
from helpers.layout import course_box, course_button, wrap_row
from helpers.live import LiveWidget
from helpers.snapshot import OMIT_CLASS

__all__ = ["ROWS", "course_totals", "ProgressView", "progress_view"]

# One row per kind of work: (the progress kind, what the row is called, where the learner does it).
ROWS = (
    ("prediction", "Predictions committed", "the Predict cells"),
    ("design", "Design goals met", "the design tasks and explorers with a goal line"),
    ("bug", "Bugs fixed", "the Find the bug cells"),
    ("your-turn", "Your turns right", "the Your turn cells"),
)


def course_totals() -> dict[str, tuple[str, ...]]:
    """Everything the course asks for, by progress kind: the names a learner can complete."""
    return {"prediction": tuple(predictions()), "design": tuple(design_tasks()), "bug": tuple(bugs()),
            "your-turn": YOUR_TURN_TASKS}


class ProgressView(LiveWidget, widgets.VBox):
    """The learner's progress, kind by kind, out of what the course defines; Refresh and Reset (confirmed).

    Attributes
    ----------
    done : dict kind -> tuple of str
        The names recorded (those the course still defines), as last read.
    totals : dict kind -> tuple of str
        :func:`course_totals`.
    table_html : ipywidgets.HTML
        The counts (CSS class ``progress-table``).
    refresh_button, reset_button, confirm_button, cancel_button : ipywidgets.Button

    CSS classes: ``course-progress`` on the view, ``progress-table``, ``progress-refresh``, ``progress-reset``,
    ``progress-reset-confirm``, ``progress-reset-cancel``.
    """

    def __init__(self, large: bool = False):
        super().__init__()
        self._live_setup(large)
        self._large = bool(large)
        self.totals = course_totals()
        self.done: dict[str, tuple[str, ...]] = {}
        self.table_html = widgets.HTML("")
        self.table_html.add_class("progress-table")
        # The learner's counts are left out of a stored notebook's picture (helpers.snapshot), as out of the text form.
        self.table_html.add_class(OMIT_CLASS)
        self.refresh_button = course_button("Refresh", "read the progress again (other notebooks add to it)",
                                            "progress-refresh", large)
        self.reset_button = course_button("Reset", "forget every prediction, goal, fix and Your turn recorded",
                                          "progress-reset", large)
        self.confirm_button = course_button("Yes, forget it all", "reset the progress for good",
                                            "progress-reset-confirm", large)
        self.cancel_button = course_button("Cancel", "keep the progress", "progress-reset-cancel", large)
        self._confirm_row = wrap_row([widgets.HTML("Forget everything recorded?"), self.confirm_button,
                                      self.cancel_button])
        self._confirm_row.layout.display = "none"
        self.on_click(self.refresh_button, lambda _b: self.refresh())
        self.on_click(self.reset_button, lambda _b: self._ask())
        self.on_click(self.confirm_button, lambda _b: self._reset())
        self.on_click(self.cancel_button, lambda _b: self._ask(False))
        self.add_class("course-progress")
        self.children = [self.table_html, wrap_row([self.refresh_button, self.reset_button]), self._confirm_row,
                         self.status_html]
        course_box(self)
        self.refresh()

    def refresh(self) -> None:
        """Read the progress file again and redraw."""
        recorded = progress()
        self.done = {kind: tuple(n for n in recorded.names(kind) if n in self.totals[kind]) for kind, _, _ in ROWS}
        rows = [[label, f"{len(self.done[kind])} of {len(self.totals[kind])}", where] for kind, label, where in ROWS]
        self.table_html.value = theme.table_html(["", "done", "where"], rows, self._large,
                                                 align=["left", "right", "left"], caption="Your progress")
        self._show_status("")

    def _ask(self, asking: bool = True) -> None:
        self._confirm_row.layout.display = None if asking else "none"

    def _reset(self) -> None:
        self._ask(False)
        try:
            reset_progress()
        except OSError as err:
            raise ValueError(f"The progress file could not be written ({err.strerror or err}).") from None
        self.refresh()

    def reset(self) -> None:
        """Forget everything recorded and redraw (what Reset, then the confirmation, does)."""
        self._run_guarded(self._reset, None)

    def _update(self) -> None:
        self.refresh()

    def __repr__(self) -> str:
        # No counts: the stored notebook must not change when a learner's progress or the course's content does.
        return "Your progress: predictions committed, design goals met, bugs fixed, Your turns right"


def progress_view(large: bool = False) -> ProgressView:
    """The learner's progress over the whole course, with Refresh and Reset."""
    return ProgressView(large=large)
