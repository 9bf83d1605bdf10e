"""The checks of this kernel: the last verdict and the failed tries of each Your turn and each Find the bug.

:func:`~helpers.exercises.check_code` and :func:`~helpers.exercises.check_fix` note every check here, by kind
(``"your-turn"`` or ``"bug"``) and name (the task or the bug). Two things read it:

* a Find the bug check, for its stage: the first failed check of a bug shows the failing example and "one line is
  wrong"; from the second failed check on, or once the hint ladder has named the mistake (:func:`name_mistake`), it
  names the mistake too;
* a hint ladder (:mod:`helpers.exercises.hints`), for its failing example: the one of the last check.

This is kernel memory, not progress: a new kernel starts with none, so a notebook run top to bottom (nbval, the
notebook runner, "Run All" in JupyterLab) always shows a bug's first stage, and the progress file (shared by every
kernel of a test run) plays no part. :func:`reset_attempts` forgets everything, as a new kernel would: whoever runs
several notebooks in one Python process (``tests/conftest.py``'s ``run_notebook``) calls it before each one.
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.exercises.feedback import Feedback

__all__ = ["KINDS", "Attempt", "note", "last", "failed", "name_mistake", "mistake_named", "reset_attempts"]

KINDS = ("your-turn", "bug")


@dataclass(frozen=True)
class Attempt:
    """What the checks of one Your turn or bug came to in this kernel: the last verdict and how many failed."""

    feedback: Feedback
    failed: int


_attempts: dict[tuple[str, str], Attempt] = {}
_named: set[str] = set()


def _key(kind: str, name: str) -> tuple[str, str]:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    return kind, name


def note(kind: str, name: str, feedback: Feedback) -> int:
    """Note one check of ``name`` (a task for ``"your-turn"``, a bug for ``"bug"``); returns how many checks of it
    have failed in this kernel, this one included."""
    key = _key(kind, name)
    before = _attempts.get(key)
    failed = (before.failed if before else 0) + (not feedback.correct)
    _attempts[key] = Attempt(feedback, failed)
    return failed


def last(kind: str, name: str) -> Feedback | None:
    """The verdict of the last check of ``name`` in this kernel; None if it was not checked yet."""
    attempt = _attempts.get(_key(kind, name))
    return attempt.feedback if attempt else None


def failed(kind: str, name: str) -> int:
    """How many checks of ``name`` failed in this kernel."""
    attempt = _attempts.get(_key(kind, name))
    return attempt.failed if attempt else 0


def name_mistake(bug: str) -> None:
    """Remember that the mistake of ``bug`` was named to the learner (its hint ladder got there): its next check
    names it too."""
    _named.add(bug)


def mistake_named(bug: str) -> bool:
    """Whether the mistake of ``bug`` was named by its hint ladder in this kernel."""
    return bug in _named


def reset_attempts() -> None:
    """Forget every check and every named mistake, as a new kernel starts."""
    _attempts.clear()
    _named.clear()
