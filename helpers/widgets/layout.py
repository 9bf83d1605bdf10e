"""Widget layout shared by every course widget: rows that wrap, tables that scroll, messages beside their field.

Nothing here is wider than the notebook: rows wrap (:func:`wrap_row`), and a rendered table wider than the page
scrolls inside its own view (:func:`view_html`). A message sits in the flow next to its field and never over another
control. :func:`course_box` gives wrapped text a normal line height.
"""

from __future__ import annotations

import ipywidgets as widgets

from helpers.core.numbers import number_text
from helpers.look import theme
from helpers.widgets.choices import ChoiceList

__all__ = [
    "TEXT_CSS", "text_style_widget", "course_box", "wrap_row", "view_html",
    "number_box", "choice_list", "choice_buttons", "course_button", "picker_group", "LinkedHTML", "SharedLooks",
    "CONTROLS_CSS",
]

# ipywidgets gives every HTML widget's content ``line-height: var(--jp-widgets-inline-height)`` (28 px), so that a
# one-line label sits on the baseline of the inputs beside it; any text that wraps inside such a widget is then
# double-spaced. Widgets of the course carry the class ``course-widget`` and one copy of this rule (a hidden HTML
# widget, see :func:`text_style_widget`), which sets a normal line height inside them only.
TEXT_CSS = ("<style>.course-widget .widget-html > .widget-html-content,"
            ".course-widget .jupyter-widget-html > .jupyter-widget-html-content{line-height:1.4}</style>")


# The look of the controls, in the theme's colours (JupyterLab's variables, light and dark alike):
# - the chosen option of a row of option buttons (ToggleButtons: a layer, a head, a prediction) is filled with the
#   theme's accent and its text is bold, so that it is seen from the back of a room; ipywidgets marks it only with a
#   slightly darker grey, which a projector washes out. A chosen option that is disabled (a committed prediction)
#   keeps its fill, a little faded, so the prediction stays readable;
# - a group of option buttons made by :func:`picker_group` is a framed group with its name above it, so that two
#   pickers side by side (layer and head) read as two groups, not one strip of numbers.
# Primary actions (Commit, Check, Submit) are ipywidgets' ``button_style="primary"``: the same accent, filled.
CONTROLS_CSS = (
    "<style>"
    ".course-widget .widget-toggle-buttons .widget-toggle-button.mod-active{"
    "background:var(--jp-brand-color1,#1976d2);color:var(--jp-ui-inverse-font-color1,#fff);font-weight:700;"
    "box-shadow:inset 0 0 0 1px var(--jp-brand-color0,#0d47a1)}"
    ".course-widget .widget-toggle-buttons .widget-toggle-button.mod-active:hover:enabled{"
    "background:var(--jp-brand-color0,#0d47a1)}"
    ".course-widget .widget-toggle-buttons .widget-toggle-button.mod-active:disabled{opacity:0.75}"
    ".course-widget .course-picker{border:1px solid var(--jp-border-color1,#bdbdbd);border-radius:4px;"
    "padding:2px 8px 6px 8px;margin:4px 12px 4px 0;max-width:100%;box-sizing:border-box}"
    ".course-widget .course-picker .widget-toggle-buttons{flex-direction:column;align-items:flex-start;height:auto}"
    ".course-widget .course-picker .widget-toggle-buttons > .widget-label{width:auto;max-width:none;"
    "text-align:left;font-weight:700;margin:0 0 2px 0;line-height:1.6}"
    ".course-widget .course-picker .widget-toggle-buttons > div{display:flex;flex-wrap:wrap}"
    "</style>"
)


def text_style_widget(more_css: str = "") -> widgets.HTML:
    """A hidden widget holding :data:`TEXT_CSS` and :data:`CONTROLS_CSS` (and ``more_css``, a widget's own
    ``<style>``, in the same model); put it in a widget that has the class ``course-widget``."""
    w = widgets.HTML(TEXT_CSS + CONTROLS_CSS + more_css, layout=widgets.Layout(display="none"))
    w.add_class("course-text-style")
    return w


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
    """A named number field with up/down steps, in place of a slider; its label says its range.

    ipywidgets' sliders draw their handle with noUiSlider and leave it without an accessible name (a screen reader
    says only "slider, 0.5"), and nothing a notebook can set reaches that element. A number field is an ``<input>``
    tied to its visible ``<label>``; its arrows and the keyboard's up/down keys step it like a slider, and the value
    is typed exactly. The field keeps the value within ``[low, high]`` (the browser puts 1e5 back to ``high``), so
    its label says so before anything is typed: ``strength (0 to 6)``.

    ``label_width`` and ``width`` are the least room for the label and the whole field; both grow with the label.
    """
    label = f"{description} ({number_text(low, 6)} to {number_text(high, 6)})"
    label_em = max(float(label_width.rstrip("em")), 0.55 * len(label) + 0.5)
    field_em = max(float(width.rstrip("em")) - float(label_width.rstrip("em")), 5.0)
    cls = widgets.BoundedIntText if integer else widgets.BoundedFloatText
    return cls(value=value, min=low, max=high, step=step, description=label, continuous_update=True,
               style={"description_width": f"{label_em:.1f}em"},
               layout=widgets.Layout(width=f"{label_em + field_em:.1f}em", max_width="100%"))


def choice_list(description: str, options, value=None, large: bool = False) -> ChoiceList:
    """Options as a vertical list of radio buttons under ``description``: each option (a text, or a ``(text,
    value)`` pair) is one line whose whole text, its math typeset, is the clickable label (a long text wraps beside
    its button); see :class:`~helpers.widgets.choices.ChoiceList`."""
    return ChoiceList(options=list(options), value=value, description=description, look="list", large=large,
                      layout=widgets.Layout(width="auto", max_width="100%"))


def course_button(description: str, tooltip: str, css_class: str, large: bool = False,
                  looks: SharedLooks | None = None, **layout) -> widgets.Button:
    """A button as wide as its label, in the theme's button size (normal or projector), with a stable CSS class.

    ``looks`` (:class:`SharedLooks`) gives it the layout and style of the widget it is part of (fewer models for the
    page to build); ``layout`` adds layout settings (``align_self="flex-start"``).
    """
    looks = looks or SharedLooks()
    size = theme.sizes(large).button
    button = widgets.Button(description=description, tooltip=tooltip, layout=looks.layout(width="auto", **layout),
                            style=looks.style(widgets.ButtonStyle, **({"font_size": size} if size else {})))
    button.add_class(css_class)
    return button

def choice_buttons(description: str, options, value, tooltips=None) -> widgets.ToggleButtons:
    """A row of buttons for a few discrete values (a layer, a head, a step), in place of a slider: every button
    is named by its text, and the row wraps on a narrow page."""
    return widgets.ToggleButtons(options=options, value=value, description=description,
                                 tooltips=list(tooltips or []), style={"button_width": "auto"},
                                 layout=widgets.Layout(max_width="100%", flex_flow="row wrap"))


def picker_group(title: str, picker: widgets.ToggleButtons, css_class: str) -> widgets.Box:
    """``picker`` (a row of option buttons) as a framed group with ``title`` above its buttons (``Layer (0–5)``), so
    that two pickers side by side read as two groups, not one strip of numbers.

    The title is the picker's own description (ipywidgets' label of the row, which names it for a screen reader too),
    drawn above the buttons by :data:`CONTROLS_CSS`. The box has the classes ``course-picker`` and ``css_class``.
    """
    picker.description = title
    picker.style.description_width = "initial"
    box = widgets.Box([picker], layout=widgets.Layout(width="auto", max_width="100%"))
    box.add_class("course-picker")
    box.add_class(css_class)
    return box


class LinkedHTML(widgets.Output):
    """HTML whose links to the course's notebooks (``04_masking.ipynb#1.-Encoder-...``) work in JupyterLab; its
    ``value`` is set and read as an ``ipywidgets.HTML``'s.

    An ``ipywidgets.HTML`` puts its value into the page as it is, so a link to a notebook in it is a plain link:
    following it loads JupyterLab again, and the notebook in front loses its kernel's state. An ``Output`` has its
    HTML drawn by JupyterLab's own renderer, which opens such a link in a tab of the same JupyterLab and scrolls to the
    heading its fragment names. ``value`` replaces the output's ``outputs`` (nothing is written into the output while
    a cell runs); ``''`` leaves it empty.
    """

    def __init__(self, value: str = "", **kwargs):
        super().__init__(**kwargs)
        self._html = ""
        self.value = value

    @property
    def value(self) -> str:
        """The HTML shown."""
        return self._html

    @value.setter
    def value(self, html: str) -> None:
        self._html = str(html)
        self.outputs = ({"output_type": "display_data", "data": {"text/html": self._html}, "metadata": {}},
                        ) if self._html else ()


class SharedLooks:
    """Layouts and styles shared by the parts of one widget that look alike.

    ipywidgets builds a model for every ``Layout`` and ``Style``, one per widget unless one is passed in, and the page
    builds a view of each before the widget is live. Parts that look alike can share one: ``looks.layout(width="auto")``
    gives the same ``Layout`` for the same settings. A part whose own look changes later (shown or hidden through its
    ``layout.display``) must have a layout of its own.
    """

    def __init__(self):
        self._made: dict = {}

    def _get(self, cls, props: dict):
        key = (cls, tuple(sorted(props.items())))
        if key not in self._made:
            self._made[key] = cls(**props)
        return self._made[key]

    def layout(self, **props) -> widgets.Layout:
        return self._get(widgets.Layout, props)

    def style(self, widget_class, **props):
        """A style for widgets of class ``widget_class`` (``ipywidgets.HTML``, ``ipywidgets.Checkbox``, ...): the class
        of their ``style`` trait, found through traitlets' public ``class_traits`` (ipywidgets exports few of the style
        classes themselves), so that widgets whose styles are of one class share one. A style class that ipywidgets
        exports (``ipywidgets.ButtonStyle``) may be given as it is."""
        if not issubclass(widget_class, widgets.Style):
            widget_class = widget_class.class_traits()["style"].klass
        return self._get(widget_class, props)

    @property
    def models(self) -> list:
        """Every layout and style made (for :func:`helpers.widgets.live.close_tree`)."""
        return list(self._made.values())
