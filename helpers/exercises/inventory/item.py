"""One item of the concept inventory: a multiple-choice question whose wrong options are known misconceptions.

An :class:`Item` is data: the question, its options in the order the pre-test shows them, the right option's text,
what each wrong option suggests, and where the course teaches the idea. :meth:`Item.judge` reads any answer and
returns an :class:`ItemVerdict`; junk answers get a verdict that says what could not be read, never an exception.
:meth:`Item.post_order` gives the options in the post-test's order: the same options, each in another place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from helpers.core.parsing import quote
from helpers.exercises.per_notebook import NOTEBOOK

__all__ = ["OPTION_COUNT", "LETTERS", "POST_PLACE", "Item", "ItemVerdict"]

OPTION_COUNT = 4
# An option may be named by its letter in the pre-test's order: "a" is the first option of Item.options.
LETTERS = "abcd"
# Where the post-test puts the right option, by its place in the pre-test: no place maps to itself, and the rotations
# this asks for differ (by 2, 2, 1 and 3 places), so the post-test's order is not one rotation of every item.
POST_PLACE = (2, 3, 1, 0)
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # "row-of-the-weights": lower-case words joined by "-"
_SPACE = re.compile(r"\s+")
_LETTER = re.compile(r"\(?([a-d])[).]?")


def _plain(text: str) -> str:
    """Text compared as a learner means it: spaces collapsed, case ignored, straight quotes."""
    return _SPACE.sub(" ", text.replace("’", "'").replace("‘", "'")).strip().casefold()


def _describe(answer) -> str:
    """What a junk answer is, in a few words (no repr of a huge object)."""
    if answer is None:
        return "nothing"
    if isinstance(answer, str):
        return quote(answer.strip(), 40) if answer.strip() else "an empty text"
    return f"a {type(answer).__name__}"


@dataclass(frozen=True)
class ItemVerdict:
    """The verdict on one answer to an inventory item.

    Attributes
    ----------
    name : str
        The item's name.
    correct : bool
        False for an answer that could not be read.
    answer : str
        The option chosen, as its full text ('' if the answer could not be read).
    truth : str
        The right option's text ('' if the answer could not be read: nothing is revealed for junk).
    misconception : str
        For a wrong option, what choosing it suggests; '' when right or unread.
    problem : str
        Why the answer could not be read; '' when it could.
    """

    name: str
    correct: bool
    answer: str
    truth: str
    misconception: str = ""
    problem: str = ""

    @property
    def readable(self) -> bool:
        """True if the answer could be read as one of the options."""
        return not self.problem


@dataclass(frozen=True)
class Item:
    """One multiple-choice item of the concept inventory.

    Attributes
    ----------
    name : str
        Lower-case words joined by "-" (``"row-of-the-weights"``); what progress records it under.
    objective : int
        The lesson's learning objective it tests, 1 to 5 in the lesson's order (:data:`OBJECTIVES`).
    question : str
        A concept question (not arithmetic).
    options : tuple of str
        :data:`OPTION_COUNT` different texts, in the pre-test's order.
    answer : str
        The right option's text (one of ``options``).
    misconceptions : mapping str -> str
        Every wrong option -> what choosing it suggests (one sentence).
    notebook : str
        Where the course teaches it: a notebook's stem, ``"04_masking"``.
    section : str
        The heading of that notebook's section that teaches it, as written there (without the ``#``).
    """

    name: str
    objective: int
    question: str
    options: tuple[str, ...]
    answer: str
    misconceptions: Mapping[str, str] = field(default_factory=dict)
    notebook: str = ""
    section: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(f"an item's name is lower-case words joined by '-', like 'row-of-the-weights'; "
                             f"got {self.name!r}")
        what = f"item {self.name!r}"
        if self.objective not in range(1, 6) or isinstance(self.objective, bool):
            raise ValueError(f"{what}: objective must be 1, 2, 3, 4 or 5; got {self.objective!r}")
        for attr in ("question", "answer", "section"):
            text = getattr(self, attr)
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{what}: {attr} must be a non-empty text")
        if not isinstance(self.notebook, str) or not NOTEBOOK.fullmatch(self.notebook):
            raise ValueError(f"{what}: notebook must be a notebook's stem like '04_masking'; got {self.notebook!r}")
        options = tuple(self.options)
        if len(options) != OPTION_COUNT or not all(isinstance(o, str) and o.strip() for o in options) \
                or len({_plain(o) for o in options}) != OPTION_COUNT:
            raise ValueError(f"{what}: options must be {OPTION_COUNT} different, non-empty texts; got {options!r}")
        object.__setattr__(self, "options", options)
        if self.answer not in options:
            raise ValueError(f"{what}: answer {self.answer!r} is not one of its options")
        wrong = {o for o in options if o != self.answer}
        misconceptions = dict(self.misconceptions)
        if set(misconceptions) != wrong:
            missing, extra = sorted(wrong - set(misconceptions)), sorted(set(misconceptions) - wrong)
            raise ValueError(f"{what}: misconceptions must name every wrong option and nothing else; missing "
                             f"{missing}, not options {extra}")
        for option, text in misconceptions.items():
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{what}: the misconception of {option!r} must be a non-empty text")
        object.__setattr__(self, "misconceptions", misconceptions)

    # -- reading and judging answers

    def read(self, answer) -> str:
        """``answer`` as the full text of one of the options.

        An option's text (case, spaces and curly quotes do not matter) or its letter in the pre-test's order
        (``"b"``, ``"b)"``; :data:`LETTERS`) is read.

        Raises
        ------
        ValueError
            Saying what is wrong with it (not text, empty, not one of the options).
        """
        if not isinstance(answer, str):
            raise ValueError(f"an answer is one of the options' text, or its letter a to d; got {_describe(answer)}")
        if not answer.strip():
            raise ValueError("no option chosen: pick one of the options")
        for option in self.options:
            if _plain(option) == _plain(answer):
                return option
        letter = _LETTER.fullmatch(_plain(answer))
        if letter:
            return self.options[LETTERS.index(letter[1])]
        raise ValueError(f"{_describe(answer)} is not one of the options of item {self.name!r}")

    def judge(self, answer) -> ItemVerdict:
        """The verdict on ``answer`` (anything: junk gets a verdict with ``.problem`` set, never an exception)."""
        try:
            chosen = self.read(answer)
        except ValueError as err:
            return ItemVerdict(self.name, False, "", "", problem=str(err))
        right = chosen == self.answer
        return ItemVerdict(self.name, right, chosen, self.answer, "" if right else self.misconceptions[chosen])

    def post_order(self) -> tuple[str, ...]:
        """The options in the post-test's order: rotated so that every option, the right one included, sits in
        another place than in the pre-test; the right one moves to the place :data:`POST_PLACE` gives its pre-test
        place, so that the right answers are spread over the places as evenly in the post-test as in the pre-test.
        The same order on every run."""
        place = self.options.index(self.answer)
        shift = (place - POST_PLACE[place]) % OPTION_COUNT
        return self.options[shift:] + self.options[:shift]
