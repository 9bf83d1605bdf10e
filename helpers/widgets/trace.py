"""The trace of one query and one key: the explorer's arithmetic as a stepped calculation.

The explorer traces the pair (query i, key j) it outlines in its tables: the score of the pair, the softmax over the
query's row, the weighted sum of the rows of V. :func:`trace_steps` writes those steps with the numbers of the
current state (:mod:`helpers.core.explain` does the arithmetic text); :func:`trace_html` draws them as a list of steps
whose every part that concerns key j (the pair's score, key j's exp and weight, its term of each sum, its row of V)
is highlighted, and :func:`trace_text` writes the same steps as plain text.

The HTML is prose, not a monospace ``<pre>``: it wraps at spaces and between the terms of a sum, never inside a
word or a number ("overflow" stays whole at 1024 px), so that a long sum takes a few lines of the notebook's width
instead of a scrollbar or broken words. :func:`trace_fold` puts the trace behind a button, folded by default in
the lecture mode (the room watches the tables; the presenter opens the calculation when it is the subject).
"""

from __future__ import annotations

import html as _html
from dataclasses import dataclass

import ipywidgets as widgets

from helpers.core import explain
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.layout import SharedLooks, course_button
from helpers.widgets.snapshot import OMIT_CLASS

__all__ = ["TraceStep", "trace_steps", "trace_text", "trace_html", "trace_fold", "CURRENT_STYLE"]

# Between the terms of a sum: the one place a long line may break (each term itself never breaks).
_PLUS = " + "


@dataclass(frozen=True)
class TraceStep:
    """One step of the calculation.

    Attributes
    ----------
    title : str
        What the step computes, starting with the step numbers of the views it fills (``④⑤ score of this pair``).
    lines : tuple of (str, tuple of int, bool, int)
        Each line as ``(text, current_terms, current_line, indent)``: the indices of the terms (its parts between
        ``" + "``) that concern the traced key, whether the whole line does, and its indent in levels.
    """

    title: str
    lines: tuple


def _line(text: str, terms=(), current: bool = False):
    """A line of :mod:`helpers.core.explain`'s text, its leading spaces turned into an indent level."""
    stripped = text.lstrip(" ")
    return stripped, tuple(terms), current, (len(text) - len(stripped)) // 2


def trace_steps(result, q_tokens, k_tokens, i: int, j: int, scale: bool = True, step_numbers=None,
                causal: bool = True) -> list[TraceStep]:
    """The steps of the calculation for query ``i`` and key ``j``.

    Parameters
    ----------
    result : object with ``Q``, ``K``, ``V``, ``masked`` (the masked scaled scores), ``mask`` (bool, True = may
        attend) and ``weights``, as :func:`helpers.core.attention.attention_stages` returns
    q_tokens, k_tokens : list of str
    i, j : int
        The traced query (row) and key (column).
    scale : bool
        The scores are divided by √d_k.
    step_numbers : dict, optional
        The step number of each view (``"scores"``, ``"scaled"``, ``"weights"``, ``"output"``), as the views show it.
    causal : bool
        The mask is the causal one: a blocked key is "a later token". Otherwise the trace speaks of the mask.

    Returns
    -------
    list of TraceStep
        The score of the pair, the softmax over the query's row, the output row.
    """
    step = step_numbers or {}
    n_k = len(k_tokens)
    score_lines = [_line(t, current=False) for t in explain.attention_entry_lines(result.Q, result.K, i, j,
                                                                                  scale=scale)]
    if not result.mask[i, j]:
        why = "the causal mask blocks" if causal else "the mask blocks"
        later = " (a later token)" if causal else ""
        score_lines.append(_line(f"{why} key '{k_tokens[j]}' for query '{q_tokens[i]}'{later}: score → −∞, weight 0",
                                 current=True))
    # softmax_lines: the max, one line per key, the sum (one term per key), one weight line per key.
    soft = explain.softmax_lines(result.masked[i], labels=k_tokens)
    if len(soft) == 2 * n_k + 2:
        soft_lines = ([_line(soft[0])] + [_line(t, current=(k == j)) for k, t in enumerate(soft[1:1 + n_k])]
                      + [_line(soft[1 + n_k], terms=(j,))]
                      + [_line(t, current=(k == j)) for k, t in enumerate(soft[2 + n_k:])])
    else:  # a row with nothing to attend to: one line says so
        soft_lines = [_line(t) for t in soft]
    # weighted_sum_lines: the sum of named rows (one term per key), one line per row of V, one line per column of
    # the output (one term per key), the output row.
    v_names = [f"v({t})" for t in k_tokens]
    out = explain.weighted_sum_lines(result.weights[i], result.V, value_labels=v_names, name=f"out({q_tokens[i]})")
    d_v = result.V.shape[1]
    out_lines = ([_line(out[0], terms=(j,))] + [_line(t, current=(k == j)) for k, t in enumerate(out[1:1 + n_k])]
                 + [_line(t, terms=(j,)) for t in out[1 + n_k:1 + n_k + d_v]] + [_line(t) for t in out[1 + n_k + d_v:]])
    scored = step.get("scores", "") + (step.get("scaled", "") if scale else "")
    return [
        TraceStep(f"{scored} score of this pair: q·k term by term" + (", then ÷ √d_k" if scale else ""),
                  tuple(score_lines)),
        TraceStep(f"{step.get('weights', '')} softmax over row '{q_tokens[i]}' (every key of this query)",
                  tuple(soft_lines)),
        TraceStep(f"{step.get('output', '')} output row '{q_tokens[i]}': the weighted sum of the rows of V",
                  tuple(out_lines)),
    ]


def _heading(q_tokens, k_tokens, i: int, j: int) -> str:
    return f"Query '{q_tokens[i]}' (row {i}) and key '{k_tokens[j]}' (column {j})"


def trace_text(steps: list[TraceStep], q_tokens, k_tokens, i: int, j: int) -> str:
    """The steps as plain text (the explorer's ``trace_text``): a heading, then each step's title and its lines."""
    lines = [_heading(q_tokens, k_tokens, i, j)]
    for s in steps:
        lines += ["", s.title]
        lines += ["   " + "  " * indent + text for text, _terms, _current, indent in s.lines]
    return "\n".join(lines)


# The look of the trace, inline (the picture of a stored notebook turns inline styles into its own classes). Prose
# wrapping: breaks at spaces only (no word or number is cut; a term of a sum is one unbreakable piece), figures of
# equal width so that numbers line up from line to line, and the traced key's parts marked with a tint of the theme's
# accent and an underline in it, readable in light and dark.
_BOX = ("white-space:normal;word-break:normal;overflow-wrap:normal;hyphens:none;line-height:1.45;"
        "font-variant-numeric:tabular-nums;max-width:100%;box-sizing:border-box;")
_LIST = "list-style:none;margin:0;padding:0"
_STEP = "margin:0 0 6px 0"
_TITLE = "font-weight:700;margin:2px 0"
_TERM = "white-space:nowrap"
CURRENT_STYLE = ("background:color-mix(in srgb, var(--jp-brand-color1, #1976d2) 18%, transparent);"
                 "box-shadow:inset 0 -2px 0 var(--jp-brand-color1, #1976d2);border-radius:2px;padding:0 2px")


def _line_html(text: str, terms, current: bool, indent: int) -> str:
    """One line, with a hanging indent when it wraps. A sum breaks between its terms only (the traced key's marked);
    the name before the first term ("sum = ", "out(cat)[0] = ") and the result after the last (" = 2.1246") are not
    terms. A line that is not a sum (prose, one equation) wraps at any space, like the rest of the page."""
    parts = text.split(_PLUS)
    if len(parts) == 1:
        body = math_html(text)
    else:
        lead, eq, first = parts[0].rpartition(" = ")
        last, eq_last, tail = parts[-1].partition(" = ")
        # A term ("0.0234·v(cat)", "2·(−1)") has no space and no place a browser breaks a line: only the marked one
        # needs an element (a stored notebook keeps every element of the trace).
        spans = [f'<span class="trace-term trace-current" style="{_TERM};{CURRENT_STYLE}">{math_html(part)}</span>'
                 if k in terms else math_html(part) for k, part in enumerate([first, *parts[1:-1], last])]
        body = math_html(lead + eq) + _PLUS.join(spans) + math_html(eq_last + tail)
    if current:
        body = f'<span class="trace-current" style="{CURRENT_STYLE}">{body}</span>'
    pad = 1.2 * (indent + 1)
    return f'<div class="trace-line" style="padding-left:{pad:.1f}em;text-indent:-1.2em">{body}</div>'


def trace_html(steps: list[TraceStep], q_tokens, k_tokens, i: int, j: int, large: bool = False) -> str:
    """The steps as HTML: a panel with the heading, then a list of steps, the traced key's parts highlighted.

    Each step is a ``<li class="trace-step">``; a highlighted part carries the class ``trace-current``.
    """
    sz = theme.sizes(large)
    items = []
    for s in steps:
        lines = "".join(_line_html(*line) for line in s.lines)
        items.append(f'<li class="trace-step" style="{_STEP}"><div class="trace-step-title" style="{_TITLE}">'
                     f'{math_html(s.title)}</div>{lines}</li>')
    heading = (f'<div class="trace-heading" style="margin-bottom:4px">'
               f'{math_html(_heading(q_tokens, k_tokens, i, j))}'
               f' <span style="font-size:{sz.small}">(the parts of key '
               f'<span class="trace-current" style="{CURRENT_STYLE}">{_html.escape(str(k_tokens[j]))}</span> '
               'highlighted)</span></div>')
    return (f'<div class="course-trace" style="{theme.panel_style(large)}{theme.SANS}{_BOX}'
            f'font-size:{sz.trace};padding:8px 10px;margin:4px 0">{heading}<ol style="{_LIST}">{"".join(items)}</ol>'
            '</div>')


def trace_fold(view: widgets.Widget, large: bool = False, folded: bool | None = None,
               looks: SharedLooks | None = None) -> widgets.VBox:
    """``view`` (the trace) under a button that shows or hides it; folded by default in the lecture mode.

    The fold is the button's state, not the HTML's: a redraw of the trace (after every edit) keeps it as the
    presenter left it.

    Parameters
    ----------
    view : ipywidgets.Widget
    large : bool
        The projector's button size.
    folded : bool, optional
        Start folded; default: in the lecture mode (:func:`helpers.look.theme.lecture_mode`) only.
    looks : SharedLooks, optional
        The layouts and styles of the widget the fold is part of: the button and the box take theirs from it (each
        new layout or style is one more model the page builds before the widget is live).

    Returns
    -------
    ipywidgets.VBox
        The button (class ``attn-trace-toggle``) above ``view``; the box has the class ``attn-trace-fold``, and
        :data:`helpers.widgets.snapshot.OMIT_CLASS`: a stored picture of the explorer leaves it out.
    """
    folded = theme.lecture_mode() if folded is None else bool(folded)
    looks = looks or SharedLooks()
    # As wide as its words, not a bar across the page.
    button = course_button("", "show or hide the calculation of the traced pair", "attn-trace-toggle", large,
                           looks=looks, align_self="flex-start")

    box = widgets.VBox([button], layout=looks.layout(max_width="100%"))

    def show(shown: bool) -> None:
        button.description = "▾ hide the calculation" if shown else "▸ show the calculation"
        button.tooltip = "hide the calculation" if shown else "show the calculation, step by step"
        # Folded: the view leaves the box (its layout may be shared with other views, which stay shown).
        box.children = (button, view) if shown else (button,)

    def on_click(_button) -> None:
        show(view not in box.children)

    show(not folded)
    button.on_click(on_click)
    box.add_class("attn-trace-fold")
    # The picture a stored notebook shows leaves the calculation out (its note says the live widget shows more): it
    # is the longest part of an explorer's picture and what a reader without a kernel needs least, and a notebook
    # stays under its size limit.
    box.add_class(OMIT_CLASS)
    return box

