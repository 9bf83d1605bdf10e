"""The built-in kinds of generated problems, one module each (generator, checker, answer fields).

:data:`BUILT_IN_KINDS` lists them in the order the practice widget offers them; :mod:`helpers.exercises`
registers them (:func:`helpers.exercises.register_kind`).
"""

from __future__ import annotations

from helpers.exercises.problems import attention, heatmap, masked, projection, shapes, softmax

__all__ = ["BUILT_IN_KINDS"]

BUILT_IN_KINDS = (projection.KIND, attention.KIND, masked.KIND, softmax.KIND, shapes.KIND, heatmap.KIND)
