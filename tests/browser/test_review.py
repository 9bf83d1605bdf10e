"""Notebook 00's progress in JupyterLab, with a few things recorded: the review list links each entry to its notebook,
reads in the light and the dark theme, and Hand in writes the file next to the notebook.

Screenshots go to $COURSE_SCREENSHOTS when it is set: light-00-review.png and dark-00-review.png (the whole view).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from course.browser import notebook_paths
from helpers.exercises.progress import ENV_VAR, read_progress_file, record

from .test_dark import DARK, LIGHT, assert_dark_panel, screenshot, set_theme

INDEX = [p for p in notebook_paths() if p.stem == "00_index"]


@pytest.fixture
def recorded(jupyter_home, monkeypatch):
    """A few records in the progress file the server's kernels use; the file as it was afterwards."""
    path = Path(jupyter_home.env[ENV_VAR])
    before = path.read_bytes() if path.exists() else None
    monkeypatch.setenv(ENV_VAR, str(path))
    record("prediction", "02-output-shape", correct=False, answer="(10, 64)")
    for correct in (False, False, True):
        record("your-turn", "padding_causal_mask", correct=correct)
    record("question", "q3", correct=False, answer="a")
    try:
        yield path
    finally:
        if before is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(before)


@pytest.mark.parametrize("path", INDEX, ids=lambda p: p.stem)
def test_the_review_list_links_to_the_notebooks_in_light_and_dark(lab, jupyter_home, recorded, path):
    lab.run_notebook(f"notebooks/{path.name}")
    view = lab.notebook.locator(".course-progress")
    view.locator(".progress-refresh").click()  # the notebook may have run before these records
    review = view.locator(".progress-review")
    expect(review).to_contain_text("What shape is the output")
    entries = review.locator("li")
    expect(entries).to_have_count(3)
    hrefs = [link.get_attribute("href") for link in review.locator("a").all()]
    assert hrefs == ["02_projections.ipynb", "04_masking.ipynb", "09_practice.ipynb"]
    assert all((jupyter_home.root / "notebooks" / href).is_file() for href in hrefs)
    expect(entries.nth(1)).to_contain_text("write my_padding_causal_mask (right on try 3)")
    expect(view.locator(".progress-notebooks")).to_contain_text("Going further")
    lab.page.set_viewport_size({"width": 1024, "height": 1400})  # the whole view on the screenshot
    view.scroll_into_view_if_needed()
    screenshot(lab.page, "light-00-review.png", view)
    try:
        set_theme(lab.page, DARK)
        assert_dark_panel(entries.first, "a review entry")
        assert_dark_panel(review.locator("a").first, "a link to a notebook", min_text=0.3)
        view.scroll_into_view_if_needed()
        screenshot(lab.page, "dark-00-review.png", view)
    finally:
        set_theme(lab.page, LIGHT)


@pytest.mark.parametrize("path", INDEX, ids=lambda p: p.stem)
def test_hand_in_writes_the_progress_next_to_the_notebook(lab, jupyter_home, recorded, path):
    lab.run_notebook(f"notebooks/{path.name}")
    folder = jupyter_home.root / "notebooks"
    before = set(folder.glob("progress-*.json"))
    view = lab.notebook.locator(".course-progress")
    view.locator(".progress-hand-in").click()
    message = view.locator(".progress-hand-in-message")
    expect(message).to_contain_text("Handed in: progress-")
    (written,) = set(folder.glob("progress-*.json")) - before
    try:
        assert read_progress_file(written).result("prediction", "02-output-shape").answer == "(10, 64)"
        expect(message).to_contain_text(f"{written.name} in {folder}")
    finally:
        written.unlink()
