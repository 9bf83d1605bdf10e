"""What the learner has done, right and wrong, in a small JSON file that outlives the kernel.

Every check of the course records its verdict here, by kind and name:

========================  ==========================================  =============================================
kind                      recorded when                               name
========================  ==========================================  =============================================
``"prediction"``          a Predict box shows its result (at commit;  the prediction's name, ``"01-pasta-weight"``
                          in the lecture mode at Reveal)
``"design"``              :func:`~helpers.exercises.check_design`     the design task's name
                          checks a design (also in an explorer
                          with ``goal=``)
``"bug"``                 :func:`~helpers.exercises.check_fix`        the bug's name
                          checks a fix
``"your-turn"``           :func:`~helpers.exercises.check_code`       the code task, ``"softmax"``
                          checks a "Your turn" function
``"question"``            notebook 09 checks an answer                ``"q1"`` ... ``"q8"``, or a generated
                                                                      problem's ``"attention-42-easy"``
``"inventory-pre"``       the concept inventory, taken before 01      the inventory item's name
``"inventory-post"``      the concept inventory, taken after 09       the inventory item's name
========================  ==========================================  =============================================

Each record keeps how many times it was checked (``tries``) and a verdict (``correct``). For a prediction and an
inventory item the verdict is the **first** try's (what the learner thought before seeing the answer; a later try
never overwrites it); for the tasks (design, bug, Your turn, question) it is the **latest**, and ``solved_on`` says on
which try the task was first right. ``progress().result(kind, name)`` reads one record; ``None`` if there is none.

Where the file is: the environment variable ``COURSE_PROGRESS`` (a file path) if it is set, else
``attention-course/progress.json`` in the user's data folder (``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux,
``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows). The tests and ``scripts/run_notebooks.py``
point ``COURSE_PROGRESS`` at a temporary file, so they never touch a learner's progress.

The file is written atomically (a temporary file in the same folder, then renamed over it), so a kernel that dies
mid-write leaves the old file or the new one, never half of one. A file that is missing, unreadable or not what this
module writes counts as no progress, without an exception; a write that fails (a read-only home folder) is skipped
silently by :func:`record`, so that checking an answer never fails because of it. Two kernels recording at the same
moment may lose one of the two entries (the last write wins); the next record of it brings it back. A file of the
first format (names done, no verdicts) is read as those names done, verdicts unknown for predictions.

What is recorded in this kernel can be followed: :func:`subscribe` calls a function after each record (a folded
answer opens when its prediction is committed).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["KINDS", "TASK_KINDS", "FIRST_TRY_KINDS", "ENV_VAR", "FORMAT", "ANSWER_LENGTH", "Result", "Progress",
           "progress_path", "record", "progress", "reset_progress", "read_progress_file", "progress_json",
           "subscribe"]

KINDS = ("prediction", "design", "bug", "your-turn", "question", "inventory-pre", "inventory-post")
# The kinds whose verdict is the first try's: what the learner thought before any answer was shown.
FIRST_TRY_KINDS = ("prediction", "inventory-pre", "inventory-post")
# The kinds that are tasks: checked until right, the latest verdict counts.
TASK_KINDS = tuple(kind for kind in KINDS if kind not in FIRST_TRY_KINDS)
ENV_VAR = "COURSE_PROGRESS"
FORMAT = 2
# An answer is kept as text, at most this long (a matrix's text is cut, with "…").
ANSWER_LENGTH = 400
_APP = "attention-course"


@dataclass(frozen=True)
class Result:
    """One record: how a prediction, an inventory item or a task went.

    Attributes
    ----------
    kind, name : str
    correct : bool or None
        First-try kinds (:data:`FIRST_TRY_KINDS`): the first try's verdict. Tasks: the latest verdict. None when no
        verdict was recorded (a prediction from the first file format).
    tries : int
        How many times it was checked (≥ 1).
    answer : str or None
        The answer that :attr:`correct` judges, as text (the first for first-try kinds, the latest for tasks).
    solved_on : int or None
        The try on which it was first right (1 = at once); None if it never was.
    """

    kind: str
    name: str
    correct: bool | None
    tries: int
    answer: str | None = None
    solved_on: int | None = None

    @property
    def done(self) -> bool:
        """A first-try kind: answered at all. A task: right at least once."""
        return self.kind in FIRST_TRY_KINDS or self.solved_on is not None

    def as_json(self) -> dict:
        return {"correct": self.correct, "tries": self.tries, "answer": self.answer, "solved_on": self.solved_on}


@dataclass(frozen=True)
class Progress:
    """Everything recorded, by kind: ``{kind: {name: Result}}``.

    Attributes
    ----------
    records : mapping kind -> mapping name -> Result
        Every kind of :data:`KINDS` is a key (empty when nothing is recorded).
    """

    records: Mapping[str, Mapping[str, Result]] = field(default_factory=lambda: {kind: {} for kind in KINDS})

    def result(self, kind: str, name: str) -> Result | None:
        """The record of ``name`` of ``kind``; None if nothing was recorded.

        Raises
        ------
        ValueError
            If ``kind`` is not one of :data:`KINDS`.
        """
        return self.records[_kind(kind)].get(name)

    def results(self, kind: str) -> dict[str, Result]:
        """Every record of ``kind``, by name, sorted by name (a new dict)."""
        return dict(sorted(self.records[_kind(kind)].items()))

    def names(self, kind: str) -> tuple[str, ...]:
        """The names done of ``kind``: predictions and inventory items answered, tasks right at least once."""
        return tuple(name for name, result in self.results(kind).items() if result.done)

    @property
    def counts(self) -> dict[str, int]:
        """How many names are done for each kind, in the order of :data:`KINDS`."""
        return {kind: len(self.names(kind)) for kind in KINDS}

    @property
    def empty(self) -> bool:
        """True when nothing at all is recorded."""
        return not any(self.records[kind] for kind in KINDS)

    # The names done per kind, by the kind's plural (as the first file format kept them).
    predictions = property(lambda self: self.names("prediction"))
    designs = property(lambda self: self.names("design"))
    bugs = property(lambda self: self.names("bug"))
    your_turns = property(lambda self: self.names("your-turn"))
    questions = property(lambda self: self.names("question"))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Progress):
            return NotImplemented
        return {k: dict(v) for k, v in self.records.items()} == {k: dict(v) for k, v in other.records.items()}

    __hash__ = None


def _kind(kind) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    return kind


def progress_path() -> Path:
    """The progress file: ``$COURSE_PROGRESS`` if set, else ``attention-course/progress.json`` in the data folder."""
    chosen = os.environ.get(ENV_VAR, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    home = Path.home()
    if os.name == "nt":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / _APP / "progress.json"


# --------------------------------------------------------------------------- reading and writing the file


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def _result_from_json(kind: str, name: str, entry) -> Result | None:
    """One stored record, or None if it is not one (a foreign or damaged entry is dropped, not raised)."""
    if not isinstance(entry, dict):
        return None
    correct = entry.get("correct")
    tries = _count(entry.get("tries"))
    if correct not in (True, False, None) or tries is None:
        return None
    answer = entry.get("answer")
    solved_on = _count(entry.get("solved_on"))
    if solved_on is not None and solved_on > tries:
        solved_on = None
    return Result(kind, name, correct, tries, answer if isinstance(answer, str) else None, solved_on)


def parse_progress(data) -> Progress | None:
    """A progress file's parsed JSON as :class:`Progress`; None if it is not a course progress file.

    Both formats are read: ``{"format": 2, "records": {kind: {name: {...}}}}`` and the first,
    ``{"format": 1, "done": {kind: [names]}}`` (each name done once, a prediction's verdict unknown).
    """
    if not isinstance(data, dict):
        return None
    records: dict[str, dict[str, Result]] = {kind: {} for kind in KINDS}
    stored = data.get("records")
    if isinstance(stored, dict):
        for kind in KINDS:
            entries = stored.get(kind)
            if isinstance(entries, dict):
                for name, entry in entries.items():
                    if isinstance(name, str) and name:
                        result = _result_from_json(kind, name, entry)
                        if result is not None:
                            records[kind][name] = result
        return Progress(records)
    done = data.get("done")
    if isinstance(done, dict):  # the first format: the names done
        for kind in KINDS:
            names = done.get(kind)
            if isinstance(names, list):
                for name in names:
                    if isinstance(name, str) and name:
                        first_try = kind in FIRST_TRY_KINDS
                        records[kind][name] = Result(kind, name, None if first_try else True, 1, None,
                                                     None if first_try else 1)
        return Progress(records)
    return None


def read_progress_file(path) -> Progress | None:
    """The progress in the file at ``path``; None if it is missing, unreadable or not a course progress file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return parse_progress(data)


def progress_json(state: Progress, learner: str | None = None) -> str:
    """``state`` as the text of a progress file (the format :func:`read_progress_file` reads)."""
    data: dict = {"format": FORMAT}
    if learner:
        data["learner"] = learner
    data["records"] = {kind: {name: result.as_json() for name, result in sorted(state.records[kind].items())}
                       for kind in KINDS}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _read() -> Progress:
    """What the file holds; no progress for a missing, unreadable or foreign file."""
    return read_progress_file(progress_path()) or Progress()


def _write(state: Progress) -> None:
    """Replace the file with ``state``, atomically (a temporary file in the same folder, renamed over it)."""
    path = progress_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(progress_json(state))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _answer_text(answer) -> str | None:
    if answer is None:
        return None
    text = answer if isinstance(answer, str) else str(answer)
    text = " ".join(text.split())
    return text if len(text) <= ANSWER_LENGTH else text[:ANSWER_LENGTH - 1] + "…"


def _next(previous: Result | None, kind: str, name: str, correct: bool | None, answer: str | None) -> Result:
    """The record after one more check."""
    if previous is None:
        return Result(kind, name, correct, 1, answer, 1 if correct else None)
    tries = previous.tries + 1
    solved_on = previous.solved_on if previous.solved_on is not None else (tries if correct else None)
    if kind in FIRST_TRY_KINDS and previous.correct is not None:
        return Result(kind, name, previous.correct, tries, previous.answer, solved_on)
    if kind in FIRST_TRY_KINDS:  # a first format's record: its first verdict was never known
        return Result(kind, name, correct, tries, answer if previous.answer is None else previous.answer, solved_on)
    return Result(kind, name, correct, tries, answer, solved_on)


# --------------------------------------------------------------------------- what a check calls

_listeners: list[Callable[[Result], None]] = []


def subscribe(listener: Callable[[Result], None]) -> Callable[[], None]:
    """Call ``listener(result)`` after every :func:`record` in this kernel; returns a function that unsubscribes.

    An exception in a listener is swallowed: recording never fails because of one.
    """
    _listeners.append(listener)

    def unsubscribe() -> None:
        if listener in _listeners:
            _listeners.remove(listener)
    return unsubscribe


def record(kind: str, name: str, *, correct: bool | None = None, answer=None) -> bool:
    """Record one check of ``name`` of ``kind``: its verdict and the answer checked.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    name : str
        What was checked: a prediction's, design task's, bug's, code task's, question's or inventory item's name.
    correct : bool or None
        The verdict. For a prediction or an inventory item only the first try's is kept; for a task the latest.
    answer : optional
        The answer checked, kept as text (at most :data:`ANSWER_LENGTH` characters).

    Returns
    -------
    bool
        True if it is recorded in the file now; False if the file could not be written (nothing is raised; the
        listeners of :func:`subscribe` hear of it all the same).

    Raises
    ------
    ValueError
        If ``kind`` is not one of :data:`KINDS`, ``name`` is not a non-empty string, or ``correct`` is not a bool
        or None (a mistake in the course's code, not the learner's).
    """
    _kind(kind)
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    if correct is not None and not isinstance(correct, bool):
        raise ValueError(f"correct must be True, False or None; got {correct!r}")
    state = _read()
    records = {k: dict(v) for k, v in state.records.items()}
    result = _next(records[kind].get(name), kind, name, correct, _answer_text(answer))
    records[kind][name] = result
    try:
        _write(Progress(records))
        written = True
    except OSError:
        written = False
    for listener in list(_listeners):
        try:
            listener(result)
        except Exception:  # noqa: BLE001 - a listener never stops a check
            pass
    return written


def progress() -> Progress:
    """What is recorded so far (no progress if the file is missing, unreadable or corrupt)."""
    return _read()


def reset_progress() -> None:
    """Forget everything recorded: the file holds no records afterwards.

    Raises
    ------
    OSError
        If the file cannot be written (the caller shows why).
    """
    _write(Progress())
