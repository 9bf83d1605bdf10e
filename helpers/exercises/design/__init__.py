"""Design tasks: the learner changes matrices until the attention does what a goal says (no widgets).

"Make 'sat' attend mostly to 'cat'", "build a previous-token head", "make 'le' read 'cat'": each task is a
:class:`DesignTask` whose goal is judged on the attention the learner's arrays give (its weights or its output), so
every design that meets the goal counts. The learner works in code, ``check_design(name, X=my_X)``, or in an
explorer that shows the goal line as they edit, ``AttentionExplorer(tokens, X, W_q, W_k, W_v, goal=name)``.

Each notebook's tasks are one module, ``n01.py`` for ``01_intuition`` and so on, holding a list ``TASKS`` of
:class:`DesignTask`; the modules are found automatically, so adding a notebook's tasks touches no other file. The
pieces most judges are made of (the attention of the arrays, goals such as :func:`~.goals.attends_most`) are in
:mod:`.goals`.

Arrays not passed to :func:`check_design` are the task's own: a changeable array its start, a fixed one its given
value. A goal met is recorded in the learner's progress (:mod:`helpers.exercises.progress`, kind ``"design"``).
"""

from __future__ import annotations

from helpers.exercises.design.task import LAYOUTS, DesignTask
from helpers.exercises.feedback import Feedback
from helpers.exercises.per_notebook import Entries
from helpers.exercises.progress import record

__all__ = ["DesignTask", "LAYOUTS", "design_tasks", "design_task", "judge_design", "check_design"]


_ENTRIES = Entries(__name__, "TASKS", "design task", "tasks")


def design_tasks() -> dict[str, DesignTask]:
    """Every design task of the course, by name, in notebook order (a new dict: changing it changes nothing).

    Each task has ``.notebook`` (``"01_intuition"``), ``.goal`` (one sentence), ``.start`` and ``.solution`` (dicts:
    array name -> array, the arrays the learner changes), ``.given`` (the fixed arrays, may be empty).
    """
    return _ENTRIES.all()


def design_task(name: str) -> DesignTask:
    """The design task called ``name``.

    Raises
    ------
    ValueError
        If there is none, naming the known ones.
    """
    return _ENTRIES.one(name)


def judge_design(name: str, **arrays) -> Feedback:
    """Is the goal of the design task ``name`` met by these arrays? The verdict alone, recording nothing
    (:func:`check_design` is the check that records it).

    Parameters
    ----------
    name : str
        A design task's name (``"01-sat-attends-cat"``).
    **arrays
        The learner's arrays by name (``X=...``, ``W_k=...``): numpy arrays, nested lists or matrix text. Those not
        passed are the task's own (start or given).

    Returns
    -------
    Feedback
        ``.correct`` when the goal is met; ``.message`` how things stand ("'sat' gives 'cat' 0.31 of its
        attention, ...; the goal is ..."), or which argument is wrong and how (a shape, NaN, text that is not a
        matrix, a fixed array changed, an unknown name). Never raises for what is passed.

    Raises
    ------
    ValueError
        If no design task is called ``name``.
    """
    return design_task(name).check(**arrays)


def check_design(name: str, **arrays) -> Feedback:
    """:func:`judge_design`'s verdict on these arrays, a goal met recorded in the learner's progress (kind
    ``"design"``): what a notebook's ``check_design(name, X=my_X)`` and an explorer's goal line call.

    Raises
    ------
    ValueError
        If no design task is called ``name``.
    """
    feedback = judge_design(name, **arrays)
    if feedback.correct:  # only a goal met: an explorer checks its goal at every edit, which is not a try
        record("design", name, correct=True)
    return feedback
