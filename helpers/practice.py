"""Practice widgets: the lesson's eight questions and generated problems, self-checking.

In a notebook::

    from helpers import practice
    practice.question("q1")          # one lesson question: answer fields, Check, hint, solution
    practice.generator()             # unlimited generated problems, reproducible by seed
    practice.instructor_switch()     # a checkbox that reveals every solution at once
    practice.progress()              # "Solved 3 of 8 lesson questions, 2 generated problems."

All of these belong to one :class:`PracticeSession` per kernel, so the instructor switch and
the progress summary cover every widget of the notebook. Tests create their own session.

Every handler is guarded: whatever is typed, the learner sees a message in the feedback
area, never a traceback. All checking is done by :mod:`helpers.exercises`; this module only
reads the widgets and shows the verdict.
"""

from __future__ import annotations

import html as _html

import ipywidgets as widgets
import numpy as np

from helpers.attention import additive_mask
from helpers.exercises import DIFFICULTIES, KINDS, QUESTIONS, Feedback, Problem, check, generate
from helpers.render import matrix_html
from helpers.widgets import MatrixEditor

__all__ = [
    "PracticeQuestion",
    "GeneratedPractice",
    "ProgressTracker",
    "PracticeSession",
    "session",
    "question",
    "all_questions",
    "generator",
    "instructor_switch",
    "progress",
]

# Column names of the given tables, with a no-break space: narrow table columns would wrap "col 1" in two lines.
_NB_COLS = [f"col\u00a0{c + 1}" for c in range(8)]

_OK = "#1b7f3b"    # green border: correct
_BAD = "#c62828"   # red border: not yet
_INFO = "#5b6b7a"  # grey border: a message about the input, not a verdict


def _feedback_html(fb: Feedback | None, note: str = "") -> str:
    """A verdict as HTML; text colour is inherited so it reads in light and dark themes."""
    if fb is None:
        body, colour = "<br>".join(_html.escape(line) for line in note.splitlines()), _INFO
    else:
        colour = _OK if fb.correct else _BAD
        lines = [_html.escape(line) for line in str(fb).splitlines()]
        body = "<br>".join(lines)
    if not body:
        return ""
    return (f'<div style="border-left:4px solid {colour};padding:2px 8px;margin:2px 0;'
            f'line-height:1.45;white-space:normal">{body}</div>')


def _editor_problems(editors: dict) -> str:
    """One line per cell that is not a number, named by its grid and the labels on screen:
    ``Q (token 1, col 2): '2,5': write decimals with a point (2.5)``."""
    lines = []
    for name, ed in editors.items():
        rows, cols = ed.row_labels, ed.col_labels
        lines += [f"{name} ({rows[i]}, {cols[j]}): {reason}" for (i, j), reason in sorted(ed.errors.items())]
    return "\n".join(lines)


def _pre(text: str) -> str:
    return (f'<pre style="white-space:pre-wrap;font-size:0.92em;line-height:1.4;margin:4px 0">'
            f"{_html.escape(text)}</pre>")


def _prose(text: str) -> str:
    """Line breaks kept (lists, arithmetic), but in the text font: solutions are read, not run."""
    return f'<div style="white-space:pre-wrap;line-height:1.5;margin:4px 0">{_html.escape(text)}</div>'


def _solution_html(q) -> str:
    parts = [_prose(q.solution)]
    if q.choices:
        items = "".join(
            f"<li><b>{c.key})</b> {'✓ right' if c.correct else '✗ wrong'}: {_html.escape(c.explanation)}</li>"
            for c in q.choices
        )
        parts.append(f"<p style='margin:4px 0'><b>Every option:</b></p><ul style='margin:0'>{items}</ul>")
    if q.lesson_note:
        parts.append(
            f'<div style="border-left:4px solid {_INFO};padding:2px 8px;margin-top:6px">'
            f"<b>About the lesson's printed answer.</b> {_html.escape(q.lesson_note)}</div>"
        )
    return "".join(parts)


def _classes(*pairs) -> None:
    """Stable CSS classes on the parts (``practice-question``, ``practice-check``, ``practice-feedback``, ...):
    tests find the parts by them, and a custom style sheet can address them."""
    for widget, cls in pairs:
        widget.add_class(cls)


def _collapsible(title: str, body: widgets.Widget) -> widgets.Accordion:
    acc = widgets.Accordion(children=[body], titles=(title,))
    acc.selected_index = None  # closed until asked for
    return acc


def _text(description: str, placeholder: str = "", width: str = "22em",
          description_width: str = "initial") -> widgets.Text:
    return widgets.Text(
        value="", description=description, placeholder=placeholder, continuous_update=False,
        style={"description_width": description_width}, layout=widgets.Layout(width=width),
    )


# One description width for a column of fields, so that their input boxes line up.
_LABELS = "17em"


def _shape_fields() -> dict:
    """d_k and the five shapes of Q1 and of the generated "shapes" problems, input boxes aligned."""
    fields = {"d_k": _text("d_k =", "a number", "24em", _LABELS)}
    for key, label in (("Q", "Q shape"), ("K", "K shape"), ("V", "V shape"),
                       ("weights", "attention weights shape"), ("output", "output shape (heads combined)")):
        fields[key] = _text(f"{label}:", "e.g. (1, 2, 3)", "31em", _LABELS)
    return fields



def _press_check(panel, pending_cells, judge, record) -> Feedback | None:
    """What pressing Check does on any practice panel.

    ``pending_cells()`` lists invalid editor cells ('' when none), ``judge()`` returns the
    Feedback and ``record(correct)`` counts it in the progress. The editors keep their last
    valid matrix while a cell is invalid; judging that would judge numbers the learner no
    longer sees, so the learner is asked to fix the cell first. A learner never sees a
    traceback: anything unforeseen becomes a short message.
    """
    try:
        pending = pending_cells()
        if pending:
            panel.last_feedback = None
            panel.feedback_html.value = _feedback_html(None, "Fix the marked cells first:\n" + pending)
            return None
        fb = judge()
    except Exception as err:  # noqa: BLE001 - a learner never sees a traceback
        panel.last_feedback = None
        panel.feedback_html.value = _feedback_html(None, f"Could not check this answer ({type(err).__name__}).")
        return None
    panel.last_feedback = fb
    panel.feedback_html.value = _feedback_html(fb)
    if panel.tracker is not None:
        record(fb.correct)
    return fb

class _ProgressHTML(widgets.HTML):
    """The progress line; its text form (what a notebook viewer without widgets shows) is the summary."""

    def __init__(self, tracker: "ProgressTracker", **kw):
        self._tracker = tracker
        super().__init__(**kw)

    def __repr__(self) -> str:
        return f"Progress: {self._tracker.summary}"


class _InstructorSwitch(widgets.Checkbox):
    """The instructor's checkbox, with a short text form instead of the Checkbox's full state."""

    def __repr__(self) -> str:
        return f"Instructor switch: show all solutions ({'on' if self.value else 'off'})"


class ProgressTracker:
    """What has been solved in this sitting.

    Attributes
    ----------
    solved : set of str
        Lesson question ids answered correctly at least once.
    solved_problems : set of tuple
        ``(kind, seed, difficulty)`` of generated problems answered correctly.
    attempts : int
        Every press of a Check button.
    widget : ipywidgets.HTML
        The summary, kept up to date.
    """

    def __init__(self):
        self.solved: set[str] = set()
        self.solved_problems: set[tuple] = set()
        self.attempts = 0
        self.widget = _ProgressHTML(self, value=self._html())
        self.widget.add_class("practice-progress")

    @property
    def summary(self) -> str:
        n = len(self.solved_problems)
        text = (f"Solved {len(self.solved)} of {len(QUESTIONS)} lesson questions, "
                f"{n} generated problem{'' if n == 1 else 's'}.")
        if self.solved:
            text += " Done: " + ", ".join(q.upper() for q in sorted(self.solved)) + "."
        return text

    def _html(self) -> str:
        return f'<div style="padding:4px 0"><b>Progress:</b> {_html.escape(self.summary)}</div>'

    def record_question(self, qid: str, correct: bool) -> None:
        self.attempts += 1
        if correct:
            self.solved.add(qid)
        self.widget.value = self._html()

    def record_problem(self, problem: Problem, correct: bool) -> None:
        self.attempts += 1
        if correct:
            self.solved_problems.add((problem.kind, problem.seed, problem.difficulty))
        self.widget.value = self._html()


class PracticeQuestion(widgets.VBox):
    """One of the lesson's questions with answer fields, a Check button, a hint and a solution.

    Test hooks (what a learner does, as code):

    * ``answer_widgets``: dict of the input widgets (Text fields, MatrixEditors or RadioButtons)
    * ``check()``: press Check (the same handler as the button); returns the Feedback
    * ``feedback_html.value``: what the learner sees next to the button
    * ``show_hint()``, ``show_solution()``; ``hint_visible``, ``solution_visible``

    CSS classes: ``practice-question`` and ``practice-<qid>`` (e.g. ``practice-q7``) on the whole question;
    ``practice-question-text``, ``practice-answer``, ``practice-check``, ``practice-feedback``,
    ``practice-hint`` and ``practice-solution`` on its parts.
    """

    def __init__(self, qid: str, tracker: ProgressTracker | None = None):
        if qid not in QUESTIONS:
            raise KeyError(f"unknown question id {qid!r}; the questions are {', '.join(QUESTIONS)}")
        self.qid = qid
        self.question = QUESTIONS[qid]
        self.tracker = tracker
        self.last_feedback: Feedback | None = None
        q = self.question
        number = qid[1:]
        header = widgets.HTML(
            f'<div style="margin:4px 0"><b>Q{number} · {_html.escape(q.title)}</b><br>{_html.escape(q.text)}</div>'
        )
        self.answer_widgets: dict[str, widgets.Widget] = self._make_answer_widgets()
        self.check_button = widgets.Button(description="Check", button_style="primary",
                                           tooltip="check your answer", layout=widgets.Layout(width="7em"))
        self.feedback_html = widgets.HTML("")
        self.check_button.on_click(lambda _b: self.check())
        self.hint_accordion = _collapsible("Hint", widgets.HTML(f"<div>{_html.escape(q.hint)}</div>"))
        self.solution_accordion = _collapsible("Worked solution", widgets.HTML(_solution_html(q)))
        super().__init__(
            children=[
                header,
                self._answer_box(),
                widgets.HBox([self.check_button, self.feedback_html], layout=widgets.Layout(align_items="flex-start")),
                self.hint_accordion,
                self.solution_accordion,
            ],
            layout=widgets.Layout(border="1px solid rgba(128,128,128,0.4)", padding="6px 10px", margin="6px 0"),
        )
        _classes((self, "practice-question"), (self, f"practice-{qid}"), (header, "practice-question-text"),
                 (self.children[1], "practice-answer"), (self.check_button, "practice-check"),
                 (self.feedback_html, "practice-feedback"), (self.hint_accordion, "practice-hint"),
                 (self.solution_accordion, "practice-solution"))

    # -- building

    def _make_answer_widgets(self) -> dict:
        q = self.question
        if q.form == "shapes":
            return _shape_fields()
        if q.form == "pair":
            return {"case1": _text("d_model = 256, h = 8:  d_k =", "", "24em", _LABELS),
                    "case2": _text("d_model = 1024, h = 16:  d_k =", "", "24em", _LABELS)}
        if q.form == "number":
            return {"count": _text("n = 100:  number of comparisons =", "", "26em")}
        if q.form == "matrices":
            shape = (2, 2)
            rows, cols = ["token 1", "token 2"], ["col 1", "col 2"]
            return {name: MatrixEditor(np.zeros(shape), row_labels=rows, col_labels=cols, title=name, buttons=False)
                    for name in ("Q", "K", "V")}
        radio = widgets.RadioButtons(options=[c.key for c in q.choices], value=None, orientation="horizontal",
                                     description="Your answer:", style={"description_width": "initial"})
        return {"choice": radio}

    def _answer_box(self) -> widgets.Widget:
        q = self.question
        if q.form == "matrices":
            i = q.inputs
            # The same row/column names as the answer grids, so "row 2, column 1" means one place.
            labels = {"X": ["token 1", "token 2"]}
            tables = [
                matrix_html(i[k], title=t, row_labels=labels.get(k, ["row 1", "row 2"]), col_labels=_NB_COLS[:2])
                for k, t in (("X", "X"), ("W_q", "W^Q"), ("W_k", "W^K"), ("W_v", "W^V"))
            ]
            given = "".join(f'<div style="display:inline-block;margin-right:14px;vertical-align:top">{t}</div>'
                            for t in tables)
            return widgets.VBox([widgets.HTML(given), widgets.HBox(list(self.answer_widgets.values()))])
        if q.form == "choice":
            items = "".join(f"<li style='margin:2px 0'><b>{c.key})</b> {_html.escape(c.text)}</li>"
                            for c in q.choices)
            listing = widgets.HTML(f"<ul style='list-style:none;padding-left:4px;margin:4px 0'>{items}</ul>")
            return widgets.VBox([listing, self.answer_widgets["choice"]])
        return widgets.VBox(list(self.answer_widgets.values()))

    # -- reading and checking

    def answer(self):
        """The current answer, in the form :func:`helpers.exercises.check` takes."""
        w = self.answer_widgets
        form = self.question.form
        if form == "shapes":
            return {k: t.value for k, t in w.items()}
        if form == "pair":
            return (w["case1"].value, w["case2"].value)
        if form == "number":
            return w["count"].value
        if form == "matrices":
            return {k: ed.value for k, ed in w.items()}
        return w["choice"].value

    def _editor_problems(self) -> str:
        if self.question.form != "matrices":
            return ""
        return _editor_problems(self.answer_widgets)

    def check(self) -> Feedback | None:
        """Press Check: read the answer, show the verdict, record progress."""
        return _press_check(
            self,
            self._editor_problems,
            lambda: check(self.qid, self.answer()),
            lambda correct: self.tracker.record_question(self.qid, correct),
        )

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
    def solution_text(self) -> str:
        return self.solution_accordion.children[0].value

    def __repr__(self) -> str:
        return f"PracticeQuestion({self.qid!r})"


def _problem_inputs_html(p: Problem) -> str:
    """The problem's given matrices as tables (numbers are friendly, so 2 digits show them exactly)."""
    i = p.inputs
    if p.kind == "shapes":
        return ""
    if p.kind == "softmax":
        return matrix_html(i["scores"].reshape(1, -1), row_labels=["scores"],
                           col_labels=[f"k{j}" for j in range(i["scores"].size)])
    if p.kind == "projection":
        # Counted from 1, like the answer grids and the feedback ("row 2, column 1 of K").
        n, d = i["X"].shape
        cols = [f"col\u00a0{c + 1}" for c in range(d)]
        tables = [matrix_html(i["X"], row_labels=[f"token {r + 1}" for r in range(n)], col_labels=cols, title="X")]
        tables += [matrix_html(i[k], title=t, row_labels=[f"row {r + 1}" for r in range(d)],
                               col_labels=[f"col\u00a0{c + 1}" for c in range(i[k].shape[1])])
                   for k, t in (("W_q", "W^Q"), ("W_k", "W^K"), ("W_v", "W^V"))]
    else:
        nq, nk = i["Q"].shape[0], i["K"].shape[0]
        tables = [
            matrix_html(i["Q"], row_labels=[f"q{r}" for r in range(nq)], title="Q"),
            matrix_html(i["K"], row_labels=[f"k{r}" for r in range(nk)], title="K"),
            # V's columns are the output's columns: the same names, so "column d0" means one thing.
            matrix_html(i["V"], row_labels=[f"v{r}" for r in range(nk)],
                        col_labels=[f"d{c}" for c in range(i["V"].shape[1])], title="V"),
        ]
        if "mask" in i:
            tables.append(matrix_html(additive_mask(i["mask"]), row_labels=[f"q{r}" for r in range(nq)],
                                      col_labels=[f"k{c}" for c in range(nk)],
                                      title="mask (added to the scores)", row_axis="Queries ↓", col_axis="Keys →"))
    return "".join(f'<div style="display:inline-block;margin-right:14px;vertical-align:top">{t}</div>'
                   for t in tables)


class GeneratedPractice(widgets.VBox):
    """Unlimited practice problems: pick a kind and a difficulty, answer, check, see the solution.

    The seed is shown and can be typed, so "problem 42" is the same problem for everybody.

    Test hooks: ``kind_dropdown``, ``difficulty_dropdown``, ``seed_text``, ``problem``,
    ``answer_widgets``, ``new_problem()``, ``check()``, ``show_solution()``, ``feedback_html``,
    ``seed_message_html``, ``solution_visible``.

    CSS classes: ``practice-generator`` on the whole; ``practice-kind``, ``practice-difficulty``,
    ``practice-seed``, ``practice-seed-message``, ``practice-new``, ``practice-prompt``, ``practice-given``,
    ``practice-answer``, ``practice-check``, ``practice-feedback``, ``practice-solution-button`` and
    ``practice-solution`` on its parts. The progress line is ``practice-progress``, the instructor switch
    ``practice-instructor``.
    """

    def __init__(self, kind: str = "attention", difficulty: str = "easy", seed: int = 42,
                 tracker: ProgressTracker | None = None, rng_seed=None):
        self.tracker = tracker
        self.reveal = False  # the instructor switch: show every solution
        # Seeds for "New problem"; rng_seed makes that sequence reproducible in tests.
        self._rng = np.random.default_rng(rng_seed)
        self.kind_dropdown = widgets.Dropdown(options=list(KINDS), value=kind, description="Kind:")
        self.difficulty_dropdown = widgets.Dropdown(options=list(DIFFICULTIES), value=difficulty,
                                                    description="Difficulty:")
        self.seed_text = widgets.Text(value=str(seed), description="Problem no.:", continuous_update=False,
                                      style={"description_width": "initial"}, layout=widgets.Layout(width="14em"))
        self.seed_message_html = widgets.HTML("")
        self.new_button = widgets.Button(description="New problem", tooltip="a fresh random problem number")
        self.check_button = widgets.Button(description="Check", button_style="primary",
                                           layout=widgets.Layout(width="7em"))
        self.solution_button = widgets.Button(description="Show solution")
        self.prompt_html = widgets.HTML("")
        self.inputs_html = widgets.HTML("")
        self.answer_box = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self.feedback_html = widgets.HTML("")
        self.solution_html = widgets.HTML("", layout=widgets.Layout(display="none"))
        self.answer_widgets: dict[str, widgets.Widget] = {}
        self.problem: Problem = generate(kind, seed, difficulty)
        self.last_feedback: Feedback | None = None

        self.new_button.on_click(lambda _b: self._guarded(self.new_problem))
        self.check_button.on_click(lambda _b: self.check())
        self.solution_button.on_click(lambda _b: self._guarded(self.toggle_solution))
        self.kind_dropdown.observe(lambda _c: self._guarded(self._from_controls), names="value")
        self.difficulty_dropdown.observe(lambda _c: self._guarded(self._from_controls), names="value")
        self.seed_text.observe(lambda _c: self._guarded(self._from_controls), names="value")
        self._show_problem()
        super().__init__(
            children=[
                widgets.HBox([self.kind_dropdown, self.difficulty_dropdown]),
                widgets.HBox([self.seed_text, self.new_button, self.seed_message_html]),
                self.prompt_html,
                self.inputs_html,
                self.answer_box,
                widgets.HBox([self.check_button, self.feedback_html], layout=widgets.Layout(align_items="flex-start")),
                self.solution_button,
                self.solution_html,
            ],
            layout=widgets.Layout(border="1px solid rgba(128,128,128,0.4)", padding="6px 10px", margin="6px 0"),
        )
        _classes((self, "practice-generator"), (self.kind_dropdown, "practice-kind"),
                 (self.difficulty_dropdown, "practice-difficulty"), (self.seed_text, "practice-seed"),
                 (self.seed_message_html, "practice-seed-message"), (self.new_button, "practice-new"),
                 (self.prompt_html, "practice-prompt"), (self.inputs_html, "practice-given"),
                 (self.answer_box, "practice-answer"), (self.check_button, "practice-check"),
                 (self.feedback_html, "practice-feedback"), (self.solution_button, "practice-solution-button"),
                 (self.solution_html, "practice-solution"))

    def _guarded(self, fn) -> None:
        try:
            fn()
        except Exception as err:  # noqa: BLE001 - a learner never sees a traceback
            self.feedback_html.value = _feedback_html(None, f"Something went wrong ({type(err).__name__}); "
                                                            "the last problem stays.")
            # Put the controls back to the problem on screen (their observers then find nothing to do).
            p = self.problem
            self.kind_dropdown.value, self.difficulty_dropdown.value = p.kind, p.difficulty
            self.seed_text.value = str(p.seed)

    # -- choosing the problem

    def _from_controls(self) -> None:
        text = self.seed_text.value.strip()
        try:
            seed = int(text.replace(",", "").replace(" ", "").replace("_", ""))
            if seed < 0:
                raise ValueError
        except ValueError:
            self.seed_message_html.value = _feedback_html(
                None, f"{text[:20]!r} is not a problem number: type a whole number ≥ 0. "
                      f"Still showing problem {self.problem.seed}.")
            return
        self.seed_message_html.value = ""
        p = self.problem
        if (p.kind, p.seed, p.difficulty) == (self.kind_dropdown.value, seed, self.difficulty_dropdown.value):
            return
        self.problem = generate(self.kind_dropdown.value, seed, self.difficulty_dropdown.value)
        self._show_problem()

    def set_seed(self, seed) -> None:
        """Type a problem number into the seed field (what the learner does)."""
        self.seed_text.value = str(seed)

    def new_problem(self) -> None:
        """Press "New problem": a fresh random problem number of the chosen kind and difficulty."""
        seed = int(self._rng.integers(0, 10_000))
        while seed == self.problem.seed:
            seed = int(self._rng.integers(0, 10_000))
        self.seed_text.value = str(seed)  # the observer builds the problem

    def _show_problem(self) -> None:
        p = self.problem
        first, _, rest = p.prompt.partition(". ")
        text = rest.split("\n\n")[0]
        self.prompt_html.value = (f'<div style="margin:4px 0"><b>{_html.escape(first)}.</b> '
                                  f"{_html.escape(text)}</div>")
        self.inputs_html.value = _problem_inputs_html(p)
        self.answer_widgets = self._make_answer_widgets(p)
        old = list(self.answer_box.children)
        if p.kind == "shapes":
            self.answer_box.children = [widgets.VBox(list(self.answer_widgets.values()))]
        else:
            self.answer_box.children = list(self.answer_widgets.values())
        for w in old:
            w.close()
        self.feedback_html.value = ""
        self.last_feedback = None
        self.solution_html.value = _pre(p.solution)
        self._set_solution_visible(self.reveal)

    @staticmethod
    def _make_answer_widgets(p: Problem) -> dict:
        if p.kind == "shapes":
            return _shape_fields()
        editors = {}
        for name, value in p.answer.items():
            shape = np.atleast_2d(value).shape
            if name == "weights":
                rows = [f"q{r}" for r in range(shape[0])] if shape[0] > 1 else ["weights"]
                cols = [f"k{c}" for c in range(shape[1])]
            elif name == "output":
                rows, cols = [f"q{r}" for r in range(shape[0])], [f"d{c}" for c in range(shape[1])]
            else:  # Q, K, V of a projection problem
                rows = [f"token {r + 1}" for r in range(shape[0])]
                cols = [f"col {c + 1}" for c in range(shape[1])]
            editors[name] = MatrixEditor(np.zeros(shape), row_labels=rows, col_labels=cols, title=name, buttons=False)
        return editors

    # -- checking

    def answer(self):
        """The current answer in the form ``Problem.check`` takes."""
        w = self.answer_widgets
        if self.problem.kind == "shapes":
            return {k: t.value for k, t in w.items()}
        return {k: ed.value for k, ed in w.items()}

    def check(self) -> Feedback | None:
        """Press Check: read the answer, show the verdict, record progress."""
        return _press_check(
            self,
            lambda: "" if self.problem.kind == "shapes" else _editor_problems(self.answer_widgets),
            lambda: self.problem.check(self.answer()),
            lambda correct: self.tracker.record_problem(self.problem, correct),
        )

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


class PracticeSession:
    """The practice widgets of one notebook: shared progress and one instructor switch.

    Attributes
    ----------
    progress : ProgressTracker
    questions : dict of str -> PracticeQuestion
    generators : list of GeneratedPractice
    instructor : ipywidgets.Checkbox
        "Instructor: show all solutions"; ticking it opens every solution, unticking closes them.
    """

    def __init__(self):
        self.progress = ProgressTracker()
        self.questions: dict[str, PracticeQuestion] = {}
        self.generators: list[GeneratedPractice] = []
        self.instructor = _InstructorSwitch(value=False, description="Instructor: show all solutions",
                                           indent=False, layout=widgets.Layout(width="auto"))
        self.instructor.add_class("practice-instructor")
        self.instructor.observe(lambda change: self.reveal_all(change["new"]), names="value")

    def question(self, qid: str) -> PracticeQuestion:
        """The widget for lesson question ``qid`` (made once; displaying it again shows the same state)."""
        key = qid.strip().lower() if isinstance(qid, str) else qid
        if key not in self.questions:
            w = PracticeQuestion(key, tracker=self.progress)
            if self.instructor.value:
                w.show_solution()
            self.questions[key] = w
        return self.questions[key]

    def all_questions(self) -> widgets.VBox:
        return widgets.VBox([self.question(q) for q in QUESTIONS])

    def generator(self, kind: str = "attention", difficulty: str = "easy", seed: int = 42,
                  rng_seed=None) -> GeneratedPractice:
        g = GeneratedPractice(kind, difficulty, seed, tracker=self.progress, rng_seed=rng_seed)
        g.reveal = self.instructor.value
        g.show_solution(self.instructor.value)
        self.generators.append(g)
        return g

    def reveal_all(self, show: bool = True) -> None:
        """What the instructor switch does."""
        for w in self.questions.values():
            w.show_solution(show)
        for g in self.generators:
            g.reveal = bool(show)
            g.show_solution(show)

    def instructor_switch(self) -> widgets.Checkbox:
        return self.instructor

    def progress_widget(self) -> widgets.HTML:
        return self.progress.widget


_SESSION = PracticeSession()


def session() -> PracticeSession:
    """This kernel's practice session (the one the module-level functions use)."""
    return _SESSION


def question(qid: str) -> PracticeQuestion:
    """The widget for lesson question ``qid`` (``"q1"`` ... ``"q8"``)."""
    return _SESSION.question(qid)


def all_questions() -> widgets.VBox:
    """All eight lesson questions, one under another."""
    return _SESSION.all_questions()


def generator(kind: str = "attention", difficulty: str = "easy", seed: int = 42) -> GeneratedPractice:
    """Generated practice problems, starting at problem ``seed``."""
    return _SESSION.generator(kind, difficulty, seed)


def instructor_switch() -> widgets.Checkbox:
    """The checkbox "Instructor: show all solutions" for every practice widget of this notebook."""
    return _SESSION.instructor_switch()


def progress() -> widgets.HTML:
    """The progress summary: "Solved 3 of 8 lesson questions, 2 generated problems."."""
    return _SESSION.progress_widget()
