"""The concept inventory's pre-test at the top of 00, as a learner sees it in JupyterLab at 1400 × 900: readable in the
light and the dark theme, nothing wider than the notebook, and a Submit with questions open answered beside the
button without revealing anything.

Screenshots go to $COURSE_SCREENSHOTS when it is set: inventory-pre-light.png, inventory-pre-dark.png (the first
questions) and inventory-pre-submit-dark.png (the message beside Submit).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from course.browser import notebook_paths
from course.widget_pages import choice_inputs, choice_options, choice_question

from .test_dark import DARK, LIGHT, screenshot, seen, set_theme
from .test_layout import JS_TOO_WIDE, SIZES, run

INDEX = [p for p in notebook_paths() if p.stem == "00_index"]

# Every element of the test that reaches past the right edge of its output area (nothing in it scrolls sideways).
JS_PAST_THE_EDGE = """
(test) => {
  const right = test.closest('.jp-OutputArea-output').getBoundingClientRect().right;
  return [...test.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > right + 1)
    .map(e => `${e.tagName.toLowerCase()}.${String(e.className).split(' ').slice(-1)}`).slice(0, 5);
}
"""


def readable(locator, what: str, dark: bool) -> None:
    """The text at ``locator`` contrasts with what is behind it (WCAG AA), on a page of the theme asked for."""
    background, _, ratio = seen(locator)
    theme = "dark" if dark else "light"
    assert (background < 0.06) == dark, f"{what}: background luminance {background:.3f} in the {theme} theme"
    assert ratio >= 4.5, f"{what}: contrast {ratio:.1f}:1, below WCAG AA"


@pytest.mark.parametrize("path", INDEX, ids=lambda p: p.stem)
def test_the_pre_test_reads_well_in_light_and_dark_and_fits_the_notebook(lab, path):
    width, height = SIZES["1400x900"]
    lab.page.set_viewport_size({"width": width, "height": height})   # the lab fixture puts 1024 × 768 back after
    run(lab, path)
    test = lab.notebook.locator(".concept-inventory-pre")
    expect(test).to_be_visible()
    items = test.locator(".inventory-item")
    assert items.count() >= 15
    try:
        for theme, dark in ((LIGHT, False), (DARK, True)):
            set_theme(lab.page, theme)
            test.locator(".inventory-objective").first.scroll_into_view_if_needed()
            first = items.first
            readable(choice_question(first), "a question", dark)
            readable(choice_options(first).first, "an option", dark)
            readable(test.locator(".inventory-objective").first, "an objective's heading", dark)
            past = test.evaluate(JS_PAST_THE_EDGE)
            assert not past, f"past the notebook's edge in the {theme} theme: {past}"
            screenshot(lab.page, f"inventory-pre-{'dark' if dark else 'light'}.png")
        too_wide = lab.page.evaluate(JS_TOO_WIDE)
        assert not too_wide, "wider than the notebook:\n" + "\n".join(too_wide)

        # Submit with every question but the first open: the message sits beside the button, nothing is revealed.
        choice_inputs(first).first.check()
        submit = test.locator(".inventory-submit")
        submit.scroll_into_view_if_needed()
        submit.click()
        message = test.locator(".inventory-message [role=alert]")
        expect(message).to_contain_text("without an answer")
        readable(message, "the message beside Submit", True)
        button, box = submit.bounding_box(), message.bounding_box()
        assert box["y"] < button["y"] + button["height"] + 40, "the message is beside (or just under) the button"
        assert test.locator(".inventory-verdict [role=status]").count() == 0, "nothing judged before the whole test"
        expect(test.locator(".inventory-result")).to_have_text("")
        screenshot(lab.page, "inventory-pre-submit-dark.png")
    finally:
        set_theme(lab.page, LIGHT)


@pytest.mark.parametrize("path", INDEX, ids=lambda p: p.stem)
def test_an_option_list_is_one_radio_group_with_typeset_names_and_arrow_keys(lab, path):
    """The third question (W^Q and W^K swapped) as a keyboard and a screen reader meet it: one radio group named by
    its question, its math typeset (W<sup>Q</sup>), every option a radio named by its label's text; Tab reaches the
    group once, the arrow keys move the choice, and the kernel hears it (Submit no longer counts it as open)."""
    run(lab, path)
    test = lab.notebook.locator(".concept-inventory-pre")
    item = test.locator(".inventory-item").nth(2)
    item.scroll_into_view_if_needed()
    question = choice_question(item)
    assert question.locator("sup").count() >= 2 and "W^Q" not in question.inner_text()
    group = item.get_by_role("radiogroup")
    expect(group).to_have_count(1)
    expect(group).to_have_accessible_name(question.inner_text().strip())
    radios = item.get_by_role("radio")
    expect(radios).to_have_count(4)
    for k in range(4):
        expect(radios.nth(k)).to_have_accessible_name(choice_options(item).nth(k).inner_text().strip())
    choice_inputs(item).first.focus()
    lab.page.keyboard.press("Space")
    lab.page.keyboard.press("ArrowDown")
    lab.page.keyboard.press("ArrowDown")
    expect(radios.nth(2)).to_be_checked()
    assert [radios.nth(k).is_checked() for k in range(4)] == [False, False, True, False]
    lab.page.keyboard.press("Tab")  # one tab stop: Tab leaves the group, for the next question's
    focused = lab.page.evaluate("() => document.activeElement.closest('.inventory-item')?.innerText ?? ''")
    assert choice_question(item).inner_text() not in focused
    submit = test.locator(".inventory-submit")
    submit.scroll_into_view_if_needed()
    submit.click()
    message = test.locator(".inventory-message [role=alert]")
    expect(message).to_contain_text("4–20)")
    listed = re.search(r"without an answer \(([^)]*)\)", message.inner_text()).group(1)
    open_numbers = set()
    for part in re.split(r",\s*|\s+and\s+", listed):
        low, _, high = part.partition("–")
        open_numbers.update(range(int(low), int(high or low) + 1))
    assert 3 not in open_numbers and 2 in open_numbers, f"question 3 is answered: {listed}"
