"""Notebook 09's practice widgets: the lesson's eight questions and generated problems, self-checking.

In a notebook::

    from helpers.demos import practice
    practice.question("q1")          # one lesson question: answer fields, Check, hint, solution
    practice.generator()             # unlimited generated problems, reproducible by seed
    practice.progress()              # "Solved 3 of 8 lesson questions, 2 generated problems."
    practice.instructor_switch()     # the kernel's instructor switch (helpers.widgets.solutions.instructor_switch)

All of these belong to one :class:`PracticeSession` per kernel, made on first use (importing this module
builds no widget), so the progress summary covers every widget of the notebook. The session follows the
kernel's instructor mode (:data:`helpers.widgets.solutions.INSTRUCTOR`): ticking the switch reveals every solution
here and opens every folded code solution. Tests create their own session, with a mode of its own.

This module only shows things and reads what the learner typed: the questions' words, their
answer fields, the given matrices and every verdict come from :mod:`helpers.exercises` (and
its data, :mod:`helpers.core.questions`). Each answer field is built by the entry of
:data:`FIELD_WIDGETS` for its kind, so a new kind of problem needs nothing here. Every handler
is registered through :class:`helpers.widgets.live.LiveWidget`: whatever is typed, the learner sees a
message next to the field, never a traceback.
"""

from __future__ import annotations

import functools
import html as _html
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from helpers.core.parsing import ParseError, parse_count, quote
from helpers.core.recent import Recent
from helpers.exercises import (
    DIFFICULTIES,
    QUESTIONS,
    Feedback,
    Field,
    HeatmapGiven,
    Problem,
    generate,
    kinds,
    progress as recorded,
    record,
)
from helpers.exercises.course_work import problem_name, read_problem_name
from helpers.exercises.progress import subscribe
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.look.render import figure_img_html, heatmap, matrix_html
from helpers.widgets import MatrixEditor
from helpers.widgets.choices import ChoiceList
from helpers.widgets.layout import choice_list, course_box, wrap_row
from helpers.widgets.live import LiveWidget, TextForm, close_tree
from helpers.widgets.solutions import INSTRUCTOR, InstructorMode, InstructorSwitch

__all__ = [
    "PracticeQuestion",
    "GeneratedPractice",
    "ProgressTracker",
    "PracticeSession",
    "FIELD_WIDGETS",
    "session",
    "question",
    "all_questions",
    "generator",
    "instructor_switch",
    "progress",
]

# One description width for a column of typed fields, so that their input boxes line up.
_ALIGNED_LABELS = "17em"
_BOX_BORDER = f"1px solid {theme.BORDER}"


# --------------------------------------------------------------------------- answer fields


@dataclass(frozen=True)
class _FieldWidget:
    """How one kind of answer field is built, read and checked for unfinished input.

    build(field, aligned, large) -> widget; read(widget) -> what it holds;
    pending(field, widget) -> lines naming the input that is not usable yet;
    row: True for widgets that sit side by side (grids), False for a column (typed fields).
    """

    build: Callable
    read: Callable
    pending: Callable = lambda field, w: []
    row: bool = False


def _text_builder(width: str, width_alone: str) -> Callable:
    def build(field: Field, aligned: bool, large: bool) -> widgets.Text:
        style = {"description_width": _ALIGNED_LABELS if aligned else "initial"}
        if large:
            style["font_size"] = theme.sizes(large).font
        return widgets.Text(value="", description=field.label, placeholder=field.placeholder,
                            continuous_update=False, style=style,
                            layout=widgets.Layout(width=width if aligned else width_alone))

    return build


def _grid(field: Field, aligned: bool, large: bool) -> MatrixEditor:
    return MatrixEditor(np.zeros(field.shape), row_labels=list(field.row_labels), col_labels=list(field.col_labels),
                        title=field.label, large=large, buttons=False, message_beside=True)


def _grid_pending(field: Field, editor: MatrixEditor) -> list[str]:
    """The grid and how many of its cells are not numbers (``2 cells in K``); what is wrong with each is said beside
    the grid, and not repeated."""
    n = len(editor.errors)
    return [f"{n} cell{'' if n == 1 else 's'} in {field.name}"] if n else []


def _choice(field: Field, aligned: bool, large: bool) -> ChoiceList:
    # One option per line, its whole text the clickable label: "diagonal", or "a) Bidirectional attention ...".
    # The value is the option's key either way.
    options = [(key if text == key else f"{key}) {text}", key) for key, text in field.options]
    return choice_list(field.label or "Your answer:", options, large=large)


FIELD_WIDGETS: dict[str, _FieldWidget] = {
    "number": _FieldWidget(_text_builder("24em", "26em"), lambda w: w.value),
    "shape": _FieldWidget(_text_builder("31em", "31em"), lambda w: w.value),
    "matrix": _FieldWidget(_grid, lambda ed: ed.value, _grid_pending, row=True),
    "choice": _FieldWidget(_choice, lambda w: w.value),
}


def _heatmap_img(g: HeatmapGiven, large: bool) -> str:
    """A given weights matrix drawn as a heatmap (token labels on both axes, fixed [0, 1] scale), as an
    ``<img>`` with the figure's alt text; the PNG carries no timestamp, so a problem always draws the same."""
    fig = heatmap(g.value, list(g.row_labels), list(g.col_labels))
    if large:
        fig.set_dpi(fig.get_dpi() * 1.3)
    return figure_img_html(fig)


_GIVEN_KEPT = 4  # problems whose given matrices a generator keeps drawn


def _given_html(given, large: bool) -> str:
    """The given matrices as tables, side by side; weights to be read as a heatmap, as a heatmap."""
    def cols(labels):
        # A no-break space: narrow table columns would wrap "col 1" in two lines.
        return None if labels is None else [str(c).replace(" ", "\u00a0") for c in labels]

    tables = [_heatmap_img(g, large) if isinstance(g, HeatmapGiven) else
              matrix_html(g.value, row_labels=g.row_labels, col_labels=cols(g.col_labels), title=g.title,
                          row_axis=g.row_axis, col_axis=g.col_axis, large=large) for g in given]
    return "".join(f'<div style="display:inline-block;margin-right:14px;vertical-align:top">{t}</div>'
                   for t in tables)


def _prose_html(text: str, large: bool) -> str:
    """Line breaks kept (lists, arithmetic), in the text font: solutions are read, not run."""
    return (f'<div style="white-space:pre-wrap;line-height:1.5;margin:4px 0;font-size:{theme.sizes(large).font}">'
            f"{math_html(text)}</div>")


def _trace_html(text: str, large: bool) -> str:
    """A worked solution full of aligned arithmetic, in the monospaced trace font."""
    return (f'<pre style="white-space:pre-wrap;{theme.MONO}font-size:{theme.sizes(large).trace};'
            f'line-height:1.4;margin:4px 0">{_html.escape(text)}</pre>')


def _solution_html(q, large: bool) -> str:
    parts = [_prose_html(q.solution, large)]
    if q.choices:
        items = "".join(
            f"<li><b>{c.key})</b> {'✓ right' if c.correct else '✗ wrong'}: {math_html(c.explanation)}</li>"
            for c in q.choices
        )
        parts.append(f"<p style='margin:4px 0'><b>Every option:</b></p><ul style='margin:0'>{items}</ul>")
    if q.lesson_note:
        parts.append(
            f'<div style="border-left:4px solid {theme.MUTED_FG};padding:2px 8px;margin-top:6px">'
            f"<b>About the lesson's printed answer.</b> {math_html(q.lesson_note)}</div>"
        )
    return "".join(parts)


def question_text(q) -> str:
    """The question as its widget states it.

    A question whose matrices are drawn as tables under it (Q5) does not also write them out inline: the widget
    shows each matrix once ("Compute Q, K, V for the matrices below.").
    """
    if q.given:
        return re.sub(r"\s+for\s+\w+\s*=.*$", " for the matrices below.", q.text, flags=re.S)
    return q.text


def _classes(*pairs) -> None:
    """Stable CSS classes on the parts (``practice-question``, ``practice-check``, ``practice-feedback``, ...):
    tests find the parts by them, and a custom style sheet can address them."""
    for widget, cls in pairs:
        widget.add_class(cls)


def _collapsible(title: str, body: widgets.Widget) -> widgets.Accordion:
    acc = widgets.Accordion(children=[body], titles=(title,))
    acc.selected_index = None  # closed until asked for
    return acc


def _button(description: str, large: bool, **kw) -> widgets.Button:
    b = widgets.Button(description=description, **kw)
    if theme.sizes(large).button:
        b.style.font_size = theme.sizes(large).button
    return b


class _AnswerPanel(LiveWidget):
    """What the question and the generator share: answer fields, the Check button, the verdict.

    Subclasses set ``self.tracker``, ``self.feedback_html`` and ``self.check_button`` and
    implement :meth:`_item` (the Question or Problem on screen) and :meth:`_progress_name` (its name in the learner's
    progress). A panel of a session (one with a tracker) records each verdict in the learner's progress, the course's
    one record of what was done (:mod:`helpers.exercises.progress`); the session's progress line follows it.
    """

    def _build_answer(self, item, box: widgets.Box) -> None:
        """Answer widgets for ``item.fields`` in ``box`` (the widgets there before are closed)."""
        fields = item.fields
        typed = [f for f in fields if not FIELD_WIDGETS[f.widget].row]
        aligned = len(typed) > 1
        self.answer_fields = {f.name: f for f in fields}
        self.answer_widgets = {f.name: FIELD_WIDGETS[f.widget].build(f, aligned, self._live_large) for f in fields}
        grids = [self.answer_widgets[f.name] for f in fields if FIELD_WIDGETS[f.widget].row]
        parts = []
        if grids:
            parts.append(wrap_row(grids))
        parts += [self.answer_widgets[f.name] for f in typed]
        old = list(box.children)
        box.children = parts
        for w in old:
            close_tree(w)

    def answer(self):
        """The current answer, in the form the question's or problem's ``check`` takes."""
        item = self._item()
        return item.answer_from({name: FIELD_WIDGETS[self.answer_fields[name].widget].read(w)
                                 for name, w in self.answer_widgets.items()})

    def _pending(self) -> str:
        lines = []
        for name, w in self.answer_widgets.items():
            f = self.answer_fields[name]
            lines += FIELD_WIDGETS[f.widget].pending(f, w)
        return ", ".join(lines)

    def check(self) -> Feedback | None:
        """Press Check: read the answer, show the verdict, record progress.

        Returns the Feedback, or None when the answer could not be judged (a grid cell that
        is not a number yet: the grids keep their last valid matrix, and judging numbers the
        learner no longer sees would mislead; or an unforeseen error, shown as a message).
        """
        self.last_feedback = None
        return self.guarded(self._judge, self.feedback_html)()

    def _judge(self) -> Feedback:
        pending = self._pending()
        if pending:
            raise ValueError(f"Fix the marked cells first ({pending}): beside each grid it says what is wrong.")
        fb = self._item().check(self.answer())
        self.last_feedback = fb
        self.feedback_html.value = theme.verdict_html(str(fb), fb.correct, self._live_large)
        if self.tracker is not None:
            record("question", self._progress_name(), correct=bool(fb.correct), answer=self.answer())
        return fb

    def _update(self) -> None:  # nothing is recomputed while typing: answers are judged on Check
        pass


# --------------------------------------------------------------------------- progress


class _ProgressHTML(TextForm, widgets.HTML):
    """The progress line; its text form (what a notebook viewer without widgets shows) is the summary."""

    def __init__(self, tracker: ProgressTracker, **kw):
        self._tracker = tracker
        super().__init__(**kw)

    def __repr__(self) -> str:
        return f"Progress: {self._tracker.summary}"


class ProgressTracker:
    """What has been solved, here and in earlier sittings, read from the course's one progress model: the practice
    panels record every check there (:mod:`helpers.exercises.progress`, kind ``"question"``: ``"q1"`` ... ``"q8"``,
    and a generated problem under :func:`~helpers.exercises.course_work.problem_name`, ``"attention-42-easy"``). The
    counts are read from it, so they are right after a restart, and the line is drawn again after every record of a
    question (:func:`~helpers.exercises.progress.subscribe`), whichever widget made it.

    Attributes
    ----------
    solved : set of str
        Lesson question ids answered correctly at least once.
    solved_problems : set of tuple
        ``(kind, seed, difficulty)`` of generated problems answered correctly.
    attempts : int
        Every question or problem checked in this kernel since the tracker was made.
    widget : ipywidgets.HTML
        The summary, kept up to date.
    """

    def __init__(self, large: bool = False):
        self.attempts = 0
        self._large = large
        self.widget = _ProgressHTML(self, value=self._html())
        self.widget.add_class("practice-progress")
        # Followed through a weak reference: a tracker nobody holds any more stops listening, and is not kept alive.
        tracker = weakref.ref(self)

        def follow(result) -> None:
            if tracker() is None:
                unsubscribe()
            else:
                tracker()._recorded(result)
        unsubscribe = subscribe(follow)

    def _recorded(self, result) -> None:
        """After every record in this kernel: a question's or a problem's counts, and the line drawn again."""
        if result.kind == "question":
            self.attempts += 1
            self.widget.value = self._html()

    @property
    def solved(self) -> set[str]:
        return {name for name in recorded().names("question") if name in QUESTIONS}

    @property
    def solved_problems(self) -> set[tuple]:
        return {problem for problem in map(read_problem_name, recorded().names("question")) if problem is not None}

    @property
    def summary(self) -> str:
        n = len(self.solved_problems)
        text = (f"Solved {len(self.solved)} of {len(QUESTIONS)} lesson questions, "
                f"{n} generated problem{'' if n == 1 else 's'}.")
        if self.solved:
            text += " Done: " + ", ".join(q.upper() for q in sorted(self.solved)) + "."
        return text

    def _html(self) -> str:
        return (f'<div style="padding:4px 0;font-size:{theme.sizes(self._large).font}"><b>Progress:</b> '
                f"{math_html(self.summary)}</div>")

    def earlier(self, qid: str) -> str:
        """What the learner's progress says of lesson question ``qid`` from before: '' if it was never right."""
        result = recorded().result("question", qid)
        if result is None or result.solved_on is None:
            return ""
        answer = f" (your answer: {quote(result.answer, 60)})" if result.answer else ""
        return f"✓ Answered right before{answer}. Check again any time."


# --------------------------------------------------------------------------- a lesson question


class PracticeQuestion(_AnswerPanel, widgets.VBox):
    """One of the lesson's questions with answer fields, a Check button, a hint and a solution.

    Test hooks (what a learner does, as code):

    * ``answer_widgets``: dict of the input widgets (Text fields, MatrixEditors or ChoiceLists)
    * ``check()``: press Check (the same handler as the button); returns the Feedback
    * ``feedback_html.value``: what the learner sees next to the button
    * ``show_hint()``, ``show_solution()``; ``hint_visible``, ``solution_visible``

    CSS classes: ``practice-question`` and ``practice-<qid>`` (e.g. ``practice-q7``) on the whole question;
    ``practice-question-text``, ``practice-given``, ``practice-answer``, ``practice-check``,
    ``practice-feedback``, ``practice-hint`` and ``practice-solution`` on its parts.
    """

    def __init__(self, qid: str, tracker: ProgressTracker | None = None, large: bool = False):
        if qid not in QUESTIONS:
            raise KeyError(f"unknown question id {qid!r}; the questions are {', '.join(QUESTIONS)}")
        self.qid = qid
        self.question = q = QUESTIONS[qid]
        self.tracker = tracker
        self.last_feedback: Feedback | None = None
        sz = theme.sizes(large)
        # The question once: its number and title are the notebook's heading just above, so the widget
        # states only the question itself.
        header = widgets.HTML(f'<div style="margin:4px 0;font-size:{sz.font}">{math_html(question_text(q))}</div>')
        given = widgets.HTML(_given_html(q.given, large))
        answer_box = widgets.VBox()
        self.check_button = _button("Check", large, button_style="primary", tooltip="check your answer",
                                    layout=widgets.Layout(width="7em"))
        # A question answered right in an earlier sitting says so (the answer fields start empty all the same).
        earlier = tracker.earlier(qid) if tracker is not None else ""
        self.feedback_html = widgets.HTML(theme.verdict_html(earlier, True, large))
        self.hint_accordion = _collapsible("Hint", widgets.HTML(_prose_html(q.hint, large)))
        self.solution_accordion = _collapsible("Worked solution", widgets.HTML(_solution_html(q, large)))
        self._live_setup(large)
        self._build_answer(q, answer_box)
        super().__init__(
            children=[
                header,
                given,
                answer_box,
                wrap_row([self.check_button, self.feedback_html]),
                self.hint_accordion,
                self.solution_accordion,
            ],
            layout=widgets.Layout(border=_BOX_BORDER, padding="6px 10px", margin="6px 0"),
        )
        course_box(self)  # normal line height for wrapped text
        self.on_click(self.check_button, lambda _b: self.check(), where=self.feedback_html)
        _classes((self, "practice-question"), (self, f"practice-{qid}"), (header, "practice-question-text"),
                 (given, "practice-given"), (answer_box, "practice-answer"), (self.check_button, "practice-check"),
                 (self.feedback_html, "practice-feedback"), (self.hint_accordion, "practice-hint"),
                 (self.solution_accordion, "practice-solution"))

    def _item(self):
        return self.question

    def _progress_name(self) -> str:
        return self.qid

    # -- hint and solution

    def show_hint(self, show: bool = True) -> None:
        self.hint_accordion.selected_index = 0 if show else None

    def show_solution(self, show: bool = True) -> None:
        self.solution_accordion.selected_index = 0 if show else None

    @property
    def hint_visible(self) -> bool:
        return self.hint_accordion.selected_index == 0

    @property
    def solution_visible(self) -> bool:
        return self.solution_accordion.selected_index == 0

    @property
    def hint_text(self) -> str:
        """The hint's HTML (shown when the Hint fold is open)."""
        return self.hint_accordion.children[0].value

    @property
    def solution_text(self) -> str:
        """The worked solution's HTML (shown when its fold is open)."""
        return self.solution_accordion.children[0].value

    def __repr__(self) -> str:
        return f"PracticeQuestion({self.qid!r})"


# --------------------------------------------------------------------------- generated problems


class GeneratedPractice(_AnswerPanel, widgets.VBox):
    """Unlimited practice problems: pick a kind and a difficulty, answer, check, see the solution.

    The seed is shown and can be typed, so "problem 42" is the same problem for everybody.

    Test hooks: ``kind_dropdown``, ``difficulty_dropdown``, ``seed_text``, ``problem``,
    ``answer_widgets``, ``new_problem()``, ``check()``, ``show_solution()``, ``feedback_html``,
    ``seed_message_html``, ``solution_visible``, ``status`` (an unforeseen problem, '' when none).

    CSS classes: ``practice-generator`` on the whole; ``practice-kind``, ``practice-difficulty``,
    ``practice-seed``, ``practice-seed-message``, ``practice-new``, ``practice-prompt``, ``practice-given``,
    ``practice-answer``, ``practice-check``, ``practice-feedback``, ``practice-solution-button`` and
    ``practice-solution`` on its parts. The progress line is ``practice-progress``, the instructor switch
    ``practice-instructor``.
    """

    def __init__(self, kind: str = "attention", difficulty: str = "easy", seed: int = 42,
                 tracker: ProgressTracker | None = None, rng_seed=None, large: bool = False):
        self.tracker = tracker
        self.reveal = False  # the instructor switch: show every solution
        # Seeds for "New problem"; rng_seed makes that sequence reproducible in tests.
        self._rng = np.random.default_rng(rng_seed)
        self.problem: Problem = generate(kind, seed, difficulty)
        self.last_feedback: Feedback | None = None
        self._given_shown = Recent(_GIVEN_KEPT)  # see _given_html_of
        self._live_setup(large)
        self.kind_dropdown = widgets.Dropdown(options=list(kinds()), value=kind, description="Kind:")
        self.difficulty_dropdown = widgets.Dropdown(options=list(DIFFICULTIES), value=difficulty,
                                                    description="Difficulty:")
        self.seed_text = widgets.Text(value=str(seed), description="Problem no.:", continuous_update=False,
                                      style={"description_width": "initial"}, layout=widgets.Layout(width="14em"))
        self.seed_message_html = widgets.HTML("")
        self.new_button = _button("New problem", large, tooltip="a fresh random problem number")
        self.check_button = _button("Check", large, button_style="primary", layout=widgets.Layout(width="7em"))
        self.solution_button = _button("Show solution", large)
        self.prompt_html = widgets.HTML("")
        self.inputs_html = widgets.HTML("")
        self.answer_box = widgets.VBox()
        self.feedback_html = widgets.HTML("")
        self.solution_html = widgets.HTML("", layout=widgets.Layout(display="none"))
        self.answer_widgets: dict[str, widgets.Widget] = {}

        self.on_click(self.new_button, lambda _b: self.new_problem(), where=self.seed_message_html)
        self.on_click(self.check_button, lambda _b: self.check(), where=self.feedback_html)
        self.on_click(self.solution_button, lambda _b: self.toggle_solution())
        self._control_handlers = [(control, self.watch(control, self._from_controls, where=self.seed_message_html))
                                  for control in (self.kind_dropdown, self.difficulty_dropdown, self.seed_text)]
        self._show_problem()
        super().__init__(
            children=[
                wrap_row([self.kind_dropdown, self.difficulty_dropdown]),
                wrap_row([self.seed_text, self.new_button, self.seed_message_html]),
                self.status_html,
                self.prompt_html,
                self.inputs_html,
                self.answer_box,
                wrap_row([self.check_button, self.feedback_html]),
                self.solution_button,
                self.solution_html,
            ],
            layout=widgets.Layout(border=_BOX_BORDER, padding="6px 10px", margin="6px 0"),
        )
        course_box(self)  # normal line height for wrapped text
        _classes((self, "practice-generator"), (self.kind_dropdown, "practice-kind"),
                 (self.difficulty_dropdown, "practice-difficulty"), (self.seed_text, "practice-seed"),
                 (self.seed_message_html, "practice-seed-message"), (self.new_button, "practice-new"),
                 (self.prompt_html, "practice-prompt"), (self.inputs_html, "practice-given"),
                 (self.answer_box, "practice-answer"), (self.check_button, "practice-check"),
                 (self.feedback_html, "practice-feedback"), (self.solution_button, "practice-solution-button"),
                 (self.solution_html, "practice-solution"))

    def _item(self):
        return self.problem

    def _progress_name(self) -> str:
        return problem_name(self.problem.kind, self.problem.seed, self.problem.difficulty)

    # -- choosing the problem

    def _seed(self) -> int:
        """The problem number typed in the seed field; ValueError (shown next to it) if it is not one."""
        typed = self.seed_text.value
        still = f". That is not a problem number (a whole number ≥ 0); still showing problem {self.problem.seed}."
        try:
            seed = parse_count(typed)
        except ParseError as err:
            message = str(err)
            raise ValueError(("Problem no. " if message.startswith("is ") else "Problem no.: ") + message + still) \
                from None
        if seed < 0:
            raise ValueError(f"Problem no.: {quote(typed.strip())} is negative{still}")
        return seed

    def _from_controls(self, _change=None) -> None:
        seed = self._seed()
        self.clear_problem(self.seed_message_html)
        self.clear_problem()
        p = self.problem
        wanted = (self.kind_dropdown.value, seed, self.difficulty_dropdown.value)
        if (p.kind, p.seed, p.difficulty) == wanted:
            return
        try:
            self.problem = generate(wanted[0], seed, wanted[2])
        except Exception:
            self._put_back(p)
            raise  # the guard shows what went wrong
        self._show_problem()

    def _put_back(self, p: Problem) -> None:
        """The controls show problem ``p`` again, with their handlers detached meanwhile.

        Heard one by one, a half-restored set of controls (the kind back, the number not yet) would
        be taken for the learner's choice and make a problem of it.
        """
        for control, handler in self._control_handlers:
            control.unobserve(handler, names="value")
        try:
            self.kind_dropdown.value, self.difficulty_dropdown.value = p.kind, p.difficulty
            self.seed_text.value = str(p.seed)
        finally:
            for control, handler in self._control_handlers:
                control.observe(handler, names="value")

    def _update(self) -> None:
        self._from_controls()

    def set_seed(self, seed) -> None:
        """Type a problem number into the seed field (what the learner does)."""
        self.seed_text.value = str(seed)

    def new_problem(self) -> None:
        """Press "New problem": a fresh random problem number of the chosen kind and difficulty."""
        seed = int(self._rng.integers(0, 10_000))
        while seed == self.problem.seed:
            seed = int(self._rng.integers(0, 10_000))
        self.seed_text.value = str(seed)  # the seed field's handler builds the problem

    def _given_html_of(self, p: Problem, large: bool) -> str:
        """:func:`_given_html` of problem ``p``, drawn once for the last few problems shown here: a problem always
        gives the same, and a learner who goes back to one (or whose mistyped number is put back) does not wait for
        its heatmap again (a quarter of a second). Each is an HTML string of up to about 60 KB."""
        key = (p.kind, p.seed, p.difficulty, large, theme.figure_resolution())
        return self._given_shown.get(key, lambda: _given_html(p.given, large))

    def _show_problem(self) -> None:
        p, large = self.problem, self._live_large
        self.prompt_html.value = (f'<div style="margin:4px 0;font-size:{theme.sizes(large).font}">'
                                  f"<b>{math_html(p.title)}.</b> {math_html(p.instruction)}</div>")
        self.inputs_html.value = self._given_html_of(p, large)
        self._build_answer(p, self.answer_box)
        self.feedback_html.value = ""
        self.last_feedback = None
        self.solution_html.value = _trace_html(p.solution, large)
        self._set_solution_visible(self.reveal)

    # -- solution

    def _set_solution_visible(self, show: bool) -> None:
        self.solution_html.layout.display = None if show else "none"
        self.solution_button.description = "Hide solution" if show else "Show solution"

    def show_solution(self, show: bool = True) -> None:
        self._set_solution_visible(show)

    def toggle_solution(self) -> None:
        self._set_solution_visible(not self.solution_visible)

    @property
    def solution_visible(self) -> bool:
        return self.solution_html.layout.display != "none"

    def __repr__(self) -> str:
        p = self.problem
        return f"GeneratedPractice(kind={p.kind!r}, seed={p.seed}, difficulty={p.difficulty!r})"


# --------------------------------------------------------------------------- one session per notebook


class PracticeSession:
    """The practice widgets of one notebook: shared progress, and solutions shown while an instructor mode is on.

    Parameters
    ----------
    instructor : InstructorMode, optional
        The mode whose ``show_solutions`` reveals every solution; a mode of the session's own by default
        (the kernel's session, :func:`session`, follows :data:`helpers.widgets.solutions.INSTRUCTOR`).

    Attributes
    ----------
    progress : ProgressTracker
    questions : dict of str -> PracticeQuestion
    generators : list of GeneratedPractice
    mode : InstructorMode
    instructor : InstructorSwitch
        "Instructor: show all solutions", linked to ``mode``: ticking it opens every solution, unticking
        closes them.
    """

    def __init__(self, instructor: InstructorMode | None = None):
        self.progress = ProgressTracker()
        self.questions: dict[str, PracticeQuestion] = {}
        self.generators: list[GeneratedPractice] = []
        self.mode = instructor if instructor is not None else InstructorMode()
        self.instructor = self.mode.switch()
        self.mode.observe(self._follow_mode, names="show_solutions")

    def _follow_mode(self, change) -> None:
        try:
            self.reveal_all(change["new"])
        except Exception:  # noqa: BLE001 - nothing may leave a handler (the switch would stop answering)
            pass

    def question(self, qid: str) -> PracticeQuestion:
        """The widget for lesson question ``qid`` (made once; displaying it again shows the same state)."""
        key = qid.strip().lower() if isinstance(qid, str) else qid
        if key not in self.questions:
            w = PracticeQuestion(key, tracker=self.progress)
            if self.mode.show_solutions:
                w.show_solution()
            self.questions[key] = w
        return self.questions[key]

    def all_questions(self) -> widgets.VBox:
        return widgets.VBox([self.question(q) for q in QUESTIONS])

    def generator(self, kind: str = "attention", difficulty: str = "easy", seed: int = 42,
                  rng_seed=None) -> GeneratedPractice:
        g = GeneratedPractice(kind, difficulty, seed, tracker=self.progress, rng_seed=rng_seed)
        g.reveal = self.mode.show_solutions
        g.show_solution(self.mode.show_solutions)
        self.generators.append(g)
        return g

    def reveal_all(self, show: bool = True) -> None:
        """What the instructor switch does: every solution of the session shown (or hidden)."""
        for w in self.questions.values():
            w.show_solution(show)
        for g in self.generators:
            g.reveal = bool(show)
            g.show_solution(show)

    def instructor_switch(self) -> InstructorSwitch:
        return self.instructor

    def progress_widget(self) -> widgets.HTML:
        return self.progress.widget


@functools.cache
def session() -> PracticeSession:
    """This kernel's practice session (the one the module-level functions use), made on first use; it follows
    the kernel's instructor mode, :data:`helpers.widgets.solutions.INSTRUCTOR`."""
    return PracticeSession(INSTRUCTOR)


def question(qid: str) -> PracticeQuestion:
    """The widget for lesson question ``qid`` (``"q1"`` ... ``"q8"``)."""
    return session().question(qid)


def all_questions() -> widgets.VBox:
    """All eight lesson questions, one under another."""
    return session().all_questions()


def generator(kind: str = "attention", difficulty: str = "easy", seed: int = 42) -> GeneratedPractice:
    """Generated practice problems, starting at problem ``seed``."""
    return session().generator(kind, difficulty, seed)


def instructor_switch() -> InstructorSwitch:
    """The checkbox "Instructor: show all solutions": the kernel's switch
    (:func:`helpers.widgets.solutions.instructor_switch`), which reveals every solution of this notebook's practice
    widgets and opens every folded code solution."""
    return session().instructor_switch()


def progress() -> widgets.HTML:
    """The progress summary: "Solved 3 of 8 lesson questions, 2 generated problems."."""
    return session().progress_widget()
