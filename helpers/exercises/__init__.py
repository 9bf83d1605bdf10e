"""Checking without widgets: the lesson's questions, generated problems and the code the learner writes.

Entry points:

``check(qid, answer) -> Feedback``
    Checks an answer to one of the lesson's questions ``"q1"`` ... ``"q8"`` (:mod:`.lesson`). Any answer,
    however malformed, gets a :class:`~helpers.exercises.feedback.Feedback`; only an unknown question id raises.

``generate(kind, seed, difficulty="easy") -> Problem``
    A fresh problem with small, friendly numbers (:mod:`.registry`; the built-in kinds are in
    :mod:`.problems`, one module each). The same ``(kind, seed, difficulty)`` always gives the same
    problem, so "problem 42" means the same thing to everybody. A new kind is one module of :mod:`.problems`
    defining ``KIND`` (or, from outside, one :func:`register_kind` call): a generator, its answer fields (matrix
    grids by default), its given matrices and its checker (entry by entry by default).

``check_code(task, fn) -> Feedback``
    Runs a learner's function for a "Your turn" task on the course's examples and on probes for classic
    mistakes (:mod:`.code_tasks`, one module per task, whose ``check_task`` is the verdict alone) and records the
    verdict in the learner's progress (:mod:`.your_turn`). The hint ladder a notebook shows after the check,
    ending with the folded solution, is a widget, :func:`helpers.widgets.hints.hints`.

Beyond transcription, three ways to think, each with its data in one module per notebook (``n01.py``, ...):

``predictions()``, ``judge(name, answer) -> Judgement``
    Predict, commit, reveal (:mod:`.predictions`; the widget is :func:`helpers.widgets.predict.predict`).
``design_tasks()``, ``check_design(name, **arrays) -> Feedback``
    Change matrices until the attention meets a goal (:mod:`.design`; the explorers take ``goal=``).
``bugs()``, ``check_fix(name, fn) -> Feedback``
    Find the bug in given attention code (:mod:`.bugs`): the first failed check shows the failing example, the
    second names the mistake.

Every Your turn and every bug has a hint ladder, ``ladder(name)`` (:mod:`.hints`): the idea in words, the failing
example of the last check, for a bug the mistake named, then the solution. The checks of this kernel that the
ladders and the two stages read are kept by :mod:`.attempts`; ``reset_attempts()`` forgets them, as a new kernel.

What the learner has done (predictions committed, goals met, bugs fixed, Your turns right) is kept across kernels
by :mod:`.progress`: ``progress()``, ``reset_progress()``.

``items()``, ``judge_item(name, answer) -> ItemVerdict``
    The concept inventory, taken before notebook 01 and after 09 (:mod:`.inventory`; scores and the normalized gain
    there too).

Every word a learner reads (questions, options, hints, worked solutions, the catalogues of mistakes, the
texts of generated problems) is data in :mod:`helpers.core.questions`; answers are read by :mod:`.answers` and
every reference answer is computed with :mod:`helpers.core.attention`. Nothing in this package imports a widget
library: the practice widgets (:mod:`helpers.demos.practice`) and the solution folds (:mod:`helpers.widgets.solutions`)
build on it.

Answer forms
------------
* q1 and ``"shapes"`` problems: ``{"d_k": 64, "Q": (8, 12, 20, 64), "K": ..., "V": ...,
  "weights": (8, 12, 20, 20), "output": (8, 20, 768)}``
* q2: ``(32, 64)``
* q5 and ``"projection"`` problems: ``{"Q": array, "K": array, "V": array}``
* q7: ``10000``
* q3, q4, q6, q8: a choice key such as ``"b"`` (see ``QUESTIONS[qid].choices``)
* ``"attention"`` and ``"masked"`` problems: ``{"weights": array, "output": array}``
* ``"softmax"`` problems: ``{"weights": array}``
* ``"heatmap"`` problems: ``{"pattern": "diagonal", "mask": "causal", "attention": "self", "strongest": "cat"}``
  (options in ``p.fields``)

Sensible equivalents are accepted: lists for tuples, ints for floats, numpy arrays, and
text read by :mod:`helpers.core.parsing` (numbers such as ``1/2``, counts such as ``10,000``,
shapes such as ``(8, 12, 20, 64)`` or ``8×12×20×64``, matrices such as ``[[2, 1], [0, 3]]``).
"""

from __future__ import annotations

from helpers.exercises.answers import EXACT_TOL, ROUNDED_TOL, check_entries
from helpers.exercises.attempts import reset_attempts
from helpers.exercises.bugs import Bug, bugs, check_fix
from helpers.exercises.code_tasks import solution_source
from helpers.exercises.design import DesignTask, check_design, design_tasks
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Field, Given, given_matrix, grid_fields
from helpers.exercises.hints import Ladder, Step, ladder, ladder_names
from helpers.exercises.inventory import Item, ItemVerdict, items, judge_item
from helpers.exercises.lesson import FORMS, QUESTIONS, AnswerForm, Choice, Question, check
from helpers.exercises.predictions import Judgement, Prediction, judge, predictions
from helpers.exercises.problems.heatmap import HEATMAP_MARGIN, HeatmapGiven
from helpers.exercises.progress import Progress, Result, progress, record, reset_progress
from helpers.exercises.registry import (
    DIFFICULTIES,
    Generated,
    Kind,
    Problem,
    generate,
    kinds,
    register_kind,
    unregister_kind,
)
from helpers.exercises.your_turn import check_code

__all__ = [
    "Feedback",
    "Field",
    "Given",
    "HeatmapGiven",
    "Choice",
    "Question",
    "AnswerForm",
    "Generated",
    "Kind",
    "Problem",
    "QUESTIONS",
    "FORMS",
    "KINDS",
    "DIFFICULTIES",
    "ROUNDED_TOL",
    "EXACT_TOL",
    "HEATMAP_MARGIN",
    "check",
    "generate",
    "kinds",
    "register_kind",
    "unregister_kind",
    "check_entries",
    "grid_fields",
    "given_matrix",
    "check_code",
    "solution_source",
    "Prediction",
    "Judgement",
    "predictions",
    "judge",
    "DesignTask",
    "design_tasks",
    "check_design",
    "Bug",
    "bugs",
    "check_fix",
    "Item",
    "ItemVerdict",
    "items",
    "judge_item",
    "Ladder",
    "Step",
    "ladder",
    "ladder_names",
    "reset_attempts",
    "Progress",
    "Result",
    "progress",
    "record",
    "reset_progress",
]

KINDS = kinds()  # the built-in kinds, found in helpers.exercises.problems
