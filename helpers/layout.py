"""Widget layout shared by every course widget: rows that wrap, tables that scroll, messages that do not push.

Nothing here is wider than the notebook: rows wrap (:func:`wrap_row`), a rendered table wider than the page scrolls
inside its own view (:func:`view_html`), and a message that appears while the learner types is drawn over what
follows instead of moving it (:class:`OverlayMessage`). :func:`course_box` gives wrapped text a normal line height.
"""

from __future__ import annotations

import ipywidgets as widgets

__all__ = [
    "TEXT_CSS", "text_style_widget", "overlay_html", "OverlayMessage", "course_box", "wrap_row", "view_html",
    "number_box", "choice_buttons",
]

# ipywidgets gives every HTML widget's content ``line-height: var(--jp-widgets-inline-height)`` (28 px), so that a
# one-line label sits on the baseline of the inputs beside it; any text that wraps inside such a widget is then
# double-spaced. Widgets of the course carry the class ``course-widget`` and one copy of this rule (a hidden HTML
# widget, see :func:`text_style_widget`), which sets a normal line height inside them only.
TEXT_CSS = ("<style>.course-widget .widget-html > .widget-html-content,"
            ".course-widget .jupyter-widget-html > .jupyter-widget-html-content{line-height:1.4}</style>")


def text_style_widget() -> widgets.HTML:
    """A hidden widget holding :data:`TEXT_CSS`; put it in a widget that has the class ``course-widget``."""
    w = widgets.HTML(TEXT_CSS, layout=widgets.Layout(display="none"))
    w.add_class("course-text-style")
    return w


def overlay_html(inner: str) -> str:
    """``inner`` (an error box) drawn over what follows instead of pushing it down.

    The message widget that shows it has zero height (see :class:`OverlayMessage`), so a message that
    appears while the learner types never moves the grid or the editors below it.
    """
    if not inner:
        return ""
    return (f'<div style="position:absolute;left:0;top:0;z-index:20;width:max-content;max-width:100%;'
            f'min-width:16em;box-shadow:0 2px 6px rgba(0,0,0,0.25)">{inner}</div>')


def course_box(box):
    """Mark ``box`` as a course widget and give it :data:`TEXT_CSS` (normal line height); returns ``box``."""
    box.add_class("course-widget")
    box.children = (*box.children, text_style_widget())
    return box


def wrap_row(items, **layout) -> widgets.Box:
    """A row of widgets that wraps onto more lines instead of growing wider than the notebook."""
    style = dict(display="flex", flex_flow="row wrap", align_items="flex-start", max_width="100%")
    return widgets.Box(list(items), layout=widgets.Layout(**{**style, **layout}))


def view_html() -> widgets.HTML:
    """An HTML widget for a rendered table: a table wider than the page (many tokens) scrolls inside it
    instead of making the page wider."""
    return widgets.HTML(layout=widgets.Layout(max_width="100%", overflow="auto"))


def number_box(description: str, value, low, high, step, integer: bool = False,
               label_width: str = "6em", width: str = "14em") -> widgets.Widget:
    """A named number field with up/down steps, in place of a slider.

    ipywidgets' sliders draw their handle with noUiSlider and leave it without an accessible name (a screen reader
    says only "slider, 0.5"), and nothing a notebook can set reaches that element. A number field is an ``<input>``
    tied to its visible ``<label>``; its arrows and the keyboard's up/down keys step it like a slider, and the value
    is typed exactly. The field keeps the value within ``[low, high]``.
    """
    cls = widgets.BoundedIntText if integer else widgets.BoundedFloatText
    return cls(value=value, min=low, max=high, step=step, description=description, continuous_update=True,
               style={"description_width": label_width}, layout=widgets.Layout(width=width))


def choice_buttons(description: str, options, value, tooltips=None) -> widgets.ToggleButtons:
    """A row of buttons for a few discrete values (a layer, a head, a step), in place of a slider: every button
    is named by its text, and the row wraps on a narrow page."""
    return widgets.ToggleButtons(options=options, value=value, description=description,
                                 tooltips=list(tooltips or []), style={"button_width": "auto"},
                                 layout=widgets.Layout(max_width="100%", flex_flow="row wrap"))


class OverlayMessage:
    """Stands for an ``HTML`` widget as the ``where`` of :meth:`LiveWidget.show_problem`: what is set on
    ``.value`` is shown as an overlay (:func:`overlay_html`), so the message takes no room of its own."""

    def __init__(self, html: widgets.HTML):
        self.html = html
        html.layout.height = "0px"
        html.layout.overflow = "visible"

    @property
    def value(self) -> str:
        return self.html.value

    @value.setter
    def value(self, inner: str) -> None:
        self.html.value = overlay_html(inner)
