"""Notebook 00's view of the learner's progress: per notebook what is done and what is left, a review list, Hand in.

In a notebook::

    from helpers.demos.progress import progress_view
    progress_view()

What it shows comes from the progress file (:mod:`helpers.exercises.progress`), which every notebook's kernel writes
to; the view reads it when it is built and again on **Refresh**:

* the totals, kind by kind (predictions committed, design goals met, bugs fixed, Your turns and lesson questions
  right), out of everything the course defines;
* one line per notebook, the core path and the notebooks that go further apart (``course.toml``, read by
  :mod:`helpers.core.course`): "3 of 4 predictions, 1 of 2 bugs, 2 of 2 Your turns", and what is left, in words
  (:mod:`helpers.exercises.course_work`);
* the review list: the predictions missed and the tasks that took several tries, each with a link to its notebook;
* **Reset** forgets everything recorded, after a second click to confirm; **Hand in** writes the progress next to
  the notebooks as ``progress-<learner>.json`` (:mod:`helpers.exercises.hand_in`) and says where, or why it could not.

None of it is in the text form or the static picture of a stored notebook: they hold no learner's data, and do not
change when the course's content does.
"""

from __future__ import annotations

import html as _html
from pathlib import Path

import ipywidgets as widgets

from helpers.core.course import find_course_plan, notebook_title
from helpers.exercises import QUESTIONS, bugs, design_tasks, predictions, progress, reset_progress
from helpers.exercises.code_tasks import YOUR_TURN_TASKS
from helpers.exercises.course_work import count_words, course_work, describe, review_list
from helpers.exercises.hand_in import hand_in
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.layout import course_box, course_button, wrap_row
from helpers.widgets.live import LiveWidget
from helpers.widgets.snapshot import OMIT_CLASS

__all__ = ["ROWS", "NOTHING_TO_REVIEW", "course_totals", "ProgressView", "progress_view"]

# One row per kind of work: (the progress kind, what the row is called, where the learner does it).
ROWS = (
    ("prediction", "Predictions committed", "the Predict cells"),
    ("design", "Design goals met", "the design tasks and explorers with a goal line"),
    ("bug", "Bugs fixed", "the Find the bug cells"),
    ("your-turn", "Your turns right", "the Your turn cells"),
    ("question", "Lesson questions right", "notebook 09"),
)
NOTHING_TO_REVIEW = ("Nothing to review yet. Predictions you miss, and tasks that take three tries or more, will be "
                     "listed here with a link to their notebook.")
_WITHOUT_WORK = "nothing to check here: read it and explore"


def course_totals() -> dict[str, tuple[str, ...]]:
    """Everything the course asks for, by progress kind: the names a learner can complete."""
    return {"prediction": tuple(predictions()), "design": tuple(design_tasks()), "bug": tuple(bugs()),
            "your-turn": YOUR_TURN_TASKS, "question": tuple(QUESTIONS)}


# JupyterLab's colour for links in rendered text (a widget's HTML gets no link style of its own).
LINK = "var(--jp-content-link-color, #1565c0)"


def _link(notebook: str) -> str:
    return (f'<a href="{_html.escape(notebook)}.ipynb" style="color:{LINK};text-decoration:underline">'
            f"{_html.escape(notebook_title(notebook))}</a>")


class ProgressView(LiveWidget, widgets.VBox):
    """The learner's progress: totals, per notebook done and left, a review list; Refresh, Reset (confirmed), Hand in.

    Parameters
    ----------
    large : bool
        Projector sizes.
    folder : path, optional
        The notebooks' folder: where Hand in writes, and where ``course.toml`` is looked for (in it and above it).
        The kernel's working folder by default (in JupyterLab, the notebook's folder).

    Attributes
    ----------
    done : dict kind -> tuple of str
        The names recorded (those the course still defines), as last read.
    totals : dict kind -> tuple of str
        :func:`course_totals`.
    groups : tuple of (title, tuple of notebook names)
        The notebooks, grouped as ``course.toml`` says: the core path, then going further.
    reviews : list of :class:`helpers.exercises.course_work.Review`
        The review list, as last read.
    table_html, notebooks_html, review_html, hand_in_html : ipywidgets.HTML
        The totals, the notebooks' lines, the review list, what Hand in did.
    refresh_button, reset_button, confirm_button, cancel_button, hand_in_button : ipywidgets.Button
    confirm_row : ipywidgets.Box
        "Forget everything recorded?" with the confirm and cancel buttons, shown after Reset.

    CSS classes: ``course-progress`` on the view, ``progress-table``, ``progress-notebooks``, ``progress-review``,
    ``progress-refresh``, ``progress-reset``, ``progress-reset-confirm``, ``progress-reset-cancel``,
    ``progress-hand-in``, ``progress-hand-in-message``.
    """

    def __init__(self, large: bool = False, folder=None):
        super().__init__()
        self._live_setup(large)
        self._large = bool(large)
        self.folder = Path.cwd() if folder is None else Path(folder)
        self.totals = course_totals()
        self.groups = self._groups()
        self.done: dict[str, tuple[str, ...]] = {}
        self.reviews = []
        self.table_html, self.notebooks_html, self.review_html, self.hand_in_html = (
            self._learners_html(cls) for cls in ("progress-table", "progress-notebooks", "progress-review",
                                                 "progress-hand-in-message"))
        self.refresh_button = course_button("Refresh", "read the progress again (other notebooks add to it)",
                                            "progress-refresh", large)
        self.reset_button = course_button("Reset", "forget every prediction, goal, fix and answer recorded",
                                          "progress-reset", large)
        self.hand_in_button = course_button("Hand in", "write your progress next to the notebooks for your "
                                            "instructor: progress-<your name>.json", "progress-hand-in", large)
        self.confirm_button = course_button("Yes, forget it all", "reset the progress for good",
                                            "progress-reset-confirm", large)
        self.cancel_button = course_button("Cancel", "keep the progress", "progress-reset-cancel", large)
        self.confirm_row = wrap_row([widgets.HTML("Forget everything recorded?"), self.confirm_button,
                                      self.cancel_button])
        self.confirm_row.layout.display = "none"
        self.on_click(self.refresh_button, lambda _b: self.refresh())
        self.on_click(self.reset_button, lambda _b: self._ask())
        self.on_click(self.confirm_button, lambda _b: self._reset())
        self.on_click(self.cancel_button, lambda _b: self._ask(False))
        self.on_click(self.hand_in_button, lambda _b: self._hand_in(), where=self.hand_in_html)
        self.add_class("course-progress")
        self.children = [self.table_html, self.notebooks_html, self.review_html,
                         wrap_row([self.refresh_button, self.reset_button, self.hand_in_button, self.hand_in_html],
                                  align_items="center"),
                         self.confirm_row, self.status_html]
        course_box(self)
        self.refresh()

    @staticmethod
    def _learners_html(css_class: str) -> widgets.HTML:
        html = widgets.HTML("", layout=widgets.Layout(max_width="100%"))
        html.add_class(css_class)
        # The learner's own: left out of a stored notebook's picture (helpers.widgets.snapshot), as out of the text
        # form.
        html.add_class(OMIT_CLASS)
        return html

    def _groups(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        plan = find_course_plan(self.folder)
        if plan is None:  # notebooks handed out without course.toml: those that ask for something, by number
            return (("The notebooks", tuple(course_work())),)
        return (("The core path", plan.core), ("Going further", plan.going_further))

    # -- drawing

    def refresh(self) -> None:
        """Read the progress file again and redraw."""
        recorded = progress()
        self.done = {kind: tuple(n for n in recorded.names(kind) if n in self.totals[kind]) for kind, _, _ in ROWS}
        rows = [[label, f"{len(self.done[kind])} of {len(self.totals[kind])}", where] for kind, label, where in ROWS]
        self.table_html.value = theme.table_html(["", "done", "where"], rows, self._large,
                                                 align=["left", "right", "left"], caption="Your progress")
        self.notebooks_html.value = self._notebooks_html(recorded)
        self.reviews = review_list(recorded)
        self.review_html.value = self._review_html()
        self._show_status("")

    def notebook_line(self, notebook: str, recorded=None) -> tuple[str, list[str]]:
        """One notebook's counts, "3 of 4 predictions, 1 of 2 bugs", and what is left there, in words."""
        recorded = progress() if recorded is None else recorded
        counts, left = [], []
        for kind, names in course_work().get(notebook, {}).items():
            done = recorded.names(kind)
            counts.append(count_words(kind, sum(n in done for n in names), len(names)))
            left += [describe(kind, n, recorded.result(kind, n)) for n in names if n not in done]
        return (", ".join(counts) or _WITHOUT_WORK), left

    def _notebooks_html(self, recorded) -> str:
        sz = theme.sizes(self._large)
        parts = []
        for title, notebooks in self.groups:
            items = []
            for notebook in notebooks:
                counts, left = self.notebook_line(notebook, recorded)
                if left:  # folded: fourteen notebooks' lists in full would bury the review list
                    tail = (f'<details style="font-size:{sz.small}"><summary style="cursor:pointer;color:'
                            f'{theme.MUTED_FG}">left: {len(left)}</summary><ul style="margin:0;padding-left:1.4em">'
                            + "".join(f"<li>{math_html(item)}</li>" for item in left) + "</ul></details>")
                else:
                    tail = "" if counts == _WITHOUT_WORK else " ✓ all done"
                items.append(f'<li class="progress-notebook">{_link(notebook)}: {math_html(counts)}{tail}</li>')
            parts.append(f'<div style="font-weight:700;margin-top:6px">{math_html(title)}</div>'
                         f'<ul style="margin:2px 0;padding-left:1.4em">{"".join(items)}</ul>')
        return f'<div style="font-size:{sz.font};color:{theme.PANEL_FG};max-width:60em">{"".join(parts)}</div>'

    def _review_html(self) -> str:
        sz = theme.sizes(self._large)
        head = '<div style="font-weight:700;margin-top:6px">To review</div>'
        if not self.reviews:
            body = f'<p style="margin:2px 0">{_html.escape(NOTHING_TO_REVIEW)}</p>'
        else:
            body = '<ul style="margin:2px 0;padding-left:1.4em">' + "".join(
                f"<li>{_link(r.notebook)}: {math_html(r.what)} ({math_html(r.why)})</li>"
                for r in self.reviews) + "</ul>"
        return f'<div style="font-size:{sz.font};color:{theme.PANEL_FG};max-width:60em">{head}{body}</div>'

    # -- the buttons

    def _ask(self, asking: bool = True) -> None:
        self.confirm_row.layout.display = None if asking else "none"

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

    def _hand_in(self, learner: str | None = None) -> Path:
        self.clear_problem(self.hand_in_html)
        try:
            path = hand_in(self.folder, learner)
        except OSError as err:
            raise ValueError(f"Your progress could not be handed in: {err.strerror or err} "
                             f"({self.folder}). Ask your instructor where to put it.") from None
        count = sum(len(records) for records in progress().records.values())
        self.hand_in_html.value = theme.verdict_html(
            f"Handed in: {path.name} in {path.parent} ({count} record{'' if count == 1 else 's'}). "
            "It goes with the assignment when it is collected; or send the file to your instructor.",
            True, self._large)
        return path

    def hand_in(self, learner: str | None = None) -> Path | None:
        """What Hand in does: write ``progress-<learner>.json`` in :attr:`folder` and say where; None (and the reason
        next to the button) if it could not. ``learner`` defaults to the hub's or the login's name."""
        return self._run_guarded(self._hand_in, self.hand_in_html, learner)

    def _update(self) -> None:
        self.refresh()

    def __repr__(self) -> str:
        # No counts: the stored notebook must not change when a learner's progress or the course's content does.
        return "Your progress: per notebook what is done and what is left, a review list, and Hand in"


def progress_view(large: bool = False, folder=None) -> ProgressView:
    """The learner's progress over the whole course, with Refresh, Reset and Hand in (``folder``: see
    :class:`ProgressView`)."""
    return ProgressView(large=large, folder=folder)
