"""No prediction's answer shows before its box is committed: in the stored notebooks, the four code cells after each
``predict-commit`` cell print and show nothing that gives the answer away, except inside a fold that waits for that
prediction (helpers.widgets.reveal: on a page without a kernel, a closed <details>).

What gives an answer away is what its reveal shows:

* a number: the truth at 2 and at 3 decimals (``0.27``, ``0.269``; ``0.870`` also as ``0.87``), and as the reveal
  writes it (``64``), each as a whole number: ``0.27`` is not found in ``0.2689`` or ``10.27``;
* an option, a region ("rows 'The', 'cat', 'mat'") or an entry ("row 'sat', column 'cat'"): its words, also as
  numpy or Python print them (a shape ``10 × 32`` as ``(10, 32)``, ``[nan, nan, nan]`` as ``[nan nan nan]``). A line
  that names a rival option as well names them all (a table's labels, a list of tokens), not the answer: it does not
  count.

What is read is what a reader sees in each output, line by line: printed text, ``text/plain``, and the text of
``text/html`` (each output one line, the words of a table or a picture together) with its images' alt text, but
without what a fold of that prediction holds. A ``predict-commit`` cell counts among the four, and its own picture
(the next question and its options) is not read.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from helpers.exercises import Prediction, predictions

from conftest import NOTEBOOKS

CELLS_AFTER = 4
PREDICT_TAG = "predict-commit"
_SHAPE = re.compile(r"^\d+(?: × \d+)+$")
_LIST = re.compile(r"^\[[^\[\]]*\]$")
_ALT = re.compile(r"""\s(?:alt|aria-label)=(?:"([^"]*)"|'([^']*)')""")
_TAG = re.compile(r"<[^>]*>")


def answer_forms(p: Prediction) -> list[str]:
    """The texts that show the answer of ``p`` (see the module docstring)."""
    truth = p.truth_value()
    if p.form == "number":
        forms = {p.text(truth)}
        for digits in (2, 3):
            fixed = f"{truth:.{digits}f}"
            forms |= {fixed, fixed.rstrip("0").rstrip(".")}
        return sorted(forms)
    shown = p.text(truth)
    forms = [shown]
    if _SHAPE.match(shown):
        numbers = shown.split(" × ")
        forms += [f"({', '.join(numbers)})", " x ".join(numbers)]
    if _LIST.match(shown):
        forms.append(shown.replace(", ", " "))
    return forms


def rivals(p: Prediction) -> list[str]:
    """The options other than the answer (a choice or a region); none for a number or an entry."""
    if p.form not in ("choice", "region"):
        return []
    truth = p.text(p.truth_value())
    return [option for option in p.options if option != truth]


def _plain(text: str) -> str:
    """Text as compared: straight quotes, no space around · and ×, spaces collapsed, lower case."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"\s*([·×])\s*", r"\1", text)
    return " ".join(text.split()).casefold()


def _pattern(form: str) -> re.Pattern:
    """``form`` as a whole word or number: no letter, digit or decimal point running on before or after it."""
    body = re.escape(_plain(form))
    return re.compile(rf"(?<![\w.]){body}(?![\w]|\.\d)")


def shows(line: str, p: Prediction) -> bool:
    """Whether ``line`` gives the answer of ``p`` away: it names the answer and no rival option."""
    text = _plain(line)
    if not any(_pattern(form).search(text) for form in answer_forms(p)):
        return False
    return not any(_pattern(other).search(text) for other in rivals(p))


_DETAILS = re.compile(r"<details\b|</details>")


def _without_own_folds(markup: str, name: str) -> str:
    """HTML without what the folds waiting for the prediction ``name`` hold (each its closed <details>, up to the
    </details> that closes it: what it holds may have <details> of its own)."""
    start = re.compile(rf"<div class='[^']*prediction-fold[^']*' data-prediction='{re.escape(name)}'>")
    while (fold := start.search(markup)) is not None:
        depth, end = 0, len(markup)
        for tag in _DETAILS.finditer(markup, fold.end()):
            depth += 1 if tag.group(0) != "</details>" else -1
            if depth == 0:
                end = tag.end()
                break
        markup = markup[:fold.start()] + " " + markup[end:]
    return markup


def lines_shown(output: dict, name: str) -> list[str]:
    """What a reader sees of one stored output, line by line (HTML: one line of its words and alt texts)."""
    if output.get("output_type") == "stream":
        return "".join(output.get("text", "")).splitlines()
    data = output.get("data", {})
    lines = "".join(data.get("text/plain", "")).splitlines()
    markup = _without_own_folds("".join(data.get("text/html", "")), name)
    if markup.strip():
        markup = re.sub(r"<style\b.*?</style>", " ", markup, flags=re.S)
        alts = " ".join(a or b for a, b in _ALT.findall(markup))
        lines.append(html.unescape(_TAG.sub(" ", markup)) + " " + html.unescape(alts))
    return lines


def tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def predicted_name(cell: dict) -> str:
    return re.search(r"""predict\(\s*["']([^"']+)["']""", "".join(cell["source"])).group(1)


def giveaways(cells: list[dict], known: dict[str, Prediction]) -> list[str]:
    """Every line in the four code cells after a ``predict-commit`` cell that gives its answer away, as
    ``"<prediction>: cell <k>: <line>"``."""
    found = []
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "code" or PREDICT_TAG not in tags(cell):
            continue
        name = predicted_name(cell)
        p = known[name]
        after = [(j, c) for j, c in enumerate(cells) if j > k and c["cell_type"] == "code"][:CELLS_AFTER]
        for j, later in after:
            if PREDICT_TAG in tags(later):
                continue
            for output in later.get("outputs", []):
                found += [f"{name}: cell {j}: {line.strip()[:160]}" for line in lines_shown(output, name)
                          if shows(line, p)]
    return found


def notebook_cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


WITH_PREDICTIONS = [path for path in NOTEBOOKS if any(PREDICT_TAG in tags(c) for c in notebook_cells(path))]


def test_the_notebooks_with_predictions_are_the_ones_that_define_them():
    assert sorted(path.stem for path in WITH_PREDICTIONS) == sorted({p.notebook for p in predictions().values()})


@pytest.mark.parametrize("path", WITH_PREDICTIONS, ids=lambda p: p.stem)
def test_no_answer_shows_in_the_four_code_cells_after_its_box(path):
    found = giveaways(notebook_cells(path), predictions())
    assert not found, (f"{len(found)} lines give a prediction's answer away before its box is committed (fold them "
                       "with helpers.widgets.reveal.after_prediction, or show them later):\n" + "\n".join(found))


# --------------------------------------------------------------------------- the check itself can fail


def _code(source: str, *outputs, tags=()) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)}, "outputs": list(outputs)}


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _html(markup: str) -> dict:
    return {"output_type": "display_data", "data": {"text/plain": "<HTML>", "text/html": markup}}


def _box(name: str) -> dict:
    return _code(f'predict("{name}")', _html("<div>Predict: the options</div>"), tags=[PREDICT_TAG])


def test_a_printed_number_is_found_as_a_whole_number_at_2_and_3_decimals():
    p = predictions()["04-weight-after-the-mask"]  # 0.2689...
    for line in ("[0.269 0.731 0.   ]", "weight 0.27", "0.27, and the rest"):
        assert shows(line, p), line
    for line in ("0.2689 / 1", "10.27", "0.270", "0.2691", "row 'cat' 1.27"):
        assert not shows(line, p), line


def test_an_option_is_found_unless_a_rival_is_named_beside_it():
    shape = predictions()["03-concat-shape"]  # 10 × 512
    assert shows("concat: (10, 512)", shape) and shows("10×512", shape) and not shows("(3, 4)", shape)
    token = predictions()["10-head-1-finding"]  # sat
    assert shows("sat    head 1 0.86   head 2 0.29", token)
    assert not shows("The cat sat on the mat", token)  # the labels of a table name every token
    assert not shows("satellite", token)
    overflow = predictions()["08-naive-overflow"]  # [nan, nan, nan]
    assert shows("exp(s)/Σexp(s) = [nan nan nan]", overflow)


def test_the_check_finds_a_printed_answer_and_not_the_same_answer_in_its_own_closed_fold():
    known = predictions()
    name, other = "06-sat-column-sum", "06-reversed-black-le"
    truth = f"{known[name].truth_value():.2f}"
    fold = (f"<div class='course-snapshot prediction-fold' data-prediction='{{}}'><details><summary>Folded</summary>"
            f"<pre>sum {truth}</pre><details><summary>more</summary></details>{truth}</details></div>")
    printed = [_box(name), _code("print(s)", _stream(f"column sums: {{'sat': {truth}}}\n"))]
    assert giveaways(printed, known) == [f"{name}: cell 1: column sums: {{'sat': {truth}}}"]
    assert giveaways([_box(name), _code("s", _html(fold.format(name)))], known) == []
    # A fold that waits for another prediction does not hide this one's answer.
    assert len(giveaways([_box(name), _code("s", _html(fold.format(other)))], known)) == 1
    # Only four code cells on (markdown between them does not count), and not the next box's own picture.
    far = [_box(name), *[_code("x") for _ in range(CELLS_AFTER)], printed[1]]
    markdown = {"cell_type": "markdown", "source": "text", "metadata": {}}
    near = [_box(name), markdown, _code("x"), markdown, printed[1]]
    assert giveaways(far, known) == [] and len(giveaways(near, known)) == 1
    assert giveaways([_box(name), _code(f'predict("{other}")', _stream(truth), tags=[PREDICT_TAG])], known) == []


# --------------------------------------------------------------------------- no prediction asked in prose alone

# "**Predict:**", "**Predict, then run.**" or a heading "### Predict, then run: ..." asks for a prediction; the
# words "the **Predict** box" name the box and ask nothing.
_ASKS = re.compile(r"\*\*Predict\b[^*]*[:.]\*\*|^#+ Predict\b", re.M)


def prose_predictions(cells: list[dict]) -> list[str]:
    """The markdown cells that ask for a prediction with no ``predict-commit`` box among the code cells that follow
    them up to the next markdown cell, as ``"cell <k>: <the words>"``."""
    found = []
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "markdown" or not (asked := _ASKS.search("".join(cell["source"]))):
            continue
        following = []
        for later in cells[k + 1:]:
            if later["cell_type"] == "markdown":
                break
            following.append(later)
        if not any(PREDICT_TAG in tags(c) for c in following):
            found.append(f"cell {k}: {asked.group(0)}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_prediction_the_text_asks_for_is_committed_in_a_box(path):
    found = prose_predictions(notebook_cells(path))
    assert not found, ("a prediction asked in prose only: commit it in a Predict box (helpers.widgets.predict) right "
                       "after, or say it as a statement:\n" + "\n".join(found))


def test_the_prose_check_finds_a_question_without_a_box_and_not_the_words_that_name_the_box():
    def markdown(text):
        return {"cell_type": "markdown", "source": text, "metadata": {}}

    asked = markdown("**Predict:** which token wins?")
    assert prose_predictions([asked, _code("run()")]) == ["cell 0: **Predict:**"]
    assert prose_predictions([asked, _box("06-sat-column-sum"), _code("run()")]) == []
    assert prose_predictions([markdown("### Predict, then run: swap them"), _code("x"), markdown("more"),
                              _box("06-sat-column-sum")]) == ["cell 0: ### Predict"]
    assert prose_predictions([markdown("Commit your guess in the **Predict** box."), _code("x")]) == []
