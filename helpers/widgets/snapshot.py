"""A static picture of a widget: HTML that shows what the widget shows, for pages where no widget can run.

A stored notebook keeps no widget state (it would change on every run), so GitHub, nbviewer, the course's web site
and JupyterLab before "Run All" cannot draw a widget. Every course widget therefore puts :func:`snapshot_html` of
itself beside its text form in its output (``text/html``, :class:`helpers.widgets.live.TextForm`); a front-end that can
run the widget shows the live widget instead (its widget view ranks first), and replaces the picture when the cell runs.

The picture is made from the widget tree as it is, one rule per kind of widget:

* ``HTML`` and ``HTMLMath``: their value, as it is (the course's own HTML); ``Label``: its text; a widget drawn by its
  own front-end code (the matrix editor): what its ``static_html()`` says it shows;
* ``Text``, ``Textarea`` and the number fields: a disabled ``<input>`` or ``<textarea>`` holding the value, inside a
  ``<label>`` with the widget's description, which names it (also in a notebook not trusted yet, where JupyterLab
  drops ``aria-label``); in a grid (``GridBox``), whose row and column labels name each cell on screen, the cell's
  description is its ``aria-label`` (a ``title`` alone is not a name that axe accepts);
* ``Button``, ``ToggleButton``, ``ToggleButtons``, ``RadioButtons``, ``Checkbox``, ``Dropdown``, ``Select``: disabled
  controls with their labels and what is selected; a ``ChoiceList`` (helpers.widgets.choices) as the radio or option
  buttons it stands for, its question and labels typeset;
* ``Box``, ``HBox``, ``VBox``, ``GridBox``: a ``<div>`` with the layout's flex and grid properties, sizes, margins and
  borders; ``Accordion`` and ``Tab``: a ``<details>`` per page (the open page open: the others still open on a
  click, without a kernel), ``Stack``: the page shown;
* ``Image``: an ``<img>`` with its text alternative (the tooltip), a PNG in 256 colours (a PNG in an HTML value
  too); ``Output``: its outputs' HTML, image or text; a progress bar: ``<progress>``;
* a widget whose ``layout.display`` is ``"none"`` is left out, with everything in it, and so is a part that carries
  the class :data:`OMIT_CLASS` (what is measured on this machine, what is the learner's own, a view the notebook
  shows elsewhere); the note at the top then says that the live widget shows more.

Each element keeps the widget's CSS classes (``attn-explorer``, ``matrix-editor-grid``, ``predict`` ...), so what
addresses a live widget by its classes finds its picture too. The look is one small ``<style>`` per picture, in
JupyterLab's theme variables, so the picture follows the dark theme; a line at the top says it is a picture. The
general rules (a button, a field) are written once per notebook (:func:`page_snapshot_html`). Every inline style
becomes a class of that ``<style>``, scoped to the picture (a ``<style>`` in an output applies to the whole page),
which keeps a picture small; a page that drops ``<style>`` (JupyterLab, for a notebook not trusted yet)
shows it plain, with its grids still in rows and columns. The same widget state gives the same bytes: no ids,
nothing random. Text from widget values is escaped; no script and no event handler is written.
"""

from __future__ import annotations

import base64
import hashlib
import html as _html
import re

import ipywidgets as widgets

from helpers.look import render, theme

__all__ = ["STATIC_NOTE", "PARTIAL_NOTE", "SNAPSHOT_CLASS", "OMIT_CLASS", "outputs_html", "page_snapshot_html",
           "aside_snapshot_html", "snapshot_html"]

STATIC_NOTE = "Static picture: run the cell to use it"
PARTIAL_NOTE = "Static picture: run the cell to use it and to see every view"
SNAPSHOT_CLASS = "course-snapshot"
# A part of a widget that its picture leaves out (a view the notebook shows elsewhere, an intermediate stage, buttons
# that act on the live widget only), so that a notebook with many widgets stays small; when the part shows content
# (more than buttons), the picture's note says that the live widget shows more.
OMIT_CLASS = "course-snapshot-omit"

# The look shared by every element of one kind: one rule per class (or element), written into a picture only when
# the picture uses it. The classes of the picture's own markup start with "cs-"; the rules on elements (inputs,
# buttons) and on the shared styles (see _compact) are scoped to the picture, so that they never style anything
# else on the page (a <style> in an output applies to the whole page) and win over the page's rules for tables.
_S = ".cs-pic"  # the picture's second class: short, as it starts every scoped rule
# Colours are JupyterLab's theme variables; where a page has none (GitHub, nbviewer), a colour without a fallback
# falls back to the page's own text colour (``color``) or to no background, and a border to the theme's light grey.
_ROOT_RULE = (f"{_S}{{color:var(--jp-ui-font-color1);font:13px/1.4 "
              "var(--jp-ui-font-family,system-ui,sans-serif);max-width:100%;overflow-x:auto}"
              f".cs-note{{color:{theme.MUTED_FG};font-size:11px;font-style:italic}}")
_RULES = (  # (what the picture must hold for the rule to be written, the rule)
    ("cs-box", ".cs-box{display:flex;min-width:0}"),
    ("cs-v", ".cs-v{flex-direction:column}"),
    ("cs-grid", ".cs-grid>div{min-width:0}"),
    ("cs-field", ".cs-field{display:flex;align-items:center;gap:4px;width:300px;max-width:100%;margin:2px 0}"),
    ("cs-desc", ".cs-desc{flex:none;width:80px;text-align:right;overflow:hidden;white-space:nowrap}"),
    (("<input", "<textarea", "<select", "cs-btn"),
     f"{_S} :is(input,textarea,select,.cs-btn){{font:inherit;color:inherit;opacity:1;"
     f"background:var(--jp-layout-color1);border:1px solid {theme.BORDER};padding:2px 4px;min-width:0}}"),
    (("<input", "<select"), f"{_S} :is(input,select){{flex:1 1 auto}}"),
    ("<textarea", f"{_S} textarea{{width:100%;resize:none}}"),
    ('type=', f"{_S} input:is([type=checkbox],[type=radio]){{flex:none;margin:0 4px 0 0}}"),
    ("cs-grid", f"{_S} .cs-grid input{{width:100%;text-align:center}}"),
    ("cs-btn", f"{_S} .cs-btn{{background:var(--jp-layout-color2,#eee);padding:3px 10px;margin:2px 4px 2px 0;"
               "min-height:28px}"),
    ("cs-on", f"{_S} .cs-on{{background:var(--jp-layout-color3,#bbb);box-shadow:inset 0 1px 3px #0006;"
              "font-weight:600}"),
    ("cs-primary", f"{_S} .cs-primary{{background:var(--jp-brand-color1,#1976d2);color:#fff;border:0}}"),
    # The chosen option of a row of option buttons: filled with the accent, as on the live page
    # (helpers.widgets.layout).
    ("cs-chosen", f"{_S} .cs-chosen{{background:var(--jp-brand-color1,#1976d2);color:#fff;font-weight:700;"
                  "box-shadow:none}"),
    ("cs-pick", ".cs-pick{display:inline-flex;align-items:center;margin:1px 10px 1px 0}"),
    # A list of options (helpers.widgets.choices, as a list): its question above the options and wrapping, as on the
    # live page.
    ("course-choice", ".cs-field.course-choice{flex-direction:column;align-items:flex-start}"
                      ".course-choice>.cs-desc{white-space:normal;text-align:left;max-width:100%}"),
    ("cs-row", ".cs-row{display:flex;flex-wrap:wrap;align-items:center;min-width:0}"),
    ("cs-fold", f".cs-fold{{border:1px solid {theme.BORDER};margin:2px 0}}"
                ".cs-fold>summary{padding:4px 8px;background:var(--jp-layout-color2,#eee);cursor:pointer}"
                ".cs-fold>div{padding:4px 8px}"),
)

# Layout traits drawn as CSS, in this order. ``flex_flow`` is written as ``flex-direction`` and ``flex-wrap``, which
# JupyterLab's sanitizer keeps in an untrusted notebook (it drops ``flex-flow``).
_LAYOUT = (
    ("display", "display"), ("flex", "flex"), ("align_items", "align-items"), ("align_content", "align-content"),
    ("align_self", "align-self"), ("justify_content", "justify-content"), ("justify_items", "justify-items"),
    ("grid_template_columns", "grid-template-columns"), ("grid_template_rows", "grid-template-rows"),
    ("grid_template_areas", "grid-template-areas"), ("grid_auto_columns", "grid-auto-columns"),
    ("grid_auto_rows", "grid-auto-rows"), ("grid_auto_flow", "grid-auto-flow"), ("grid_gap", "gap"),
    ("grid_area", "grid-area"), ("grid_row", "grid-row"), ("grid_column", "grid-column"), ("order", "order"),
    ("width", "width"), ("height", "height"), ("min_width", "min-width"), ("max_width", "max-width"),
    ("min_height", "min-height"), ("max_height", "max-height"), ("margin", "margin"), ("padding", "padding"),
    ("border_top", "border-top"), ("border_right", "border-right"), ("border_bottom", "border-bottom"),
    ("border_left", "border-left"), ("overflow", "overflow"), ("visibility", "visibility"),
    ("object_fit", "object-fit"), ("object_position", "object-position"),
)
_TEXT_FIELDS = (widgets.Text, widgets.Textarea, widgets.IntText, widgets.FloatText, widgets.BoundedIntText,
                widgets.BoundedFloatText)
_CHOICES = (widgets.Dropdown, widgets.Select)


def _esc(value) -> str:
    return _html.escape(str(value), quote=True)


def _css(value) -> str:
    """A CSS value as a style attribute may hold it: no quote that would end the attribute, no tag."""
    return str(value).replace('"', "'").replace("<", "").replace(">", "")


def _hidden(w) -> bool:
    layout = getattr(w, "layout", None)
    return getattr(layout, "display", None) == "none"


def _left_out(w) -> bool:
    return _hidden(w) or OMIT_CLASS in getattr(w, "_dom_classes", ())


def _holds_content(w) -> bool:
    """Whether ``w`` shows something besides buttons and empty text (buttons act on a live widget only)."""
    if _hidden(w) or isinstance(w, (widgets.Button, widgets.ToggleButton)):
        return False
    if isinstance(w, (widgets.HTML, widgets.HTMLMath, widgets.Label)) and not w.value:
        return False  # a message place with no message yet
    children = getattr(w, "children", None)
    return not children or any(_holds_content(c) for c in children)


def _omits(w) -> bool:
    """Whether the picture of ``w`` leaves out a part that shows content (see :data:`OMIT_CLASS`)."""
    if _hidden(w) or not isinstance(w, widgets.Widget):
        return False
    if OMIT_CLASS in getattr(w, "_dom_classes", ()):
        return _holds_content(w)
    return any(_omits(c) for c in getattr(w, "children", ()) or ())


def _layout_css(w, skip: tuple[str, ...] = (), border: str = "border") -> list[str]:
    layout = getattr(w, "layout", None)
    if not isinstance(layout, widgets.Layout):
        return []
    css = []
    borders = [getattr(layout, name, None) for name in ("border_top", "border_right", "border_bottom", "border_left")]
    same_border = borders[0] and all(b == borders[0] for b in borders)
    for trait, prop in _LAYOUT:
        value = getattr(layout, trait, None)
        if value in (None, "") or trait in skip:
            continue
        if trait.startswith("border_") and same_border:
            if trait == "border_top":
                css.append(f"{border}:{_css(value)}")
            continue
        css.append(f"{prop}:{_css(value)}")
    flow = getattr(layout, "flex_flow", None)
    if flow and "flex_flow" not in skip:
        for word in str(flow).split():
            prop = "flex-wrap" if "wrap" in word else "flex-direction"
            css.append(f"{prop}:{_css(word)}")
    return css


def _style_css(w) -> list[str]:
    """What a widget's ``style`` sets on the control's text: size, colours, weight."""
    style = getattr(w, "style", None)
    css = []
    for trait, prop in (("font_size", "font-size"), ("font_weight", "font-weight"), ("text_color", "color"),
                        ("background", "background"), ("button_color", "background")):
        value = getattr(style, trait, None) if style is not None and trait in style.keys else None
        if value:
            css.append(f"{prop}:{_css(value)}")
    return css


def _attrs(w, base: str = "", css: list[str] | None = None, **extra) -> str:
    """` class="..." style="..."` and further attributes (escaped; ``True`` writes the bare name) for ``w``."""
    classes = [c for c in (base, *getattr(w, "_dom_classes", ())) if c]
    out = f' class="{_esc(" ".join(classes))}"' if classes else ""
    if css:
        out += f' style="{_esc(";".join(css))}"'
    for name, value in extra.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        out += f" {name}" if value is True else f' {name}="{_esc(value)}"'
    return out


def _description(w) -> str:
    return str(getattr(w, "description", "") or "")


def _description_html(w) -> str:
    """The description as the page shows it: its HTML where the widget allows HTML in it (typeset math), else its
    text."""
    text = _description(w)
    return text if getattr(w, "description_allow_html", False) else _esc(text)


def _number_text(value) -> str:
    """A number field's value as the field shows it (``3``, not ``3.0``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _desc_label(w) -> str:
    """The description drawn left of a control, at the width its style asks for; '' without one."""
    text = _description(w)
    if not text:
        return ""
    width = getattr(getattr(w, "style", None), "description_width", "") or ""
    css = [] if not width else ["width:auto"] if width == "initial" else [f"width:{_css(width)}"]
    style = f' style="{_esc(";".join(css))}"' if css else ""
    return f'<span class="cs-desc"{style}>{_description_html(w)}</span>'


def _field(w, control: str, width_auto: bool = False, label: bool = False) -> str:
    """A control with its description in a row, as ipywidgets lays out a described control; with ``label``, the row
    is a ``<label>``: the description names the one control in it."""
    css = (["width:auto"] if width_auto else []) + _layout_css(w)
    tag = "label" if label else "div"
    return f"<{tag}{_attrs(w, 'cs-field', css)}>{_desc_label(w)}{control}</{tag}>"


def _text_field(w, in_grid: bool) -> str:
    # Named by the <label> round it when it has a description; else (a grid cell, a field with a placeholder) by
    # aria-label.
    name = None if _description(w) and not in_grid else (_description(w) or str(getattr(w, "placeholder", "") or "")
                                                          or None)
    value = getattr(w, "value", "")
    shown = value if isinstance(value, str) else _number_text(value)
    # A grid cell is the grid's item itself: the grid's row and column labels name it on screen, and its name is for
    # screen readers. Its layout's border, drawn round the field by ipywidgets, is drawn round the input as an outline.
    owner, css = (w, _layout_css(w, border="outline") + _style_css(w)) if in_grid else (None, _style_css(w))
    if isinstance(w, widgets.Textarea):
        control = (f"<textarea disabled{_attrs(owner, '', css, rows=getattr(w, 'rows', None), aria_label=name)}>"
                   f"{_esc(shown)}</textarea>")
    else:
        control = f"<input disabled{_attrs(owner, '', css, value=shown, aria_label=name)}>"
    return control if in_grid else _field(w, control, label=True)


def _button(w, pressed: bool | None = None, label: str | None = None, tooltip: str | None = None,
            chosen: bool = False) -> str:
    text = _description(w) if label is None else label
    tip = (getattr(w, "tooltip", None) or None) if tooltip is None else tooltip
    base = " ".join(c for c in ("cs-btn", "cs-on" if pressed else "", "cs-chosen" if chosen else "",
                                "cs-primary" if getattr(w, "button_style", "") == "primary" else "") if c)
    owner = w if label is None else None
    css = (_layout_css(w) + _style_css(w)) if owner is not None else []
    # A disabled button shows no tooltip: its tooltip is written only as the name of a button without text.
    attrs = _attrs(owner, base, css, title=None if text else tip, aria_pressed="true" if pressed else None)
    return f"<button disabled{attrs}>{_esc(text)}</button>"


def _labels(w) -> list[str]:
    return [str(label) for label in getattr(w, "_options_labels", ())]


def _toggle_buttons(w) -> str:
    tips = list(getattr(w, "tooltips", ()) or ())
    index = getattr(w, "index", None)
    width = getattr(getattr(w, "style", None), "button_width", "") or ""
    buttons = []
    for k, label in enumerate(_labels(w)):
        button = _button(w, pressed=k == index, label=label, tooltip=tips[k] if k < len(tips) else None,
                         chosen=k == index)
        if width:
            button = button.replace("<button disabled", f'<button style="width:{_esc(_css(width))}" disabled', 1)
        buttons.append(button)
    row = f'<div class="cs-row">{"".join(buttons)}</div>'
    return _field(w, row, width_auto=True)


def _radio_buttons(w) -> str:
    index = getattr(w, "index", None)
    horizontal = getattr(w, "orientation", "vertical") == "horizontal"
    picks = "".join(f'<label class="cs-pick"><input type="radio" disabled{" checked" if k == index else ""}>'
                    f"{_esc(label)}</label>" for k, label in enumerate(_labels(w)))
    group = f'<div class="{"cs-row" if horizontal else "cs-box cs-v"}">{picks}</div>'
    return _field(w, group, width_auto=True)


def _is_choice_list(w) -> bool:
    # Known by what it holds, not by its class: helpers.widgets.choices imports helpers.widgets.live, which imports
    # this module.
    return getattr(w, "look", None) in ("list", "buttons") and isinstance(getattr(w, "labels", None), list)


def _choice_list(w) -> str:
    """An option list (:class:`~helpers.widgets.choices.ChoiceList`) drawn as the radio or option buttons it stands
    for, its question and labels typeset (HTML the list wrote, its text escaped)."""
    index = w.index
    question = f'<span class="cs-desc" style="width:auto">{w.description_html}</span>' if w.description else ""
    if w.look == "buttons":
        chosen, other = ' class="cs-btn cs-on cs-chosen" aria-pressed="true"', ' class="cs-btn"'
        picks = "".join(f"<button disabled{chosen if k == index else other}>{label}</button>"
                        for k, label in enumerate(w.labels))
        group = f'<div class="cs-row">{picks}</div>'
    else:
        # Each option a block of its own, so that a page that drops the picture's <style> (JupyterLab, for a notebook
        # not trusted yet) still shows one option per line; its text one <span>, so that the label's flex layout
        # keeps a sub- or superscript in the line of text around it.
        picks = "".join(f'<div><label class="cs-pick"><input type="radio" disabled{" checked" if k == index else ""}>'
                        f"<span>{label}</span></label></div>" for k, label in enumerate(w.labels))
        group = f'<div class="cs-box cs-v">{picks}</div>'
    return f"<div{_attrs(w, 'cs-field', ['width:auto', *_layout_css(w)])}>{question}{group}</div>"


def _choice(w) -> str:
    index = getattr(w, "index", None)
    labels = _labels(w)
    shown = labels[index] if isinstance(index, int) and 0 <= index < len(labels) else ""
    select = f"<select disabled><option selected>{_esc(shown)}</option></select>"
    return _field(w, select, label=bool(_description(w)))


def _checkbox(w) -> str:
    checked = " checked" if getattr(w, "value", False) else ""
    return (f"<label{_attrs(w, 'cs-pick', _layout_css(w))}><input type=\"checkbox\" disabled{checked}>"
            f"{_description_html(w)}</label>")


_PNG_URI = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


def _smaller_png_b64(encoded: str) -> str:
    """A base64 PNG in 256 colours (:func:`helpers.look.render.smaller_png`): the same look at a third of the room."""
    return base64.b64encode(render.smaller_png(base64.b64decode(encoded))).decode("ascii")


def _smaller_images(markup: str) -> str:
    """``markup`` with every PNG it holds as a data address made smaller (a figure in an HTML widget)."""
    return _PNG_URI.sub(lambda m: "data:image/png;base64," + _smaller_png_b64(m.group(1)), markup)


def _image(w) -> str:
    alt = str(getattr(w, "tooltip", "") or "") or _description(w) or "an image"
    fmt = str(getattr(w, "format", "png") or "png")
    data = bytes(getattr(w, "value", b"") or b"")
    if fmt == "url":
        url = data.decode("utf-8", "replace").strip()
        src = url if url.lower().startswith(("https://", "http://", "data:image/")) else None
    else:
        kind = "svg+xml" if fmt == "svg" else fmt
        if fmt == "png" and data:
            data = render.smaller_png(data)
        src = f"data:image/{kind};base64,{base64.b64encode(data).decode('ascii')}" if data else None
    css = _layout_css(w) + [f"{name}:{_css(v)}px" if str(v).isdigit() else f"{name}:{_css(v)}"
                            for name in ("width", "height") for v in [getattr(w, name, "")] if v]
    return f"<img{_attrs(w, '', css or None, alt=alt, src=src)}>"


def outputs_html(outputs) -> str:
    """What a list of notebook outputs (as ``Output.outputs`` holds them) shows, as HTML: each output's HTML, its
    image or its text (a stream's text, or text/plain), in order; a PNG made smaller as in every picture."""
    parts = []
    for out in outputs:
        data = out.get("data", {}) if isinstance(out, dict) else {}
        if "text/html" in data:
            parts.append(_smaller_images(str(data["text/html"])))
        elif "image/png" in data:
            parts.append(f'<img alt="{_esc(data.get("text/plain", "a figure"))}" '
                         f'src="data:image/png;base64,{_smaller_png_b64(data["image/png"])}">')
        elif "text/plain" in data:
            parts.append(f"<pre>{_text(data['text/plain'])}</pre>")
        elif isinstance(out, dict) and out.get("output_type") == "stream":
            parts.append(f"<pre>{_text(out.get('text', ''))}</pre>")
    return "".join(parts)


def _text(value) -> str:
    """Text as the content of an element: only ``&``, ``<`` and ``>`` escaped (quotes are safe there, and printed
    text is full of them)."""
    return _html.escape(str(value), quote=False)


def _output(w) -> str:
    return f"<div{_attrs(w, '', _layout_css(w))}>{outputs_html(getattr(w, 'outputs', ()))}</div>"


def _pages(w) -> str:
    """An Accordion or Tab: one ``<details>`` per page, the selected one open; a Stack: the selected page."""
    children = list(getattr(w, "children", ()))
    selected = getattr(w, "selected_index", None)
    if isinstance(w, widgets.Stack):
        inner = _draw(children[selected], False) if isinstance(selected, int) and selected < len(children) else ""
        return f"<div{_attrs(w, '', _layout_css(w))}>{inner}</div>"
    titles = list(getattr(w, "titles", ()) or ())
    folds = []
    for k, child in enumerate(children):
        if _left_out(child):
            continue
        title = titles[k] if k < len(titles) and titles[k] else f"Page {k + 1}"
        folds.append(f'<details class="cs-fold"{" open" if k == selected else ""}><summary>{_esc(title)}</summary>'
                     f"<div>{_draw(child, False)}</div></details>")
    return f"<div{_attrs(w, '', _layout_css(w))}>{''.join(folds)}</div>"


# Layout.overflow values with which a box scrolls (a shorthand like "auto hidden" scrolls on one axis).
_SCROLLING = {"auto", "scroll", "auto hidden", "hidden auto", "scroll hidden", "hidden scroll"}


def _box(w) -> str:
    grid = isinstance(w, widgets.GridBox)
    inner = "".join(_draw(child, grid) for child in getattr(w, "children", ()))
    if grid:
        # A grid's shape stays inline, in single quotes (which _compact leaves alone): a page that drops the
        # picture's <style> but keeps inline styles (JupyterLab, for a notebook not trusted yet) still draws a
        # matrix as rows and columns.
        shape = _esc(";".join(["display:grid"] + _layout_css(w, skip=("display",))))
        return f"<div{_attrs(w, 'cs-grid')} style='{shape}'>{inner}</div>"
    base = "cs-box cs-v" if isinstance(w, widgets.VBox) else "cs-box"
    # A box that scrolls (a row of editors wider than the page) takes the keyboard focus, so that the arrow keys
    # scroll it: the live widget's fields are focusable, the picture's disabled ones are not.
    overflow = str(getattr(getattr(w, "layout", None), "overflow", None) or "")
    return f"<div{_attrs(w, base, _layout_css(w), tabindex='0' if overflow in _SCROLLING else None)}>{inner}</div>"


# What ties a table cell to the live widget's linked highlighting (helpers.look.highlight): row and column marks and the
# keyboard focus. A picture has no highlighting (no stylesheet for it, nothing to focus), so they only take room.
_LINK_MARKS = re.compile(r' (?:data-(?:row|col)="\d+"|tabindex="0")')


# The style sheets of the widgets drawn by their own front-end code (see _draw), in the order first drawn.
_FRONT_END_RULES: dict[str, None] = {}


def _without_links(markup: str) -> str:
    return _LINK_MARKS.sub("", markup)


def _draw(w, in_grid: bool = False) -> str:
    """The picture of ``w`` and everything in it ('' for a hidden widget or a widget that draws nothing)."""
    if not isinstance(w, widgets.DOMWidget) or _left_out(w):
        return ""
    if callable(getattr(w, "static_html", None)):
        # A widget drawn by its own front-end code (the matrix editor) says itself what it shows, and its look is the
        # style sheet its front end puts on the page (written as a general rule: once per page).
        _FRONT_END_RULES.setdefault(str(getattr(w, "static_css", "") or ""), None)
        return f"<div{_attrs(w, 'cs-own', _layout_css(w))}>{_smaller_images(w.static_html())}</div>"
    if isinstance(w, (widgets.HTML, widgets.HTMLMath)):
        value = _without_links(_smaller_images(str(w.value or "")))
        inner = _desc_label(w) + value if _description(w) else value
        return f"<div{_attrs(w, '', _layout_css(w))}>{inner}</div>"
    if isinstance(w, widgets.Label):
        return f"<span{_attrs(w, '', _layout_css(w))}>{_esc(w.value)}</span>"
    if isinstance(w, _TEXT_FIELDS):
        return _text_field(w, in_grid)
    if _is_choice_list(w):
        return _choice_list(w)
    if isinstance(w, widgets.ToggleButtons):
        return _toggle_buttons(w)
    if isinstance(w, widgets.RadioButtons):
        return _radio_buttons(w)
    if isinstance(w, _CHOICES):
        return _choice(w)
    if isinstance(w, widgets.ToggleButton):
        return _button(w, pressed=bool(w.value))
    if isinstance(w, widgets.Button):
        return _button(w)
    if isinstance(w, widgets.Checkbox):
        return _checkbox(w)
    if isinstance(w, widgets.Image):
        return _image(w)
    if isinstance(w, widgets.Output):
        return _output(w)
    if isinstance(w, (widgets.IntProgress, widgets.FloatProgress)):
        bar = f"<progress{_attrs(None, '', None, max=w.max, value=w.value, title=_description(w) or 'progress')}>"
        return _field(w, bar + "</progress>")
    if isinstance(w, (widgets.Accordion, widgets.Tab, widgets.Stack)):
        return _pages(w)
    if isinstance(w, widgets.Box):
        return _box(w)
    if hasattr(w, "value"):  # any other control (a slider, a date picker): its description and value, as text
        value = w.value if not isinstance(w.value, (tuple, list)) else " – ".join(map(str, w.value))
        return f"<span{_attrs(w, 'cs-field', _layout_css(w))}>{_desc_label(w)}{_esc(value)}</span>"
    return ""


_TAG = re.compile(r"<[a-zA-Z][a-zA-Z0-9-]*(?:\s+[^\s\"'<>/=]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*\s*/?>")
_STYLE_ATTR = re.compile(r'\sstyle="([^"]*)"')
_CLASS_ATTR = re.compile(r'\sclass="([^"]*)"')
_DOUBLE_QUOTED = re.compile(r'(\s[^\s"\'<>/=]+)="([^"\']*)"')


def _compact(body: str) -> tuple[str, dict[str, str]]:
    """``body`` written smaller, and the styles of the classes that make it so (class name -> declarations).

    Every style attribute written in double quotes becomes a class (``s0``, ``s1``, ... in order of appearance, one per
    distinct style): a course widget repeats the same inline style in every cell of a grid and every label of a table,
    and written once it takes a fraction of the room. A page that drops the picture's ``<style>`` then shows it plain
    and alike throughout, not half-styled (a style in single quotes stays inline: a grid's shape). Attribute values
    are put in single quotes (those that hold none), which a notebook file stores as they are, where it escapes every
    double quote.
    """
    styles = dict.fromkeys(value for tag in _TAG.findall(body) for value in _STYLE_ATTR.findall(tag))
    names = {value: f"s{k}" for k, value in enumerate(v for v in styles
                                                      if not any(c in _html.unescape(v) for c in "<>{}"))}

    def rewrite(match: re.Match) -> str:
        tag = match.group(0)
        style = _STYLE_ATTR.search(tag)
        if style is not None and style.group(1) in names:
            name = names[style.group(1)]
            tag = tag[:style.start()] + tag[style.end():]
            classes = _CLASS_ATTR.search(tag)
            if classes is None:
                end = len(tag) - (2 if tag.endswith("/>") else 1)
                tag = f'{tag[:end]} class="{name}"{tag[end:]}'
            else:
                tag = f"{tag[:classes.end() - 1]} {name}{tag[classes.end() - 1:]}"
        return _DOUBLE_QUOTED.sub(r"\1='\2'", tag)

    return _TAG.sub(rewrite, body), {name: _html.unescape(value) for value, name in names.items()}


def _style(body: str, scope: str, shared: dict[str, str], written: set[str] | None) -> str:
    """The picture's ``<style>``: the rules for what ``body`` holds, then the shared styles, scoped to this picture
    (later, so that they win over a general rule as the inline styles they replace did). A rule in ``written`` is
    left out, and the rules written here are added to it."""
    rules = [_ROOT_RULE] + [rule for needs, rule in _RULES
                            if any(n in body for n in ((needs,) if isinstance(needs, str) else needs))]
    if "cs-own" in body:
        rules += [css for css in _FRONT_END_RULES if css]
    rules = [rule for rule in dict.fromkeys(rules) if written is None or rule not in written]
    if written is not None:
        written.update(rules)
    own = "".join(f".{scope} .{name}{{{css}}}" for name, css in shared.items())
    return f"<style>{''.join(rules)}{own}</style>" if rules or own else ""


def snapshot_html(widget: widgets.Widget, written: set[str] | None = None) -> str:
    """A static HTML picture of ``widget`` as it is now (see the module's docstring for what is drawn and how).

    Parameters
    ----------
    widget : ipywidgets.Widget
        Any widget; a course widget is a container of the ipywidgets controls drawn here.
    written : set of str, optional
        The general rules (the look of a button, a field, a grid) that an earlier picture on the same page already
        wrote: left out of this picture's ``<style>`` (a ``<style>`` applies to the whole page); the rules this
        picture writes are added. By default every rule the picture needs is written.

    Returns
    -------
    str
        ``<div class="course-snapshot">`` holding one ``<style>``, the line :data:`STATIC_NOTE` and the picture.
        The same widget state (and the same ``written``) always gives the same string.
    """
    body, shared = _compact(_draw(widget))
    # The shared classes (s0, s1, ...) mean something else in each picture, and a <style> in an output applies to the
    # whole page: their rules are scoped to a class named after what this picture holds (the same picture, the same
    # name; two pictures that differ, two names).
    scope = "cs-" + hashlib.sha1((body + repr(sorted(shared.items()))).encode()).hexdigest()[:6]
    note = f"<div class='cs-note'>{_esc(PARTIAL_NOTE if _omits(widget) else STATIC_NOTE)}</div>"
    return f"<div class='{SNAPSHOT_CLASS} {_S[1:]} {scope}'>{_style(body, scope, shared, written)}{note}{body}</div>"


# The general rules written so far by the pictures of this kernel's widgets. A notebook is one page, run top to
# bottom in one kernel, so each rule is stored once, in the first picture that needs it (about 1 KB less per picture).
# Before its cells run, a page shows every stored picture, the first ones' rules included; when the cell of such a
# first picture runs, its live widget replaces it and the pictures below it look plainer until their cells run.
_ON_THIS_PAGE: set[str] = set()


def page_snapshot_html(widget: widgets.Widget) -> str:
    """:func:`snapshot_html` of ``widget`` as a picture in this kernel's notebook: the general rules written once."""
    return snapshot_html(widget, written=_ON_THIS_PAGE)


def aside_snapshot_html(widget: widgets.Widget) -> str:
    """:func:`snapshot_html` of ``widget`` as a picture set aside from the page's sharing: it leaves out the general
    rules an earlier picture wrote, writes the others itself and adds none to the page's but the root rule that
    every picture writes. The pictures after it come out as they do after any picture that needs no general rule
    (a folded solution): a widget that notebooks gain or lose leaves the stored pictures around it as they were."""
    picture = snapshot_html(widget, written=set(_ON_THIS_PAGE))
    _ON_THIS_PAGE.add(_ROOT_RULE)
    return picture
