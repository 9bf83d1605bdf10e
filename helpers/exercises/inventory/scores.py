"""Scores of the concept inventory: the share right per objective, and the normalized gain from before to after.

Pure functions of recorded progress and of numbers, so that notebook 00's view and the instructors' class report
compute them alike.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

from helpers.exercises.inventory.catalogue import catalogue
from helpers.exercises.inventory.item import Item
from helpers.exercises.progress import Progress

__all__ = ["TEST_KINDS", "objective_scores", "answered", "missed", "normalized_gain"]

# The two sittings of the inventory, as progress records them: before notebook 01 and after notebook 09.
TEST_KINDS = ("inventory-pre", "inventory-post")


def _test_kind(kind) -> str:
    if kind not in TEST_KINDS:
        raise ValueError(f"kind must be one of {', '.join(TEST_KINDS)}; got {kind!r}")
    return kind


def answered(progress: Progress, kind: str, inventory: Mapping[str, Item] | None = None) -> dict[str, bool]:
    """The items of ``inventory`` that ``progress`` holds a verdict for in the test ``kind``: name -> right.

    ``inventory`` defaults to the course's items. Records of names that are not items, and records without a verdict
    (a progress file of the first format), are left out. In the inventory's order.
    """
    _test_kind(kind)
    verdicts = {}
    for name in catalogue() if inventory is None else inventory:
        result = progress.result(kind, name)
        if result is not None and result.correct is not None:
            verdicts[name] = result.correct
    return verdicts


def objective_scores(progress: Progress, kind: str,
                     inventory: Mapping[str, Item] | None = None) -> dict[int, float | None]:
    """Per objective, the percentage of its items answered right in the test ``kind``.

    Parameters
    ----------
    progress : Progress
        What is recorded (:func:`helpers.exercises.progress.progress`, or a file read with
        :func:`~helpers.exercises.progress.read_progress_file`).
    kind : {"inventory-pre", "inventory-post"}
    inventory : mapping name -> Item, optional
        The items; by default the course's (:func:`helpers.exercises.inventory.items`).

    Returns
    -------
    dict int -> float or None
        Every objective of the items, in order: 100 × (items right) / (items answered), over the objective's items
        that have a verdict; None when none of them has one (the test not taken yet).

    Raises
    ------
    ValueError
        If ``kind`` is not one of :data:`TEST_KINDS`.
    """
    inventory = catalogue() if inventory is None else inventory
    verdicts = answered(progress, kind, inventory)
    scores: dict[int, float | None] = {}
    for objective in sorted({item.objective for item in inventory.values()}):
        right = [verdicts[name] for name, item in inventory.items() if item.objective == objective and name in verdicts]
        scores[objective] = 100.0 * sum(right) / len(right) if right else None
    return scores


def missed(progress: Progress, kind: str, inventory: Mapping[str, Item] | None = None) -> tuple[str, ...]:
    """The names of the items answered wrong in the test ``kind``, in the inventory's order."""
    return tuple(name for name, right in answered(progress, kind, inventory).items() if not right)


def _percent(value, argument: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or not 0 <= value <= 100:
        raise ValueError(f"{argument} must be a percentage from 0 to 100; got {value!r}")
    return float(value)


def normalized_gain(pre, post) -> float | None:
    """The normalized gain g = (post − pre) / (100 − pre) (Hake 1998): the share of what could be gained that was.

    Parameters
    ----------
    pre, post : float
        Percentages right before and after, from 0 to 100.

    Returns
    -------
    float or None
        g: 1 when everything missed before is right after, 0 for no change, negative when the score fell. None when
        ``pre`` is 100: there was no room to gain, and g is not defined.

    Raises
    ------
    ValueError
        If ``pre`` or ``post`` is not a number from 0 to 100 (a bool, NaN or a text is not).
    """
    pre, post = _percent(pre, "pre"), _percent(post, "post")
    if pre == 100:
        return None
    return (post - pre) / (100 - pre)
