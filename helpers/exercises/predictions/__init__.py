"""Predict, commit, reveal: the course's predictions as data, and their judging (no widgets).

Learners who commit a prediction before a demonstration learn more from it than those who only watch it (Crouch,
Fagen, Callan & Mazur, 2004). A notebook shows a prediction with ``predict("01-pasta-weight")``
(:mod:`helpers.widgets.predict`, in a cell tagged ``predict-commit``); this package holds what that widget asks and how
it judges the answer.

Each notebook's predictions are one module, ``n01.py`` for ``01_intuition`` and so on, holding a list
``PREDICTIONS`` of :class:`Prediction`; the modules are found automatically, so adding a notebook's predictions
touches no other file. ::

    from helpers.exercises.predictions import predictions, judge
    predictions()                         # {"01-pasta-weight": Prediction(...), ...}
    judge("01-pasta-weight", "1/4")       # Judgement: .correct, .close, .answer, .truth, .why, .thought, .message
    judge("01-pasta-weight", "1.5")       # .problem: "a weight is between 0 and 1; 1.5 is not" (nothing revealed)

Forms, truth functions and ``thought`` tables: :mod:`.prediction`.
"""

from __future__ import annotations

from helpers.exercises.per_notebook import Entries
from helpers.exercises.predictions.prediction import (
    FORMS,
    KINDS_OF_ANSWER,
    QUANTITIES,
    Judgement,
    Prediction,
    Quantity,
    region_kind,
    region_of,
    region_options,
)

__all__ = ["FORMS", "KINDS_OF_ANSWER", "QUANTITIES", "Quantity", "Prediction", "Judgement", "predictions", "prediction",
           "judge", "region_of", "region_options", "region_kind"]


_ENTRIES = Entries(__name__, "PREDICTIONS", "prediction", "predictions")


def predictions() -> dict[str, Prediction]:
    """Every prediction of the course, by name, in notebook order (a new dict: changing it changes nothing)."""
    return _ENTRIES.all()


def prediction(name: str) -> Prediction:
    """The prediction called ``name``.

    Raises
    ------
    ValueError
        If there is none, naming the known ones.
    """
    return _ENTRIES.one(name)


def judge(name: str, answer) -> Judgement:
    """Judge ``answer`` to the prediction ``name``: the truth, why, and what a wrong answer suggests.

    Parameters
    ----------
    name : str
        A prediction's name (``"01-pasta-weight"``).
    answer
        In the prediction's form (see :mod:`.prediction`); anything else gets a Judgement whose ``.problem`` says
        what could not be read, or why the number is not possible (and which reveals nothing), never an exception.

    Returns
    -------
    Judgement

    Raises
    ------
    ValueError
        If no prediction is called ``name``.
    """
    return prediction(name).judge(answer)
