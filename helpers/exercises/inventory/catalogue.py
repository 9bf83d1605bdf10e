"""The inventory's items by name, checked once: every name used once, at least two items for each objective."""

from __future__ import annotations

from functools import cache

from helpers.exercises.inventory.item import Item
from helpers.exercises.inventory.items import OBJECTIVES
from helpers.exercises.per_notebook import discover

__all__ = ["MIN_PER_OBJECTIVE", "catalogue"]

MIN_PER_OBJECTIVE = 2


@cache
def catalogue() -> dict[str, Item]:
    """Every item by name, objective by objective (the ``ITEMS`` of ``objective1.py`` ... ``objective5.py``, each in
    its order; do not change it: it is shared; :func:`helpers.exercises.inventory.items` hands out copies).

    Raises
    ------
    ValueError
        If two items share a name, an item's objective is not one of the lesson's, or an objective has fewer than
        :data:`MIN_PER_OBJECTIVE` items.
    """
    found: dict[str, Item] = {}
    for item in (item for items in discover("helpers.exercises.inventory", "ITEMS") for item in items):
        if item.name in found:
            raise ValueError(f"two inventory items are named {item.name!r}")
        if item.objective not in OBJECTIVES:
            raise ValueError(f"item {item.name!r}: objective {item.objective} is not one of {sorted(OBJECTIVES)}")
        found[item.name] = item
    for objective in OBJECTIVES:
        count = sum(item.objective == objective for item in found.values())
        if count < MIN_PER_OBJECTIVE:
            raise ValueError(f"objective {objective} has {count} inventory items; it needs at least "
                             f"{MIN_PER_OBJECTIVE}")
    return found
