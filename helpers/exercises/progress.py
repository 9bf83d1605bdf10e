"""What the learner has done, in a small JSON file that outlives the kernel: predictions, designs, bugs, Your turns.

Four kinds of work are recorded, each by its name:

========================  ==========================================  =============================================
kind                      recorded when                               name
========================  ==========================================  =============================================
``"prediction"``          a prediction is committed (``predict``)     the prediction's name, ``"01-pasta-weight"``
``"design"``              :func:`~helpers.exercises.check_design`     the design task's name
                          finds the goal met (also in an explorer
                          with ``goal=``)
``"bug"``                 :func:`~helpers.exercises.check_fix`        the bug's name
                          finds the function fixed
``"your-turn"``           :func:`~helpers.exercises.check_code`       the code task, ``"softmax"``
                          finds a "Your turn" function correct
========================  ==========================================  =============================================

Where the file is: the environment variable ``COURSE_PROGRESS`` (a file path) if it is set, else
``attention-course/progress.json`` in the user's data folder (``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux,
``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows). The tests and ``scripts/run_notebooks.py``
point ``COURSE_PROGRESS`` at a temporary file, so they never touch a learner's progress.

The file is written atomically (a temporary file in the same folder, then renamed over it), so a kernel that dies
mid-write leaves the old file or the new one, never half of one. A file that is missing, unreadable or not what this
module writes counts as no progress, without an exception; a write that fails (a read-only home folder) is skipped
silently by :func:`record`, so that checking an answer never fails because of it. Two kernels recording at the same
moment may lose one of the two entries (the last write wins); the next record of it brings it back.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KINDS", "ENV_VAR", "Progress", "progress_path", "record", "progress", "reset_progress"]

KINDS = ("prediction", "design", "bug", "your-turn")
ENV_VAR = "COURSE_PROGRESS"
_APP = "attention-course"
_FORMAT = 1


@dataclass(frozen=True)
class Progress:
    """What is done, by kind: the names recorded, each once, sorted.

    Attributes
    ----------
    predictions, designs, bugs, your_turns : tuple of str
        The names recorded for the kinds ``"prediction"``, ``"design"``, ``"bug"`` and ``"your-turn"``.
    """

    predictions: tuple[str, ...] = ()
    designs: tuple[str, ...] = ()
    bugs: tuple[str, ...] = ()
    your_turns: tuple[str, ...] = ()

    def names(self, kind: str) -> tuple[str, ...]:
        """The names recorded for ``kind`` (one of :data:`KINDS`)."""
        return getattr(self, _FIELDS[_kind(kind)])

    @property
    def counts(self) -> dict[str, int]:
        """How many names are recorded for each kind, in the order of :data:`KINDS`."""
        return {kind: len(self.names(kind)) for kind in KINDS}


_FIELDS = dict(zip(KINDS, ("predictions", "designs", "bugs", "your_turns")))


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


def _read() -> dict[str, list[str]]:
    """The names recorded per kind; empty for a missing, unreadable or foreign file."""
    done: dict[str, list[str]] = {kind: [] for kind in KINDS}
    try:
        data = json.loads(progress_path().read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return done
    stored = data.get("done") if isinstance(data, dict) else None
    if not isinstance(stored, dict):
        return done
    for kind in KINDS:
        names = stored.get(kind)
        if isinstance(names, list):
            done[kind] = sorted({n for n in names if isinstance(n, str) and n})
    return done


def _write(done: dict[str, list[str]]) -> None:
    """Replace the file with ``done``, atomically (a temporary file in the same folder, renamed over it)."""
    path = progress_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"format": _FORMAT, "done": {kind: sorted(set(done[kind])) for kind in KINDS}}, indent=1)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def record(kind: str, name: str) -> bool:
    """Record that ``name`` of ``kind`` is done (once: a second record changes nothing).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`: ``"prediction"``, ``"design"``, ``"bug"``, ``"your-turn"``.
    name : str
        What was done: a prediction's, design task's or bug's name, or a code task's.

    Returns
    -------
    bool
        True if it is recorded in the file now; False if the file could not be written (nothing is raised).

    Raises
    ------
    ValueError
        If ``kind`` is not one of :data:`KINDS` or ``name`` is not a non-empty string (a mistake in the course's
        code, not the learner's).
    """
    _kind(kind)
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    done = _read()
    if name in done[kind]:
        return True
    done[kind].append(name)
    try:
        _write(done)
    except OSError:
        return False
    return True


def progress() -> Progress:
    """What is recorded so far (no progress if the file is missing, unreadable or corrupt)."""
    done = _read()
    return Progress(**{_FIELDS[kind]: tuple(done[kind]) for kind in KINDS})


def reset_progress() -> None:
    """Forget everything recorded: the file holds no names afterwards.

    Raises
    ------
    OSError
        If the file cannot be written (the caller shows why).
    """
    _write({kind: [] for kind in KINDS})
