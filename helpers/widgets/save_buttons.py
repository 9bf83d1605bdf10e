"""A "Save PNG" / "Save SVG" button pair beside a course heatmap: the figure for a slide, saved next to the notebook.

``SaveButtons(make_figure, "weights")`` is one small row a widget adds beside its weights view. A press draws the
figure the view shows now (``make_figure()``, a matplotlib figure with the token labels, e.g.
:func:`helpers.look.render.heatmap`) and saves it with :mod:`helpers.look.figures` as
``figures/<notebook>-weights.png`` (or ``.svg``) in the notebook's folder; the row then says where the file is. A
folder that cannot be written (read-only, full) gives a message next to the buttons, never a traceback. The row is left
out of a stored notebook's picture (it acts on a live widget only).
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from helpers.look import figures, theme
from helpers.widgets.layout import SharedLooks
from helpers.widgets.live import LiveWidget
from helpers.widgets.snapshot import OMIT_CLASS

__all__ = ["SaveButtons"]


class SaveButtons(LiveWidget, widgets.HBox):
    """Two buttons that save what a view shows as a figure, and the path of the file saved (or what went wrong).

    Parameters
    ----------
    make_figure : callable
        ``make_figure()`` returns the matplotlib figure to save, drawn from the widget's state at the press.
    name : str or callable
        What the figure shows, the end of the file's name (``"weights"`` → ``figures/02_projections-weights.png``);
        a callable gives it at the press (``lambda: f"layer{layer}-head{head}"``).
    folder : path, optional
        The notebook's folder (default: the kernel's working folder, which is the notebook's in JupyterLab and Voila).
    looks : helpers.widgets.layout.SharedLooks, optional
        The shared layouts and styles of the widget the buttons sit in (fewer models for the page to build).

    Attributes
    ----------
    png_button, svg_button : ipywidgets.Button
    saved_html : ipywidgets.HTML, the path of the last file saved, or why it could not be saved
    last_path : pathlib.Path or None, the last file saved
    """

    def __init__(self, make_figure, name: str, folder=None, looks: SharedLooks | None = None):
        looks = looks if looks is not None else SharedLooks()
        super().__init__(layout=looks.layout(display="flex", flex_flow="row wrap", align_items="center",
                                             max_width="100%", margin="2px 0"))
        self.saved_html = widgets.HTML("", layout=looks.layout(), style=looks.style(widgets.HTML))
        self._live_setup(status_html=self.saved_html)  # what went wrong is said where the path would be
        self._make_figure = make_figure
        self._name = name
        self._folder = folder
        self.last_path = None
        self.png_button, self.svg_button = (
            widgets.Button(description=f"Save {fmt.upper()}", layout=looks.layout(width="auto"),
                           style=looks.style(widgets.ButtonStyle),
                           tooltip=f"save this figure for a slide as a {fmt.upper()} file in "
                                   f"{figures.FOLDER}/, next to the notebook")
            for fmt in figures.FORMATS)
        self.on_click(self.png_button, lambda _b: self.save("png"), self.saved_html)
        self.on_click(self.svg_button, lambda _b: self.save("svg"), self.saved_html)
        self.children = [self.png_button, self.svg_button, self.saved_html]
        for w, cls in ((self, "save-figure"), (self, OMIT_CLASS), (self.png_button, "save-figure-png"),
                       (self.svg_button, "save-figure-svg"), (self.saved_html, "save-figure-message")):
            w.add_class(cls)

    def path(self, fmt: str):
        """Where a press of "Save PNG" (``fmt="png"``) or "Save SVG" saves the figure."""
        name = self._name() if callable(self._name) else self._name
        return figures.figure_path(name, fmt, folder=self._folder)

    @property
    def message(self) -> str:
        """Why the last press saved nothing, as plain text ('' after a save)."""
        return self.problem(self.saved_html)

    def save(self, fmt: str) -> None:
        """What pressing "Save PNG" or "Save SVG" does: draw the figure, save it, say where (or why not)."""
        path = self.path(fmt)
        try:
            figures.save_figure(self._make_figure(), path)
        except OSError as err:
            reason = err.strerror or str(err)
            raise ValueError(f"Could not save {path}: {reason}. The notebook's folder must be writable "
                             f"(or copy the course somewhere you can write to).") from None
        self.last_path = path
        self.clear_problem(self.saved_html)
        self.saved_html.value = (f'<span style="font-size:{theme.sizes().font}">Saved '
                                 f"<code>{html.escape(str(path))}</code></span>")

    def _update(self) -> None:
        """Nothing to recompute: the figure is drawn at the press."""

    def __repr__(self) -> str:
        return f"SaveButtons(name={self.path('png').stem!r})"
