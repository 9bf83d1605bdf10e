"""The concept inventory's objectives, and what makes a good item.

The items themselves are data in one module per objective (``objective1.py`` ... ``objective5.py``), each a list
``ITEMS`` of :class:`~helpers.exercises.inventory.item.Item`: the questions, their options, the right one, what each
wrong one suggests and where the course teaches the idea. They are found as every entry of the course is
(:func:`helpers.exercises.per_notebook.discover`), so a new item is an edit of its objective's module only.

Every wrong option is a misconception the course meets elsewhere: a prediction's "you probably thought" (the
``thought`` tables of :mod:`helpers.exercises.predictions`), a mistake that :func:`~helpers.exercises.check_code`
recognises (:data:`helpers.exercises.code_tasks.MISTAKES`) or one of the lesson's pitfalls. The options are in the
pre-test's order; the right one sits in every position about equally often, and it is neither the longest nor the
shortest option in more than a quarter of the items (tests/test_inventory.py keeps these and the other rules that stop
an item being answered from its wording alone).
"""

from __future__ import annotations

__all__ = ["OBJECTIVES"]

# The lesson's five learning objectives, in its order and words (notebook 00's table lists them too).
OBJECTIVES = {
    1: "Explain why Q, K, V matrices are necessary and how they differ",
    2: "Derive Q, K, V from input embeddings through linear projections",
    3: "Interpret attention weight matrices and visualize attention patterns",
    4: "Distinguish between self-attention, cross-attention, and bidirectional attention",
    5: "Compute attention outputs manually for small examples",
}
