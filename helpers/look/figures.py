"""Figures for slides: a course heatmap saved as PNG or SVG next to the notebook, under a name that says what it is.

A lecturer who wants an explorer's weights on a slide presses "Save PNG" or "Save SVG" beside them
(:class:`helpers.widgets.save_buttons.SaveButtons`); this module does the saving, without widgets:

* :func:`figure_path`: ``figures/<notebook>-<name>.<png|svg>`` in the notebook's folder (the kernel's working folder,
  where JupyterLab and Voila start it), e.g. ``figures/02_projections-weights.png``. The same notebook and name give
  the same path, so a second save replaces the first; only letters, digits, ``_`` and ``-`` reach the name.
* :func:`save_figure`: a matplotlib figure written to that path, with no date or random id in it (the same figure
  gives the same bytes), the SVG's text kept as text (a slide tool can still edit the token labels).

The figure itself is :func:`helpers.look.render.heatmap`: token labels on both axes (Queries ↓, Keys →), a title, the
fixed [0, 1] colour scale of every weights view.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from helpers.look.render import draw_figure

__all__ = ["FOLDER", "FORMATS", "figure_path", "notebook_name", "safe_name", "save_figure"]

FOLDER = "figures"
FORMATS = ("png", "svg")
_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")
DPI = 200  # sharp on a projector: a 5-inch-wide heatmap is 1000 pixels wide


def safe_name(text: str) -> str:
    """``text`` as a file name part: each run of anything but ASCII letters, digits and ``_`` becomes one ``-``.

    >>> safe_name("layer 0, head 4 / weights")
    'layer-0-head-4-weights'
    """
    name = _UNSAFE.sub("-", str(text)).strip("-")
    return name or "figure"


def notebook_name() -> str:
    """The name (without ``.ipynb``) of the notebook this kernel runs, or '' when nothing says it.

    JupyterLab's server tells its kernels (``JPY_SESSION_NAME``, the notebook's path); Voila tells the address of the
    page it renders (``VOILA_REQUEST_URL``).
    """
    for value in (os.environ.get("JPY_SESSION_NAME", ""),
                  unquote(urlparse(os.environ.get("VOILA_REQUEST_URL", "")).path)):
        path = Path(value.strip())
        if path.suffix == ".ipynb":
            return path.stem
    return ""


def figure_path(name: str, fmt: str, folder: str | os.PathLike | None = None, notebook: str | None = None) -> Path:
    """Where the figure ``name`` of a notebook is saved: ``<folder>/figures/<notebook>-<name>.<fmt>``.

    Parameters
    ----------
    name : str
        What the figure shows (``"weights"``); made safe with :func:`safe_name`.
    fmt : {"png", "svg"}
    folder : path, optional
        The notebook's folder; default the working folder (where JupyterLab and Voila start the notebook's kernel).
    notebook : str, optional
        The notebook's name; default :func:`notebook_name`. Without one the file is ``figures/<name>.<fmt>``.

    Returns
    -------
    pathlib.Path
        Relative when ``folder`` is not given (``figures/02_projections-weights.png``), as the learner reads it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}; got {fmt!r}")
    notebook = notebook_name() if notebook is None else notebook
    stem = "-".join(safe_name(part) for part in (notebook, name) if part)
    base = Path(folder) if folder is not None else Path()
    return base / FOLDER / f"{stem}.{fmt}"


def save_figure(fig, path: str | os.PathLike) -> Path:
    """Write the matplotlib figure ``fig`` to ``path`` (PNG or SVG, from the suffix), making its folder if needed.

    The same figure gives the same bytes: no date, no software version, a fixed salt for the SVG's ids. An SVG keeps
    its text as ``<text>`` elements. ``OSError`` (a read-only folder, a full disk) is left to the caller, who says it
    to the learner.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    import matplotlib

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"path must end in .png or .svg; got {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "attention-course"}):
        if fig.get_layout_engine() is None:
            fig.savefig(path, format=fmt, dpi=DPI, metadata=metadata, bbox_inches="tight")
        else:
            # Laid out by its layout engine (the course's are constrained): it fits its paper, border included.
            draw_figure(fig, path, fmt, dpi=DPI, metadata=metadata)
    return path
