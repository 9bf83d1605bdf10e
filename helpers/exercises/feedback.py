"""The verdict on one answer: :class:`Feedback`, what every checker of the course returns.

The lesson's questions (:func:`helpers.exercises.check`), generated problems (``Problem.check``) and the code
the learner writes (:func:`helpers.exercises.check_code`) all answer with a Feedback. It is plain data with
a text form and an HTML form (a coloured bar in the theme's colours), so it needs no widget library.
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.look import theme

__all__ = ["Feedback", "NOT_WRITTEN"]

# The mistake key of a "Your turn" skeleton not filled in yet: nothing is wrong, there is nothing to judge.
NOT_WRITTEN = "not_written"


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer.

    Attributes
    ----------
    correct : bool
    message : str
        What is right or, when wrong, *what* is wrong (one line per part of the answer).
    mistake : str
        For checked code (:func:`helpers.exercises.check_code`): the key in
        :data:`helpers.exercises.code_tasks.MISTAKES` of the mistake recognised, :data:`NOT_WRITTEN` for an
        unfilled skeleton; '' otherwise.
    example : str
        For checked code: the example the function failed on, as text (its arguments, the results expected beside
        the function's own, the first difference); '' when right or when there is none. A message may quote it.

    In a notebook a Feedback shows as its verdict: a green (right) or red (not yet) bar with the
    message, in the theme's colours (an example it quotes in a fixed-width font, its columns aligned); its text
    form is :meth:`__str__`.
    """

    correct: bool
    message: str
    mistake: str = ""
    example: str = ""

    def __str__(self) -> str:
        if self.mistake == NOT_WRITTEN:
            return "… " + self.message
        return ("✓ " if self.correct else "✗ ") + self.message

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        if self.mistake == NOT_WRITTEN:  # nothing is wrong yet: a neutral bar, not a red one
            return theme.verdict_html(str(self), False).replace(theme.ERROR_BORDER, theme.BORDER, 1)
        return theme.verdict_html(str(self), self.correct, code=self.example)

    def __bool__(self) -> bool:
        return self.correct
