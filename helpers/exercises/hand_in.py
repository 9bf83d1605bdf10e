"""Handing progress in: the learner's progress file written next to the notebooks, for the instructor to collect.

:func:`hand_in` writes ``progress-<learner>.json`` (:func:`~helpers.exercises.progress.progress_json`, with the
learner's name inside) in a folder, by default the working folder: in JupyterLab, the notebook's folder, which
nbgrader collects with the assignment. The learner is ``$JUPYTERHUB_USER`` on a hub, else the login name, made safe
for a file name (:func:`learner_name`). The class report (:mod:`helpers.exercises.class_report`) reads such files back
and takes the learner's name from the file's: ``progress-ana.json`` is ana's.
"""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path

from helpers.exercises.progress import progress, progress_json

__all__ = ["FILE_PREFIX", "HUB_USER_VAR", "safe_name", "learner_name", "hand_in_path", "hand_in"]

FILE_PREFIX = "progress-"
HUB_USER_VAR = "JUPYTERHUB_USER"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name) -> str:
    """``name`` as a part of a file name: letters, digits, ``.``, ``_`` and ``-`` kept, every other run of characters
    a ``-``, no dot or dash at either end (``"ana@uni.edu"`` -> ``"ana-uni.edu"``); ``"learner"`` if nothing is
    left."""
    return _UNSAFE.sub("-", str(name or "")).strip(".-") or "learner"


def learner_name() -> str:
    """Who is handing in: ``$JUPYTERHUB_USER`` if set, else the login name; safe for a file name (:func:`safe_name`)."""
    user = os.environ.get(HUB_USER_VAR, "").strip()
    if not user:
        try:
            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no login name (a container without a user entry): a neutral name
            user = ""
    return safe_name(user)


def hand_in_path(folder=None, learner: str | None = None) -> Path:
    """Where :func:`hand_in` writes: ``folder / "progress-<learner>.json"`` (defaults as there)."""
    name = safe_name(learner) if learner is not None else learner_name()
    return (Path.cwd() if folder is None else Path(folder)) / f"{FILE_PREFIX}{name}.json"


def hand_in(folder=None, learner: str | None = None) -> Path:
    """Write the learner's progress as ``progress-<learner>.json`` in ``folder`` and return its path.

    Parameters
    ----------
    folder : path, optional
        Where to write; the working folder by default (a notebook's kernel runs in the notebook's folder).
    learner : str, optional
        The learner's name (made safe for a file name); :func:`learner_name` by default.

    Raises
    ------
    OSError
        If the file cannot be written (the caller says why).
    """
    path = hand_in_path(folder, learner)
    path.write_text(progress_json(progress(), learner=path.stem.removeprefix(FILE_PREFIX)), encoding="utf-8")
    return path
