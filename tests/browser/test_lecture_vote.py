"""The room's vote in the lecture mode (Voila, a projector at 1920 × 1080): counts typed per option, a junk count
refused next to its field, two votes, and on Reveal both votes as bars beside the truth, within the notebook's width,
in the light theme and in the dark one.

Screenshots go to $COURSE_SCREENSHOTS when it is set: lecture-vote-light.png and lecture-vote-dark.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from course.widget_pages import first_notebook_calling

from .conftest import open_lecture_page, screenshot_on_failure
from .test_a11y import BLOCKING, axe_violations, describe
from .test_dark import screenshot, seen

FIRST, SECOND = (6, 3, 1), (9, 1, 0)  # hands per option in the first and the second vote

# How far every part of the box reaches right of its cell's output area (px; 0 or less: nothing wider than it).
JS_OVERFLOW = """
(box) => {
  const area = box.closest('.jp-OutputArea-output') || box.parentElement;
  const right = area.getBoundingClientRect().right;
  return Math.max(...[box, ...box.querySelectorAll('*')].map(e => e.getBoundingClientRect().right - right));
}
"""


def choice_box(page):
    return page.locator(".predict.predict-form-choice").first


def vote(box, counts) -> None:
    fields = box.locator(".predict-vote-field input")
    for k, n in enumerate(counts):
        fields.nth(k).fill(str(n))
        fields.nth(k).press("Tab")  # a field's value reaches the kernel when it loses the focus
    box.locator(".predict-vote-record").first.click()


def run_the_vote(box) -> None:
    """Junk refused next to the field, then two votes and the reveal, as a presenter does it."""
    box.scroll_into_view_if_needed()
    field = box.locator(".predict-vote-field input").first
    field.fill("-3")
    field.press("Tab")
    expect(box.locator(".predict-vote-message").first).to_contain_text("a count is 0 or more")
    vote(box, FIRST)
    expect(box.locator(".predict-vote-status").first).to_contain_text(f"vote 1: {sum(FIRST)} votes")
    expect(box.locator(".predict-vote-message").first).to_have_text("")
    vote(box, SECOND)
    expect(box.locator(".predict-vote-status").first).to_contain_text(f"vote 2: {sum(SECOND)} votes")
    box.locator(".predict-reveal-button").first.click()
    bars = box.locator(".predict-vote-bars").first
    expect(bars).to_be_visible()
    for first, second in zip(FIRST, SECOND):
        expect(bars).to_contain_text(f"{first} ({round(100 * first / sum(FIRST))}%)")
        expect(bars).to_contain_text(f"{second} ({round(100 * second / sum(SECOND))}%)")
    expect(bars.locator("td", has_text="(the result)")).to_have_count(1)
    bars.scroll_into_view_if_needed()


@pytest.mark.parametrize("path", first_notebook_calling(r"\bpredict\(", prefer="01_"), ids=lambda p: p.stem)
def test_the_room_votes_twice_and_sees_both_votes_beside_the_truth(voila, path):
    page = voila(path.name)
    box = choice_box(page)
    expect(box).to_be_visible()
    # Each count field is named by its answer for a screen reader ("votes for <option>"), its label taking no room.
    field = box.locator(".predict-vote-field input").first
    name = field.evaluate("e => e.labels.length ? e.labels[0].textContent : ''")
    # 1 px, zoomed 1.5 times for the projector.
    assert name.startswith("votes for ") and field.evaluate("e => e.labels[0].getBoundingClientRect().width") <= 2
    run_the_vote(box)
    assert box.evaluate(JS_OVERFLOW) <= 1, "the vote is wider than the notebook"
    blocking = [v for v in axe_violations(page, ".predict") if v["impact"] in BLOCKING]
    assert not blocking, describe(blocking)
    screenshot(page, "lecture-vote-light.png", box)


@pytest.mark.parametrize("path", first_notebook_calling(r"\bpredict\(", prefer="01_"), ids=lambda p: p.stem)
def test_the_vote_reads_in_the_dark_theme(request, browser, voila_server, path):
    """The same vote on the lecture page in Voila's dark theme (a page of its own, run in a fresh kernel)."""
    page = open_lecture_page(browser, voila_server, f"{path.name}?theme=dark")
    try:
        box = choice_box(page)
        expect(box).to_be_visible()
        run_the_vote(box)
        assert box.evaluate(JS_OVERFLOW) <= 1, "the vote is wider than the notebook"
        for part, what in ((box.locator(".predict-vote-bars td").first, "an answer of the bars"),
                           (box.locator(".predict-vote-bars td").nth(1), "a count beside its bar"),
                           (box.locator(".predict-vote").first, "the vote panel")):
            background, text, ratio = seen(part)
            assert background < 0.06 and text > 0.5 and ratio >= 4.5, (what, background, text, ratio)
        screenshot(page, "lecture-vote-dark.png", box)
    finally:
        screenshot_on_failure(request, page)
        page.context.close()
