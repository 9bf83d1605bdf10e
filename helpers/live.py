"""The base of every widget that takes what a learner types or clicks.

Three promises, kept in one place:

* **Pause while several values change.** ``with widget.paused(): ...`` sets many
  controls at once; the handlers registered with :meth:`LiveWidget.watch` ignore the
  changes made inside (they are the widget's own, not the learner's), messages to the
  browser are held (ipywidgets' ``hold_sync``) and the views are redrawn once at the
  end if anything asked for it (:meth:`LiveWidget.request_update`).
* **Keep the last valid state and say what is wrong next to the field.** A handler
  that raises ``ValueError`` (every parse error of :mod:`helpers.parsing` is one)
  leaves the views as they were and shows the message in the field's message widget
  (:meth:`LiveWidget.show_problem`).
* **Nothing escapes a handler.** Any other exception is caught too and shown as a
  visible message ("Something went wrong ..."); the views keep the last valid state.
  In the browser an escaped exception would freeze the widget silently.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import ipywidgets as widgets

from . import theme

__all__ = ["LiveWidget", "TextForm", "close_tree", "text_form", "unexpected_message"]

RUN_TO_SHOW = "a live widget: run this cell to show it"


def text_form(description: str) -> str:
    """What a page shows for a widget that is not live: what it is, and how to bring it to life."""
    return f"{description}  ({RUN_TO_SHOW})"


def unexpected_message(err: BaseException) -> str:
    """What the learner reads about an exception nobody expected (its type and message)."""
    text = str(err).strip() or "no message"
    return (f"Something went wrong ({type(err).__name__}: {text[:200]}). "
            "The views show the last valid state; change the value back or re-run the cell.")


class TextForm:
    """Mixin (listed before the ipywidgets class) whose text form says what the widget is and to run its cell.

    A stored notebook keeps no widget state (it would change on every run), so JupyterLab shows a
    widget's text form until its cell runs: ``AttentionExplorer(tokens=6, ...)  (a live widget: run
    this cell to show it)`` instead of a bare repr.
    """

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle and "text/plain" in bundle:
            bundle["text/plain"] = text_form(bundle["text/plain"])
        return bundle


class LiveWidget(TextForm):
    """Mixin for an ipywidgets container that reacts to input (listed before the ipywidgets class).

    Call :meth:`_live_setup` in ``__init__`` before registering handlers. Subclasses
    implement :meth:`_update` (recompute and redraw from the current inputs; raise
    ``ValueError`` to say why they cannot be computed) and may override
    :meth:`_show_status` to put messages somewhere else.

    Attributes
    ----------
    status : str
        Why the last input could not be used ('' when it could).
    status_html : ipywidgets.HTML
        Where :attr:`status` is shown (default target of :meth:`show_problem`).
    last_unexpected : Exception or None
        The last exception a handler did not expect (shown as "Something went wrong"; its ``__traceback__``
        says where it came from), or None.
    """

    def _live_setup(self, large: bool = False, status_html: widgets.HTML | None = None) -> None:
        self._live_pauses = 0
        self._live_pending = False
        self._live_large = bool(large)
        self.status = ""
        self.status_html = status_html if status_html is not None else widgets.HTML("")
        self.last_unexpected: BaseException | None = None
        self._live_problems: dict[int, str] = {}

    # -- pausing

    @property
    def is_paused(self) -> bool:
        """True inside :meth:`paused`: changes are the widget's own and views wait."""
        return self._live_pauses > 0

    @contextmanager
    def paused(self):
        """Change several values; watched handlers ignore them and the views update once at the end."""
        self._live_pauses += 1
        try:
            with self.hold_sync():
                yield
        finally:
            self._live_pauses -= 1
        if self._live_pauses == 0 and self._live_pending:
            self._live_pending = False
            self.request_update()

    def request_update(self) -> None:
        """Recompute and redraw now, or at the end of the current :meth:`paused` block."""
        if self._live_pauses:
            self._live_pending = True
            return
        self._run_guarded(self._checked_update, None)

    def _checked_update(self) -> None:
        self._update()
        self._show_status("")

    def _update(self) -> None:  # pragma: no cover - every subclass implements it
        raise NotImplementedError

    # -- handlers

    def guarded(self, handler, where: widgets.HTML | None = None, skip_when_paused: bool = True):
        """``handler`` wrapped so that it never raises.

        A ``ValueError`` is shown in ``where`` (default: the status line) and the views
        stay as they were; any other exception is shown as an unexpected problem.
        """

        @functools.wraps(handler)
        def run(*args, **kwargs):
            if skip_when_paused and self._live_pauses:
                return None
            return self._run_guarded(handler, where, *args, **kwargs)

        return run

    def watch(self, widget, handler, names="value", where: widgets.HTML | None = None) -> None:
        """``widget.observe(handler)``, guarded, and ignored while :meth:`paused`."""
        widget.observe(self.guarded(handler, where), names=names)

    def on_click(self, button: widgets.Button, handler, where: widgets.HTML | None = None) -> None:
        """``button.on_click(handler)``, guarded."""
        button.on_click(self.guarded(handler, where, skip_when_paused=False))

    def _run_guarded(self, fn, where, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as err:
            self.show_problem(str(err), where)
        except Exception as err:  # noqa: BLE001 - the promise: nothing leaves a handler
            self.last_unexpected = err
            try:
                self.show_problem(unexpected_message(err), where)
            except Exception:  # noqa: BLE001 - even drawing the message must not escape
                pass
        return None

    # -- messages

    def show_problem(self, message: str, where: widgets.HTML | None = None) -> None:
        """Say what is wrong, next to the field ``where`` (default: the status line)."""
        if where is None:
            self._show_status(message)
        else:
            self._live_problems[id(where)] = message
            where.value = theme.error_html(message, self._live_large)

    def clear_problem(self, where: widgets.HTML | None = None) -> None:
        """Remove the message shown by :meth:`show_problem` (``where`` as there)."""
        if where is None:
            self._show_status("")
        else:
            self._live_problems.pop(id(where), None)
            where.value = ""

    def problem(self, where: widgets.HTML | None = None) -> str:
        """The plain text of the message shown in ``where`` (default: the status line); '' if none."""
        if where is None:
            return self.status
        return self._live_problems.get(id(where), "")

    def _show_status(self, message: str) -> None:
        self.status = message
        self.status_html.value = theme.error_html(
            message, self._live_large,
            note="The views show the last valid result." if message else None)

    # -- closing

    def close_all(self) -> None:
        """Close this widget and every widget it is made of (frees them in the kernel)."""
        close_tree(self)


def close_tree(root) -> None:
    """Close ``root``, every widget below it and their layouts and styles.

    ``Widget.close`` closes one model only; a matrix editor owns hundreds, which
    otherwise stay registered in the kernel for its whole life.
    """
    seen, stack = set(), [root]
    while stack:
        w = stack.pop()
        if id(w) in seen or not isinstance(w, widgets.Widget):
            continue
        seen.add(id(w))
        stack.extend(getattr(w, "children", ()))
        stack.extend(getattr(w, "_extra_models", ()))  # models shared by cells, maybe not in use
        for attr in ("layout", "style"):
            stack.append(getattr(w, attr, None))
        widgets.Widget.close(w)
