"""Calling a function a learner wrote: stopped after a time limit, what it returned said in words.

Two places run a learner's code: the checks of the Your turn cells (:mod:`helpers.exercises.code_tasks`) and the real
model, which takes a learner's attention function (:meth:`helpers.core.pretrained.MiniLM.__call__`). Both stop a
function that runs too long the same way and describe what came back the same way, so a learner reads one kind of
message.
"""

from __future__ import annotations

import signal
import threading

import numpy as np

from helpers.core.explain import shape_text

__all__ = ["TIME_LIMIT", "TimeUp", "call_limited", "describe"]

# Seconds one call of the learner's function may take (on the course's inputs a right answer takes milliseconds; a
# loop that never ends is stopped).
TIME_LIMIT = 2.0


class TimeUp(BaseException):
    """Raised inside the learner's function when it runs too long (a BaseException: ``except Exception`` in the
    learner's code does not swallow it)."""


def call_limited(fn, args, seconds: float):
    """``fn(*args)``, stopped with :class:`TimeUp` after ``seconds``.

    The timer (SIGALRM) works in the main thread only, which is where a notebook's cells run; elsewhere, and inside
    a call that is already limited (whose own timer keeps running), ``fn`` runs without a limit of its own.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer") \
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        return fn(*args)

    def time_up(signum, frame):
        raise TimeUp

    previous = signal.signal(signal.SIGALRM, time_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def describe(x) -> str:
    """What a function returned, in a few words ("None", "a tuple of 2 items", "an array of shape (3, 3)")."""
    if x is None:
        return "None"
    if isinstance(x, str):
        return f"the text {x[:30]!r}"
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)} item{'s' if len(x) != 1 else ''}"
    if isinstance(x, np.ndarray):
        return f"an array of shape {shape_text(x.shape)}"
    name = type(x).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
