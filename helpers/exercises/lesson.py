"""The lesson's practice questions Q1-Q8 as self-checking exercises: :data:`QUESTIONS` and :func:`check`.

Every word of a question (text, options, hint, worked solution, mistake catalogue) is data in
:mod:`helpers.core.questions`. Each question has a form, a key of :data:`FORMS`: how it is answered (its fields),
how the field values become an answer, how an answer is checked and what a right one is. Q1 and Q5 are
checked by the ``"shapes"`` and ``"projection"`` problem kinds' own checkers.

Answer forms
------------
* q1: ``{"d_k": 64, "Q": (8, 12, 20, 64), "K": ..., "V": ..., "weights": (8, 12, 20, 20), "output": (8, 20, 768)}``
* q2: ``(32, 64)``
* q5: ``{"Q": array, "K": array, "V": array}``
* q7: ``10000``
* q3, q4, q6, q8: a choice key such as ``"b"`` (see ``QUESTIONS[qid].choices``)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from helpers.core import questions as text
from helpers.core.attention import head_dim, project_qkv
from helpers.core.explain import fmt
from helpers.core.parsing import parse_numbers
from helpers.exercises.answers import (
    EXACT_TOL,
    Unreadable,
    describe,
    is_blank,
    parsed,
    read_count,
    read_number,
    safe_check,
)
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Field, Given, grid_fields
from helpers.exercises.problems.projection import check_projection, projection_given
from helpers.exercises.problems.shapes import check_shapes, dk_diagnosis, shape_fields, shape_params

__all__ = ["Choice", "AnswerForm", "Question", "FORMS", "QUESTIONS", "check"]


# --------------------------------------------------------------------------- number answers


def _check_dk_pair(answer, spec) -> Feedback:
    """Q2: d_k for two (d_model, heads) cases, as a pair, a list, a dict or typed text."""
    cases, words = spec["cases"], spec["messages"]
    expected = [head_dim(c["d_model"], c["heads"]) for c in cases]
    if isinstance(answer, dict):
        answer = [answer.get(c["name"], answer.get(k + 1)) for k, c in enumerate(cases)]
    if isinstance(answer, (int, float, np.integer, np.floating)) and not isinstance(answer, bool):
        raise Unreadable(words["one_number"])
    if isinstance(answer, str):
        items = parsed(parse_numbers, answer, "the answer", "case")
    elif isinstance(answer, np.ndarray) and answer.ndim == 1:
        items = list(answer)
    elif isinstance(answer, (list, tuple)):
        items = list(answer)
    else:
        raise Unreadable(words["one_number"] + f"; got {describe(answer)}")
    if len(items) != len(cases):
        raise Unreadable(words["how_many"].format(count=len(items)))
    got = [read_number(v, f"d_k for case {k + 1}") for k, v in enumerate(items)]
    if got == expected:
        return Feedback(True, words["right"])
    if got == expected[::-1]:
        return Feedback(False, words["swapped"])
    lines = [text.VERDICTS["some_right"].format(right=sum(g == e for g, e in zip(got, expected)), total=len(cases))]
    for c, g, e in zip(cases, got, expected):
        D, h = c["d_model"], c["heads"]
        if g == e:
            lines.append(f"✓ d_model = {D}, h = {h}: d_k = {e}")
        else:
            lines.append(f"✗ d_model = {D}, h = {h}: {fmt(g)}? {dk_diagnosis(g, D, h)}")
    return Feedback(False, "\n".join(lines))


# n as a variable ("n^2", "n*n", "n²", "n(n-1)"), not the n of a word such as "nan" or "none".
_FORMULA_IN_N = re.compile(r"(?<![A-Za-z])n(?![A-Za-z])", re.I)


def _check_count(answer, spec) -> Feedback:
    """Q7: one whole number; a formula in n is answered with its own message."""
    words = spec["messages"]
    if isinstance(answer, str) and _FORMULA_IN_N.search(answer):
        raise Unreadable(words["formula"].format(text=repr(answer.strip()[:30])))
    got = read_count(answer, spec["field"]["what"])
    if got == spec["expected"]:
        return Feedback(True, words["right"])
    return Feedback(False, f"{fmt(got)}: {spec['mistakes'].get(got, words['otherwise'])}")


# --------------------------------------------------------------------------- multiple choice


@dataclass(frozen=True)
class Choice:
    """One option of a multiple-choice question, with why it is right or wrong."""

    key: str
    text: str
    correct: bool
    explanation: str


def _check_choice(answer, spec) -> Feedback:
    """Q3, Q4, Q6, Q8: an option's letter (``"b"``, ``"(b)"``, ``"b)"``), a synonym or the option's text."""
    choices = spec["choices"]
    keys = ", ".join(c.key for c in choices)
    if is_blank(answer):
        raise Unreadable(text.VERDICTS["choose"].format(keys=keys))
    if not isinstance(answer, str):
        raise Unreadable(text.VERDICTS["choose_letter"].format(keys=keys, got=describe(answer)))
    typed = " ".join(answer.strip().lower().split())
    letter = re.fullmatch(r"\(?([a-z])\)?[.:]?", typed) or re.match(r"\(?([a-z])[).:]\s", typed)
    if letter:  # "b", "(b)", "b)", "b. Nothing: ..." (an option pasted with its letter)
        typed = letter.group(1)
    typed = spec.get("synonyms", {}).get(typed.rstrip(".!"), typed)
    # The learner may paste the option's text instead of its letter.
    by_text = {c.text.lower(): c for c in choices}
    chosen = next((c for c in choices if c.key == typed), None) or by_text.get(typed)
    if chosen is None:
        raise Unreadable(text.VERDICTS["not_a_choice"].format(text=repr(answer.strip()[:30]), keys=keys))
    verdict = text.VERDICTS["choice_right" if chosen.correct else "choice_wrong"]
    return Feedback(chosen.correct, verdict + chosen.explanation)


# --------------------------------------------------------------------------- the forms


@dataclass(frozen=True)
class AnswerForm:
    """How one form of lesson question is answered and checked.

    Attributes
    ----------
    fields : callable(spec) -> tuple of Field
        The answer fields for the question's data ``spec`` (a dict of :data:`helpers.core.questions.QUESTIONS`).
    collect : callable(values) -> answer
        From ``{field name: value}`` to the answer :func:`check` takes.
    check : callable(answer, spec) -> Feedback
        May raise on unreadable answers; :func:`check` turns that into Feedback.
    expected : callable(spec) -> answer
        A right answer.
    given : callable(spec) -> tuple of Given
        The matrices the question gives (none by default).
    """

    fields: Callable
    collect: Callable
    check: Callable
    expected: Callable
    given: Callable = lambda spec: ()


def _one_value(values: dict):
    (value,) = values.values()
    return value


def _projection_weights(spec) -> dict:
    i = spec["inputs"]
    return {"Q": i["W_q"], "K": i["W_k"], "V": i["W_v"]}


def _projection_expected(spec) -> dict:
    X = np.array(spec["inputs"]["X"], dtype=float)
    Q, K, V = project_qkv(X, *(np.array(w, dtype=float) for w in _projection_weights(spec).values()))
    return {"Q": Q, "K": K, "V": V}


FORMS: dict[str, AnswerForm] = {
    "shapes": AnswerForm(
        fields=shape_fields, collect=dict,
        check=lambda a, spec: check_shapes(a, **spec["params"]),
        expected=lambda spec: shape_params(**spec["params"]),
    ),
    "d_k pair": AnswerForm(
        fields=lambda spec: tuple(Field(c["name"], "number", c["label"]) for c in spec["cases"]),
        collect=lambda values: tuple(values.values()),
        check=_check_dk_pair,
        expected=lambda spec: tuple(head_dim(c["d_model"], c["heads"]) for c in spec["cases"]),
    ),
    "projection": AnswerForm(
        fields=lambda spec: grid_fields(_projection_expected(spec)), collect=dict,
        check=lambda a, spec: check_projection(a, spec["inputs"]["X"], _projection_weights(spec), EXACT_TOL,
                                               exact=True),
        expected=_projection_expected,
        given=lambda spec: projection_given(*(spec["inputs"][k] for k in ("X", "W_q", "W_k", "W_v"))),
    ),
    "count": AnswerForm(
        fields=lambda spec: (Field(spec["field"]["name"], "number", spec["field"]["label"]),),
        collect=_one_value, check=_check_count, expected=lambda spec: spec["expected"],
    ),
    "choice": AnswerForm(
        fields=lambda spec: (Field("choice", "choice", options=tuple((c.key, c.text) for c in spec["choices"])),),
        collect=_one_value, check=_check_choice,
        expected=lambda spec: next(c.key for c in spec["choices"] if c.correct),
    ),
}


# --------------------------------------------------------------------------- the questions


@dataclass(frozen=True, eq=False)
class Question:
    """One of the lesson's practice questions, read from :data:`helpers.core.questions.QUESTIONS`.

    Attributes
    ----------
    id : str                     ``"q1"`` ... ``"q8"``
    title : str                  a short name
    text : str                   the question as the lesson asks it
    form : str                   a key of :data:`FORMS`
    hint : str
    solution : str               the worked solution, including the lesson's own explanation
    lesson_note : str            where the lesson's printed answer is imprecise ('' if nowhere)
    choices : tuple of Choice    for multiple-choice questions
    expected : object            a right answer, in the form :func:`check` takes
    fields : tuple of Field      the answer fields
    given : tuple of Given       the matrices the question gives
    """

    id: str
    title: str
    text: str
    form: str
    hint: str
    solution: str
    expected: object
    lesson_note: str = ""
    choices: tuple[Choice, ...] = ()
    fields: tuple[Field, ...] = ()
    given: tuple[Given, ...] = ()
    spec: dict = field(default_factory=dict, repr=False)

    def check(self, answer) -> Feedback:
        return safe_check(lambda a: FORMS[self.form].check(a, self.spec), answer)

    def answer_from(self, values: dict):
        """The answer :meth:`check` takes, from ``{field name: what the field holds}``."""
        return FORMS[self.form].collect(values)


def _question(qid: str, data: dict) -> Question:
    spec = dict(data)
    spec["choices"] = tuple(Choice(c["key"], c["text"], c["correct"], c["explanation"])
                            for c in data.get("choices", ()))
    form = FORMS[data["form"]]
    return Question(id=qid, title=data["title"], text=data["text"], form=data["form"], hint=data["hint"],
                    solution="\n".join(data["solution"]), expected=form.expected(spec),
                    lesson_note=data.get("lesson_note", ""), choices=spec["choices"], fields=form.fields(spec),
                    given=form.given(spec), spec=spec)


QUESTIONS: dict[str, Question] = {qid: _question(qid, data) for qid, data in text.QUESTIONS.items()}


def check(qid: str, answer) -> Feedback:
    """Check an answer to one of the lesson's questions.

    Parameters
    ----------
    qid : str
        ``"q1"`` ... ``"q8"`` (case-insensitive).
    answer : object
        In the form described in the module docstring. Anything else gets a Feedback
        saying what could not be read.

    Returns
    -------
    Feedback

    Raises
    ------
    KeyError
        If ``qid`` is not a question id.
    """
    key = qid.strip().lower() if isinstance(qid, str) else qid
    if key not in QUESTIONS:
        raise KeyError(f"unknown question id {qid!r}; the questions are {', '.join(QUESTIONS)}")
    return QUESTIONS[key].check(answer)
