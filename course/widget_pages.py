"""Reading and driving the course widgets in a real page, the way a learner does; and choosing, from the notebooks
present, which ones build the widget a test drives. Widgets are found by their stable CSS classes (``attn-explorer``,
``attn-editor-X``, ``attn-view-weights``, ``practice-question``, ...), numbers by what the page shows.

The same functions work in JupyterLab and in Voila: each takes a Playwright locator for the region to search (the
open notebook, or the Voila page's body). Expected numbers are computed here with plain numpy from the inputs the page
shows, never with the course's own code, so a wrong formula or a view that does not update both fail.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np

from course.browser import notebook_paths

# Numbers are shown with 2 decimals: a shown weight is within 0.005 of the true one (plus float noise).
SHOWN_ATOL = 0.0051


# The explorers' stable CSS classes (README, "For authors", lists them). Tests find widgets by these, not by the
# titles on screen, so rewording a title cannot break a test. Older callers pass the on-screen names; both forms work.
_EXPLORER_CLASS = {
    "self": "attn-explorer-self",
    "cross": "attn-explorer-cross",
    "Self-attention explorer": "attn-explorer-self",
    "Cross-attention explorer": "attn-explorer-cross",
}
_EDITOR_NAME = {"W^Q": "W_q", "W^K": "W_k", "W^V": "W_v"}


def explorer(region, kind: str = "self"):
    """The explorer of ``kind`` ("self" or "cross"; the header text "Self-attention explorer" is accepted too)."""
    return region.locator(f".{_EXPLORER_CLASS[kind]}").first


def editor_class(name: str) -> str:
    """The CSS class of the explorer's editor ``name``: "X", "W_q", "X_enc" (or "X (", "W^Q" as titled on screen)."""
    name = name.strip().rstrip("(").strip()
    return "attn-editor-" + _EDITOR_NAME.get(name, name)


def editor(root, name: str):
    """The MatrixEditor ``name`` (e.g. "X", "W_q", "X_enc") inside ``root``."""
    return root.locator(f".{editor_class(name)}").first


def editor_message(ed):
    """The line under the grid that tells the learner what is wrong with the typed text."""
    return ed.locator(".matrix-editor-message").first


def editor_shape(ed) -> tuple[int, int]:
    """Rows × columns, from the title the editor shows, e.g. "W^Q (4 × 3)"."""
    text = ed.locator(".matrix-editor-title").first.inner_text()
    m = re.search(r"\((\d+)\s*×\s*(\d+)\)", text)
    assert m, f"no shape in editor title {text!r}"
    return int(m.group(1)), int(m.group(2))


def parse_shown(text: str) -> float:
    """A number as the page shows it: "0.25", "−1", "1/2", "−∞"."""
    t = text.strip().replace("\u2212", "-")
    if t in ("-∞", "-inf"):
        return -np.inf
    if "/" in t:
        return float(Fraction(t.replace(" ", "")))
    return float(t)


def editor_cells(ed):
    """The grid's text inputs, row by row."""
    return ed.locator(".matrix-editor-grid input")


def editor_values(ed) -> np.ndarray:
    n, m = editor_shape(ed)
    texts = editor_cells(ed).evaluate_all("els => els.map(e => e.value)")
    assert len(texts) == n * m, f"editor shows {len(texts)} cells for a {n} × {m} matrix"
    return np.array([parse_shown(t) for t in texts], dtype=float).reshape(n, m)


def type_into_cell(ed, i: int, j: int, text: str) -> None:
    """Select the cell's text, type ``text``, press Enter: what a learner does."""
    _, m = editor_shape(ed)
    cell = editor_cells(ed).nth(i * m + j)
    cell.click()
    cell.press("Control+a")
    cell.press_sequentially(text)
    cell.press("Enter")


def view_table(root, stage: str):
    """The HTML table of the explorer's view ``stage`` ("weights", "scores", ...; "⑤ weights" is accepted too)."""
    stage = stage.split()[-1]
    return root.locator(f".attn-view-{stage}").locator("table").first


def table_numbers(table, drop_last_column: bool = False) -> np.ndarray:
    """The numbers of a rendered matrix: every row that has data cells, label cells left out."""
    rows = table.evaluate(
        "t => [...t.querySelectorAll('tr')]"
        ".map(r => [...r.querySelectorAll('td:not(.matrix-corner)')].map(c => c.textContent))"
    )
    rows = [r[:-1] if drop_last_column else r for r in rows if r]
    return np.array([[parse_shown(c) for c in r] for r in rows], dtype=float)


def weights_shown(root) -> np.ndarray:
    """The explorer's attention weights as shown (the "row sum" column left out)."""
    return table_numbers(view_table(root, "weights"), drop_last_column=True)


def checkbox(root, cls: str) -> bool:
    """Whether the explorer's checkbox with CSS class ``cls`` ("attn-causal", "attn-scale") is ticked."""
    return root.locator(f".{cls} input").first.is_checked()


def attention_weights(X_q, X_kv, W_q, W_k, causal: bool, scale: bool) -> np.ndarray:
    """softmax(Q Kᵀ / √d_k) row by row, with Q = X_q W_q, K = X_kv W_k, keys after the query masked if causal."""
    Q = X_q @ W_q
    K = X_kv @ W_k
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def explorer_inputs(root, cross: bool = False) -> dict:
    """Every matrix and switch the explorer shows, read from the page."""
    names = {"X_q": "X_dec", "X_kv": "X_enc"} if cross else {"X_q": "X", "X_kv": "X"}
    names.update(W_q="W_q", W_k="W_k")
    values = {key: editor_values(editor(root, name)) for key, name in names.items()}
    values["causal"] = checkbox(root, "attn-causal")
    values["scale"] = checkbox(root, "attn-scale")
    return values


# ------------------------------------------------------------------------------------------ choosing what to test


def show_folded(region) -> None:
    """Open every result in ``region`` that is folded until its prediction (helpers.widgets.reveal) with its Show anyway
    button, as a reader who does not predict does: a test of what a notebook shows below its Predict boxes looks at it
    then. Returns once each fold has opened."""
    from playwright.sync_api import expect

    buttons = region.locator(".prediction-fold-show:visible")
    for left in range(buttons.count() - 1, -1, -1):
        buttons.first.scroll_into_view_if_needed()
        buttons.first.click()
        expect(buttons).to_have_count(left)  # the kernel has opened it: its button is gone


def code_texts(path) -> list[str]:
    """Every code cell's source and the text form of its stored outputs, for :func:`notebooks_calling`; read once
    per notebook file (the tests are chosen at collection, by each pytest-xdist worker too)."""
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _CODE_TEXTS:
        # Plain JSON: nbformat's schema validation of these files would take most of the time.
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        _CODE_TEXTS[key] = [
            joined(text)
            for c in cells
            if c["cell_type"] == "code"
            for text in [c["source"]] + [o.get("data", {}).get("text/plain", "") for o in c.get("outputs", [])]
        ]
    return _CODE_TEXTS[key]


def joined(text) -> str:
    """A notebook's multi-line string as one string (the file may store it as a list of lines)."""
    return "".join(text) if isinstance(text, list) else str(text)


_CODE_TEXTS: dict = {}


def notebooks_calling(pattern: str) -> list:
    """The notebooks that build what ``pattern`` (a regular expression) names: in a code cell's source, or in the
    text form of a stored output (a widget built by a demo function shows as ``CrossAttentionExplorer(...)``)."""
    rx = re.compile(pattern)
    return [path for path in notebook_paths() if any(rx.search(t) for t in code_texts(path))]


def first_notebook_calling(pattern: str, prefer: str = "") -> list:
    """The one notebook in which a test drives the widget ``pattern`` names: the first whose name starts with
    ``prefer`` among those that build it, else the first that builds it; [] if none does.

    A widget class is driven in one notebook, not in every notebook that shows it: the other notebooks' copies are
    the same class, drawn and checked by test_notebooks.py in the browser and swept for junk in this process.
    """
    found = notebooks_calling(pattern)
    return ([p for p in found if prefer and p.name.startswith(prefer)] or found)[:1]


def projections_notebook() -> list:
    """The projections notebook (02) if it builds a self-attention explorer, else the first notebook that does."""
    return first_notebook_calling(r"(?<!Cross)AttentionExplorer\(", prefer="02_")


def most_telling_edit(inputs: dict, step: float = 2.0) -> tuple[int, int, float]:
    """The cell of X whose value + ``step`` moves some attention weight the most (so the change is visible)."""
    X = inputs["X_q"]
    base = attention_weights(**inputs)
    best = (0, 0, X[0, 0] + step, -1.0)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            Xe = X.copy()
            Xe[i, j] += step
            moved = np.abs(attention_weights(**{**inputs, "X_q": Xe, "X_kv": Xe}) - base).max()
            if moved > best[3]:
                best = (i, j, Xe[i, j], moved)
    return best[:3]


def shown(x: float) -> str:
    return f"{x:g}".replace("-", "−")  # the typographic minus, as a learner may paste it


# An option list (helpers/widgets/choices.py): one radio group (role=radiogroup) named by its question, each option a
# <label> around its radio input, whose typeset text is the option's accessible name.
CHOICE_GROUP = ".course-choices-options"
CHOICE_OPTION = ".course-choices-option"
CHOICE_QUESTION = ".course-choices-question"


def choice_question(root):
    """The question above the (first) option list in ``root``."""
    return root.locator(CHOICE_QUESTION).first


def choice_options(root):
    """Every option of the option lists in ``root``: a ``<label>`` (click it to choose)."""
    return root.locator(CHOICE_OPTION)


def choice_inputs(root):
    """The radio inputs of the option lists in ``root`` (``.check()`` one to choose it)."""
    return root.locator(f"{CHOICE_OPTION} input[type=radio]")


def prediction_options(box):
    """What a Predict box offers to pick: its options (forms "choice" and "region") or its matrix's entries
    ("cell")."""
    return box.locator(f".predict-input {CHOICE_OPTION}, .predict-input button")
