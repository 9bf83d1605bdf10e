"""The check a "Your turn" cell ends with, ``check_code(task, fn)``: the verdict, recorded.

Checking is :func:`helpers.exercises.code_tasks.check_task` (it returns a verdict and writes nothing); this caller
keeps what the verdict means for the learner: every check of a "Your turn" task is noted for the task's hint ladder
(:mod:`helpers.exercises.attempts`), and every judged one (not an unfilled skeleton) is recorded in the learner's
progress (:mod:`helpers.exercises.progress`, kind ``"your-turn"``, name ``task``, the mistake recognised as its
answer).
"""

from __future__ import annotations

from helpers.exercises import attempts
from helpers.exercises.code_tasks import NOT_WRITTEN, TASKS, check_task
from helpers.exercises.feedback import Feedback
from helpers.exercises.progress import record

__all__ = ["check_code"]


def check_code(task: str, fn) -> Feedback:
    """Check a learner's function for ``task`` (:func:`~helpers.exercises.code_tasks.check_task` says how and what
    the Feedback holds) and record the verdict, as the module docstring says.

    Raises
    ------
    ValueError
        If ``task`` is not a known task.
    """
    feedback = check_task(task, fn)
    if TASKS[task].your_turn:
        attempts.note("your-turn", task, feedback)
        if feedback.mistake != NOT_WRITTEN:  # an unfilled skeleton is not a try
            record("your-turn", task, correct=feedback.correct, answer=feedback.mistake or None)
    return feedback
