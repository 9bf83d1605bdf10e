"""The room's vote in a lecture's Predict box: vote, discuss, vote again, and both votes as bars beside the truth.

The counts are given here and the shares worked out here from them; the bars on screen must show both.
"""

from __future__ import annotations

import re

import ipywidgets as widgets
import pytest

from helpers.exercises import progress
from helpers.exercises.predictions import judge, predictions
from helpers.exercises.predictions.vote import MAX_COUNT, read_count, read_guesses, tally
from helpers.widgets.predict import PredictionWidget, predict
from helpers.widgets.predict_vote import VOTE_COLOURS

import junk
from conftest import as_shown, html_text, walk
from test_predictions import MADE_UP, _cell, _choice, _number
from test_sweep import Sweep

CHOICE = "08-scaled-winner"  # a prediction of the course with three options


@pytest.fixture(autouse=True)
def own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS", str(tmp_path / "progress.json"))


def bar_rows(w: PredictionWidget) -> list[tuple[str, list[str], list[float]]]:
    """The bars of the reveal: per row, its answer, the texts of its vote cells and the bars' filled fractions."""
    markup = w.reveal_html.value
    bars = markup[markup.index('class="predict-vote-bars"'):markup.index("</table>")]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", bars)[1:]:
        cells = re.findall(r"<td style=\"([^\"]*)\"[^>]*>(.*?)</td>", row)
        fills = [float(m) / 100 for style, _t in cells[1:] for m in re.findall(r" (\d+\.\d)%,", style)[:1]]
        rows.append((html_text(cells[0][1]), [html_text(t) for _s, t in cells[1:]], fills))
    return rows


def test_outside_the_lecture_there_is_no_vote():
    w = predict(CHOICE, lecture=False)
    assert w.vote is None and not any("predict-vote" in c._dom_classes for c in walk(w))


def test_the_room_votes_twice_and_the_reveal_shows_both_votes_beside_the_truth():
    w = predict(CHOICE, lecture=True)
    p = w.prediction
    options, truth = p.options, p.truth_value()
    assert w.vote is not None and "predict-vote" in w.vote._dom_classes
    assert w.reveal_button.layout.display == "none"  # nothing to reveal before a vote or a commit
    first, second = dict(zip(options, (3, 5, 2))), dict(zip(options, (1, 8, 1)))
    w.vote.set_votes({o: str(n) for o, n in first.items()})
    w.vote.record_button.click()
    assert w.vote.votes == [first] and w.reveal_button.layout.display != "none"
    assert "vote 2 of 2" in html_text(w.vote.heading_html) and "discuss" in html_text(w.vote.heading_html)
    assert all(f.value == "" for f in w.vote.fields.values())  # fresh fields for the second vote
    assert w.reveal_html.value == ""  # the first vote's bars wait for the reveal
    w.vote.set_votes({o: str(n) for o, n in second.items()})
    assert w.vote.record()
    assert w.vote.record_button.layout.display == "none" and "Reveal" in html_text(w.vote.heading_html)
    assert w.vote.fields_box.layout.display == "none", "both votes in: no empty fields left on the projector"
    w.reveal_button.click()
    assert w.revealed and all(f.disabled for f in w.vote.fields.values())
    rows = bar_rows(w)
    assert [r[0].removeprefix("✓ ").removesuffix(" (the result)") for r in rows] == list(options)
    for (label, texts, fills), option in zip(rows, options):
        counts = [first[option], second[option]]
        shares = [n / 10 for n in counts]  # ten hands in each vote
        assert texts == [f"{n} ({round(100 * share)}%)" for n, share in zip(counts, shares)]
        assert fills == pytest.approx(shares)
        assert label.startswith("✓ ") == (option == truth)
    shown = html_text(w.reveal_html)
    assert "Vote 1 (10)" in shown and "Vote 2 (10)" in shown and p.why in shown
    assert all(colour in w.reveal_html.value for colour in VOTE_COLOURS)
    assert progress().result("prediction", CHOICE) is None  # the room's vote is nobody's prediction


def test_a_vote_and_a_commit_are_revealed_together_and_only_the_commit_is_recorded():
    w = PredictionWidget(_choice(), lecture=True)
    w.vote.set_votes({"The": 4, "cat": 6})
    assert w.vote.record()
    w.set_answer("cat")
    w.commit()
    assert progress().result("prediction", "01-test-choice") is None
    w.reveal()
    shown = html_text(w.reveal_html)
    assert "4 (40%)" in shown and "6 (60%)" in shown and "0 (0%)" in shown and "✓ Right." in shown
    assert progress().result("prediction", "01-test-choice").correct is True
    w.try_again()
    assert w.vote.votes == [] and w.reveal_html.value == "" and not w.vote.record_button.disabled
    assert "vote 1 of 2" in html_text(w.vote.heading_html)


def test_number_guesses_are_grouped_and_right_ones_counted_in_the_truths_row():
    w = PredictionWidget(_number(), lecture=True)  # truth 0.5, right within 0.01
    w.vote.set_votes("0.3, 0.5, 0.25, 0.505")
    assert w.vote.record()
    w.vote.set_votes("0.5, 0.49, 0.3, 1")
    assert w.vote.record()
    w.reveal()
    rows = bar_rows(w)
    assert [r[0] for r in rows] == ["0.25", "0.3", "✓ 0.5 (the result)", "1"]
    assert [r[1] for r in rows] == [["1 (25%)", "0 (0%)"], ["1 (25%)", "1 (25%)"], ["2 (50%)", "2 (50%)"],
                                    ["0 (0%)", "1 (25%)"]]
    assert "Vote 1 (4)" in html_text(w.reveal_html)


def test_a_cell_vote_counts_entries_and_shows_those_voted_for_and_the_truth():
    w = PredictionWidget(_cell(), lecture=True)
    assert len(w.vote.fields) == 9
    w.vote.set_votes({("cat", "sat"): 7, ("sat", "sat"): 3})
    assert w.vote.record()
    w.reveal()
    rows = bar_rows(w)
    assert [r[0] for r in rows] == ["row 'cat', column 'sat'", "✓ row 'sat', column 'cat' (the result)",
                                    "row 'sat', column 'sat'"]
    assert [r[1] for r in rows] == [["7 (70%)"], ["0 (0%)"], ["3 (30%)"]]


@pytest.mark.parametrize("typed, words", [
    ("-3", "0 or more"), ("abc", "whole number of hands"), (str(MAX_COUNT + 1), "more hands than a room holds"),
    ("2.5", "whole number"), ("1e9", "more hands"), ("1,5", "whole number"),
])
def test_junk_counts_are_refused_next_to_the_field_and_nothing_is_recorded(typed, words):
    w = predict(CHOICE, lecture=True)
    option = w.prediction.options[1]
    w.vote.set_votes({w.prediction.options[0]: "4", option: typed})
    shown = html_text(w.vote.message_html)
    assert words in shown and option in shown and w.vote.fields[option].layout.border
    assert not w.vote.record() and w.vote.votes == [] and w.reveal_button.layout.display == "none"
    w.vote.set_votes({option: "2"})
    assert w.vote.message_html.value == "" and not w.vote.fields[option].layout.border
    assert w.vote.record() and w.vote.votes == [dict(zip(w.prediction.options, (4, 2, 0)))]


def test_an_empty_vote_and_impossible_guesses_are_refused():
    w = PredictionWidget(_choice(), lecture=True)
    assert not w.vote.record() and "Nobody has voted yet" in html_text(w.vote.message_html)
    weight = predict("04-weight-after-the-mask", lecture=True)
    weight.vote.set_votes("0.3, 1.5")
    assert "guess 2: a weight is between 0 and 1; 1.5 is not" in html_text(weight.vote.message_html)
    assert not weight.vote.record()
    with pytest.raises(ValueError, match="guess 1"):
        read_guesses(weight.prediction, "x, 0.3")
    assert read_count("") == 0 and read_count(" 12 ") == 12


def test_three_votes_are_not_taken_and_a_tally_needs_one_or_two():
    w = PredictionWidget(_choice(), lecture=True)
    for counts in ({"cat": 1}, {"sat": 2}):
        w.vote.set_votes(counts)
        assert w.vote.record()
    w.vote.set_votes({"cat": 3})
    assert not w.vote.record() and "Both votes are recorded" in html_text(w.vote.message_html)
    w.vote.reset()
    assert w.vote.fields_box.layout.display != "none" and w.vote.votes == []
    with pytest.raises(ValueError, match="1 to 2 votes"):
        tally(w.prediction, [])


def test_reveal_without_a_vote_or_a_commit_says_what_to_do():
    w = PredictionWidget(_choice(), lecture=True)
    w.reveal()
    assert not w.revealed and "Record the room's vote, or commit a prediction" in html_text(w.message_html)


@pytest.mark.parametrize("form", sorted(MADE_UP))
def test_the_junk_sweep_finds_nothing_in_the_vote_fields(form):
    w = PredictionWidget(MADE_UP[form](), lecture=True)
    found = Sweep("predict-vote").run([w])
    assert not found.escapes and not found.not_recovered and not found.unexpected
    assert found.fields >= len(w.vote.fields)


def test_junk_given_in_code_to_the_vote_never_raises():
    for form, make in MADE_UP.items():
        w = PredictionWidget(make(), lecture=True)
        for answer in junk.ANSWERS:
            if form == "number":
                w.vote.set_votes(answer)
            else:
                for key in w.vote.fields:
                    w.vote.fields[key].value = answer if isinstance(answer, str) else str(answer)
            w.vote.record()
            assert w.vote.last_unexpected is None and w.last_unexpected is None, (form, answer)
            w.try_again()


@pytest.mark.parametrize("form", sorted(MADE_UP))
def test_every_vote_field_has_an_accessible_name_and_nothing_is_an_output(form):
    w = PredictionWidget(MADE_UP[form](), lecture=True)
    for part in walk(w.vote):
        assert not isinstance(part, widgets.Output)
        if isinstance(part, widgets.Text):
            assert part.description.strip()
        if isinstance(part, widgets.Button):
            assert part.description.strip()


def test_every_prediction_of_the_course_takes_a_vote():
    for name, p in predictions().items():
        w = predict(name, lecture=True)
        truth = p.truth_value()
        if p.form == "number":
            w.vote.set_votes(f"{p.text(truth)}, {p.text(truth)}")
        else:
            w.vote.set_votes({truth: 3})
        assert w.vote.record(), name
        w.reveal()
        rows = bar_rows(w)
        marked = [r for r in rows if r[0].startswith("✓ ")]
        assert len(marked) == 1 and marked[0][1] == ["2 (100%)" if p.form == "number" else "3 (100%)"], name
        assert as_shown(judge(name, truth).truth) in marked[0][0]


def test_the_options_beside_the_count_fields_show_their_math_typeset_and_name_it_in_words():
    # Options of the course with math in them ("none: only W^Q and W^K matter"): beside its count field the room reads
    # the math raised as in the prose, never "W^Q"; a screen reader hears the field as "votes for ... W Q ...".
    with_math = {name: p for name, p in predictions().items()
                 if p.form == "choice" and any("^" in option for option in p.options)}
    assert with_math, "no prediction of the course has math in an option: this test would check nothing"
    for name, p in with_math.items():
        w = predict(name, lecture=True)
        grid = next(c for c in walk(w.vote) if "predict-vote-counts" in c._dom_classes)
        fields, labels = grid.children[0::2], grid.children[1::2]
        for option, field, label in zip(p.options, fields, labels):
            assert "^" not in html_text(label) and html_text(label) == as_shown(option), (name, label.value)
            if "^" in option:
                assert "<sup>" in label.value, (name, label.value)
            assert field.description.startswith("votes for ") and "^" not in field.description, field.description
