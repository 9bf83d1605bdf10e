"""A result folded until its prediction is committed (helpers.widgets.reveal), in JupyterLab: a closed <details> saying
why before anything runs, folded after Run All with the reason and Show anyway, readable in the light and the dark
theme; committing the prediction in the box above opens it, and it then shows what the stored notebook's picture holds.

Screenshots go to $COURSE_SCREENSHOTS when it is set: fold-<notebook>-stored-light.png and -stored-dark.png (before
anything runs), fold-<notebook>-light.png, -dark.png, -open.png and -shown-anyway.png.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from course.widget_pages import first_notebook_calling, prediction_options
from helpers.exercises import predictions
from helpers.widgets.reveal import FOLDED, fold_summary

from .test_dark import DARK, LIGHT, SHOTS, assert_dark_panel, screenshot, set_theme
from .test_interactions import run_notebook
from .test_stored_pictures import open_stored


def folded_choice(path) -> tuple[str, str]:
    """The first prediction of the notebook that is a choice and has a fold, and the first line its stored fold holds
    (what the fold must show once it opens)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for name, p in predictions().items():
        if p.notebook != path.stem or p.form != "choice":
            continue
        for cell in cells:
            for out in cell.get("outputs", []):
                picture = "".join(out.get("data", {}).get("text/html", ""))
                held = re.search(rf"data-prediction='{re.escape(name)}'>.*?</summary><pre>([^\n<]+)", picture, re.S)
                if held:
                    return name, html.unescape(held.group(1)).strip()
    raise AssertionError(f"{path.name}: no choice prediction has a fold")


def question(name: str) -> str:
    """What the fold of the prediction ``name`` asks, after its reason: the question its box shows too."""
    return fold_summary(name).removeprefix(f"{FOLDED}: ")


@pytest.mark.parametrize("path", first_notebook_calling(r"after_prediction\(", prefer="01_"), ids=lambda p: p.stem)
def test_a_folded_answer_is_readable_in_both_themes_and_opens_when_its_prediction_is_committed(lab, jupyter_home,
                                                                                               path):
    name, first_line = folded_choice(path)
    asked = question(name)

    # Before anything runs (the stored notebook, trusted as `make lab` opens it): a closed <details> saying why.
    open_stored(lab, jupyter_home, path.stem, trusted=True)
    picture = lab.notebook.locator(".course-snapshot.prediction-fold").filter(has_text=asked).first
    summary = picture.locator("summary").first
    expect(summary).to_contain_text(f"{FOLDED}: {asked}")
    assert picture.locator("details").first.get_attribute("open") is None
    expect(picture.locator("details pre").first).to_be_hidden()
    assert first_line not in lab.notebook.inner_text(), "the stored notebook shows the folded result"
    screenshot(lab.page, f"fold-{path.stem[:2]}-stored-light.png", picture)
    try:
        set_theme(lab.page, DARK)
        assert_dark_panel(summary, "the stored fold's summary")
        screenshot(lab.page, f"fold-{path.stem[:2]}-stored-dark.png", picture)
    finally:
        set_theme(lab.page, LIGHT)

    # Run: the live fold, folded, with Show anyway.
    run_notebook(lab, path)
    fold = lab.notebook.locator(".prediction-fold").filter(has_text=asked).first
    box = lab.notebook.locator(".predict").filter(has_text=asked).first
    reason = fold.locator(".prediction-fold-reason").first
    output = fold.locator(".prediction-fold-output").first
    show_anyway = fold.locator(".prediction-fold-show").first
    fold.scroll_into_view_if_needed()
    expect(reason).to_contain_text(FOLDED)
    expect(show_anyway).to_be_visible()
    expect(output).to_be_hidden()
    assert first_line not in lab.notebook.inner_text(), "the folded result shows before the commit"
    shoot(lab, box, fold, f"fold-{path.stem[:2]}-light.png")
    try:
        set_theme(lab.page, DARK)
        assert_dark_panel(reason.locator("div").first, "the fold's reason")
        shoot(lab, box, fold, f"fold-{path.stem[:2]}-dark.png")
    finally:
        set_theme(lab.page, LIGHT)

    # Commit a prediction in the box above (any option): the fold opens and shows what the cell printed.
    box.scroll_into_view_if_needed()
    prediction_options(box).first.click()
    box.locator(".predict-commit").first.click()
    expect(box.locator(".predict-reveal").first).to_contain_text("Your prediction")
    expect(output).to_be_visible()
    expect(output).to_contain_text(first_line)
    expect(reason).to_be_hidden()
    shoot(lab, box, fold, f"fold-{path.stem[:2]}-open.png")

    # Show anyway, on a fold that holds a table: the table, as the cell displayed it.
    folds = lab.notebook.locator(".prediction-fold")
    k = next(k for k in range(folds.count())
             if folds.nth(k).locator(".prediction-fold-reason").first.is_visible()
             and folds.nth(k).locator(".prediction-fold-output table").count())
    table_fold = folds.nth(k)  # by its place: a locator by state would move on to the next fold once this one opens
    table_fold.scroll_into_view_if_needed()
    table_fold.locator(".prediction-fold-show").first.click()
    table = table_fold.locator(".prediction-fold-output table").first
    expect(table).to_be_visible()
    assert table.locator("td").count() > 4
    screenshot(lab.page, f"fold-{path.stem[:2]}-shown-anyway.png", table_fold)


def shoot(lab, box, fold, name: str) -> None:
    """A screenshot of the prediction's box and its fold below it, and what lies between (kept when
    $COURSE_SCREENSHOTS is set)."""
    box.scroll_into_view_if_needed()
    top, bottom = box.bounding_box(), fold.bounding_box()
    if bottom["y"] + bottom["height"] - top["y"] > lab.page.viewport_size["height"]:
        fold.scroll_into_view_if_needed()
        top = fold.bounding_box()
        bottom = top
    left = min(top["x"], bottom["x"])
    clip = {"x": left, "y": top["y"], "width": max(top["x"] + top["width"], bottom["x"] + bottom["width"]) - left,
            "height": bottom["y"] + bottom["height"] - top["y"]}
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        lab.page.screenshot(path=str(Path(SHOTS) / name), clip=clip)
