"""The concept inventory in notebooks 00 and 09: the test itself, and what changed from before to after.

In a notebook::

    from helpers.demos.inventory import inventory_test, inventory_results
    inventory_test("pre")      # 00, before anything is taught; 09 ends with inventory_test("post")
    inventory_results()        # 00: per objective, right before and after, the normalized gain, the items missed

The test shows every item of :func:`helpers.exercises.inventory.items`, numbered and grouped by objective, each as a
question over its options (the post-test in :func:`~helpers.exercises.inventory.post_order`), with one **Submit**
for the whole test. Nothing is judged or shown before the whole test is submitted; a test with questions left open
is not submitted, and the message beside the button names them. Submitting records every item in the learner's
progress (kinds ``"inventory-pre"`` and ``"inventory-post"``, the option's text as the answer), locks the options and
shows the score and, per item, right or wrong, with what a wrong choice suggests. A test submitted before (in
another kernel, before a restart) is shown as it was submitted, from progress: the answers chosen and the results,
not a blank form.

**What the pre-test reveals.** It keeps the right answers back, and names only the notebook that teaches each item
missed. The post-test asks the same questions: a pre-test that showed the answers would turn the post-test into a test
of remembering them, and the gain would measure the test, not the course. A question left open is also worth having:
trying to answer before the lesson, then meeting the answer in it, helps the answer stick (the pre-question effect).
The post-test shows everything: for an item missed, the right answer and the section that teaches it, as a link.

The stored notebook, the site and the text forms show the blank form only: the static picture of a test leaves out
the learner's choices and results, and the text forms carry no answers and no counts.
"""

from __future__ import annotations

import html as _html
from contextlib import ExitStack
from urllib.parse import quote as _url_quote

import ipywidgets as widgets

from helpers.core.numbers import number_text
from helpers.exercises.inventory import (
    OBJECTIVES,
    TEST_KINDS,
    Item,
    answered,
    item as inventory_item,
    items,
    judge_item,
    missed,
    normalized_gain,
    objective_scores,
    post_order,
)
from helpers.exercises.progress import progress, record
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.choices import ChoiceList
from helpers.widgets.layout import LinkedHTML, choice_list, course_box, course_button, wrap_row
from helpers.widgets.live import LiveWidget
from helpers.widgets.snapshot import OMIT_CLASS

__all__ = ["WHEN", "section_href", "InventoryTest", "inventory_test", "InventoryResults", "inventory_results"]

# The two sittings: what the notebook calls them, the progress kind each records under.
WHEN = {"pre": "inventory-pre", "post": "inventory-post"}
_WHERE_TAKEN = {"pre": "at the top of 00_index", "post": "at the end of 09_practice"}


def _kind(when) -> str:
    if when not in WHEN:
        raise ValueError(f"when must be 'pre' (before the course) or 'post' (after it); got {when!r}")
    return WHEN[when]


def section_href(notebook: str, section: str) -> str:
    """The link to a section of a notebook, relative to the notebooks folder: ``04_masking.ipynb#1.-Encoder-...``.

    JupyterLab names a rendered heading by its text with every space made a "-". Following the link (from a
    :class:`helpers.widgets.layout.LinkedHTML`) opens the notebook in a tab beside this one; JupyterLab 4 scrolls to the
    heading when that notebook is open already, and shows its top when it opens it, which is why the link's text also
    says the section's title.
    """
    return f"{notebook}.ipynb#{_url_quote(section.replace(' ', '-'), safe=':,.()-')}"


def _where_html(item: Item) -> str:
    """Where the course teaches ``item``: the notebook and the section, as a link to the section."""
    href = _html.escape(section_href(item.notebook, item.section))
    return (f'<a href="{href}" class="inventory-link">{_html.escape(item.notebook)}, '
            f"“{_html.escape(item.section)}”</a>")


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _numbers(numbers: list[int]) -> str:
    """Question numbers in words, runs of three or more as a range: ``[3]`` -> ``3``; ``[3, 7, 12]`` -> ``3, 7 and
    12``; ``[1, 2, 3, 4, 9]`` -> ``1–4 and 9``."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    words = [f"{run[0]}–{run[-1]}" if len(run) >= 3 else ", ".join(map(str, run)) for run in runs]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


class InventoryTest(LiveWidget, widgets.VBox):
    """The concept inventory as a test: every item with its options, one Submit, then the results.

    Parameters
    ----------
    when : {"pre", "post"}
        Before the course (00) or after it (09, the options in the post-test's order).
    large : bool
        Bigger text for a projector.

    Attributes
    ----------
    kind : str
        The progress kind it records under (``"inventory-pre"`` or ``"inventory-post"``).
    choices : dict name -> ChoiceList (helpers.widgets.choices)
        One per item, in the order shown; ``.value`` is the option chosen (its text), or None.
    submitted : bool
        True once the test is submitted (now, or recorded before).
    verdicts : dict name -> bool or None
        After submission, right or wrong per item (None: not answered when it was submitted).
    submit_button : ipywidgets.Button
    message_html, result_html : ipywidgets.HTML
        What keeps the test from being submitted (beside the button); the score.

    CSS classes: ``concept-inventory`` and ``concept-inventory-pre`` / ``-post`` on the widget, ``inventory-objective``
    on each objective's heading, ``inventory-item`` on each item, ``inventory-verdict`` on its result,
    ``inventory-submit``, ``inventory-message``, ``inventory-result``; ``inventory-link`` on a link to a section.
    """

    def __init__(self, when: str = "pre", large: bool = False):
        self.kind = _kind(when)
        self.when = when
        super().__init__()
        self._live_setup(large)
        self._large = bool(large)
        self._items = items()
        self.submitted = False
        self.verdicts: dict[str, bool | None] = {}
        self.choices: dict[str, ChoiceList] = {}
        self._verdict_html: dict[str, LinkedHTML] = {}
        parts: list[widgets.Widget] = []
        for objective, words in OBJECTIVES.items():
            heading = widgets.HTML(theme.heading_html(f"Objective {objective}: {words}", large))
            heading.add_class("inventory-objective")
            parts.append(heading)
            for name, item in self._items.items():
                if item.objective == objective:
                    parts.append(self._item_box(len(self.choices) + 1, name, item))
        self.submit_button = course_button("Submit", "submit every answer at once; nothing is shown before",
                                           "inventory-submit", large)
        self.submit_button.button_style = "primary"
        self.message_html = widgets.HTML("")
        self.message_html.add_class("inventory-message")
        self.result_html = widgets.HTML("")
        self.result_html.add_class("inventory-result")
        self.result_html.add_class(OMIT_CLASS)  # the learner's score stays out of a stored notebook's picture
        self.on_click(self.submit_button, lambda _b: self._submit(), where=self.message_html)
        self.add_class("concept-inventory")
        self.add_class(f"concept-inventory-{when}")
        self.children = [*parts, wrap_row([self.submit_button, self.message_html], align_items="center"),
                         self.result_html, self.status_html]
        course_box(self)
        self._restore()

    def _item_box(self, number: int, name: str, item: Item) -> widgets.VBox:
        options = item.options if self.when == "pre" else post_order(name)
        radio = choice_list(f"{number}. {item.question}", options, large=self._large)
        # Shown once there is a verdict; a LinkedHTML, as the post-test's verdict links the section that teaches it.
        verdict = LinkedHTML(layout=widgets.Layout(display="none"))
        verdict.add_class("inventory-verdict")
        verdict.add_class(OMIT_CLASS)  # right or wrong is the learner's: not in the picture
        self.choices[name] = radio
        self._verdict_html[name] = verdict
        box = widgets.VBox([radio, verdict], layout=widgets.Layout(margin="4px 0 8px 0", max_width="100%"))
        box.add_class("inventory-item")
        return box

    # -- submitting

    def open_questions(self) -> list[int]:
        """The numbers (from 1, as shown) of the questions without an answer."""
        return [k for k, radio in enumerate(self.choices.values(), start=1) if radio.value is None]

    def submit(self) -> None:
        """What Submit does: record and show the results, or say which questions are still open."""
        self._run_guarded(self._submit, self.message_html)

    def _submit(self) -> None:
        if self.submitted:
            return
        if self._restore():  # submitted meanwhile, from another copy of this cell or another kernel
            self.result_html.value += theme.notice_html(
                "This test was submitted before (in another run of this cell or another kernel): the answers shown "
                "are the ones recorded then, as the first answers count.", self._large)
            return
        open_ = self.open_questions()
        if len(open_) == len(self.choices):
            raise ValueError("Not submitted: no question is answered yet. Answer every question, then submit.")
        if open_:
            raise ValueError(f"Not submitted: {_plural(len(open_), 'question', 'questions')} without an answer "
                             f"({_numbers(open_)}). Answer every question, then submit.")
        shown, saved = {}, True
        for name, radio in self.choices.items():
            verdict = judge_item(name, radio.value)
            saved = record(self.kind, name, correct=verdict.correct, answer=verdict.answer) and saved
            shown[name] = (verdict.answer, verdict.correct)
        self._show_submitted(shown)
        if not saved:
            self.result_html.value += theme.notice_html(
                "Your answers could not be saved: the progress file could not be written (see the README for where "
                "it is kept). The results above last only as long as this page.", self._large)

    def _restore(self) -> bool:
        """Show a test submitted before (recorded in progress) as it was submitted; False if it was not."""
        recorded = progress().results(self.kind)
        if not any(name in recorded for name in self._items):
            return False
        shown = {}
        for name in self._items:
            result = recorded.get(name)
            if result is None or result.correct is None:
                shown[name] = (None, None)
                continue
            verdict = judge_item(name, result.answer)
            shown[name] = (verdict.answer if verdict.readable else None, result.correct)
        self._show_submitted(shown)
        return True

    def _show_submitted(self, shown: dict) -> None:
        """Lock the options and show the results: ``shown`` is name -> (the option chosen or None, right or None)."""
        self.submitted = True
        for name, radio in self.choices.items():
            chosen, right = shown[name]
            if chosen is not None:
                radio.value = chosen
            radio.disabled = True
            self.verdicts[name] = right
            self._verdict_html[name].value = self._verdict(name, chosen, right)
            self._verdict_html[name].layout.display = None
        self.submit_button.layout.display = "none"
        self.message_html.value = ""
        self.result_html.value = self._score_html()

    def _verdict(self, name: str, chosen: str | None, right: bool | None) -> str:
        item = self._items[name]
        if right is None:
            return theme.notice_html("Not answered when the test was submitted.", self._large)
        if right:
            return theme.verdict_html("✓ Right.", True, self._large)
        lines = ["✗ Not this one."]
        if chosen in item.misconceptions:
            lines.append(f"What this choice suggests: {item.misconceptions[chosen]}")
        if self.when == "pre":
            lines.append(f"You will meet this in notebook {item.notebook}.")
            return theme.verdict_html("\n".join(lines), False, self._large)
        lines.append(f"The right answer: {item.answer}")
        return theme.verdict_html("\n".join(lines), False, self._large,
                                  more_html=f"<div>Taught in {_where_html(item)}.</div>")

    def _score_html(self) -> str:
        judged = [right for right in self.verdicts.values() if right is not None]
        head = f"Submitted: {sum(judged)} of {_plural(len(judged), 'question', 'questions')} right."
        if self.when == "pre":
            tail = ("The right answers are kept back: notebook 09 ends with the same questions, and 00 then shows, "
                    "objective by objective, what changed. Nothing here is graded.")
        else:
            tail = ("Notebook 00 compares this with your first try, objective by objective, and lists the items "
                    "missed with the sections that teach them.")
        return (f'<div role="status" style="{theme.panel_style(self._large)}padding:6px 10px;margin:6px 0;'
                f'max-width:50em"><b>{math_html(head)}</b> {math_html(tail)}</div>')

    def _update(self) -> None:  # nothing recomputes: the test changes only on Submit
        pass

    # -- what a page keeps

    def _repr_mimebundle_(self, **kwargs):
        # The picture a page keeps (helpers.widgets.snapshot) is the blank form, whatever was chosen or recorded: the
        # options are cleared while it is drawn and put back after (hold_sync sends the browser only the values put
        # back).
        with ExitStack() as stack:
            chosen = {name: radio.value for name, radio in self.choices.items()}
            for radio in self.choices.values():
                stack.enter_context(radio.hold_sync())
            try:
                for radio in self.choices.values():
                    radio.value = None
                bundle = super()._repr_mimebundle_(**kwargs)
            finally:
                for name, radio in self.choices.items():
                    radio.value = chosen[name]
        return bundle

    def __repr__(self) -> str:
        # No answers, no counts: a stored notebook shows the same text for every learner.
        when = "before the course" if self.when == "pre" else "after the course"
        return f"Concept inventory, {when}: multiple-choice questions, submitted all at once"


def inventory_test(when: str = "pre", large: bool = False) -> InventoryTest:
    """The concept inventory as a test, before (``"pre"``, notebook 00) or after the course (``"post"``, 09)."""
    return InventoryTest(when, large=large)


class InventoryResults(LiveWidget, widgets.VBox):
    """Notebook 00's comparison: per objective, the share right before and after, the normalized gain; the items
    missed in the post-test, each with a link to the section that teaches it. Refresh reads the progress again.

    Attributes
    ----------
    pre, post : dict objective -> float or None
        :func:`~helpers.exercises.inventory.objective_scores` of each test, as last read.
    gains : dict objective -> float or None
        :func:`~helpers.exercises.inventory.normalized_gain` per objective (None when a test is not taken, or with
        no room to gain).
    missed : tuple of str
        The items missed in the post-test.
    table_html, notes_html : ipywidgets.HTML
    missed_html : helpers.widgets.layout.LinkedHTML
        The items missed, with links that open their sections.
    refresh_button : ipywidgets.Button

    CSS classes: ``inventory-results`` on the view, ``inventory-results-table``, ``inventory-missed``,
    ``inventory-results-notes``, ``inventory-refresh``; ``inventory-link`` on a link to a section.
    """

    def __init__(self, large: bool = False):
        super().__init__()
        self._live_setup(large)
        self._large = bool(large)
        self.pre: dict[int, float | None] = {}
        self.post: dict[int, float | None] = {}
        self.gains: dict[int, float | None] = {}
        self.missed: tuple[str, ...] = ()
        self.notes_html, self.table_html, self.missed_html = widgets.HTML(""), widgets.HTML(""), LinkedHTML()
        for w, cls in ((self.notes_html, "inventory-results-notes"), (self.table_html, "inventory-results-table"),
                       (self.missed_html, "inventory-missed")):
            w.add_class(cls)
            w.add_class(OMIT_CLASS)  # the learner's numbers stay out of a stored notebook's picture
        self.refresh_button = course_button("Refresh", "read the progress again (09's post-test records there)",
                                            "inventory-refresh", large)
        self.on_click(self.refresh_button, lambda _b: self.refresh())
        self.add_class("inventory-results")
        self.children = [self.notes_html, self.table_html, self.missed_html, wrap_row([self.refresh_button]),
                         self.status_html]
        course_box(self)
        self.refresh()

    def refresh(self) -> None:
        """Read the progress file again and redraw."""
        self._run_guarded(self._refresh, None)

    def _refresh(self) -> None:
        state = progress()
        self.pre = objective_scores(state, "inventory-pre")
        self.post = objective_scores(state, "inventory-post")
        self.gains = {k: None if self.pre[k] is None or self.post[k] is None else normalized_gain(self.pre[k],
                                                                                                  self.post[k])
                      for k in self.pre}
        self.missed = missed(state, "inventory-post")
        taken = {when: bool(answered(state, kind)) for when, kind in zip(WHEN, TEST_KINDS)}
        notes = [f"The {when}-test is not taken yet: it is {_WHERE_TAKEN[when]}." for when in WHEN if not taken[when]]
        self.notes_html.value = theme.notice_html(" ".join(notes), self._large)
        self.table_html.value = self._table() if any(taken.values()) else ""
        self.missed_html.value = self._missed_html() if taken["post"] else ""
        self._show_status("")

    def _table(self) -> str:
        def percent(value):
            return "not taken" if value is None else f"{number_text(value, 0)} %"

        def gain(objective):
            if self.pre[objective] is None or self.post[objective] is None:
                return "—"
            g = self.gains[objective]
            return "no room to gain" if g is None else number_text(g, 2, trim=False)

        rows = [[f"{k}. {OBJECTIVES[k]}", percent(self.pre[k]), percent(self.post[k]), gain(k)] for k in self.pre]
        return theme.table_html(["objective", "right before", "right after", "gain g"], rows, self._large,
                                align=["left", "right", "right", "right"],
                                caption="The concept inventory, before and after")

    def _missed_html(self) -> str:
        sz = theme.sizes(self._large)
        if not self.missed:
            return (f'<div style="font-size:{sz.font};color:{theme.PANEL_FG}">Nothing missed in the post-test.'
                    "</div>")
        entries = "".join(f"<li>{math_html(inventory_item(name).question)} Taught in "
                          f"{_where_html(inventory_item(name))}.</li>" for name in self.missed)
        return (f'<div style="font-size:{sz.font};color:{theme.PANEL_FG};max-width:60em;line-height:1.4">'
                f"<b>Missed in the post-test</b>, and where the course teaches each:<ul>{entries}</ul></div>")

    def _update(self) -> None:
        self._refresh()

    def __repr__(self) -> str:
        # No numbers: a stored notebook shows the same text for every learner.
        return "Concept inventory results: per objective, right before and after, the gain; the items missed"


def inventory_results(large: bool = False) -> InventoryResults:
    """Notebook 00's before-and-after of the concept inventory, with Refresh."""
    return InventoryResults(large=large)
