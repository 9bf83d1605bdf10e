"""The hint ladder under a Your turn or a Find the bug cell: one **Hint** button, one step at a time.

In a notebook, the cell after the exercise::

    from helpers.widgets.hints import hints
    hints("attention")                  # a Your turn's task
    hints("02-softmax-over-queries")    # a bug

Each press of **Hint** shows the next step of the ladder (:func:`helpers.exercises.hints.ladder`): the idea in words,
then the example the learner's function failed on at its last check (kept up to date as the learner checks again),
for a bug then the mistake named (and from then on the bug's check names it too), and last the solution, folded as
:func:`helpers.widgets.solutions.show_solution` folds it. The instructor switch
(:data:`helpers.widgets.solutions.INSTRUCTOR`) shows the solution, open, whatever step the ladder is at. ``hints(name,
solution=False)``, what the student edition calls, stops before the solution.

Before any press the ladder shows only what it offers and the button, so a stored notebook names no mistake and
shows no solution. CSS classes: ``hint-ladder`` (the ladder), ``hint-next`` (the button), ``hint-step`` and
``hint-step-<kind>`` (each step shown), ``hint-message`` (a problem, if any).
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from helpers.exercises.hints import Ladder, Step, ladder, step_shown
from helpers.exercises.progress import subscribe
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.layout import course_box, course_button, wrap_row
from helpers.widgets.live import LiveWidget
from helpers.widgets.solutions import INSTRUCTOR, InstructorMode, SolutionFold

__all__ = ["HintLadder", "hints"]

# What the button offers next, by the kind of the step it shows.
NEXT = {"idea": "Hint: the idea", "example": "Next hint: your failing example", "mistake": "Next hint: the mistake",
        "solution": "Show the solution"}


def _show(widget: widgets.Widget, shown: bool) -> None:
    widget.layout.display = None if shown else "none"


def _offer(ladder_: Ladder) -> str:
    """What the ladder offers, said before any press (the same with and without the solution step)."""
    kinds = ladder_.kinds
    parts = ["the idea", "then the example your function fails on"]
    if "mistake" in kinds:
        parts.append("then the mistake named")
    return "Stuck? Press Hint for one hint at a time: " + ", ".join(parts) + "."


class HintLadder(LiveWidget, widgets.VBox):
    """The hint ladder of a Your turn task or a bug: a Hint button that shows one more step per press.

    Parameters
    ----------
    name : str
        A Your turn task (``"attention"``) or a bug (``"02-softmax-over-queries"``).
    solution : bool
        End with the solution (default) or stop before it (the student edition).
    mode : InstructorMode
        Whose ``show_solutions`` shows the solution at once (default: this kernel's instructor switch).

    Attributes
    ----------
    shown : int (a read-only trait)
        How many steps the learner has asked for.
    steps_shown : tuple of str
        The kinds of the steps on screen, in order (the solution's too when the instructor switch shows it).
    solution_fold : SolutionFold or None
        The folded solution, once it is on screen.
    """

    shown = traitlets.Int(0, read_only=True, help="how many steps the learner has asked for")
    page_rules = False  # its picture leaves the pictures after it as they were (helpers.widgets.live.TextForm)
    _unsubscribe = staticmethod(lambda: None)  # until __init__ subscribes (a refused name never does)
    _follow = None  # the handler that follows the instructor switch, once registered

    def __init__(self, name: str, solution: bool = True, mode: InstructorMode = INSTRUCTOR):
        self.ladder = ladder(name, solution)  # an unknown name raises ValueError before any widget is made
        super().__init__()
        self._live_setup()
        self.name, self.mode, self.solution_fold = name, mode, None
        sz = theme.sizes()
        self.offer_html = widgets.HTML(f'<div style="font-size:{sz.font};color:{theme.PANEL_FG};max-width:50em">'
                                       f"{math_html(_offer(self.ladder))}</div>")
        self.steps_box = widgets.VBox([])
        self.message_html = widgets.HTML("")
        self.next_button = course_button(NEXT["idea"], "show the next hint", "hint-next")
        self.on_click(self.next_button, lambda _b: self._next(), where=self.message_html)
        self._follow = self.watch(mode, lambda _change: self._draw(), names="show_solutions", where=self.message_html)
        self._unsubscribe = subscribe(self.guarded(self._recorded, self.message_html))
        self.add_class("hint-ladder")
        self.message_html.add_class("hint-message")
        self.children = [self.offer_html, self.steps_box, wrap_row([self.next_button]), self.message_html]
        course_box(self)
        self.layout.border = f"1px solid {theme.BORDER}"
        self.layout.padding = "4px 10px"
        self.layout.margin = "4px 0"
        self.layout.max_width = "100%"
        self._draw()

    # -- what a learner does

    def next_hint(self) -> None:
        """Show the next step, as the Hint button does (nothing more once every step is shown)."""
        self._run_guarded(self._next, self.message_html)

    @property
    def steps_shown(self) -> tuple[str, ...]:
        return self._kinds(self.ladder, self.shown)

    def _kinds(self, ladder_: Ladder, shown: int) -> tuple[str, ...]:
        """The kinds of the steps on screen when ``shown`` steps were asked for."""
        kinds = ladder_.kinds[:shown]
        if "solution" in ladder_.kinds and "solution" not in kinds and self.mode.show_solutions:
            kinds += ("solution",)
        return kinds

    def _next(self) -> None:
        if self.shown < len(self.ladder.steps):
            self._draw(self.shown + 1)

    def _recorded(self, result) -> None:
        """A check was recorded in this kernel: if it was this ladder's, its failing example may have changed."""
        if (result.kind, result.name) == (self.ladder.kind, self.name) and "example" in self.steps_shown:
            self._draw()

    # -- drawing

    def _step_html(self, step: Step) -> widgets.HTML:
        sz = theme.sizes()
        text = "".join(f"<div>{math_html(line)}</div>" for line in step.text.split("\n") if line)
        code = theme.code_block_html(step.code) if step.code else ""
        view = widgets.HTML(f'<div style="{theme.panel_style()}border-left:4px solid {theme.BORDER};'
                            f'padding:4px 10px;margin:4px 0;line-height:1.45;max-width:50em;font-size:{sz.font}">'
                            f"<b>{math_html(step.title)}</b>{text}{code}</div>")
        view.add_class("hint-step")
        view.add_class(f"hint-step-{step.kind}")
        return view

    def _draw(self, shown: int | None = None) -> None:
        """Show ``shown`` steps (default: as many as now), each as it stands now; all or nothing changes."""
        shown = self.shown if shown is None else shown
        fresh = ladder(self.name, "solution" in self.ladder.kinds)  # the failing example as of now
        views = []
        for kind in self._kinds(fresh, shown):
            if kind == "solution":
                if self.solution_fold is None:
                    self.solution_fold = SolutionFold(fresh.task, self.mode)
                self.solution_fold.show(self.mode.show_solutions)
                views.append(self.solution_fold)
            else:
                views.append(self._step_html(fresh.steps[fresh.kinds.index(kind)]))
        for kind in fresh.kinds[self.shown:shown]:
            step_shown(fresh, kind)
        self.ladder = fresh
        self.set_trait("shown", shown)
        self.steps_box.children = views
        left = fresh.kinds[shown:]
        _show(self.next_button, bool(left) and not (left == ("solution",) and self.mode.show_solutions))
        if left:
            self.next_button.description = NEXT[left[0]]
        self.clear_problem(self.message_html)

    def _update(self) -> None:  # nothing is typed: the steps change on a press, a check or the instructor switch
        pass

    def close(self) -> None:
        """Close the widget; it stops following the checks and the instructor switch."""
        self._unsubscribe()
        if self._follow is not None:
            self.mode.unobserve(self._follow, names="show_solutions")
            self._follow = None
        super().close()

    def __repr__(self) -> str:
        if not self.shown:
            return f"Hints for {self.name}: none shown yet (press Hint)"
        return f"Hints for {self.name}: " + ", ".join(self.steps_shown) + " shown"


def hints(name: str, solution: bool = True) -> HintLadder:
    """The hint ladder of ``name``, a Your turn task or a bug: one Hint button, one step per press.

    Parameters
    ----------
    name : str
        A Your turn task (``"attention"``) or a bug (``"02-softmax-over-queries"``).
    solution : bool
        End with the solution, folded (default), or stop before it (the student edition).

    Raises
    ------
    ValueError
        If ``name`` is neither a Your turn task nor a bug, naming the ones there are.
    """
    return HintLadder(name, solution=solution)
