"""The code tasks' words as data: each task's TOML file beside its module, read by helpers.exercises.code_tasks.text.

The files are read here with tomllib on their own, so these tests do not take the reader's word for what they hold.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

import helpers.exercises.code_tasks as code_tasks
from helpers.exercises.code_tasks import MISTAKES, TASKS
from helpers.exercises.code_tasks.text import mistake_text, task_text

FOLDER = Path(code_tasks.__file__).parent
FILES = {path.stem: tomllib.loads(path.read_text(encoding="utf-8")) for path in sorted(FOLDER.glob("*.toml"))}


def test_every_task_has_its_words_and_every_file_is_a_tasks_or_the_general_one():
    assert set(TASKS) <= set(FILES)
    assert set(FILES) - set(TASKS) == {"any_task"}
    for name, task in TASKS.items():
        words = FILES[name]
        assert (task.order, task.your_turn, task.idea) == (words["order"], words["your_turn"], words["idea"])
        assert task.outputs == tuple(tuple(pair) for pair in words["outputs"])


def test_every_mistake_written_is_one_a_check_can_name_and_is_written_once():
    written = [key for words in FILES.values() for key in words.get("mistakes", {})]
    assert len(written) == len(set(written))
    assert set(written) == set(MISTAKES)
    for words in FILES.values():
        for key, mistake in words.get("mistakes", {}).items():
            assert (MISTAKES[key].title, MISTAKES[key].advice, MISTAKES[key].where) == (
                mistake["title"], mistake["advice"], mistake["where"])


def _texts():
    for file, words in FILES.items():
        if "idea" in words:
            yield f"{file}: idea", words["idea"]
        for key, mistake in words.get("mistakes", {}).items():
            yield f"{file}: {key}", mistake["title"] + " " + mistake["advice"]


@pytest.mark.parametrize("where, text", list(_texts()), ids=lambda value: value if ":" in str(value) else "")
def test_a_text_wrapped_in_its_file_reads_as_one_paragraph(where, text):
    # A line of a TOML string that ends in a backslash joins the next one: a space kept on both sides of the join
    # shows as a gap, and a line break left without its backslash splits the paragraph.
    assert "  " not in text and text == text.strip() and "\n" not in text, where


def test_an_unknown_mistake_or_task_is_named_in_the_message():
    with pytest.raises(ValueError, match="'no_such_slip'"):
        mistake_text("no_such_slip")
    with pytest.raises(ValueError, match=r"no_such_task\.toml"):
        task_text("no_such_task")


def test_a_learners_check_says_the_advice_its_file_gives():
    def softmax_without_the_max(x):
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    feedback = code_tasks.check_task("softmax", softmax_without_the_max)
    no_max = FILES["softmax"]["mistakes"]["no_max"]
    assert feedback.mistake == "no_max"
    assert no_max["title"] in feedback.message and no_max["advice"] in feedback.message
