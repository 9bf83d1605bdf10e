"""Linked highlighting: pointing at (or focusing) a cell of one view outlines what it comes from and what it feeds.

A widget's HTML cannot run scripts, so the links are a stylesheet. :func:`helpers.look.render.matrix_html` marks every
body row ``data-row="i"`` and every number and column label ``data-col="j"``; a link says which rows or columns of
which views light up when a row or column of another view is hovered or focused. CSS ``:has()`` ties the two: the
rule ``.attn-explorer:has(.attn-view-weights tr[data-row="2"]>:is(td,th):is(:hover,:focus))
:is(.attn-view-Q tr[data-row="2"]>*)`` outlines row 2 of Q while any cell of row 2 of the weights is under the pointer
or has the keyboard focus. Attribute values cannot be compared in CSS, so the rules are generated here, one per index,
for the number of tokens a widget shows.

The look (a dashed outline in the cell's own text colour, which contrasts with the cell's background whatever its
colour) and the legend that explains it and the other marks are in this module too, so that every widget explains
its outlines with the same words.
"""

from __future__ import annotations

import html as _html
from dataclasses import dataclass

from helpers.look import theme

__all__ = ["LINKED_STYLE", "SOURCE_STYLE", "TRACED_STYLE", "Part", "rows", "cols", "labels", "link_css",
           "link_style_html", "legend_html"]

# A linked cell: outlined with its own text colour (black or white, chosen for contrast with its background), dashed
# so that it is told apart from the solid outline of the traced cell.
LINKED_STYLE = "outline:2px dashed currentColor;outline-offset:-3px"
# Where a linked cell's numbers come from (the rows of X behind a weight): a thinner, lighter dashed outline, so that
# the eye goes to what the cell feeds first and can still find its source.
SOURCE_STYLE = ("outline:1px dashed color-mix(in srgb, currentColor 55%, transparent);outline-offset:-2px")


@dataclass(frozen=True)
class Part:
    """Rows (``axis="row"``), columns (``"col"``) or row labels (``"label"``) of the views with the given CSS
    classes."""

    views: tuple[str, ...]
    axis: str

    def _views(self) -> str:
        names = ",".join(f".{v}" for v in self.views)
        return names if len(self.views) == 1 else f":is({names})"

    def source(self, k: int) -> str:
        """A selector that matches while index ``k`` of this part is under the pointer or has the focus."""
        if self.axis == "row":
            # td or th before the pointer and focus test, so that only table cells are ever tested for them. Chromium
            # remembers every element it tested for :focus inside a :has(), and from then on each focus change of
            # that element restyles the whole widget (some 600 elements, ~15 ms): tested as "any child of a row",
            # the <input>s of a matrix editor inside the widget were, and each Enter in a cell paid for it twice.
            tail = f'tr[data-row="{k}"]>:is(td,th):is(:hover,:focus)'
        elif self.axis == "label":
            tail = f'tr[data-row="{k}"]>th:is(:hover,:focus)'
        else:
            tail = f'[data-col="{k}"]:is(:hover,:focus)'
        return f"{self._views()} {tail}"

    def target(self, k: int) -> str:
        """A selector of the cells of index ``k`` of this part (a row's label and numbers, or a column's)."""
        tail = f'tr[data-row="{k}"]>*' if self.axis in ("row", "label") else f'[data-col="{k}"]'
        return f"{self._views()} {tail}"


def rows(*views: str) -> Part:
    return Part(tuple(views), "row")


def cols(*views: str) -> Part:
    return Part(tuple(views), "col")


def labels(*views: str) -> Part:
    return Part(tuple(views), "label")


def link_css(root: str, links, n: int) -> str:
    """The stylesheet of ``links`` inside the widget with CSS class ``root``, for indices 0 .. n-1.

    Parameters
    ----------
    root : str, the widget's CSS class (the rules reach only views inside one such widget)
    links : sequence of (sources, targets) or (sources, targets, style), sources and targets sequences of
        :class:`Part`
        While index k of a source is hovered or focused, index k of every target is outlined (``style``, by
        default :data:`LINKED_STYLE`).
    n : int, how many rows or columns the views have at most

    Returns
    -------
    str : CSS rules (no ``<style>`` tag)
    """
    if n < 0:
        raise ValueError(f"n must be at least 0; got {n}")
    rules = []
    for sources, targets, *style in links:
        look = style[0] if style else LINKED_STYLE
        for k in range(n):
            src = ",".join(part.source(k) for part in sources)
            dst = ",".join(part.target(k) for part in targets)
            rules.append(f".{root}:has({src}) :is({dst}){{{look}}}")
    return "\n".join(rules)


def link_style_html(root: str, links, n: int) -> str:
    """:func:`link_css` in a ``<style>`` element, for a hidden HTML widget inside the widget ``root``."""
    return f"<style>{link_css(root, links, n)}</style>"


# The traced cell's outline, as :func:`helpers.look.render.matrix_html` draws its ``highlight`` (for the legend's
# swatch).
TRACED_STYLE = f"outline:3px solid {theme.HIGHLIGHT};outline-offset:-3px"


def legend_html(items, large: bool = False) -> str:
    """One line that explains a widget's outlines and marks: ``items`` is a sequence of (swatch style, words).

    Each swatch is a small box drawn with the very style it explains, beside its words."""
    sz = theme.sizes(large)
    parts = []
    for style, words in items:
        swatch = (f'<span aria-hidden="true" style="display:inline-block;width:1.6em;height:1.1em;vertical-align:'
                  f'middle;margin-right:4px;background:{theme.PANEL_BG};color:{theme.PANEL_FG};{style}"></span>')
        parts.append(f'<span style="white-space:nowrap">{swatch}</span>{_html.escape(words)}')
    return (f'<div class="course-legend" style="font-size:{sz.small};color:{theme.MUTED_FG};line-height:1.6;'
            f'max-width:36em;margin:2px 3px">{" · ".join(parts)}</div>')
