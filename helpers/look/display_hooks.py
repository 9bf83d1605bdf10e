"""How a notebook shows the course's figures: a described figure is shown as HTML with its alt text.

JupyterLab draws an ``image/png`` output as an ``<img>`` without any alt text (its image renderer has no place for
one), so a screen reader announces nothing. A figure made by :func:`described_figure` carries its alt text
(``fig.alt``) and is shown as ``text/html`` instead (:func:`helpers.look.figure_output.notebook_figure_html`): inline
SVG, an SVG diagram, or its PNG in an ``<img alt="...">``, never the ``image/png`` output as well (the notebook would
store the picture twice).

The figure class is made on first use (:func:`described_figure_class`), so that importing the course's views does not
import matplotlib; it is made once, and tells IPython (when one runs) how to show it at that moment.
"""

from __future__ import annotations

import functools

from helpers.look import theme
from helpers.look.figure_output import notebook_figure_html

__all__ = ["described_figure", "described_figure_class"]


@functools.cache
def described_figure_class():
    """The ``DescribedFigure`` class: a ``matplotlib.figure.Figure`` with alt text, shown by IPython as HTML."""
    from matplotlib.figure import Figure

    class DescribedFigure(Figure):
        """A ``matplotlib.figure.Figure`` with alt text: ``fig.alt`` says in words what the figure shows.

        A notebook cell shows it as ``text/html`` with that alt text (:mod:`helpers.look.display_hooks`).
        """

        alt = ""
        # True: shown as SVG (diagram_svg_html), its lines and text sharp at any size; a diagram of boxes and words is.
        vector = False

    DescribedFigure.__qualname__ = "DescribedFigure"
    _show_as_html(DescribedFigure)
    return DescribedFigure


def _show_as_html(cls) -> None:
    """Tell IPython (if running) to show ``cls`` figures as HTML with alt text and no separate PNG."""
    try:
        from IPython import get_ipython
    except ImportError:  # no IPython: nothing displays figures, nothing to register
        return
    ip = get_ipython()
    if ip is None:
        return
    formatters = ip.display_formatter.formatters
    # Most specific type wins in IPython's look-up, whatever the inline backend registers for Figure later.
    formatters["text/html"].for_type(cls, notebook_figure_html)
    formatters["image/png"].for_type(cls, lambda fig: None)


def described_figure(paper: bool = False, **kwargs):
    """A new figure as :func:`helpers.look.theme.new_figure` makes it, with alt text (``fig.alt``, empty until set).

    Themed by default: no background, its text in the theme's colour, shown as SVG in the page
    (:func:`helpers.look.figure_output.figure_svg_html`). ``paper=True``: on the course's light paper with a grey
    border, shown as a PNG.
    """
    cls = described_figure_class()
    with theme.figure_style(paper):
        fig = cls(**kwargs)
    if paper:
        theme.add_border(fig)
    else:
        fig.course_themed = True
    return fig
