"""A few values kept by key, the one used longest ago dropped first: what a learner goes back to is not made again.

:class:`Recent` serves the views that draw the same picture again when a learner returns to an earlier input (notebook
12's thumbnails and their frames, notebook 09's given matrices). Unlike ``functools.lru_cache``, the key is whatever
the caller says identifies the value (a sentence, a problem number), not the arguments that make it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

__all__ = ["Recent"]


class Recent:
    """At most ``size`` values by key, most recently used last.

    Parameters
    ----------
    size : int, how many values are kept (each may be large: a picture, a drawn figure)
    """

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"size must be at least 1; got {size}")
        self.size = size
        self._kept: dict = {}

    def get(self, key: Hashable, make: Callable[[], object]):
        """The value kept for ``key``, else ``make()``, kept; either way it becomes the most recently used."""
        try:
            value = self._kept.pop(key)
        except KeyError:
            value = make()
            if len(self._kept) >= self.size:
                self._kept.pop(next(iter(self._kept)))  # the one used longest ago
        self._kept[key] = value
        return value

    def __len__(self) -> int:
        return len(self._kept)
