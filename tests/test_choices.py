"""The option list with typeset labels (helpers.widgets.choices.ChoiceList), through its public API: the value,
the options, observe and link, the disabled state, the typeset question and labels, what it refuses, and the picture
a stored notebook shows. The browser drives it by mouse and keyboard (tests/browser/test_inventory.py)."""

from __future__ import annotations

import ipywidgets as widgets
import pytest
import traitlets

from helpers.widgets.choices import CHOICES_CSS, ChoiceList
from helpers.widgets.layout import choice_list
from helpers.widgets.snapshot import snapshot_html

OPTIONS = ["Token i alone: its row of X times W^Q", "d_model / h", "all of them"]


def test_the_value_is_the_option_text_and_the_page_index_follows_it():
    c = ChoiceList(OPTIONS, description="Which?")
    assert c.value is None and c.index == -1 and c.options == tuple(OPTIONS)
    c.value = "d_model / h"
    assert c.index == 1 and c.label == "d_model / h"
    c.index = 2  # what the page sends when an option is clicked
    assert c.value == "all of them"
    c.value = None
    assert c.index == -1 and c.label is None


def test_labels_and_question_are_typeset():
    c = ChoiceList(OPTIONS, description="1. What does W^Q do?")
    assert c.labels[0] == "Token i alone: its row of X times W<sup>Q</sup>"
    assert c.labels[1] == "d<sub>model</sub> / h"
    assert c.description == "1. What does W^Q do?" and c.description_html == "1. What does W<sup>Q</sup> do?"
    c.options = ["x_cat", "<b>"]
    assert c.labels == ["x<sub>cat</sub>", "&lt;b&gt;"], "a label's text is escaped, never read as markup"


def test_pairs_give_a_label_and_a_value():
    c = choice_list("Your answer:", [("a) uses W^K", "a"), ("b) none", "b")])
    assert c.options == (("a) uses W^K", "a"), ("b) none", "b")) and "course-choice" in c._dom_classes
    c.value = "b"
    assert c.index == 1 and c.label == "b) none" and c.labels[0] == "a) uses W<sup>K</sup>"


def test_observe_and_link_follow_the_value():
    c = ChoiceList(OPTIONS)
    heard = []
    c.observe(lambda change: heard.append(change["new"]), names="value")
    other = widgets.Dropdown(options=OPTIONS, value=None)
    widgets.link((c, "value"), (other, "value"))
    c.index = 0
    assert heard == [OPTIONS[0]] and other.value == OPTIONS[0]
    other.value = "all of them"
    assert c.value == "all of them" and c.index == 2 and heard[-1] == "all of them"


@pytest.mark.parametrize("junk", ["nope", 3, ["d_model / h"]])
def test_a_value_not_among_the_options_is_refused_with_a_message(junk):
    c = ChoiceList(OPTIONS, value="d_model / h")
    with pytest.raises(ValueError, match=r"value must be one of the options \('Token i alone.*or None; got"):
        c.value = junk
    with pytest.raises(traitlets.TraitError):
        c.value = junk
    assert c.value == "d_model / h" and c.index == 1, "nothing changed"


def test_an_index_out_of_range_and_a_bad_look_are_refused():
    c = ChoiceList(OPTIONS)
    with pytest.raises(ValueError, match="index must be -1 .none. or an option's place, 0 to 2; got 5"):
        c.index = 5
    with pytest.raises(ValueError, match="look must be one of 'list', 'buttons'; got 'grid'"):
        ChoiceList(OPTIONS, look="grid")
    with pytest.raises(ValueError, match="options must be a list of options"):
        ChoiceList("abc")


def test_new_options_drop_a_value_no_longer_among_them():
    c = ChoiceList(OPTIONS, value="all of them")
    c.options = ["all of them", "none"]
    assert c.value == "all of them" and c.index == 0
    c.options = ["one", "two"]
    assert c.value is None and c.index == -1


def test_disabled_is_synced_and_one_model_holds_every_option():
    c = ChoiceList(OPTIONS * 1, disabled=True)
    assert c.disabled
    synced = c.keys
    assert {"labels", "index", "disabled", "description_html", "look", "large"} <= set(synced)
    assert not any(isinstance(v, widgets.Widget) for v in c.get_state().values()), "no model per option"


def test_the_picture_shows_the_typeset_labels_and_the_chosen_one():
    c = choice_list("1. What does W^Q do?", OPTIONS, value="d_model / h")
    picture = snapshot_html(widgets.VBox([c]))
    assert "What does W<sup>Q</sup> do?" in picture and "<span>d<sub>model</sub> / h</span>" in picture
    assert "W^Q" not in picture
    assert picture.count("type='radio'") == 3 and picture.count("checked") == 1
    assert "cs-field course-choice" in picture, "the question above its options"
    # One option a line, also where the page drops the picture's style sheet.
    assert picture.count("<div><label class='cs-pick'>") == 3


def test_the_picture_of_option_buttons_fills_the_chosen_one():
    c = ChoiceList(["x_cat", "W^K"], value="W^K", description="Your prediction", look="buttons")
    picture = snapshot_html(widgets.VBox([c]))
    assert "<button disabled class='cs-btn'>x<sub>cat</sub></button>" in picture
    assert "<button disabled class='cs-btn cs-on cs-chosen' aria-pressed='true'>W<sup>K</sup></button>" in picture


def test_the_lecture_size_is_larger():
    assert ChoiceList(OPTIONS, large=True).large
    assert ".course-choices.course-choices-large{font-size:20px}" in CHOICES_CSS
