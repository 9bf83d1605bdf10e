"""Junk in every field of every widget the notebooks build: nothing escapes, and the widget recovers.

Each notebook's code runs in this process (as "Run all" would, without a kernel). Then, for every widget it
put on screen, every field a learner can type into gets a catalogue of junk, one field at a time, each entry
followed by the field's original text. ipywidgets calls observers synchronously, so an exception a handler
lets out comes out of the ``field.value = ...`` assignment: that is an *escape* (in the browser the views would
freeze without a word). After the original text is back, everything the widget shows (HTML, labels, other
fields, images, outputs) must be as before: a message the junk caused is gone, the views show the same state.
Finally every number cell of a widget goes to the largest number a cell takes (1e15) at once (inside the widget's
``hold_trait_notifications()``: one recompute), and back.

To stay fast, the full catalogue goes to every field that is not a number cell and to the first and last cell of
each grid; each cell between gets one of the parser's main refusals (``junk.CELL``), in turn (they share their
handler and their parser with the first and the last, so one entry shows the cell is wired and guarded, and a grid
of six cells or more gets every refusal), and all of them the 1e15 round. Numeric text boxes (IntText,
BoundedIntText, ...) get what a browser can send them, numbers clamped into their bounds: those are valid values,
so the box need not bring the old state back (a shorter token list forgets names), only raise nothing and leave no
message behind.

The findings of one notebook are gathered once and asserted by three tests (escapes, recovery, unexpected
errors), so a failure says which kind it is, and lists every case as notebook / widget / field / junk.
"""

from __future__ import annotations

import math
import traceback
from pathlib import Path

import ipywidgets as widgets
import pytest

from helpers.core.parsing import ParseError, parse_number
from helpers.widgets.live import unexpected_message

import junk
from conftest import (
    NOTEBOOKS,
    field_name,
    html_text,
    is_numeric_box,
    text_fields,
    visible_state,
    walk,
    widget_roots,
)

# The junk comes from the one catalogue (tests/junk.py): every kind of junk (its first texts) for each field that is
# not a number cell and for the first and last cell of each grid; one of the parser's main refusals, in turn, for
# each cell between.
FULL_JUNK = junk.sample()
HUGE = junk.LARGEST  # the largest number a cell takes: every view must still show it
# The words of the message a guarded handler shows for an exception nobody expected.
UNEXPECTED_WORDS = unexpected_message(RuntimeError("x")).split("(")[0].strip()


def browser_values(box) -> list:
    """What a learner can make a numeric text box send: ``junk.BOX_NUMBERS`` as the box's type, clamped."""
    is_int = isinstance(box, (widgets.IntText, widgets.BoundedIntText))
    low, high = getattr(box, "min", -math.inf), getattr(box, "max", math.inf)
    values = []
    for v in junk.BOX_NUMBERS:
        if is_int and v != int(v):
            continue
        v = min(max(int(v) if is_int else float(v), low), high)
        if v not in values and v != box.value:
            values.append(v)
    return values


def fields_for_full_catalogue(fields) -> set[int]:
    """The ids of the fields that get all of ``FULL_JUNK``; the other number cells get ``junk.CELL``.

    Every field that is not a number cell, and in each run of number cells that follow one another (a matrix
    grid, an answer grid) the first and the last: the cells between share their handler with them.
    """
    full, run = set(), []
    for f in list(fields) + [None]:
        if f is not None and is_number_cell(f):
            run.append(f)
            continue
        if run:
            full |= {id(run[0]), id(run[-1])}
            run = []
        if f is not None:
            full.add(id(f))
    return full


def is_number_cell(field) -> bool:
    """A one-line text field that currently holds one number (a matrix cell, an answer cell, a seed)."""
    if is_numeric_box(field) or isinstance(field, widgets.Textarea):
        return False
    try:
        parse_number(field.value)
    except ParseError:
        return False
    return True


def where(path) -> str:
    """A widget's place below its root: child indices joined by '/'."""
    return "/" + "/".join(map(str, path))


def first_difference(before, after) -> str:
    """Where two :func:`visible_state` lists first differ, as a few words around the change."""
    if [(p, k) for p, k, _ in before] != [(p, k) for p, k, _ in after]:
        return f"the widget's parts changed ({len(before)} before, {len(after)} after)"
    path, kind, old, new = next((p, k, o, n) for (p, k, o), (_, _, n) in zip(before, after) if o != n)
    if not isinstance(old, str):
        return f"{kind} at {where(path)} changed"
    old_text, new_text = html_text(old), html_text(new)
    if old_text == new_text:
        old_text, new_text = old, new
    at = next((i for i, (a, b) in enumerate(zip(old_text, new_text)) if a != b), min(len(old_text), len(new_text)))
    start = max(0, at - 40)
    return f"{kind} at {where(path)}: ...{old_text[start:at + 30]!r} became ...{new_text[start:at + 30]!r}"


class Sweep:
    """The findings of one notebook, each a tuple (widget class, field, junk, detail)."""

    def __init__(self, notebook: str):
        self.notebook = notebook
        self.escapes: list[tuple] = []
        self.not_recovered: list[tuple] = []
        self.unexpected: list[tuple] = []
        self.fields = 0
        self.entries = 0
        # The widgets (class names) with fields, and those whose view changed for some junk (a message).
        self.with_fields: set[str] = set()
        self.reacted: set[str] = set()

    def type_into(self, root, field, name, value, junk_label) -> bool:
        """``field.value = value``, recording an escape; True if the assignment returned normally."""
        self.entries += 1
        try:
            field.value = value
        except Exception as err:  # noqa: BLE001 - every exception out of a handler is a finding
            frame = traceback.extract_tb(err.__traceback__)[-1]
            raised_at = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
            self.escapes.append((type(root).__name__, name, junk_label,
                                 f"{type(err).__name__}: {str(err)[:120]} (raised at {raised_at})"))
            return False
        return True

    def check_unexpected(self, root, name, junk_label, before) -> None:
        shown = visible_state(root)
        if shown != before:
            self.reacted.add(type(root).__name__)
        if any(kind.startswith("HTML") and UNEXPECTED_WORDS in value for _, kind, value in shown):
            self.unexpected.append((type(root).__name__, name, junk_label, ""))

    def check_recovered(self, root, before, name, junk_label, messages_only=False) -> list:
        """Compare what ``root`` shows with ``before``; returns what it shows now.

        ``messages_only``: only HTML parts that were empty before must be empty again (a message was cleared).
        """
        after = visible_state(root)
        if messages_only:
            left = [(p, k, v) for (p, k, old), (_, _, v) in zip(before, after)
                    if k.startswith("HTML") and not old and v] if len(before) == len(after) else []
            if left:
                self.not_recovered.append((type(root).__name__, name, junk_label,
                                           f"message left at {where(left[0][0])}: {html_text(left[0][2])[:80]!r}"))
        elif after != before:
            self.not_recovered.append((type(root).__name__, name, junk_label, first_difference(before, after)))
        return after

    def sweep_field(self, root, field, name, junk) -> None:
        """Type each of ``junk`` into ``field`` of ``root``, each followed by the field's original text."""
        original = field.value
        numeric = is_numeric_box(field)
        before = visible_state(root)
        for value in junk:
            if value == original:
                continue
            label = value if not isinstance(value, str) or len(value) <= 30 else f"{value[:10]}... ({len(value)} chars)"
            if self.type_into(root, field, name, value, label):
                self.check_unexpected(root, name, label, before)
            if self.type_into(root, field, name, original, f"{label!r}, then the original back"):
                before = self.check_recovered(root, before, name, label, messages_only=numeric)
            else:
                before = visible_state(root)

    def sweep_cells_at_once(self, root) -> None:
        cells = [f for f in text_fields(root) if is_number_cell(f)]
        if not cells:
            return
        label = f"{HUGE} in all {len(cells)} number cells"
        before = visible_state(root)
        originals = [c.value for c in cells]
        self.type_at_once(root, [(cell, HUGE) for cell in cells], label)
        self.check_unexpected(root, "every number cell", label, before)
        self.type_at_once(root, list(zip(cells, originals))[::-1], f"{label}, then the originals back")
        self.check_recovered(root, before, "every number cell", label)

    def type_at_once(self, root, entries, label) -> None:
        """Type each (cell, text) of ``entries`` inside the widget's ``hold_trait_notifications()``: the cells change
        at once, and the widget recomputes when the block ends (an escape then is recorded too)."""
        try:
            with root.hold_trait_notifications():
                for cell, text in entries:
                    self.type_into(root, cell, "every number cell", text, label)
        except Exception as err:  # noqa: BLE001 - every exception out of a handler is a finding
            self.escapes.append((type(root).__name__, "every number cell", label,
                                 f"{type(err).__name__}: {str(err)[:120]} (when the cells were all typed)"))

    def run(self, roots) -> Sweep:
        for root in roots:
            fields = text_fields(root)
            full = fields_for_full_catalogue(fields)
            between = 0  # number cells between the first and the last of their grid, so far
            for k in range(len(fields)):
                field = fields[k]
                name = f"{field_name(field) or type(field).__name__} (field {k + 1})"
                if is_numeric_box(field):
                    self.sweep_field(root, field, name, browser_values(field))
                elif id(field) in full:
                    self.sweep_field(root, field, name, FULL_JUNK)
                else:
                    self.sweep_field(root, field, name, [junk.CELL[between % len(junk.CELL)]])
                    between += 1
                if id(field) in full:
                    # A size or a token list may have changed and changed back: the cells are rebuilt.
                    fields = text_fields(root)
                    full = fields_for_full_catalogue(fields)
            self.fields += len(fields)
            if fields:
                self.with_fields.add(type(root).__name__)
            self.sweep_cells_at_once(root)
        return self

    @staticmethod
    def listing(findings) -> str:
        """One line per different finding, in order, with how many times it happened."""
        counts: dict[tuple, int] = {}
        for finding in findings:
            counts[finding] = counts.get(finding, 0) + 1
        return "\n".join(f"  {cls} / {field} / {junk!r}" + (f": {detail}" if detail else "")
                         + (f" (x{n})" if n > 1 else "") for (cls, field, junk, detail), n in counts.items())


_sweeps: dict[str, Sweep] = {}


@pytest.fixture
def sweep(request, notebook_runner) -> Sweep:
    path = request.param
    if path.name not in _sweeps:
        run = notebook_runner(path)
        _sweeps[path.name] = Sweep(path.name).run(widget_roots(run))
    return _sweeps[path.name]


# The notebooks whose widgets have fields to type into: all but the index and the capstone, whose input is the
# learner's code (its only widgets are hint ladders: buttons).
WITHOUT_FIELDS = {"00_index", "16_capstone"}
WITH_WIDGETS = [p for p in NOTEBOOKS if p.stem not in WITHOUT_FIELDS]
by_notebook = pytest.mark.parametrize("sweep", WITH_WIDGETS, ids=lambda p: p.stem, indirect=True)
# Junk such as 1e300 overflows on its way to a message; numpy's warnings about it are expected.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@by_notebook
def test_no_exception_escapes_a_widget_handler(sweep):
    if sweep.escapes:
        pytest.fail(f"{sweep.notebook}: {len(sweep.escapes)} exceptions escaped a handler (widget / field / junk):\n"
                    f"{Sweep.listing(sweep.escapes)}", pytrace=False)


@by_notebook
def test_widget_shows_what_it_showed_before_once_the_original_text_returns(sweep):
    if sweep.not_recovered:
        pytest.fail(f"{sweep.notebook}: {len(sweep.not_recovered)} times a widget did not come back "
                    f"(widget / field / junk: first difference):\n{Sweep.listing(sweep.not_recovered)}", pytrace=False)


@by_notebook
def test_junk_is_answered_by_a_message_not_by_an_unexpected_error(sweep):
    if sweep.unexpected:
        pytest.fail(f"{sweep.notebook}: junk reached an unexpected exception, shown as one (widget / field / junk):\n"
                    f"{Sweep.listing(sweep.unexpected)}", pytrace=False)


@by_notebook
def test_every_widget_with_fields_visibly_answers_some_junk(sweep):
    """A sweep that saw no change anywhere would pass without having reached a handler."""
    assert sweep.with_fields, f"{sweep.notebook}: no text field found"
    assert sweep.reacted == sweep.with_fields, f"never reacted to junk: {sweep.with_fields - sweep.reacted}"


# The field kinds the course's widgets have, by the widget that has them: a notebook that shows one of these widgets
# must give the sweep all of its kinds to type into (a sweep that found none would pass by sweeping nothing).
# (A matrix editor's numpy literal, a Textarea without a handler, is made when its "numpy" button is first clicked.)
FIELD_KINDS = {
    "Explorer": {"Text", "BoundedIntText"},  # the cells and the token names, the token count
    "MatrixEditor": {"Text"},
}


@pytest.mark.parametrize("notebook_run", WITH_WIDGETS, indirect=True, ids=lambda p: p.stem)
def test_the_sweep_reaches_every_kind_of_field_a_notebook_has(notebook_run):
    """Every notebook but those of WITHOUT_FIELDS shows a widget with a field, and the walk finds each kind of field
    its widgets have."""
    roots = widget_roots(notebook_run)
    found = {type(f).__name__ for root in roots for f in text_fields(root)}
    assert found, f"{notebook_run.path.stem}: no text field found"
    classes = {cls.__name__ for root in roots for w in walk(root) for cls in type(w).__mro__}
    for widget, kinds in FIELD_KINDS.items():
        if widget in classes:
            assert kinds <= found, f"{notebook_run.path.stem} shows a {widget} but the walk finds only {found}"


SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider, widgets.IntRangeSlider,
           widgets.FloatRangeSlider, widgets.SelectionSlider, widgets.SelectionRangeSlider)


@pytest.mark.parametrize("notebook_run", WITH_WIDGETS, indirect=True, ids=lambda p: p.stem)
def test_no_widget_in_the_course_is_a_slider(notebook_run):
    """ipywidgets 8.1 draws a slider's handle with noUiSlider and gives it no accessible name (a screen reader
    says "slider, 3"); nothing a notebook sets reaches that element. The course uses named number fields and
    rows of buttons instead (helpers.widgets.layout.number_box, choice_buttons)."""
    sliders = [(type(w).__name__, w.description)
               for root in widget_roots(notebook_run) for w in walk(root) if isinstance(w, SLIDERS)]
    assert not sliders, f"sliders in {notebook_run.path.stem} (class, description): {sliders}"


def toy_widget(on_text):
    """A box with a number field and an HTML view; ``on_text(text, view)`` runs on every change."""
    field, view = widgets.Text(value="1", description="toy"), widgets.HTML("1.0")
    field.observe(lambda change: on_text(change["new"], view), names="value")
    return widgets.VBox([field, view])


def test_the_sweep_tells_an_escape_a_lost_state_and_an_unexpected_error_apart():
    """The sweep itself: three toy widgets, each broken one way, and one that behaves."""

    def escapes(text, view):
        view.value = str(parse_number(text))  # a ParseError leaves the observer

    def forgets(text, view):
        view.value += text  # never shows the same thing twice

    def hides_a_bug(text, view):
        try:
            view.value = str(parse_number(text))
        except ParseError:
            view.value = unexpected_message(KeyError(text))

    def behaves(text, view):
        try:
            view.value = str(parse_number(text))
        except ParseError as err:
            view.value = f"<b>{err}</b>"

    kinds = {}
    for handler in (escapes, forgets, hides_a_bug, behaves):
        found = Sweep("toy").run([toy_widget(handler)])
        kinds[handler.__name__] = (bool(found.escapes), bool(found.not_recovered), bool(found.unexpected))
        assert found.fields == 1 and found.reacted == {"VBox"}
    assert kinds == {"escapes": (True, False, False), "forgets": (False, True, False),
                     "hides_a_bug": (False, False, True), "behaves": (False, False, False)}
