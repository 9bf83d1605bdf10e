"""A result folded until its prediction is committed: the output of a cell that would give a prediction's answer away.

In a notebook, the cell after a ``predict-commit`` cell::

    with after_prediction("04-weight-after-the-mask"):
        print(A3)
        display(HTML(attention_weights_html(A3, toks3, toks3)))

runs as it would, but what it prints and displays is held in a fold: a line that says why it is folded and a
**Show anyway** button, for a reader who does not want to predict. The fold opens by itself once the prediction is
recorded in the learner's progress (:mod:`helpers.exercises.progress`): when the Predict box above records its
verdict in this kernel, or already when the cell runs if the learner predicted it before (another day, another
kernel). Inside the block, show a table or a figure with ``display(...)``: a ``with`` block has no last expression
that the notebook would show.

Nothing is written into an ``Output`` while the cell runs (nbval would record it as an extra output; README, "For
authors"): the block's prints and displays are captured, in order, and handed to the fold's ``Output`` as its
``outputs``.

A page that cannot run the widget (a stored notebook, the course's web site, the student edition) shows its picture,
a closed ``<details>`` whose summary says why it is closed; a click on it opens it, as Show anyway does. Its text form
says which prediction it waits for and how much it holds, never what: ``Folded until you commit your prediction
above (04-weight-after-the-mask): 2 outputs, 12 lines of text, 1 table``.
"""

from __future__ import annotations

import html as _html
import re
import sys
import weakref

import ipywidgets as widgets
import traitlets
from IPython import display as _display
from IPython.core.displaypub import DisplayPublisher

from helpers.exercises.predictions import Prediction, prediction
from helpers.exercises.progress import Result, progress, subscribe
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.widgets.layout import course_box, course_button, wrap_row
from helpers.widgets.live import LiveWidget, text_form
from helpers.widgets.snapshot import SNAPSHOT_CLASS, outputs_html

__all__ = ["FOLDED", "PICTURE_STYLE", "PredictionFold", "after_prediction", "fold_summary"]

# The reason a fold gives, in the live widget and in its picture (tests and the site read it).
FOLDED = "Folded until you commit your prediction above"
# The look of a fold's static picture, in JupyterLab's theme variables (so that it follows the dark theme), written
# once per notebook: a notebook near its size limit holds a dozen folds.
PICTURE_STYLE = ("<style>.prediction-fold{color:var(--jp-ui-font-color1);max-width:100%;overflow-x:auto;margin:2px 0}"
                 ".prediction-fold>details>summary{cursor:pointer;padding:4px 8px;margin-bottom:4px;"
                 f"background:var(--jp-layout-color2,#eee);border-left:4px solid {theme.BORDER}}}</style>")
# What the pictures of this kernel's folds have written (a notebook is one page, run top to bottom in one kernel).
_ON_THIS_PAGE: set[str] = set()


def _question(p: Prediction) -> str:
    """The question's last sentence: what the learner is asked, in a line."""
    return re.split(r"(?<=[.!?])\s+", " ".join(p.question.split()))[-1]


def fold_summary(name: str) -> str:
    """What a fold waiting for the prediction ``name`` says: :data:`FOLDED` and the question.

    Raises
    ------
    ValueError
        If no prediction is called ``name``.
    """
    return f"{FOLDED}: {_question(prediction(name))}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _holds(outputs) -> str:
    """How much ``outputs`` hold, in words that reveal none of it: outputs, lines of text, tables, figures."""
    lines = tables = figures = 0
    for out in outputs:
        data = out.get("data", {})
        if out.get("output_type") == "stream":
            lines += len(out.get("text", "").splitlines())
        elif "image/png" in data or "<img" in str(data.get("text/html", "")):
            figures += 1
        elif "text/html" in data:
            tables += 1
        else:
            lines += len(str(data.get("text/plain", "")).splitlines())
    parts = [_count(len(outputs), "output")]
    if lines:
        parts.append(_count(lines, "line") + " of text")
    if tables:
        parts.append(_count(tables, "table"))
    if figures:
        parts.append(_count(figures, "figure"))
    return ", ".join(parts)


class PredictionFold(LiveWidget, widgets.VBox):
    """Outputs folded until the prediction ``name`` is recorded, with **Show anyway**.

    Parameters
    ----------
    name : str
        The prediction whose answer the outputs show (``"04-weight-after-the-mask"``).
    outputs : sequence of dict
        The folded outputs, as ``widgets.Output.outputs`` holds them (``{"output_type": "stream", "name": "stdout",
        "text": ...}``, ``{"output_type": "display_data", "data": {...}, "metadata": {...}}``).
    large : bool
        Bigger text for a projector.

    Attributes
    ----------
    unfolded : bool (a read-only trait)
        True once the outputs are shown: the prediction was recorded, or Show anyway was pressed.
    output : ipywidgets.Output
        The folded outputs (CSS class ``prediction-fold-output``), hidden while folded.
    reason_html : ipywidgets.HTML
        Why it is folded (``prediction-fold-reason``).
    show_button : ipywidgets.Button
        Show anyway (``prediction-fold-show``).

    Raises
    ------
    ValueError
        If no prediction is called ``name`` (naming the known ones).
    """

    unfolded = traitlets.Bool(False, read_only=True, help="the folded outputs are shown")

    def __init__(self, name: str, outputs=(), large: bool = False):
        self.prediction = prediction(name)  # an unknown name raises ValueError here, before any widget is made
        super().__init__()
        self._live_setup(large)
        self.name = self.prediction.name
        self._unsubscribe = None
        sz = theme.sizes(large)
        self.reason_html = widgets.HTML(
            f'<div style="color:{theme.PANEL_FG};font-size:{sz.font};line-height:1.4">'
            f"<b>{math_html(FOLDED)}:</b> {math_html(_question(self.prediction))}</div>",
            layout=widgets.Layout(flex="1 1 20em", min_width="0"))
        self.show_button = course_button("Show anyway", "show the result without committing a prediction",
                                         "prediction-fold-show", large)
        self.on_click(self.show_button, lambda _b: self.unfold())
        self.header = wrap_row([self.reason_html, self.show_button], align_items="center",
                               border_left=f"4px solid {theme.BORDER}", padding="2px 8px", margin="2px 0")
        self.output = widgets.Output(layout=widgets.Layout(display="none"))
        self.output.outputs = tuple(dict(out) for out in outputs)
        for w, cls in ((self.reason_html, "prediction-fold-reason"), (self.header, "prediction-fold-header"),
                       (self.output, "prediction-fold-output")):
            w.add_class(cls)
        self.add_class("prediction-fold")
        self.children = [self.header, self.status_html, self.output]
        course_box(self)
        if progress().result("prediction", self.name) is not None:
            self.unfold()
        else:
            listener = _listener(self)
            self._unsubscribe = listener.unsubscribe = subscribe(listener)

    def unfold(self) -> None:
        """Show the folded outputs (as a recorded prediction or Show anyway does); nothing if they are shown."""
        if self.unfolded:
            return
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        with self.hold_trait_notifications():
            self.header.layout.display = "none"
            self.output.layout.display = None
            self.set_trait("unfolded", True)

    def _recorded(self, result: Result) -> None:
        if result.kind == "prediction" and result.name == self.name:
            self.unfold()

    def _update(self) -> None:  # nothing to recompute: the outputs are what the cell made
        pass

    # -- what a page that cannot run the widget shows

    def picture_html(self, style: bool = True) -> str:
        """The static picture: a closed ``<details>`` saying why, holding the outputs (a click opens it).

        Parameters
        ----------
        style : bool
            Write the look of a fold (:data:`PICTURE_STYLE`) into the picture. A notebook writes it once, into its
            first fold (a ``<style>`` in an output applies to the whole page); a page that drops it (JupyterLab, for a
            notebook not trusted yet) shows a plain ``<details>``, which opens all the same.
        """
        classes = " ".join(dict.fromkeys((SNAPSHOT_CLASS, *self._dom_classes)))
        return (f"<div class='{_html.escape(classes)}' data-prediction='{_html.escape(self.name)}'>"
                f"{PICTURE_STYLE if style else ''}<details><summary><b>{_html.escape(FOLDED)}:</b> "
                f"{math_html(_question(self.prediction))} <i>(click to show it anyway)</i></summary>"
                f"{outputs_html(self.output.outputs)}</details></div>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = widgets.VBox._repr_mimebundle_(self, **kwargs)
        if bundle and "text/plain" in bundle:
            bundle["text/plain"] = text_form(repr(self))
            if not theme.lecture_mode():
                bundle["text/html"] = self.picture_html(style=PICTURE_STYLE not in _ON_THIS_PAGE)
                _ON_THIS_PAGE.add(PICTURE_STYLE)
        return bundle

    def __repr__(self) -> str:
        state = "Shown after the prediction above" if self.unfolded else FOLDED
        return f"{state} ({self.name}): {_holds(self.output.outputs)}"


def _listener(fold: PredictionFold):
    """A progress listener that opens ``fold`` when its prediction is recorded. It holds the fold weakly, so that it
    keeps no fold alive; once the fold is gone it unsubscribes (``heard.unsubscribe``, set by the caller)."""
    ref = weakref.ref(fold)

    def heard(result: Result) -> None:
        target = ref()
        if target is None:
            heard.unsubscribe()
            return
        target._run_guarded(target._recorded, None, result)

    heard.unsubscribe = lambda: None
    return heard


# --------------------------------------------------------------------------- capturing what a block shows


class _Stream:
    """A stand-in for ``sys.stdout`` or ``sys.stderr``: what is written becomes a stream output, in order."""

    def __init__(self, outputs: list, name: str, original):
        self._outputs, self.name, self._original = outputs, name, original

    def write(self, text) -> int:
        text = str(text)
        if text:
            last = self._outputs[-1] if self._outputs else None
            if last is not None and last.get("output_type") == "stream" and last.get("name") == self.name:
                last["text"] += text
            else:
                self._outputs.append({"output_type": "stream", "name": self.name, "text": text})
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return getattr(self._original, "encoding", None) or "utf-8"


class _Publisher(DisplayPublisher):
    """A display publisher that keeps what ``display`` shows as display outputs, in order."""

    def __init__(self, outputs: list, **kwargs):
        super().__init__(**kwargs)
        self._outputs = outputs

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs) -> None:
        self._outputs.append({"output_type": "display_data", "data": dict(data), "metadata": dict(metadata or {})})

    def clear_output(self, wait=False) -> None:
        self._outputs.clear()


class _FoldedBlock:
    """The context manager :func:`after_prediction` returns: captures the block's output, then shows the fold."""

    def __init__(self, name: str, large: bool):
        self.name, self.large = name, large
        self.outputs: list = []
        self.fold: PredictionFold | None = None

    def __enter__(self) -> _FoldedBlock:
        from IPython.core.interactiveshell import InteractiveShell

        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # what the cell printed before the block comes out before it
        self._saved = (sys.stdout, sys.stderr)
        sys.stdout = _Stream(self.outputs, "stdout", sys.stdout)
        sys.stderr = _Stream(self.outputs, "stderr", sys.stderr)
        self._shell = InteractiveShell.instance() if InteractiveShell.initialized() else None
        if self._shell is not None:
            self._publisher = self._shell.display_pub
            self._shell.display_pub = _Publisher(self.outputs, shell=self._shell)
        return self

    def __exit__(self, kind, error, traceback) -> bool:
        sys.stdout, sys.stderr = self._saved
        if self._shell is not None:
            self._shell.display_pub = self._publisher
        self.fold = PredictionFold(self.name, self.outputs, large=self.large)
        _display.display(self.fold)
        return False  # an error in the block is raised as usual, after what it showed


def after_prediction(name: str, large: bool = False) -> _FoldedBlock:
    """Fold what a ``with`` block prints and displays until the prediction ``name`` is committed.

    ::

        with after_prediction("06-sat-column-sum"):
            print("column sums:", At.sum(axis=0).round(2))

    When the block ends, a :class:`PredictionFold` holding its outputs is shown in their place: folded, with the
    reason and Show anyway, or open at once if the prediction is already recorded (in this kernel or earlier). Inside
    the block, show tables and figures with ``display(...)``. ``with ... as block``: ``block.fold`` is the widget
    once the block has ended.

    Raises
    ------
    ValueError
        If no prediction is called ``name``, before the block runs.
    """
    prediction(name)
    return _FoldedBlock(name, bool(large))
