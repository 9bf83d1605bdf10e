"""Figures for slides: "Save PNG" / "Save SVG" under an explorer's weights write the heatmap next to the notebook.

Everything goes through the widgets as a learner uses them: the buttons are pressed (``Button.click()``), the files are
opened as another program would (PIL for the PNG, an XML parser for the SVG), and what the row says is read.
"""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from helpers.look.figures import figure_path, safe_name
from helpers.widgets import AttentionExplorer, CrossAttentionExplorer

from conftest import html_text, walk

TOKENS = ["the", "cat", "sat"]
X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, -1.0]])
W_Q = np.array([[1.0, 0.5], [0.0, 1.0]])
W_K = np.array([[0.0, 1.0], [1.0, 0.0]])
W_V = np.array([[2.0, 0.0], [-1.0, 3.0]])
NOTEBOOK = "02_projections"
# Notebook 10's six-token example: d_model = 4, so 1, 2 or 4 heads.
MH_TOKENS = ["The", "cat", "sat", "on", "the", "mat"]
MH_X = np.array([[1.0, 0.0, 0.0, 2.0], [2.0, 1.0, 0.0, 0.0], [0.0, 2.0, 1.0, 0.0],
                 [0.0, 1.0, 2.0, 0.0], [0.0, 0.0, 1.0, 2.0], [1.0, 0.0, 2.0, 0.0]])
MH_W = [np.random.default_rng(18).integers(-1, 2, size=(4, 4)).astype(float) for _ in range(4)]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def notebook_folder(tmp_path, monkeypatch):
    """A kernel of notebooks/02_projections.ipynb, started in its folder as JupyterLab starts it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_SESSION_NAME", f"notebooks/{NOTEBOOK}.ipynb")
    monkeypatch.delenv("VOILA_REQUEST_URL", raising=False)
    return tmp_path


def explorer(**kwargs) -> AttentionExplorer:
    return AttentionExplorer(TOKENS, X, W_Q, W_K, W_V, **kwargs)


def svg_texts(path: Path) -> list[str]:
    """The text of every <text> element of the SVG (parsing it fails on a malformed file)."""
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return ["".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")]


def weights_by_hand(X, W_q, W_k) -> np.ndarray:
    S = (X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def png_size(path: Path) -> tuple[int, int]:
    """The size in pixels of the PNG at ``path``, after checking that it is a complete, valid PNG."""
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        assert image.format == "PNG"
        return image.size


def saved(widget, fmt: str, folder: Path, name: str) -> Path:
    """Press "Save PNG" or "Save SVG" of ``widget``; the file it says it saved, which is where it should be."""
    button = widget.save_weights.png_button if fmt == "png" else widget.save_weights.svg_button
    assert button.description == f"Save {fmt.upper()}"
    button.click()
    path = folder / "figures" / f"{NOTEBOOK}-{name}.{fmt}"
    assert widget.save_weights.message == "" and path.is_file()
    assert f"figures/{NOTEBOOK}-{name}.{fmt}" in html_text(widget.save_weights.saved_html)
    return path


def test_save_png_writes_the_weights_heatmap_next_to_the_notebook_and_says_where(notebook_folder):
    width, height = png_size(saved(explorer(), "png", notebook_folder, "weights"))
    assert 400 <= width <= 3000 and 300 <= height <= 3000, (width, height)  # a slide's figure, not a thumbnail


def test_save_svg_holds_the_token_labels_axes_title_and_the_weights_on_show(notebook_folder):
    ex = explorer()
    ex.editors["X"].set_text(0, 1, "3")  # the file shows the weights on show now, not those it was built with
    ex.causal = True
    texts = svg_texts(saved(ex, "svg", notebook_folder, "weights"))
    for token in TOKENS:
        assert texts.count(token) >= 2, f"{token!r} should label a row and a column: {texts}"
    assert "Queries ↓" in texts and "Keys →" in texts
    assert any(t.startswith("Attention weights") and "causal" in t for t in texts), texts
    edited = X.copy()
    edited[0, 1] = 3.0
    # The last query sees every key under the causal mask: its row is the unmasked one; the first sees only itself.
    for weight in weights_by_hand(edited, W_Q, W_K)[2]:
        assert f"{weight:.2f}" in texts
    assert "1.00" in texts and "0.00" in texts


def test_a_second_save_replaces_the_first_and_the_same_figure_gives_the_same_bytes(notebook_folder):
    ex = explorer()
    ex.save_weights.svg_button.click()
    path = notebook_folder / "figures" / f"{NOTEBOOK}-weights.svg"
    first = path.read_bytes()
    ex.save_weights.svg_button.click()
    assert path.read_bytes() == first
    assert sorted(p.name for p in (notebook_folder / "figures").iterdir()) == [f"{NOTEBOOK}-weights.svg"]


def test_a_cross_attention_explorer_saves_its_non_square_weights_with_both_token_lists(notebook_folder):
    ex = CrossAttentionExplorer(["le", "chat"], TOKENS, X[:2], X, W_Q, W_K, W_V)
    ex.save_weights.svg_button.click()
    texts = svg_texts(notebook_folder / "figures" / f"{NOTEBOOK}-cross-weights.svg")
    for token in ["le", "chat", *TOKENS]:
        assert token in texts


@contextmanager
def read_only(folder: Path):
    """``folder`` read-only for this process; root writes anywhere, so a root process acts as 'nobody' meanwhile."""
    folder.chmod(0o555)
    as_root = os.geteuid() == 0
    if as_root:
        os.seteuid(65534)
    try:
        with pytest.raises(PermissionError):  # the premise: nothing can be written there
            (folder / "probe").write_text("x")
        yield
    finally:
        if as_root:
            os.seteuid(0)
        folder.chmod(0o755)


def multi_head_explorer(h: int = 2):
    from helpers.demos.multihead import MultiHeadExplorer

    return MultiHeadExplorer(MH_TOKENS, MH_X, *MH_W, h=h)


@pytest.mark.parametrize(("make", "name"), [(explorer, "weights"), (multi_head_explorer, "multihead-weights")])
def test_a_read_only_folder_gives_a_message_next_to_the_buttons_not_a_traceback(monkeypatch, make, name):
    # Outside pytest's own temporary folders, which only their owner may enter.
    folder = Path(tempfile.mkdtemp(prefix="course-read-only-"))
    folder.chmod(0o755)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("JPY_SESSION_NAME", f"{NOTEBOOK}.ipynb")
    ex = make()
    ex.save_weights._make_figure().clear()  # fonts and colour maps loaded before the process gives up its rights
    try:
        with read_only(folder):
            ex.save_weights.png_button.click()  # an exception escaping here would fail the test
        message = ex.save_weights.message
        assert message.startswith(f"Could not save figures/{NOTEBOOK}-{name}.png") and "ermission" in message
        assert "Could not save" in html_text(ex.save_weights.saved_html)
        assert ex.save_weights.last_path is None and not (folder / "figures").exists()
        assert ex.last_unexpected is None and ex.save_weights.last_unexpected is None
        # Writable again: the next press saves, and the message gives way to the path.
        ex.save_weights.png_button.click()
        assert ex.save_weights.message == "" and (folder / "figures" / f"{NOTEBOOK}-{name}.png").is_file()
    finally:
        for p in sorted(folder.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        folder.rmdir()


@pytest.mark.parametrize(("env", "value", "expected"), [
    ("JPY_SESSION_NAME", "/home/me/course/notebooks/12_real_model.ipynb", "figures/12_real_model-weights.png"),
    ("VOILA_REQUEST_URL", "http://localhost:8866/voila/render/04_masking.ipynb?x=1", "figures/04_masking-weights.png"),
    ("JPY_SESSION_NAME", "", "figures/weights.png"),
])
def test_the_file_name_comes_from_the_notebook_the_kernel_runs(monkeypatch, env, value, expected):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv("VOILA_REQUEST_URL", raising=False)
    monkeypatch.setenv(env, value)
    assert figure_path("weights", "png").as_posix() == expected


def test_file_names_are_safe():
    assert safe_name("../../etc/passwd") == "etc-passwd"
    assert safe_name("02_projections") == "02_projections"
    assert safe_name("layer 0, head 4") == "layer-0-head-4"
    assert safe_name("///") == "figure"
    path = figure_path("../up/../weights", "svg", notebook="my notebook")
    assert path.parent.as_posix() == "figures" and path.name == "my-notebook-up-weights.svg"
    with pytest.raises(ValueError, match="fmt"):
        figure_path("weights", "pdf")


def test_the_real_models_head_explorer_saves_the_head_on_show_under_its_layer_and_head(notebook_folder):
    from helpers.core.pretrained import MiniLM
    from helpers.demos.real_model import HeadExplorer

    ex = HeadExplorer(MiniLM.load(), "the river bank", layer=0, head=4, show_grid=False)
    ex.head = 2
    ex.save_weights.svg_button.click()
    texts = svg_texts(notebook_folder / "figures" / f"{NOTEBOOK}-layer0-head2.svg")
    for token in ex.tokens:
        assert token in texts
    assert any("layer 0, head 2" in t for t in texts), texts
    for weight in ex.weights[2]:  # the row of 'river', as the table shows it
        assert f"{weight:.2f}" in texts


# --- the other live views of weights: notebook 10's heads, 07's pattern builder, 15's training lab ---------------

def test_the_multi_head_explorer_saves_every_heads_weights_side_by_side_in_one_figure(notebook_folder):
    ex = multi_head_explorer(h=2)
    width, height = png_size(saved(ex, "png", notebook_folder, "multihead-weights"))
    # Two heatmaps side by side: wider than one explorer's, still a figure for one slide.
    assert 1200 <= width <= 4000 and 400 <= height <= 2000 and width > 1.5 * height, (width, height)
    texts = svg_texts(saved(ex, "svg", notebook_folder, "multihead-weights"))
    for token in MH_TOKENS[1:4]:  # "The" and "the" differ; "cat", "sat", "on" label a row and a column of each head
        assert texts.count(token) == 4, f"{token!r} should label a row and a column of both heads: {texts}"
    assert texts.count("Queries ↓") == 2 and texts.count("Keys →") == 2
    assert "Multi-head attention weights: 2 heads of width d_k = 4 / 2 = 2" in texts
    assert "head 1 (columns 0–1 of Q, K, V)" in texts and "head 2 (columns 2–3 of Q, K, V)" in texts
    # One colour scale for both heads, 0 to 1: one colour bar.
    assert [t for t in texts if t in ("0.0", "1.0")] == ["0.0", "1.0"]
    # The numbers are each head's own weights: head 2 reads columns 2 and 3 of Q and K.
    W_q, W_k = MH_W[0], MH_W[1]
    head2 = weights_by_hand(MH_X, W_q[:, 2:], W_k[:, 2:])
    for weight in head2[1]:
        assert f"{weight:.2f}" in texts


def test_the_multi_head_figure_follows_the_heads_and_x_the_learner_chose(notebook_folder):
    ex = multi_head_explorer(h=2)
    ex.h = 4
    ex.editors["X"].set_text(1, 3, "3")  # 'cat' gets a 3 in column 3, the one column of head 4
    texts = svg_texts(saved(ex, "svg", notebook_folder, "multihead-weights"))
    assert "Multi-head attention weights: 4 heads of width d_k = 4 / 4 = 1" in texts
    assert [f"head {i} (column {i - 1} of Q, K, V)" for i in range(1, 5)] == [t for t in texts if t.startswith("head")]
    assert texts.count("cat") == 8
    edited = MH_X.copy()
    edited[1, 3] = 3.0
    for weight in weights_by_hand(edited, MH_W[0][:, 3:], MH_W[1][:, 3:])[1]:
        assert f"{weight:.2f}" in texts


def test_the_pattern_builder_saves_the_weights_on_show_titled_with_the_pattern(notebook_folder):
    from helpers.core.patterns import TOKENS
    from helpers.demos.patterns import PatternBuilder

    b = PatternBuilder(pattern="previous", strength=3.0)
    width, height = png_size(saved(b, "png", notebook_folder, "pattern-weights"))
    assert 600 <= width <= 3000 and 500 <= height <= 3000, (width, height)
    texts = svg_texts(saved(b, "svg", notebook_folder, "pattern-weights"))
    for token in TOKENS:  # each labels a row and a column ('the' twice each)
        assert texts.count(token) == 2 * TOKENS.count(token), f"{token!r}: {texts}"
    assert "Attention weights" in texts and "previous token: each token attends to the one before it" in texts
    # The learner picks another pattern, then edits a weight: the next save says so.
    b.pattern = "vertical"
    b.editors["W_q"].set_text(0, 0, "5")
    texts = svg_texts(saved(b, "svg", notebook_folder, "pattern-weights"))
    assert "vertical: every token attends to [CLS] (weights edited)" in texts
    assert not any(t.startswith("previous token") for t in texts)
    for weight in b.result.weights[3]:  # the row of 'sat', as the table shows it
        assert f"{weight:.2f}" in texts


def test_the_training_lab_saves_the_weights_after_the_run_on_show(notebook_folder):
    from helpers.demos.learning import TrainingLab

    lab = TrainingLab(lr=1.0, steps=60, seed=0)
    width, height = png_size(saved(lab, "png", notebook_folder, "training-weights"))
    assert 600 <= width <= 3000 and 500 <= height <= 3000, (width, height)
    texts = svg_texts(saved(lab, "svg", notebook_folder, "training-weights"))
    for label in ("0 B", "1 A", "2 D", "5 B"):  # position and letter of BADCAB, as the table labels them
        assert texts.count(label) == 2, f"{label!r} should label a row and a column: {texts}"
    assert "After training" in texts and "learning rate 1, 60 steps, seed 0" in texts
    first = texts
    # More steps: the next save shows the new run, and the numbers change with it.
    lab.set_text("steps", "300")
    texts = svg_texts(saved(lab, "svg", notebook_folder, "training-weights"))
    assert "learning rate 1, 300 steps, seed 0" in texts and "learning rate 1, 60 steps, seed 0" not in texts
    numbers = [t for t in texts if t[:2] in ("0.", "1.") and len(t) == 4]
    assert numbers != [t for t in first if t[:2] in ("0.", "1.") and len(t) == 4]
    # A trained previous-token head: '1 A' puts most of its weight on '0 B', as the table shows.
    assert max(lab.result.weights[1]) == lab.result.weights[1][0] > 0.8
    assert f"{lab.result.weights[1][0]:.2f}" in texts


def pattern_builder():
    from helpers.demos.patterns import PatternBuilder

    return PatternBuilder(goal="07-phrase-blocks")  # as notebook 07 shows it


def training_lab():
    from helpers.demos.learning import TrainingLab

    return TrainingLab(lr=1.0, steps=60, seed=0)


@pytest.mark.parametrize("make", [multi_head_explorer, pattern_builder, training_lab])
def test_the_row_is_on_the_live_widget_under_its_weights_and_left_out_of_its_stored_picture(make):
    from helpers.widgets.snapshot import snapshot_html

    widget = make()
    shown = list(walk(widget))  # in screen order
    weights_views = [w for w in shown if w is getattr(widget, "view", None)
                     or {"mh-view-head", "pattern-view-weights"} & set(getattr(w, "_dom_classes", ()))]
    assert weights_views and shown.index(widget.save_weights) > shown.index(weights_views[-1])
    picture = snapshot_html(widget)
    assert "Save PNG" not in picture and "save-figure" not in picture
