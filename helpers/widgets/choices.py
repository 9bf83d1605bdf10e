"""A list of options whose labels are typeset: a real radio group, one widget model for all its options.

ipywidgets' ``RadioButtons`` and ``ToggleButtons`` show an option's label as plain text, so an option such as
"Token i alone: its row of X times W^Q" showed ``W^Q`` where every other text of the course shows W<sup>Q</sup>.
:class:`ChoiceList` keeps their use (``options``, ``value``, ``description``, ``disabled``; ``observe`` and
``widgets.link`` on ``value``) and shows each label and the question through :func:`helpers.look.mathtext.math_html`.

The page draws it with one small ES module shipped in this package (``choices.js``, run by anywidget: nothing is
fetched at run time): native radio inputs sharing one name, each inside the ``<label>`` holding its typeset text, in
a ``role="radiogroup"`` named by the question. So the group is one tab stop, the arrow keys move between options
and choose, and each option's accessible name is its label's text. Two looks: ``"list"``, one option per line under
the question (the concept inventory, the practice questions), and ``"buttons"``, a row of buttons whose chosen one is
filled with the theme's accent (a prediction's options).
"""

from __future__ import annotations

from importlib.resources import files

import anywidget
import traitlets

from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.live import RefusedValue

__all__ = ["ChoiceList", "CHOICES_CSS"]

_ESM = files(__package__).joinpath("choices.js").read_text(encoding="utf-8")

_ACCENT = "var(--jp-brand-color1,#1976d2)"
_ACCENT_DARK = "var(--jp-brand-color0,#0d47a1)"
_ON_ACCENT = "var(--jp-ui-inverse-font-color1,#fff)"

# The look of every option list on the page, written once (anywidget puts it in the page's head), in the theme's
# colours (JupyterLab's variables: light and dark alike) and sizes (13 px, 20 px in the lecture mode). An option's
# text wraps beside its radio button (a chosen one filled with the accent); the question wraps above the options. In
# the "buttons" look the radio itself is hidden but stays the focusable, checkable element: the label around it is
# drawn as the button, its outline shows the keyboard focus, and the chosen one (``course-choices-chosen``) is filled
# with the accent and bold, as ipywidgets' option buttons are in the course (helpers.widgets.layout.CONTROLS_CSS); a
# chosen option that is disabled (a committed prediction) keeps its fill, a little faded.
CHOICES_CSS = (
    ".course-choices{display:flex;flex-direction:column;align-items:flex-start;max-width:100%;"
    f"box-sizing:border-box;margin:2px 0;font-size:{theme.sizes(False).font};line-height:1.4;color:{theme.PANEL_FG}}}"
    f".course-choices.course-choices-large{{font-size:{theme.sizes(True).font}}}"
    ".course-choices-question{max-width:100%;white-space:normal;margin-bottom:2px}"
    ".course-choices-options{display:flex;flex-direction:column;align-items:flex-start;max-width:100%}"
    ".course-choices-option{display:flex;align-items:flex-start;max-width:100%;padding:2px 0;cursor:pointer;"
    "white-space:normal}"
    ".course-choices-option input{flex:none;height:1.4em;margin:0 0.5em 0 1px;cursor:inherit;"
    f"accent-color:{_ACCENT}}}"
    ".course-choices-disabled .course-choices-option{cursor:default;opacity:0.8}"
    ".course-choices-buttons{flex-direction:row;flex-wrap:wrap;align-items:center;gap:4px 8px}"
    ".course-choices-buttons .course-choices-question{margin:0}"
    ".course-choices-buttons .course-choices-options{flex-direction:row;flex-wrap:wrap;gap:4px}"
    ".course-choices-buttons .course-choices-option{position:relative;align-items:center;padding:0 12px;"
    "min-height:var(--jp-widgets-inline-height,28px);box-sizing:border-box;border-radius:2px;"
    "background:var(--jp-layout-color2,#eee);color:var(--jp-ui-font-color1,#1a1a1a);"
    "box-shadow:inset 0 0 0 1px var(--jp-border-color1,#c8c8c8)}"
    ".course-choices-buttons .course-choices-option:hover{background:var(--jp-layout-color3,#d5d5d5)}"
    ".course-choices-buttons .course-choices-option input{position:absolute;opacity:0;width:1px;height:1px;"
    "margin:0;pointer-events:none}"
    ".course-choices-buttons .course-choices-option:has(input:focus-visible){"
    f"outline:2px solid {_ACCENT};outline-offset:1px}}"
    ".course-choices-buttons .course-choices-chosen,.course-choices-buttons .course-choices-chosen:hover{"
    f"background:{_ACCENT};color:{_ON_ACCENT};font-weight:700;box-shadow:inset 0 0 0 1px {_ACCENT_DARK}}}"
    ".course-choices-buttons.course-choices-disabled .course-choices-option{opacity:0.75}"
    ".course-choices-option sup,.course-choices-option sub,.course-choices-question sup,"
    ".course-choices-question sub{line-height:0}"
)

_LOOKS = ("list", "buttons")


def _pairs(options) -> tuple[tuple[str, object], ...]:
    """``options`` as (label, value) pairs: a plain option is its own label, as in ipywidgets."""
    if isinstance(options, (str, bytes)) or not hasattr(options, "__iter__"):
        raise RefusedValue(f"options must be a list of options (texts, or (label, value) pairs); got {options!r}")
    pairs = []
    for option in options:
        if isinstance(option, tuple) and len(option) == 2:
            label, value = option
        else:
            label, value = option, option
        pairs.append((str(label), value))
    return tuple(pairs)


class ChoiceList(anywidget.AnyWidget):
    """One of a few options, chosen in a radio group whose labels and question are typeset.

    Parameters
    ----------
    options : list
        The options: texts (each its own value), or ``(label, value)`` pairs, as ipywidgets' selection widgets take.
    value : optional
        The chosen option's value, or ``None`` (nothing chosen).
    description : str
        The question above (or, in the ``"buttons"`` look, beside) the options; written in the short form of math
        (``W^Q``) like the labels.
    look : {"list", "buttons"}
        One option per line with its radio button, or a row of buttons.
    large : bool
        The lecture mode's size.

    Attributes
    ----------
    options : tuple (a trait)
        The options as given.
    value : (a trait)
        The chosen option's value or ``None``; ``observe`` it, ``widgets.link`` it, assign it. A value that is not one
        of the options is refused with a ``TraitError`` (also a ``ValueError``) naming the options, and changes
        nothing.
    labels : list of str (a trait, read-only)
        Each option's label as the page shows it: HTML, its math typeset.
    index : int (a trait)
        The chosen option's place, ``-1`` for none (what the page sets).
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    _css = traitlets.Unicode(CHOICES_CSS).tag(sync=True)

    options = traitlets.Tuple(help="the options as given: texts, or (label, value) pairs")
    value = traitlets.Any(None, allow_none=True, help="the chosen option's value, or None")
    labels = traitlets.List(help="each option's label as HTML, its math typeset").tag(sync=True)
    index = traitlets.Int(-1, help="the chosen option's place, -1 for none").tag(sync=True)
    description = traitlets.Unicode("", help="the question, in the short form of math").tag(sync=True)
    description_html = traitlets.Unicode("", help="the question as HTML, its math typeset").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)
    look = traitlets.Unicode("list").tag(sync=True)
    large = traitlets.Bool(False).tag(sync=True)

    def __init__(self, options=(), value=None, description: str = "", look: str = "list", large: bool = False,
                 **kwargs):
        if look not in _LOOKS:
            raise ValueError(f"look must be one of {', '.join(map(repr, _LOOKS))}; got {look!r}")
        _pairs(options)  # a string is refused here, before it is read as a list of letters
        super().__init__(options=tuple(options), description=str(description), look=look, large=bool(large),
                         **kwargs)
        self.value = value
        if look == "list":
            self.add_class("course-choice")  # the picture's question above its options (helpers.widgets.snapshot)

    # -- the options and the value, kept in step with what the page shows

    @traitlets.validate("options")
    def _valid_options(self, proposal):
        pairs = _pairs(proposal["value"])  # (a tuple already: a string was refused in __init__)
        values = [v for _, v in pairs]
        if any(values.count(v) > 1 for v in values):
            raise RefusedValue(f"options must have different values; got {values!r}")
        return tuple(proposal["value"])

    @traitlets.observe("options")
    def _options_changed(self, change) -> None:
        self.labels = [math_html(label) for label, _ in self._pairs]
        if self.value is not None and self.value not in self._values:
            self.value = None
        self.index = self._place(self.value)

    @traitlets.validate("value")
    def _valid_value(self, proposal):
        value = proposal["value"]
        if value is None or value in self._values:
            return value
        shown = ", ".join(repr(v) for v in self._values) or "none yet"
        raise RefusedValue(f"value must be one of the options ({shown}) or None; got {value!r}")

    @traitlets.observe("value")
    def _value_changed(self, change) -> None:
        self.index = self._place(change["new"])

    @traitlets.validate("index")
    def _valid_index(self, proposal):
        k = proposal["value"]
        if not -1 <= k < len(self._values):
            raise RefusedValue(f"index must be -1 (none) or an option's place, 0 to {len(self._values) - 1}; got {k}")
        return k

    @traitlets.observe("index")
    def _index_changed(self, change) -> None:
        k = change["new"]
        self.value = None if k < 0 else self._values[k]

    @traitlets.observe("description")
    def _description_changed(self, change) -> None:
        self.description_html = math_html(change["new"])

    @property
    def _pairs(self) -> tuple[tuple[str, object], ...]:
        return _pairs(self.options)

    @property
    def _values(self) -> list:
        return [v for _, v in self._pairs]

    def _place(self, value) -> int:
        return -1 if value is None else self._values.index(value)

    @property
    def label(self) -> str | None:
        """The chosen option's label as written (plain text), or ``None``."""
        return None if self.index < 0 else self._pairs[self.index][0]

    def __repr__(self) -> str:
        return f"ChoiceList({len(self.options)} options, value={self.value!r})"
