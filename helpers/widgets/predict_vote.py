"""The room's vote in a Predict box, in the lecture mode: vote, discuss, vote again, then the reveal.

Peer instruction (Crouch & Mazur, 2001): before the presenter reveals a result, the room commits to an answer by a
show of hands; neighbours then convince each other, and the room votes again. :class:`VotePanel` takes the counts
(a number field per option, or per entry of a matrix; for a number, the guesses themselves, "0.3, 0.5, 0.25"),
keeps up to two votes, and draws both as horizontal bars beside the truth when the Predict box reveals it
(:meth:`VotePanel.bars_html`). The counting and the tally are :mod:`helpers.exercises.predictions.vote`; this module
only shows them and reads what the presenter types. A count that cannot be used is refused next to the fields, and
the vote is not recorded until every field can be read.
"""

from __future__ import annotations

import html as _html

import ipywidgets as widgets
import traitlets

from helpers.core.numbers import number_text
from helpers.exercises.predictions import Prediction
from helpers.exercises.predictions.vote import ROUNDS, Tally, read_count, read_guesses, tally, vote_keys
from helpers.look import theme
from helpers.look.mathtext import math_html, math_words
from helpers.widgets.layout import course_button, wrap_row
from helpers.widgets.live import LiveWidget

__all__ = ["VotePanel", "VOTE_COLOURS"]

# The bars of the first and the second vote: two blues of the theme, light then dark (a second vote after discussion
# reads as the firmer one); neither is the green or red of a verdict, as a vote is neither right nor wrong.
VOTE_COLOURS = ("var(--jp-brand-color2, #64b5f6)", "var(--jp-brand-color0, #0d47a1)")
_GUESSES = "guesses"
_FIELD_WIDTH = "4.5em"
# A count field's own label (its accessible name, "votes for 'cat'") is hidden: the option's text beside it, or the
# row and column labels around it, show it on screen. Hidden this way it stays in the accessibility tree.
_HIDDEN_LABEL_CSS = ("<style>.predict-vote-counts .widget-text > .widget-label{position:absolute !important;"
                     "width:1px !important;min-width:0 !important;height:1px;padding:0;margin:-1px;overflow:hidden;"
                     "clip:rect(0 0 0 0);white-space:nowrap;border:0}</style>")


class VotePanel(LiveWidget, widgets.VBox):
    """The room's votes on one prediction: fields for the counts, Record vote, and the bars shown at the reveal.

    Parameters
    ----------
    prediction : Prediction
    large : bool
        Bigger text for a projector.

    Attributes
    ----------
    fields : dict
        The count fields by what they count: an option, a ``(row, column)`` entry, or ``"guesses"`` (one field, for a
        number). Each is an ``ipywidgets.Text`` (CSS class ``predict-vote-field``).
    fields_box : ipywidgets.Box
        The fields with their labels; hidden once both votes are recorded, shown again by :meth:`reset`.
    votes : list
        The votes recorded, first to last: a dict from each option (or entry) to its count, or a tuple of guesses.
    record_button : ipywidgets.Button
        Records the vote the fields hold (CSS class ``predict-vote-record``).
    message_html, status_html : ipywidgets.HTML
        What cannot be used in the fields (under them); what was recorded and what comes next.

    recorded : int (a read-only trait)
        How many votes are recorded (0, 1 or 2): observe it to hear of a new vote.

    CSS classes: ``predict-vote`` on the panel, ``predict-vote-fields`` around the fields (with
    ``predict-vote-counts`` when they are count fields), ``predict-vote-message``, ``predict-vote-status``, and
    ``predict-vote-bars`` around the bars of the reveal.
    """

    recorded = traitlets.Int(0, read_only=True, help="how many votes are recorded")

    def __init__(self, prediction: Prediction, large: bool = False):
        super().__init__()
        self._live_setup(large)
        self.prediction = prediction
        self._large = bool(large)
        self.votes: list = []
        self.fields: dict = {}
        self.heading_html = widgets.HTML("")
        self.message_html = widgets.HTML("")
        self.status_html = widgets.HTML("")
        self.record_button = course_button("Record vote 1", "keep these counts as the room's vote",
                                           "predict-vote-record", large)
        self.on_click(self.record_button, lambda _b: self._record(), where=self.message_html)
        self.fields_box = grid = self._fields_grid()
        grid.add_class("predict-vote-fields")
        self.add_class("predict-vote")
        self.message_html.add_class("predict-vote-message")
        self.status_html.add_class("predict-vote-status")
        self.children = [self.heading_html, grid, self.message_html, wrap_row([self.record_button]),
                         self.status_html, widgets.HTML(_HIDDEN_LABEL_CSS, layout=widgets.Layout(display="none"))]
        self.layout.border = f"1px dashed {theme.BORDER}"
        self.layout.padding = "2px 8px"
        self.layout.margin = "4px 0"
        self.layout.max_width = "100%"
        self._show_round()

    # -- the fields of each form

    def _count_field(self, name: str) -> widgets.Text:
        field = widgets.Text(value="", placeholder="0", description=name, continuous_update=False,
                             layout=widgets.Layout(width=_FIELD_WIDTH))
        field.add_class("predict-vote-field")
        return field

    def _fields_grid(self) -> widgets.Box:
        p = self.prediction
        if p.form == "number":
            field = widgets.Text(value="", description="The room's guesses", placeholder="e.g. 0.3, 0.5, 0.25",
                                 continuous_update=False, style={"description_width": "initial"},
                                 layout=widgets.Layout(width="28em", max_width="100%"))
            field.add_class("predict-vote-field")
            self.fields[_GUESSES] = field
            self.watch(field, self._checker(_GUESSES), where=self.message_html)
            return wrap_row([field])
        if p.form == "cell":
            return self._cell_fields()
        rows = []
        for option in p.options:
            # The option as the room reads it, its math typeset (W^Q raised), and as a screen reader says it.
            field = self._count_field(f"votes for {math_words(option)}")
            self.fields[option] = field
            self.watch(field, self._checker(option), where=self.message_html)
            rows += [field, widgets.HTML(f'<div style="font-size:{theme.sizes(self._large).font};'
                                         f'color:{theme.PANEL_FG};padding-left:6px">{math_html(option)}</div>')]
        grid = widgets.GridBox(rows, layout=widgets.Layout(grid_template_columns=f"{_FIELD_WIDTH} minmax(0, 1fr)",
                                                           align_items="center", max_width="100%"))
        grid.add_class("predict-vote-counts")
        return grid

    def _cell_fields(self) -> widgets.GridBox:
        p = self.prediction

        def label(text: str, align: str) -> widgets.HTML:
            return widgets.HTML(theme.label_html(text, self._large, align))

        children = [widgets.HTML(f'<div style="font-size:{theme.sizes(self._large).small};color:{theme.MUTED_FG};'
                                 f'white-space:nowrap">{_html.escape(p.row_axis)} · {_html.escape(p.col_axis)}'
                                 "</div>")]
        children += [label(c, "center") for c in p.col_labels]
        for r in p.row_labels:
            children.append(label(r, "right"))
            for c in p.col_labels:
                field = self._count_field(f"votes for row '{r}', column '{c}'")
                self.fields[(r, c)] = field
                self.watch(field, self._checker((r, c)), where=self.message_html)
                children.append(field)
        grid = widgets.GridBox(children, layout=widgets.Layout(
            grid_template_columns=f"max-content repeat({len(p.col_labels)}, {_FIELD_WIDTH})", align_items="center",
            max_width="100%", overflow="auto"))
        grid.add_class("predict-vote-counts")
        return grid

    def _checker(self, key):
        return lambda _change: self._checked(key)

    def _checked(self, key) -> None:
        """A field just typed into: say at once what cannot be used, and mark the field."""
        self._read_field(key)
        if not any(self._field_problem(k) for k in self.fields):
            self.clear_problem(self.message_html)

    def _field_problem(self, key) -> str:
        try:
            self._read_field(key, mark=False)
        except ValueError as err:
            return str(err)
        return ""

    def _read_field(self, key, mark: bool = True):
        field = self.fields[key]
        try:
            value = (read_guesses(self.prediction, field.value) if key == _GUESSES else read_count(field.value))
        except ValueError as err:
            if mark:
                field.layout.border = f"2px solid {theme.ERROR_BORDER}"
            raise ValueError(f"{field.description}: {err}") from None
        if mark:
            field.layout.border = None
        return value

    # -- votes

    @property
    def round(self) -> int:
        """The vote the fields are for now (1 or 2); ``ROUNDS + 1`` once every vote is recorded."""
        return len(self.votes) + 1

    def current(self):
        """The vote the fields hold now: a dict from each option (or entry) to its count, or a tuple of guesses.

        Raises
        ------
        ValueError
            Naming the first field that cannot be used, or saying that nobody voted.
        """
        if self.prediction.form == "number":
            vote = self._read_field(_GUESSES)
            size = len(vote)
        else:
            vote = {key: self._read_field(key) for key in vote_keys(self.prediction)}
            size = sum(vote.values())
        if not size:
            what = "type the room's guesses" if self.prediction.form == "number" else "count the hands for each answer"
            raise ValueError(f"Nobody has voted yet: {what}, then Record vote {self.round}.")
        return vote

    def record(self) -> bool:
        """Record the vote the fields hold, as the Record vote button does; False if it could not be (the reason is
        shown next to the fields)."""
        before = len(self.votes)
        self._run_guarded(self._record, self.message_html)
        return len(self.votes) > before

    def _record(self) -> None:
        if self.round > ROUNDS:
            raise ValueError("Both votes are recorded: Reveal shows them beside the result.")
        self.votes.append(self.current())
        self.clear_problem(self.message_html)
        for field in self.fields.values():
            field.value = ""
        self._show_round()
        self.set_trait("recorded", len(self.votes))

    def set_votes(self, counts) -> None:
        """Type ``counts`` into the fields, as the presenter does: a mapping from each option (or ``(row, column)``
        entry) to what is typed, or for a number the guesses' text ("0.3, 0.5")."""
        if self.prediction.form == "number":
            self.fields[_GUESSES].value = str(counts)
            return
        for key, text in counts.items():
            self.fields[key].value = str(text)

    def lock(self) -> None:
        """No more votes (the result is shown)."""
        for field in self.fields.values():
            field.disabled = True
        self.record_button.disabled = True

    def reset(self) -> None:
        """Forget every vote and empty the fields, for a fresh round."""
        self.votes = []
        for field in self.fields.values():
            field.disabled = False
            field.value = ""
            field.layout.border = None
        self.record_button.disabled = False
        self.clear_problem(self.message_html)
        self._show_round()
        self.set_trait("recorded", 0)

    def _show_round(self) -> None:
        sz = theme.sizes(self._large)
        if self.prediction.form == "number":
            how = "type each guess the room gives (one number per person asked)"
        else:
            how = "count the hands for each answer and type the counts"
        done = len(self.votes)
        if done < ROUNDS:
            title = f"The room votes (vote {done + 1} of {ROUNDS})"
            step = (f"{how}, then Record vote {done + 1}." if done == 0
                    else f"Let the room discuss with their neighbours, then vote again: {how}.")
        else:
            title, step = "The room has voted", "Reveal shows both votes beside the result."
        self.heading_html.value = (f'<div style="font-size:{sz.font};color:{theme.PANEL_FG}"><b>'
                                   f"{_html.escape(title)}</b>: {_html.escape(step)}</div>")
        self.record_button.description = f"Record vote {min(done + 1, ROUNDS)}"
        self.record_button.layout.display = None if done < ROUNDS else "none"
        # Both votes in: the empty fields would only crowd the projector; the bars on Reveal show the counts.
        self.fields_box.layout.display = None if done < ROUNDS else "none"
        if done:
            one, many = ("guess", "guesses") if self.prediction.form == "number" else ("vote", "votes")
            said = "; ".join(f"vote {k + 1}: {n} {one if n == 1 else many}"
                             for k, n in enumerate(self._size(v) for v in self.votes))
            self.status_html.value = (f'<div role="status" style="font-size:{sz.small};color:{theme.MUTED_FG}">'
                                      f"Recorded: {_html.escape(said)}.</div>")
        else:
            self.status_html.value = ""

    @staticmethod
    def _size(vote) -> int:
        return sum(vote.values()) if isinstance(vote, dict) else len(vote)

    # -- the reveal

    def tally(self) -> Tally | None:
        """The votes recorded, side by side beside the truth; None before the first vote."""
        return tally(self.prediction, self.votes) if self.votes else None

    def bars_html(self) -> str:
        """Each vote as horizontal bars (count and share) per answer, the truth's row marked; '' before any vote."""
        t = self.tally()
        if t is None:
            return ""
        header = ["Answer", *(f"Vote {k + 1} ({n})" for k, n in enumerate(t.totals))]
        rows = []
        for r, label in enumerate(t.labels):
            mark = "✓ " if r == t.truth else ""
            name = f"{mark}{label}" + (" (the result)" if r == t.truth else "")
            cells = [(name, f"font-weight:700;border-left:4px solid {theme.OK_BORDER};" if r == t.truth
                      else "border-left:4px solid transparent;")]
            for v, colour in zip(range(len(t.counts)), VOTE_COLOURS):
                share = t.shares(v)[r]
                cells.append((f"{t.counts[v][r]} ({number_text(100 * share, 0, unit='%')})",
                              theme.bar_style(share, colour, "6em")))
            rows.append(cells)
        table = theme.table_html(header, rows, self._large, align=["left"] + ["left"] * len(t.counts),
                                 caption="The room's votes")
        return f'<div class="predict-vote-bars" style="max-width:100%;overflow-x:auto">{table}</div>'

    def _update(self) -> None:  # the fields are read when a vote is recorded
        pass
