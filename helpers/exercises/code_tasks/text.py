"""The words of the code tasks, kept as data: ``<task>.toml`` beside each task's module.

A task's file holds what a learner reads of it and where it stands in the course:

* ``order``: its place among :data:`~helpers.exercises.code_tasks.TASKS`, lower first;
* ``your_turn``: whether a "Your turn" cell asks for it;
* ``idea``: the first step of its hint ladder, what the function must do in words;
* ``outputs``: one ``[name, shape in words]`` pair per returned array;
* ``[mistakes.<key>]``: each mistake the task is the first to name, with its ``title``, ``advice`` and ``where`` (the
  notebook and heading that explain it, several joined by ``"; "``).

Any task names any mistake by its key, wherever it is written (``any_task.toml`` holds the two every task can name).
Nothing here checks code: :mod:`~helpers.exercises.code_tasks.engine` turns these words into tasks and mistakes.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

__all__ = ["TASK_FIELDS", "MISTAKE_FIELDS", "task_text", "mistake_text"]

PACKAGE = "helpers.exercises.code_tasks"
TASK_FIELDS = ("order", "your_turn", "idea", "outputs")
MISTAKE_FIELDS = ("title", "advice", "where")


@cache
def _files() -> dict[str, dict]:
    """Every TOML file of the package, read once, by its name without ``.toml``."""
    return {entry.name.removesuffix(".toml"): tomllib.loads(entry.read_text(encoding="utf-8"))
            for entry in sorted(resources.files(PACKAGE).iterdir(), key=lambda entry: entry.name)
            if entry.name.endswith(".toml")}


@cache
def _mistakes() -> dict[str, dict]:
    """Every mistake of every file, by key; a key written in two files is an error that names both."""
    found: dict[str, tuple[str, dict]] = {}
    for file, data in _files().items():
        for key, words in data.get("mistakes", {}).items():
            if key in found:
                raise ValueError(f"mistake {key!r} is written twice: in {found[key][0]}.toml and {file}.toml")
            missing = [field for field in MISTAKE_FIELDS if field not in words]
            if missing:
                raise ValueError(f"mistake {key!r} in {file}.toml has no {', '.join(missing)}")
            found[key] = (file, words)
    return {key: words for key, (_, words) in found.items()}


def task_text(task: str) -> dict:
    """The words of ``task`` (``"softmax"``): a dict with :data:`TASK_FIELDS`, ``outputs`` as a tuple of pairs.

    Raises
    ------
    ValueError
        When ``<task>.toml`` is missing or lacks one of the fields, naming the file and the fields.
    """
    data = _files().get(task)
    if data is None:
        raise ValueError(f"code task {task!r} has no {task}.toml beside its module ({PACKAGE})")
    missing = [field for field in TASK_FIELDS if field not in data]
    if missing:
        raise ValueError(f"{task}.toml has no {', '.join(missing)}")
    return {**{field: data[field] for field in TASK_FIELDS},
            "outputs": tuple((name, shape) for name, shape in data["outputs"])}


def mistake_text(key: str) -> dict:
    """The ``title``, ``advice`` and ``where`` of the mistake ``key``; ValueError naming the key when none has it."""
    mistakes = _mistakes()
    if key not in mistakes:
        raise ValueError(f"no code task's TOML file names the mistake {key!r}")
    return {field: mistakes[key][field] for field in MISTAKE_FIELDS}
