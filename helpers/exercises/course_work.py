"""What the course asks a learner to do, notebook by notebook, in words, and what is worth looking at again.

Every prediction, design task and bug knows its notebook (its ``notebook`` field); the Your turn tasks are tied to
notebooks by :data:`~helpers.exercises.code_tasks.YOUR_TURN_CELLS`; the lesson questions and the generated problems
are 09's. :func:`course_work` gathers them::

    course_work()["02_projections"]["bug"]        # ("02-softmax-over-queries", "02-k-not-transposed")

:func:`describe` says what one of them is in a few words, for a list a learner reads ("predict: What shape is the
output softmax(QKᵀ/√d_k)V?", "write my_attention"). A bug is named by its mistake only once the learner has tried
twice or fixed it (the check names it after the second failed run); before, by its place ("find the bug 1 of 2").

:func:`review_list` picks from a learner's progress what is worth a second look: the predictions whose first try
was wrong (close ones, within twice the tolerance, are rounding and left out), and the tasks that took
:data:`REVIEW_TRIES` tries or more, or were tried and are not right yet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from helpers.exercises.bugs import bugs
from helpers.exercises.code_tasks import TASKS, YOUR_TURN_CELLS
from helpers.exercises.design import design_tasks
from helpers.exercises.lesson import QUESTIONS
from helpers.exercises.predictions import predictions
from helpers.exercises.progress import Progress, Result

__all__ = ["WORK_KINDS", "PRACTICE_NOTEBOOK", "REVIEW_TRIES", "WORDS", "Review", "course_work", "notebook_of",
           "count_words", "problem_name", "read_problem_name", "describe", "short", "needs_review", "review_list"]

# The kinds of work a notebook asks for, in the order a notebook's line lists them.
WORK_KINDS = ("prediction", "design", "bug", "your-turn", "question")
# The notebook of the lesson questions ("q1" ... "q8") and of the generated problems.
PRACTICE_NOTEBOOK = "09_practice"
# A task right on this try or later, or tried and not right yet, is worth a second look.
REVIEW_TRIES = 3
# What one of each kind is called, in a count: "3 of 5 predictions", "0 of 1 bug".
WORDS = {"prediction": "prediction", "design": "design goal", "bug": "bug", "your-turn": "Your turn",
         "question": "lesson question"}
# A short text is cut here, with "…".
SHORT = 70
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


@cache
def _work() -> dict[str, dict[str, tuple[str, ...]]]:
    found: dict[str, dict[str, list[str]]] = {}

    def add(notebook: str, kind: str, name: str) -> None:
        found.setdefault(notebook, {}).setdefault(kind, []).append(name)

    for kind, entries in (("prediction", predictions()), ("design", design_tasks()), ("bug", bugs())):
        for name, entry in entries.items():
            add(entry.notebook, kind, name)
    for notebook, tasks in YOUR_TURN_CELLS.items():
        for task in tasks:
            add(notebook, "your-turn", task)
    for qid in QUESTIONS:
        add(PRACTICE_NOTEBOOK, "question", qid)
    return {notebook: {kind: tuple(by_kind[kind]) for kind in WORK_KINDS if kind in by_kind}
            for notebook, by_kind in sorted(found.items())}


def course_work() -> dict[str, dict[str, tuple[str, ...]]]:
    """Everything the course asks for: notebook -> kind -> names, in notebook order (a new dict).

    Kinds are those of :data:`WORK_KINDS` a notebook has; a notebook that asks for nothing is not a key. The lesson
    questions are 09's ``"question"`` names (the generated problems, unlimited, are not listed).
    """
    return {notebook: dict(by_kind) for notebook, by_kind in _work().items()}


def count_words(kind: str, done: int, total: int) -> str:
    """``"3 of 5 predictions"``, ``"0 of 1 bug"``: how many of a notebook's ``total`` of ``kind`` are done."""
    return f"{done} of {total} {WORDS[kind]}{'' if total == 1 else 's'}"


def notebook_of(kind: str, name: str) -> str | None:
    """The notebook that asks for ``name`` of ``kind`` (the first, for a Your turn asked twice); a generated problem's
    is 09's; None for a name the course does not know (any more)."""
    if kind == "question" and read_problem_name(name) is not None:
        return PRACTICE_NOTEBOOK
    return next((notebook for notebook, by_kind in _work().items() if name in by_kind.get(kind, ())), None)


# --------------------------------------------------------------------------- generated problems by name


def problem_name(kind: str, seed: int, difficulty: str) -> str:
    """The name a generated problem is recorded under: ``"attention-42-easy"``."""
    return f"{kind}-{seed}-{difficulty}"


def read_problem_name(name: str) -> tuple[str, int, str] | None:
    """``(kind, seed, difficulty)`` of a name written by :func:`problem_name`; None for any other name."""
    parts = name.rsplit("-", 2) if isinstance(name, str) else []
    if len(parts) != 3 or not parts[0] or not parts[1].isdigit() or not parts[2]:
        return None
    return parts[0], int(parts[1]), parts[2]


# --------------------------------------------------------------------------- in words


def short(text: str, limit: int = SHORT) -> str:
    """``text`` on one line, cut at a word past ``limit`` characters with "…"."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def _question_of(prediction) -> str:
    """A prediction's question without its set-up: its last sentence that asks, else its last sentence."""
    sentences = [s for s in _SENTENCE_END.split(prediction.question.strip()) if s]
    asking = [s for s in sentences if s.endswith("?")]
    return (asking or sentences)[-1]


def _bug_words(name: str, named: bool) -> str:
    bug = bugs()[name]
    if named:
        return "find the bug: " + name[3:].replace("-", " ")  # "02-softmax-over-queries": its mistake, in words
    same = [n for n, b in bugs().items() if b.notebook == bug.notebook]
    return "find the bug" + (f" {same.index(name) + 1} of {len(same)}" if len(same) > 1 else "")


def describe(kind: str, name: str, result: Result | None = None, named: bool = False) -> str:
    """What ``name`` of ``kind`` is, in a few words: "predict: What shape is …?", "design: Make 'sat' give …",
    "find the bug 1 of 2", "write my_softmax", "Q3 Why the decoder is causal", "problem 42 (attention, easy)".

    A bug is named by its mistake ("find the bug: softmax over queries") when ``named`` (an instructor's view) or when
    ``result``, the learner's record, shows two tries or the fix; else by its place. A name the course does not know
    is said as it is.
    """
    if kind == "prediction" and name in predictions():
        return "predict: " + short(_question_of(predictions()[name]))
    if kind == "design" and name in design_tasks():
        return "design: " + short(design_tasks()[name].goal)
    if kind == "bug" and name in bugs():
        return _bug_words(name, named or (result is not None and (result.tries >= 2 or result.solved_on is not None)))
    if kind == "your-turn" and name in TASKS:
        return f"write {TASKS[name].solution.__name__}"
    if kind == "question" and name in QUESTIONS:
        return f"{name.upper()} {QUESTIONS[name].title}"
    problem = read_problem_name(name) if kind == "question" else None
    if problem is not None:
        return f"problem {problem[1]} ({problem[0]}, {problem[2]})"
    return f"{kind} {name}"


# --------------------------------------------------------------------------- what to look at again


@dataclass(frozen=True)
class Review:
    """One entry of the review list: the record, its notebook, what it is in words and why it is listed."""

    result: Result
    notebook: str
    what: str
    why: str


def _close(result: Result) -> bool:
    """Whether a prediction's recorded answer is close to the truth (rounding, not a misconception)."""
    try:
        return predictions()[result.name].judge(result.answer).close
    except (KeyError, ValueError):
        return False


def needs_review(result: Result) -> bool:
    """A prediction whose first try was wrong (not merely close: a matter of rounding); a task right only on try
    :data:`REVIEW_TRIES` or later, or tried and not right. A bug's first check is the given code's (the cell run as
    it is), so a bug is listed as not right only after a try of the learner's own; design goals are recorded when
    met, so never listed."""
    if result.kind == "prediction":
        return result.correct is False and not _close(result)
    if result.kind not in ("bug", "your-turn", "question"):
        return False
    if result.solved_on is not None:
        return result.solved_on >= REVIEW_TRIES
    return result.correct is False and result.tries >= (2 if result.kind == "bug" else 1)


def _why(result: Result) -> str:
    if result.kind == "prediction":
        return f"you predicted {short(result.answer, 40)}" if result.answer else "your first prediction was off"
    tries = f"{result.tries} tr{'y' if result.tries == 1 else 'ies'}"
    if result.solved_on is None:
        return f"not right yet after {tries}"
    return f"right on try {result.solved_on}"


def review_list(state: Progress) -> list[Review]:
    """What in ``state`` is worth a second look (:func:`needs_review`), in course order (by notebook, then kind as in
    :data:`WORK_KINDS`, then as the notebook asks); records of names the course no longer has are left out."""
    found = []
    for kind in WORK_KINDS:
        for name, result in state.results(kind).items():
            notebook = notebook_of(kind, name)
            if notebook is not None and needs_review(result):
                found.append(Review(result, notebook, describe(kind, name, result), _why(result)))
    def place(review: Review) -> tuple:
        asked = _work().get(review.notebook, {}).get(review.result.kind, ())
        kind, name = review.result.kind, review.result.name
        return (review.notebook, WORK_KINDS.index(kind), asked.index(name) if name in asked else len(asked), name)

    return sorted(found, key=place)
