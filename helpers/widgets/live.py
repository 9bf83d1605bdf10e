"""The base of every widget that takes what a learner types or clicks.

A widget's state is held in traitlets traits, as ipywidgets holds its own, so that
``observe``, ``widgets.link`` and ``hold_trait_notifications()`` work on it as on any
widget. Three promises, kept in one place:

* **Several changes, one update.** Inside ``with widget.hold_trait_notifications():``
  the widget's trait notifications wait (traitlets' own hold), and so does every
  recompute asked for with :meth:`LiveWidget.request_update`: the views are redrawn once,
  at the end of the outermost block. The controls' handlers still hear every change made
  inside. When a widget rebuilds a control itself (new options, values put back), the
  values the control passes through are not the learner's: the widget detaches that
  control's handler meanwhile (``unobserve`` the function :meth:`LiveWidget.watch`
  returned, and ``observe`` it again in a ``finally``).
* **Keep the last valid state and say what is wrong next to the field.** A handler
  that raises ``ValueError`` (every parse error of :mod:`helpers.core.parsing` is one, and
  so is :class:`RefusedValue`, what a trait says to a value it refuses) leaves the
  views as they were and shows the message in the field's message widget
  (:meth:`LiveWidget.show_problem`).
* **Nothing escapes a handler.** Any other exception is caught too and shown as a
  visible message ("Something went wrong ..."); the views keep the last valid state.
  This holds for the observers of the widget's own traits as well, a learner's
  ``observe`` callback included (traitlets' public ``notify_change``, which calls them,
  is guarded). In the browser an escaped exception would freeze the widget silently.
* **A refused value puts the control back.** A control tied to a trait, by :meth:`LiveWidget.bind` or by a
  learner's ``widgets.link``, goes back to the trait's value when the trait refuses what it was given, and the
  reason is shown beside the widget's own control of that trait.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from types import MappingProxyType

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.look import theme
from helpers.widgets.snapshot import aside_snapshot_html, page_snapshot_html

__all__ = ["LiveWidget", "Matrix", "RefusedValue", "TextForm", "Vector", "Whole", "animations_on", "close_tree",
           "lecture_mode", "text_form", "unexpected_message", "validates"]

RUN_TO_SHOW = "a live widget: run this cell to show it"


# The lecture mode is a matter of the look (bigger fonts, sharper figures), so the theme says whether it is on.
lecture_mode = theme.lecture_mode


def animations_on() -> bool:
    """Whether a widget that animates while a cell runs (a training monitor) paces its frames for the eye.

    Off in the lecture mode, where the page appears only once every cell has run, so the frames would only delay it;
    off with ``COURSE_ANIMATION=off`` (less motion; the test runs set it, as nobody watches them).
    """
    return theme.motion_allowed() and not lecture_mode()


def text_form(description: str) -> str:
    """What a page shows for a widget that is not live: what it is, and how to bring it to life."""
    return f"{description}  ({RUN_TO_SHOW})"


def unexpected_message(err: BaseException) -> str:
    """What the learner reads about an exception nobody expected (its type and message)."""
    text = str(err).strip() or "no message"
    return (f"Something went wrong ({type(err).__name__}: {text[:200]}). "
            "The views show the last valid state; change the value back or re-run the cell.")


class TextForm:
    """Mixin (listed before the ipywidgets class): what a page that cannot run the widget shows instead.

    A stored notebook keeps no widget state (it would change on every run), so a page shows a stored widget's
    other forms until its cell runs. Two are added beside the widget view:

    * ``text/plain``, the text form: what the widget is and to run the cell (``AttentionExplorer(tokens=6,
      ...)  (a live widget: run this cell to show it)``) instead of a bare repr;
    * ``text/html``, a static picture of what the widget shows now
    (:func:`helpers.widgets.snapshot.page_snapshot_html`): the
      question, the matrices, the weights, with the widget's CSS classes. GitHub, nbviewer, the course's web site
      and JupyterLab before the cell runs show it; JupyterLab and Voila show the live widget when the cell runs
      (the widget view ranks before HTML).

    The lecture mode (:func:`helpers.look.theme.lecture_mode`) leaves the picture out: Voila always shows the live
    widget, and a picture costs time while the page comes alive (up to 0.16 s for notebook 12's head thumbnails).

    A picture writes the page's general rules once (:func:`helpers.widgets.snapshot.page_snapshot_html`), so it changes
    the pictures after it. A widget whose picture must leave them as they are (one that the notebooks' exercise cells
    gain or lose, such as a hint ladder) sets ``page_rules = False``: its picture writes the rules it needs itself
    (:func:`helpers.widgets.snapshot.aside_snapshot_html`).
    """

    page_rules = True

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, tuple):  # (data, metadata), as anywidget's widgets give it
            bundle = bundle[0]
        if bundle and "text/plain" in bundle:
            bundle["text/plain"] = text_form(bundle["text/plain"])
            if not theme.lecture_mode():
                bundle["text/html"] = (page_snapshot_html if self.page_rules else aside_snapshot_html)(self)
        return bundle


class RefusedValue(traitlets.TraitError, ValueError):
    """A value a trait refuses, with the reason.

    A ``TraitError`` for traitlets and ipywidgets (a ``hold_trait_notifications`` block rolls
    back, ``link`` stops), and a ``ValueError`` like every other "this input cannot be used"
    of the course, so that a guarded handler shows it as a message, not as a surprise.
    """


class Matrix(traitlets.TraitType):
    """A trait holding a non-empty 2-D float ndarray, stored read-only.

    What is assigned is copied (the caller's array stays theirs) and frozen, so that nobody
    changes the state behind the widget's back: reading the trait gives that frozen array
    (``.copy()`` it to change it). Like any trait holding an array, every assignment is a
    change for ``observe`` (an array comparison is not a yes or no), except for a 1 × 1
    matrix assigned its own value.

    Parameters
    ----------
    finite : bool
        Refuse NaN and ±inf (default True).
    """

    info_text = "a non-empty 2-D matrix of numbers"

    def __init__(self, default_value=None, finite: bool = True, **kwargs):
        self.finite = bool(finite)
        super().__init__(default_value=default_value, **kwargs)

    def validate(self, obj, value):
        name = self.name or "value"
        try:
            A = np.array(value, dtype=float)  # a copy, even of a float array
        except (TypeError, ValueError):
            raise RefusedValue(f"{name} must be a matrix of numbers; got {type(value).__name__}") from None
        if A.ndim != 2 or A.size == 0:
            raise RefusedValue(f"{name} must be a non-empty 2-D matrix; got shape {A.shape}")
        if self.finite and not np.isfinite(A).all():
            raise RefusedValue(f"{name} must hold finite numbers only")
        A.flags.writeable = False
        return A


class Whole(traitlets.Int):
    """An ``Int`` trait that takes numpy's integers too and refuses the rest (a float, even ``2.0``, or a bool) with
    a :class:`RefusedValue` naming the trait, as :func:`helpers.core.arrays.whole_number` words it."""

    def validate(self, obj, value):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise RefusedValue(f"{self.name or 'value'} must be a whole number; got {value!r}")
        return int(value)


class Vector(traitlets.TraitType):
    """A trait holding a non-empty 1-D float ndarray of finite numbers, stored read-only (as :class:`Matrix`)."""

    info_text = "a non-empty vector of finite numbers"

    def validate(self, obj, value):
        name = self.name or "value"
        try:
            v = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise RefusedValue(f"{name} must be numbers; got {value!r}") from None
        if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
            raise RefusedValue(f"{name} must be a non-empty row of finite numbers; got {value!r}")
        v.flags.writeable = False
        return v


def validates(*names: str):
    """``traitlets.validate(*names)`` for a checker written as ``check(self, value) -> value``.

    The checker raises ``ValueError`` (as every "this input cannot be used" of the course does) for a value it
    refuses; the trait refuses it with a :class:`RefusedValue` carrying the same message, so that a
    ``hold_trait_notifications`` block rolls back, a link is told, and a guarded handler shows the message.
    """

    def decorate(check):
        @functools.wraps(check)
        def run(self, proposal):
            try:
                return check(self, proposal["value"])
            except RefusedValue:
                raise
            except ValueError as err:
                raise RefusedValue(str(err)) from None

        return traitlets.validate(*names)(run)

    return decorate


class LiveWidget(TextForm):
    """Mixin for an ipywidgets container that reacts to input (listed before the ipywidgets class).

    Call :meth:`_live_setup` in ``__init__`` before registering handlers. Subclasses
    implement :meth:`_update` (recompute and redraw from the current inputs; raise
    ``ValueError`` to say why they cannot be computed) and may override
    :meth:`_show_status` to put messages somewhere else. State a learner reads or sets
    belongs in traitlets traits (class attributes; ``@traitlets.validate`` raising
    :class:`RefusedValue` for what cannot be used, or :func:`validates` around a check that
    raises ``ValueError``; ``@traitlets.observe`` calling :meth:`request_update`), with the
    controls that show it linked by :meth:`bind`. A trait may be given its starting value
    before :meth:`_live_setup`: until then :meth:`request_update` does nothing.

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

    # Class-level defaults: traitlets holds notifications while a widget is built, before _live_setup runs.
    _live_ready = False
    _live_holds = 0  # open hold_trait_notifications blocks: request_update waits for the last one to end
    _live_pending = False
    _live_links = ()  # the traitlets links (widgets.link) that tie one of this widget's traits to something else
    _live_refusal_places = MappingProxyType({})  # trait name -> where its refusals are shown (bind's ``where``)

    _status_html = None

    @property
    def status_html(self) -> widgets.HTML:
        """Where :attr:`status` is shown: the ``status_html`` given to :meth:`_live_setup`, or an ``HTML`` made when it
        is first asked for (a widget that shows its status elsewhere builds no model for it)."""
        if self._status_html is None:
            self._status_html = widgets.HTML("")
        return self._status_html

    @status_html.setter
    def status_html(self, html: widgets.HTML) -> None:
        self._status_html = html

    def _live_setup(self, large: bool = False, status_html: widgets.HTML | None = None) -> None:
        self._live_pending = False
        self._live_large = bool(large)
        self.status = ""
        if status_html is not None:
            self._status_html = status_html
        self.last_unexpected: BaseException | None = None
        self._live_problems: dict[int, str] = {}
        self._live_links = list(self._live_links)  # links made before this (a trait set at the start) are kept
        self._live_refusal_places = {}
        self._live_ready = True

    # -- several changes, one update

    @contextmanager
    def hold_trait_notifications(self):
        """traitlets' ``hold_trait_notifications``; besides, :meth:`request_update` waits for its end.

        The held notifications are delivered when the outermost block ends; the recomputes they
        (or the block's own changes) ask for are then done once.
        """
        self._live_holds += 1
        try:
            with super().hold_trait_notifications():
                yield
        except traitlets.TraitError as err:
            # traitlets rolled the traits back: the linked controls show the values kept.
            self._put_controls_back(None, err)
            raise
        finally:
            self._live_holds -= 1
            if not self._live_holds and self._live_pending:
                self._live_pending = False
                self.request_update()

    def request_update(self) -> None:
        """Recompute and redraw now, or once at the end of the current :meth:`hold_trait_notifications`.

        Nothing before :meth:`_live_setup`: a trait given its starting value while the widget is built has no views
        to redraw yet (the widget draws itself once it is built).
        """
        if not self._live_ready:
            return
        if self._live_holds:
            self._live_pending = True
            return
        self._run_guarded(self._checked_update, None)

    def _checked_update(self) -> None:
        self._update()
        self._show_status("")

    def _update(self) -> None:  # pragma: no cover - every subclass implements it
        raise NotImplementedError

    def notify_change(self, change) -> None:
        """traitlets' ``notify_change``, guarded: the observers of this widget's traits are handlers too (a
        learner's ``observe`` callback as well), so what one raises is shown, not passed on to whoever changed the
        trait (the browser, a link)."""
        if not self._live_ready:
            super().notify_change(change)  # while the widget is built, a failure is a bug: raise it
            return
        self._run_guarded(super().notify_change, None, change)

    # -- links and refused values

    def observe(self, handler, names=traitlets.All, type="change"):  # noqa: A002 - traitlets' own signature
        """traitlets' ``observe``; a ``widgets.link`` registers itself here, so that a value this widget refuses
        can put the linked control back (see :meth:`__setattr__`)."""
        partner = getattr(handler, "__self__", None)
        if isinstance(partner, traitlets.link) and partner not in self._live_links:
            self._live_links = [*self._live_links, partner]
        super().observe(handler, names=names, type=type)

    def unobserve(self, handler, names=traitlets.All, type="change"):  # noqa: A002 - traitlets' own signature
        partner = getattr(handler, "__self__", None)
        if isinstance(partner, traitlets.link):
            self._live_links = [lk for lk in self._live_links if lk is not partner]
        super().unobserve(handler, names=names, type=type)

    def __setattr__(self, name, value):
        try:
            super().__setattr__(name, value)
        except traitlets.TraitError as err:
            if self._live_ready and self.has_trait(name):
                self._put_controls_back(name, err)
            raise

    def _put_controls_back(self, name: str | None, err: BaseException) -> None:
        """After ``err`` refused a value of trait ``name`` (None: any trait): every control linked to it that
        shows another value than the trait goes back to the trait's value, and the reason is shown beside the
        widget's own control of that trait (:meth:`bind`'s ``where``; the status line by default)."""
        moved = set()
        for lk in self._live_links:
            ends = (lk.source, lk.target) if lk.source[0] is self else (lk.target, lk.source)
            (_, trait), (control, attr) = ends
            if (name is None or trait == name) and self.has_trait(trait):
                kept = getattr(self, trait)
                try:
                    differs = bool(getattr(control, attr) != kept)
                except (TypeError, ValueError):  # arrays: no single yes or no
                    differs = True
                if differs:
                    # While the link is updating (it passed the refused value on) it ignores this change.
                    setattr(control, attr, kept)
                    moved.add(trait)
        for trait in moved:
            self.show_problem(str(err), self._live_refusal_places.get(trait))

    # -- handlers

    def guarded(self, handler, where: widgets.HTML | None = None):
        """``handler`` wrapped so that it never raises.

        A ``ValueError`` is shown in ``where`` (default: the status line) and the views
        stay as they were; any other exception is shown as an unexpected problem.
        """

        @functools.wraps(handler)
        def run(*args, **kwargs):
            return self._run_guarded(handler, where, *args, **kwargs)

        return run

    def watch(self, widget, handler, names="value", where: widgets.HTML | None = None):
        """``widget.observe(handler)``, guarded.

        Returns the function registered: ``widget.unobserve(it, names=names)`` detaches it, e.g. while
        the widget rebuilds that control itself and the values it passes through are not the learner's.
        """
        run = self.guarded(handler, where)
        widget.observe(run, names=names)
        return run

    def on_click(self, button: widgets.Button, handler, where: widgets.HTML | None = None) -> None:
        """``button.on_click(handler)``, guarded."""
        button.on_click(self.guarded(handler, where))

    def bind(self, control, trait: str, where: widgets.HTML | tuple | None = None, to_control=None,
             to_trait=None):
        """Keep ``control.value`` and this widget's trait ``trait`` equal both ways, as ``widgets.link`` does.

        Unlike a plain link, a value the trait refuses (its ``validate`` raises) does not leave the
        control's handler: the control goes back to the trait's value and the reason is shown in
        ``where`` (default: the status line), where a learner's ``widgets.link`` to the trait shows its refusals
        too. ``to_control`` and ``to_trait`` translate a value between the two (default: the same value).

        Returns the function registered on the control, as :meth:`watch` does (``control.unobserve(it,
        names="value")`` detaches the control while the widget rebuilds it).
        """
        shown = to_control or (lambda value: value)
        read = to_trait or (lambda value: value)

        def control_changed(change):
            try:
                setattr(self, trait, read(change["new"]))
            finally:
                control.value = shown(getattr(self, trait))  # a refused value: the control shows the state again

        self._live_refusal_places[trait] = where
        control.value = shown(getattr(self, trait))
        run = self.guarded(control_changed, where)
        control.observe(run, names="value")
        self.observe(lambda change: setattr(control, "value", shown(change["new"])), names=trait)
        return run

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

    def show_problem(self, message: str, where: widgets.HTML | tuple | None = None) -> None:
        """Say what is wrong, next to the field ``where`` (default: the status line).

        ``where`` may be a tuple of places (``None`` in it for the status line): the message is shown in each.
        """
        if isinstance(where, tuple):
            for place in where:
                self.show_problem(message, place)
        elif where is None:
            self._show_status(message)
        else:
            self._live_problems[id(where)] = message
            where.value = theme.error_html(message, self._live_large)

    def clear_problem(self, where: widgets.HTML | tuple | None = None) -> None:
        """Remove the message shown by :meth:`show_problem` (``where`` as there)."""
        if isinstance(where, tuple):
            for place in where:
                self.clear_problem(place)
        elif where is None:
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
