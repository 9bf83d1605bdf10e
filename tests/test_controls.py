"""Controls as a person sees them: the step a box asks for (Commit, Check) is a primary button; the chosen option of a
row of option buttons is filled with the theme's accent; the real model's layer and head pickers are two framed,
named groups. The browser checks the drawn colours (tests/browser/test_controls.py)."""

from __future__ import annotations

import re

import pytest

from helpers.core.pretrained import MiniLM
from helpers.demos.practice import question
from helpers.demos.real_model import HeadExplorer
from helpers.widgets.choices import CHOICES_CSS, ChoiceList
from helpers.widgets.layout import CONTROLS_CSS
from helpers.widgets.predict import predict
from helpers.widgets.snapshot import snapshot_html

from conftest import walk


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


def with_class(root, cls):
    return [w for w in walk(root) if cls in getattr(w, "_dom_classes", ())]


def buttons_named(root, text):
    return [w for w in walk(root) if getattr(w, "description", None) == text and hasattr(w, "button_style")]


def test_commit_and_check_are_primary_buttons():
    box = predict("05-cheating-head")
    (commit,) = buttons_named(box, "Commit")
    assert commit.button_style == "primary"
    (check,) = buttons_named(question("q1"), "Check")
    assert check.button_style == "primary"
    # The stored picture draws them as the live page does.
    assert re.search(r"<button disabled[^>]*class='[^']*cs-primary[^']*'[^>]*>Commit</button>", snapshot_html(box))


FILLED = r"\.course-choices-chosen(?:[^{]*)\{background:var\(--jp-brand-color1"


def test_the_chosen_option_is_filled_with_the_accent_live_and_in_the_picture():
    box = predict("05-cheating-head")
    (choices,) = [w for w in walk(box) if isinstance(w, ChoiceList)]
    assert "course-widget" in box._dom_classes
    # The rule every option list carries: the chosen option (course-choices-chosen) filled with the accent.
    assert re.search(FILLED, CHOICES_CSS) and choices._css == CHOICES_CSS
    choices.value = choices.options[1]
    picture = snapshot_html(box)
    chosen = re.findall(r"<button disabled[^>]*class='[^']*cs-chosen[^']*'[^>]*>([^<]*)</button>", picture)
    assert chosen == [str(choices.options[1])]
    assert re.search(r"\.cs-chosen\{background:var\(--jp-brand-color1", picture)


@pytest.fixture(scope="module")
def model():
    return MiniLM.load()


def test_layer_and_head_are_two_named_framed_groups(model):
    ex = HeadExplorer(model, query="bank", show_grid=False)
    (layers,) = with_class(ex, "head-explorer-layers")
    (heads,) = with_class(ex, "head-explorer-heads")
    assert "course-picker" in layers._dom_classes and "course-picker" in heads._dom_classes
    assert layers.children == (ex.layer_picker,) and heads.children == (ex.head_picker,)
    assert ex.layer_picker.description == "Layer (0–5)" and ex.head_picker.description == "Head (0–11)"
    # Named above the buttons and framed: the look every course widget carries.
    assert ".course-picker{border:1px solid" in CONTROLS_CSS
    assert "flex-direction:column" in CONTROLS_CSS
    # Picking still drives the view.
    ex.head_picker.value = 2
    assert ex.head == 2
