"""Predict, commit, reveal: the widget of a ``predict-commit`` cell.

In a notebook::

    from helpers.widgets.predict import predict
    predict("01-pasta-weight")

shows the prediction's question (for a number, what is possible and how precise to be: "A number from 0 to 1, to
within ±0.05."), an input for its form (a number field, a row of option buttons, a grid of a labelled matrix's
entries, or buttons naming parts of a matrix) and **Commit**. Committing locks the input and reveals the result: the
truth beside the learner's own answer, one line of why, and, for a wrong prediction, "You probably thought …" (not
for a close number: that is rounding). A wrong prediction is not an error: the reveal is drawn in neutral colours.
The verdict is recorded in the learner's progress (:mod:`helpers.exercises.progress`) once the result is shown, never
before: what listens to progress (an answer folded until its prediction is committed) opens with the reveal.
**Try again** unlocks the input for a fresh prediction; progress keeps the first try's verdict.

After a restart, a box whose prediction is in progress opens as it was left: the learner's first answer (the one
progress keeps) in the locked input and its verdict revealed, judged again against the truth as computed now, with
Try again.

In the lecture mode (:func:`helpers.widgets.live.lecture_mode`, or ``lecture=True``) the box waits for the room: commit
does not reveal, a **Reveal** button shows the result on the presenter's click, and the room votes first
(:class:`helpers.widgets.predict_vote.VotePanel`): the counts of hands for each answer, or the room's guesses at a
number; after discussion, a second vote; Reveal then shows both votes as bars beside the truth. A committed prediction
is recorded at the Reveal. The lecture mode restores nothing: the room predicts afresh.

What is asked and how an answer is judged is data, in :mod:`helpers.exercises.predictions`; this module only shows it
and reads what the learner typed or clicked. Nothing is written into an ``Output``: every part is an HTML widget or
a control whose properties are set.
"""

from __future__ import annotations

import html as _html
import re

import ipywidgets as widgets
import traitlets

from helpers.exercises.predictions import Judgement, Prediction, prediction
from helpers.exercises.progress import progress, record
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.choices import ChoiceList
from helpers.widgets.layout import course_box, course_button, wrap_row
from helpers.widgets.live import LiveWidget, lecture_mode
from helpers.widgets.predict_vote import VotePanel

__all__ = ["PredictionWidget", "predict"]

_CELL_WIDTH = "2.6em"


def _show(widget: widgets.Widget, shown: bool) -> None:
    widget.layout.display = None if shown else "none"


class PredictionWidget(LiveWidget, widgets.VBox):
    """One prediction: the question, an input for its form, Commit, and the reveal.

    Parameters
    ----------
    which : str or Prediction
        A prediction's name (``"01-pasta-weight"``, see :func:`helpers.exercises.predictions.predictions`) or a
        :class:`~helpers.exercises.predictions.Prediction` itself.
    large : bool
        Bigger text for a projector.
    lecture : bool or None
        The room votes first and the result waits for the Reveal button. None (the default): in the lecture mode
        only.

    Attributes
    ----------
    prediction : Prediction
    committed : bool (a read-only trait)
        True once a prediction is committed (the input is locked), until Try again.
    revealed : bool (a read-only trait)
        True once the result is shown, until Try again.
    judgement : Judgement or None
        The verdict on the committed prediction.
    restored : bool
        True when the box was built showing an earlier answer from progress (until Try again).
    vote : VotePanel or None
        The room's votes (lecture only).
    answer
        What the input holds now: the typed text (number), the option picked or None (choice, region), the
        ``(row, column)`` labels of the entry picked or None (cell).
    input : ipywidgets.Widget
        The input of the form (CSS class ``predict-input``): a Text, a ChoiceList, or a box of ToggleButtons.
    commit_button, reveal_button, try_again_button : ipywidgets.Button
    question_html, message_html, reveal_html : ipywidgets.HTML
        The question; what is wrong with the input (next to it); the reveal.

    CSS classes (stable, for tests and custom styles): ``predict`` and ``predict-form-<form>`` on the widget,
    ``predict-question``,
    ``predict-input``, ``predict-message``, ``predict-commit``, ``predict-reveal-button``, ``predict-try-again``,
    ``predict-reveal``, ``predict-precision`` (what a number may be and how precise); ``predict-cell`` on each entry
    of a cell grid; ``predict-vote`` on the room's votes (lecture).
    """

    committed = traitlets.Bool(False, read_only=True, help="a prediction is committed (the input is locked)")
    revealed = traitlets.Bool(False, read_only=True, help="the result is shown (and the verdict recorded)")

    def __init__(self, which, large: bool = False, lecture: bool | None = None):
        self.prediction = which if isinstance(which, Prediction) else prediction(which)
        super().__init__()
        self._live_setup(large)
        self._large = bool(large)
        self.lecture = lecture_mode() if lecture is None else bool(lecture)
        self.judgement: Judgement | None = None
        self.restored = False
        self._cells: dict[tuple[str, str], widgets.ToggleButton] = {}
        self._picked_cell: tuple[str, str] | None = None
        p, sz = self.prediction, theme.sizes(large)

        form = (f'<div style="color:{theme.MUTED_FG};font-size:{sz.small}" class="predict-precision">'
                f"{math_html(p.answer_form)}</div>") if p.answer_form else ""
        self.question_html = widgets.HTML(
            f'<div style="font-size:{sz.font};color:{theme.PANEL_FG};max-width:50em">'
            f'<b>Predict</b>, then commit: {math_html(p.question)}{form}</div>')
        self.message_html = widgets.HTML("")
        self.input = self._build_input()
        self.commit_button = course_button("Commit", "lock your prediction in, then see the result",
                                           "predict-commit", large)
        self.reveal_button = course_button("Reveal", "show the result next to the prediction",
                                           "predict-reveal-button", large)
        # The step the box asks for is its primary button, in the theme's accent (as 09's Check).
        self.commit_button.button_style = self.reveal_button.button_style = "primary"
        self.try_again_button = course_button("Try again", "unlock the input and predict afresh",
                                              "predict-try-again", large)
        self.reveal_html = widgets.HTML("")
        _show(self.reveal_button, False)
        _show(self.try_again_button, False)
        self.on_click(self.commit_button, lambda _b: self._commit(), where=self.message_html)
        self.on_click(self.reveal_button, lambda _b: self._reveal(), where=self.message_html)
        self.on_click(self.try_again_button, lambda _b: self._try_again(), where=self.message_html)
        self.vote = VotePanel(p, large) if self.lecture else None
        if self.vote is not None:
            self.watch(self.vote, lambda _change: self._show_buttons(), names="recorded", where=self.message_html)

        self.add_class("predict")
        self.add_class(f"predict-form-{p.form}")
        for w, cls in ((self.question_html, "predict-question"), (self.input, "predict-input"),
                       (self.message_html, "predict-message"), (self.reveal_html, "predict-reveal")):
            w.add_class(cls)
        self.children = [self.question_html, *([self.vote] if self.vote is not None else []), self.input,
                         self.message_html, wrap_row([self.commit_button, self.reveal_button, self.try_again_button]),
                         self.reveal_html]
        course_box(self)
        self.layout.border = f"1px solid {theme.BORDER}"
        self.layout.padding = "4px 10px"
        self.layout.margin = "4px 0"
        self.layout.max_width = "100%"
        if not self.lecture:
            self._run_guarded(self._restore, self.message_html)

    # -- the input of each form

    def _build_input(self) -> widgets.Widget:
        p = self.prediction
        if p.form == "number":
            box = widgets.Text(value="", description="Your prediction", placeholder="a number, e.g. 0.3",
                               continuous_update=False, style={"description_width": "initial"},
                               layout=widgets.Layout(width="18em"))
            self.watch(box, self._typed, where=self.message_html)
            return box
        if p.form in ("choice", "region"):
            buttons = ChoiceList(p.options, None, description="Your prediction", look="buttons", large=self._large)
            self.watch(buttons, lambda _change: self.clear_problem(self.message_html), where=self.message_html)
            return buttons
        return self._cell_grid()

    def _cell_grid(self) -> widgets.Box:
        """The matrix's entries as toggle buttons under the column labels, right of the row labels."""
        p, sz = self.prediction, theme.sizes(self._large)

        def label(text: str, align: str) -> widgets.HTML:
            return widgets.HTML(theme.label_html(text, self._large, align))

        children = [widgets.HTML(f'<div style="font-size:{sz.small};color:{theme.MUTED_FG};white-space:nowrap">'
                                 f"{math_html(p.row_axis)} · {math_html(p.col_axis)}</div>")]
        children += [label(c, "center") for c in p.col_labels]
        for r in p.row_labels:
            children.append(label(r, "right"))
            for c in p.col_labels:
                # No text of its own: the labels around it show where it is; its tooltip (the button's title) is
                # its accessible name, "row 'sat', column 'cat'".
                cell = widgets.ToggleButton(value=False, description="", tooltip=f"row '{r}', column '{c}'",
                                            layout=widgets.Layout(width=_CELL_WIDTH, height="1.9em", margin="1px"))
                cell.add_class("predict-cell")
                self.watch(cell, self._cell_handler(r, c), where=self.message_html)
                self._cells[(r, c)] = cell
                children.append(cell)
        grid = widgets.GridBox(children, layout=widgets.Layout(
            grid_template_columns=f"max-content repeat({len(p.col_labels)}, {_CELL_WIDTH})", align_items="center",
            max_width="100%", overflow="auto"))
        return grid

    def _cell_handler(self, row: str, col: str):
        def toggled(change) -> None:
            if change["new"]:
                self._picked_cell = (row, col)
                for key, other in self._cells.items():
                    if key != (row, col) and other.value:
                        other.value = False  # one entry at a time
                self.clear_problem(self.message_html)
            elif self._picked_cell == (row, col):
                self._picked_cell = None
        return toggled

    def _typed(self, change) -> None:
        """A typed number: say at once what cannot be read (nothing for an empty field: not predicted yet)."""
        text = change["new"]
        if not text.strip():
            self.clear_problem(self.message_html)
            return
        self.prediction.read(text)  # a ValueError is shown next to the field
        self.clear_problem(self.message_html)

    @property
    def answer(self):
        if self.prediction.form == "cell":
            return self._picked_cell
        return self.input.value

    def set_answer(self, answer) -> None:
        """Put ``answer`` into the input, as typing it or clicking it does (text for a number, an option, or a
        ``(row, column)`` pair of labels for a cell; None clears a pick)."""
        if self.prediction.form == "number":
            self.input.value = "" if answer is None else str(answer)
        elif self.prediction.form == "cell":
            if answer is None:
                for cell in self._cells.values():
                    cell.value = False
            else:
                self._cells[self.prediction.read(answer)].value = True
        else:
            self.input.value = None if answer is None else self.prediction.read(answer)

    # -- commit, reveal, try again

    def commit(self) -> Judgement | None:
        """Commit what the input holds, as the Commit button does; returns the judgement (None if nothing could be
        committed: the reason is shown next to the input)."""
        self._run_guarded(self._commit, self.message_html)
        return self.judgement if self.committed else None

    def reveal(self) -> None:
        """Show the result, as the Reveal button does (in the lecture mode, after commit)."""
        self._run_guarded(self._reveal, self.message_html)

    def try_again(self) -> None:
        """Unlock the input and clear it, as the Try again button does."""
        self._run_guarded(self._try_again, self.message_html)

    def _commit(self) -> None:
        if self.committed:
            return
        if self.revealed:
            raise ValueError("The result is shown: press Try again to predict afresh.")
        raw = self.answer
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            what = {"number": "type a number", "cell": "click one entry of the matrix"}.get(
                self.prediction.form, "pick one of the options")
            raise ValueError(f"Make a prediction first: {what}, then Commit.")
        judgement = self.prediction.judge(raw)
        if not judgement.readable:
            raise ValueError(judgement.problem)
        self.judgement = judgement
        self.clear_problem(self.message_html)
        self._lock(True)
        self.set_trait("committed", True)
        if self.lecture:
            self._show_buttons()
        else:
            self._reveal()

    def _reveal(self) -> None:
        voted = self.vote is not None and bool(self.vote.votes)
        if not self.committed and not voted:
            raise ValueError("Commit a prediction first: the result is shown next to it."
                             if self.vote is None else "Record the room's vote, or commit a prediction, first.")
        if self.revealed:
            return
        self._lock(True)
        if self.vote is not None:
            self.vote.lock()
        bars = self.vote.bars_html() if voted else ""
        self.reveal_html.value = bars + (self._reveal_markup(self.judgement) if self.committed
                                         else self._truth_markup())
        if self.prediction.form == "cell":
            self._cells[self.prediction.truth_value()].button_style = "success"
        self.set_trait("revealed", True)
        self._show_buttons()
        # Recorded once the result is on screen: what listens to progress (a folded answer) opens after it.
        if self.committed and not self.restored:
            record("prediction", self.prediction.name, correct=self.judgement.correct, answer=self.judgement.answer)

    def _restore(self) -> None:
        """Show the first answer progress keeps for this prediction, and its verdict (a box built after a restart)."""
        earlier = progress().result("prediction", self.prediction.name)
        if earlier is None or earlier.answer is None:
            return
        judgement = self.prediction.judge(earlier.answer)
        if not judgement.readable:
            return  # an answer the prediction no longer reads: a fresh box
        self.set_answer(earlier.answer)
        self.judgement, self.restored = judgement, True
        self._lock(True)
        self.set_trait("committed", True)
        tries = "your first try" if earlier.tries == 1 else f"the first of your {earlier.tries} tries"
        self.reveal_html.value = self._reveal_markup(judgement, note=f"Your earlier prediction ({tries}, kept in "
                                                                     "your progress).")
        if self.prediction.form == "cell":
            self._cells[self.prediction.truth_value()].button_style = "success"
        self.set_trait("revealed", True)
        self._show_buttons()

    def _try_again(self) -> None:
        with self.hold_trait_notifications():
            self._lock(False)
            for cell in self._cells.values():
                cell.button_style = ""
            self.set_answer(None)
            self.reveal_html.value = ""
            self.clear_problem(self.message_html)
            if self.vote is not None:
                self.vote.reset()
            self.judgement, self.restored = None, False
            self.set_trait("revealed", False)
            self.set_trait("committed", False)
            self._show_buttons()

    def _show_buttons(self) -> None:
        """Reveal while something waits to be revealed (lecture); Try again once something is committed or shown."""
        voted = self.vote is not None and bool(self.vote.votes)
        _show(self.reveal_button, self.lecture and not self.revealed and (self.committed or voted))
        _show(self.try_again_button, self.committed or self.revealed)

    def _lock(self, locked: bool) -> None:
        self.commit_button.disabled = locked
        self.input.disabled = locked
        for cell in self._cells.values():
            cell.disabled = locked

    def _reveal_markup(self, j: Judgement, note: str = "") -> str:
        """The truth beside the prediction, why, and what a wrong answer suggests: neutral colours, not an error."""
        table = theme.table_html(["Your prediction", "The result"], [[j.answer, j.truth]], self._large,
                                 align=["left", "left"])
        if j.correct:
            verdict = "✓ Right."
        elif j.close:
            verdict = f"Close: a matter of rounding (the box asks for the result {j.precision})."
        else:
            verdict = "Not quite: compare the two."
        lines = [f'<div style="font-weight:700">{_html.escape(verdict)}</div>', f"<div>{math_html(j.why)}</div>"]
        if j.thought:
            lines.append(f'<div style="font-style:italic">{math_html(j.thought)}</div>')
        if note:
            lines.insert(0, f'<div style="color:{theme.MUTED_FG}">{_html.escape(note)}</div>')
        return self._panel(table + "".join(lines), theme.OK_BORDER if j.correct else theme.BORDER)

    def _truth_markup(self) -> str:
        """The result and why, when only the room voted (nobody committed a prediction in the box)."""
        p = self.prediction
        table = theme.table_html(["The result"], [[p.text(p.truth_value())]], self._large, align=["left"])
        return self._panel(f"{table}<div>{math_html(p.why)}</div>", theme.BORDER)

    def _panel(self, body: str, bar: str) -> str:
        return (f'<div role="status" style="{theme.panel_style(self._large)}border-left:4px solid {bar};'
                f'padding:4px 10px;margin:4px 0;line-height:1.45;max-width:50em;'
                f'font-size:{theme.sizes(self._large).font}">{body}</div>')

    def _update(self) -> None:  # nothing is recomputed while the learner types: the prediction is judged on commit
        pass

    def __repr__(self) -> str:
        # The question itself, its last sentence (ipywidgets cuts a text form at 110 characters).
        question = re.split(r"(?<=[.!?])\s+", " ".join(self.prediction.question.split()))[-1]
        if len(question) > 80:
            question = question[:79] + "…"
        return f"Predict {self.prediction.name}: {question}"


def predict(name: str, large: bool = False, lecture: bool | None = None) -> PredictionWidget:
    """The widget of the prediction ``name``: its question, an input for its form, Commit, and the reveal.

    Parameters
    ----------
    name : str
        A prediction's name (``"01-pasta-weight"``): see :func:`helpers.exercises.predictions.predictions`.
    large : bool
        Bigger text for a projector.
    lecture : bool or None
        The room votes and the result waits for Reveal; None (the default): in the lecture mode only.

    Raises
    ------
    ValueError
        If no prediction is called ``name``.
    """
    return PredictionWidget(name, large=large, lecture=lecture)
