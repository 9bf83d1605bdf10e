"""The concept inventory: misconception-based multiple-choice items, taken before notebook 01 and after 09.

A concept inventory (Hestenes' Force Concept Inventory; Hake 1998) measures understanding before and after a course
with the same questions, each wrong option a misconception met in practice. This one has at least two items for each
of the lesson's five learning objectives (:data:`OBJECTIVES`), with concept questions, not arithmetic. The learner
takes it as a pre-test at the top of notebook 00 and as a post-test at the end of 09 (the widget is
:func:`helpers.demos.inventory.inventory_test`); progress records each item under the kinds ``"inventory-pre"`` and
``"inventory-post"``, the first answer only. ::

    from helpers.exercises.inventory import items, judge_item, post_order, objective_scores, normalized_gain
    items()                                   # {"raw-embeddings-as-queries": Item(...), ...}
    judge_item("column-sums", "b")            # ItemVerdict: .correct, .answer, .truth, .misconception, .problem
    post_order("column-sums")                 # the same options, each in another place
    objective_scores(progress(), "inventory-pre")   # {1: 75.0, 2: 50.0, 3: None, ...}
    normalized_gain(40, 70)                   # 0.5

The items are data (:mod:`.items`), their judging :mod:`.item`, the scores :mod:`.scores`.
"""

from __future__ import annotations

from helpers.exercises.inventory.catalogue import MIN_PER_OBJECTIVE, catalogue
from helpers.exercises.inventory.item import LETTERS, OPTION_COUNT, Item, ItemVerdict
from helpers.exercises.inventory.items import OBJECTIVES
from helpers.exercises.inventory.scores import TEST_KINDS, answered, missed, normalized_gain, objective_scores
from helpers.exercises.per_notebook import find

__all__ = ["OBJECTIVES", "OPTION_COUNT", "LETTERS", "MIN_PER_OBJECTIVE", "TEST_KINDS", "Item", "ItemVerdict",
           "items", "item", "judge_item", "post_order", "answered", "missed", "objective_scores", "normalized_gain"]


def items() -> dict[str, Item]:
    """Every item by name, grouped by objective in the lesson's order (a new dict: changing it changes nothing)."""
    return dict(catalogue())


def item(name) -> Item:
    """The item called ``name``.

    Raises
    ------
    ValueError
        If there is none, naming the known ones.
    """
    return find(catalogue(), name, "inventory item", "inventory's items")


def judge_item(name, answer) -> ItemVerdict:
    """Judge ``answer`` to the item ``name``.

    Parameters
    ----------
    name : str
        An item's name (:func:`items`).
    answer
        An option's text (case and spaces do not matter) or its letter ``"a"`` to ``"d"`` in the order of
        ``Item.options`` (the pre-test's). Anything else (None, a number, a list, an unknown text) gets a verdict
        whose ``.problem`` says what could not be read, whose ``.truth`` is '' and which is not correct; never an
        exception.

    Returns
    -------
    ItemVerdict

    Raises
    ------
    ValueError
        If no item is called ``name``, naming the known ones.
    """
    return item(name).judge(answer)


def post_order(name) -> tuple[str, ...]:
    """The options of the item ``name`` in the post-test's order: the same options, none in its pre-test place, the
    same order on every run (:meth:`Item.post_order`).

    Raises
    ------
    ValueError
        If no item is called ``name``, naming the known ones.
    """
    return item(name).post_order()
