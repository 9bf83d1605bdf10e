"""Colour that eases in: a live view's changed cells start from the colour they had.

A widget that redraws its tables holds one :class:`ColourEasing` and passes it to each drawing
(:func:`helpers.look.tables.linked_matrix_html`, ``easing=``). It remembers the levels each of the widget's views showed
last (a view is named by its title, labels and palette) and marks each cell whose colour changed with the level it
had; :data:`helpers.look.theme.COLOUR_EASING_CSS` starts the new cell there and eases it in over
:data:`helpers.look.theme.COLOUR_EASE_MS`. Only for a change made by the learner in the page: whatever a cell's run
draws (what a stored notebook keeps) is never marked, so a stored notebook is the same with motion on or off; with
``COURSE_ANIMATION=off`` (or a reader's prefers-reduced-motion, in the CSS) nothing eases.
"""

from __future__ import annotations

import numpy as np

from helpers.look import theme

__all__ = ["NOT_EASED", "ColourEasing"]

# The mark of a cell that does not ease (it did not change, it is masked, or nothing eases).
NOT_EASED = np.iinfo(np.int64).min


class _CellRuns:
    """Whether the kernel is running a cell now: IPython's pre- and post-run events, followed from the first
    question on. One per kernel (the runs are the kernel's, not a view's)."""

    def __init__(self):
        self.running = False
        self.watching = False

    def now(self) -> bool:
        if not self.watching:
            self.watching = True
            self._watch()
        return self.running

    def _watch(self) -> None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        ip = get_ipython()
        if ip is None:
            return
        ip.events.register("pre_run_cell", lambda *_: setattr(self, "running", True))
        ip.events.register("post_run_cell", lambda *_: setattr(self, "running", False))
        self.running = True  # the first view is drawn by a cell that is running now


_CELL_RUNS = _CellRuns()


class ColourEasing:
    """The colour memory of one widget's live views: what each view showed last.

    Examples
    --------
    >>> easing = ColourEasing()          # held by the widget, one for all its views
    >>> html = linked_weights_html(W, q, k, title="weights", easing=easing)  # doctest: +SKIP
    """

    def __init__(self):
        self._last: dict = {}

    def eased_from(self, view, levels: np.ndarray, blocked: np.ndarray) -> np.ndarray | None:
        """The level each cell of ``view`` eases in from (:data:`NOT_EASED`: none), and remember ``levels``.

        None when nothing eases: the view's first drawing, a new shape, ``COURSE_ANIMATION=off``, or a drawing made
        while a cell runs.
        """
        running = _CELL_RUNS.now()
        before = self._last.get(view)
        now = np.where(blocked, NOT_EASED, levels).astype(np.int64)
        self._last[view] = now
        if before is None or before.shape != now.shape or running or not theme.motion_allowed():
            return None
        return np.where((before != now) & (before != NOT_EASED) & (now != NOT_EASED), before, NOT_EASED)
