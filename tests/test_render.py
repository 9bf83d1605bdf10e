"""HTML and matplotlib rendering: numbers, labels, colours, masked cells, safety."""

import re

import numpy as np
import pytest
from css_colours import contrast, hue_angle, rgb
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from helpers.core.numbers import number_text
from helpers.look import theme
from helpers.look.render import (
    MASKED_LEGEND,
    PALETTES,
    WEIGHTS,
    ColourScale,
    attention_weights_html,
    colour_for,
    heatmap,
    heatmaps,
    matrices_html,
    matrix_html,
    number_format,
    shared_scale,
    show_matrix,
    signed_scale,
)

TD = re.compile(r'<td style="([^"]*)"[^>]*>([^<]*)</td>')


def cells(html):
    """(style, text) of every data cell, row by row."""
    return TD.findall(html)


def style_value(style, prop):
    m = re.search(rf"(?:^|;){prop}:([^;]+)", style)
    return m.group(1) if m else None


@pytest.mark.parametrize(
    "x, digits, text",
    [
        (2.0, 2, "2"),
        (0.5, 2, "0.5"),
        (-1.25, 2, "−1.25"),
        (1 / 3, 2, "0.33"),
        (2 / 3, 3, "0.667"),
        (0.0, 2, "0"),
        (0.001, 2, "0.00"),  # not zero, so not shown as an exact 0
        (-0.001, 2, "0.00"),  # never "-0.00": a minus sign on a zero only puzzles
        (-1e-12, 2, "0.00"),
        (-0.004, 3, "−0.004"),
        (-0.4, 0, "0"),
        (float("-inf"), 2, "−∞"),
        (123456.0, 2, "1.23e+05"),
    ],
)
def test_a_table_cell_writes_its_number_as_the_one_formatter_does(x, digits, text):
    assert number_text(x, digits, mark_tiny=True) == text


def test_matrix_html_shows_every_number_and_label():
    M = np.array([[1.0, -2.5], [0.25, 3.0], [7.0, 0.0]])
    html = matrix_html(M, ["the", "cat", "sat"], ["d1", "d2"], title="X", row_axis="Queries ↓", col_axis="Keys →")
    # One format for the whole table: two decimals everywhere, since some values are not whole.
    assert [text for _, text in cells(html)] == ["1.00", "−2.50", "0.25", "3.00", "7.00", "0.00"]
    for label in ("the", "cat", "sat", "d1", "d2", "Queries ↓", "Keys →"):
        assert f">{label}</th>" in html
    assert "X <span" in html and "(3 × 2)" in html


def test_a_table_of_whole_numbers_shows_whole_numbers():
    html = matrix_html(np.array([[1.0, -2.0], [0.0, 30.0]]))
    assert [text for _, text in cells(html)] == ["1", "−2", "0", "30"]
    # The legend's ends (and its middle, 0) are written in the table's format too.
    assert re.search(r"<span>−30</span>.*<span>0</span>.*<span>30</span>", html)
    # ... and decide it: a scale from 0.5 needs decimals in the cells too.
    html = matrix_html(np.array([[1.0, 2.0]]), vmin=0.5, palette="weights")
    assert [text for _, text in cells(html)] == ["1.00", "2.00"]
    assert re.search(r"<span>0.50</span>.*<span>2.00</span>", html)


@pytest.mark.parametrize(
    "values, digits, fixed, texts",
    [
        ([0.5, 0.25, 1.0], 2, None, ["0.50", "0.25", "1.00"]),
        ([1.0, 0.0, 2.0], 2, None, ["1", "0", "2"]),
        ([1.0, 0.0, 2.0], 2, True, ["1.00", "0.00", "2.00"]),
        ([-0.001, 0.001, -1e-12], 2, None, ["0.00", "0.00", "0.00"]),  # never "-0.00"
        ([-0.004, 1.0], 3, None, ["−0.004", "1.000"]),
        ([-0.4, 2.6], 0, None, ["0", "3"]),  # rounds to zero: no sign either
        ([float("-inf"), 0.5], 2, None, ["−∞", "0.50"]),
        ([123456.0, 0.5], 2, None, ["1.23e+05", "0.50"]),
    ],
)
def test_number_format_is_one_format_per_view(values, digits, fixed, texts):
    fmt = number_format(values, digits, fixed)
    assert [fmt(v) for v in values] == texts


def test_every_cell_sets_its_own_background_and_text_colour():
    M = np.arange(-5, 7, dtype=float).reshape(3, 4)
    html = matrix_html(M)
    for style, _ in cells(html):
        bg, fg = style_value(style, "background"), style_value(style, "color")
        # WCAG AA for normal text is 4.5:1; the numbers must be readable on every colour, in both themes.
        for shade in ("light", "dark"):
            assert contrast(rgb(bg, shade), rgb(fg, shade)) >= 4.5, (bg, fg, shade)
    # The panel takes its colours from the theme (JupyterLab's variables with light fallbacks).
    card = style_value(re.match(r'<div style="([^"]*)"', html).group(1), "background")
    assert card == theme.PANEL_BG and f"color:{theme.PANEL_FG}" in html.split(">", 1)[0]
    assert "var(--jp-layout-color1, #ffffff)" in html


def test_the_weights_scale_runs_from_the_panel_to_one_hue():
    M = np.array([[0.0, 0.5, 1.0]])
    styles = [style_value(s, "background") for s, _ in cells(matrix_html(M, palette="weights"))]
    # 0: the panel's own colour, which the table names once (theme.TABLE_COLOURS) for its cells.
    assert styles[0] == theme.TABLE_PANEL and styles[2] == theme.WEIGHT_HUE
    assert f"--cz:{theme.PANEL_BG};" in matrix_html(M, palette="weights")
    assert styles[1] not in (styles[0], styles[2]) and theme.WEIGHT_HUE in styles[1]


def test_vmin_vmax_fix_the_scale():
    M = np.array([[0.5, 0.5]])
    free = cells(matrix_html(M, vmin=0.0, vmax=1.0, palette="weights"))
    fixed = cells(matrix_html(M, vmin=0.0, vmax=0.5, palette="weights"))
    # 0.5 is half-way on [0, 1], the top on [0, 0.5].
    assert style_value(fixed[0][0], "background") == theme.WEIGHT_HUE
    assert style_value(free[0][0], "background") != theme.WEIGHT_HUE


def test_minus_infinity_is_a_grey_hatched_masked_cell_outside_the_scale():
    M = np.array([[1.0, -np.inf], [2.0, -3.0]])
    html = matrix_html(M)
    c = cells(html)
    # Not a number: a dash, named "masked" for a screen reader, on the theme's grey hatching.
    assert c[1][1] == "—" and "−∞" not in html
    assert 'title="masked" aria-label="masked">—</td>' in html
    assert style_value(c[1][0], "background") == theme.MASKED_FILL
    assert "repeating-linear-gradient" in theme.MASKED_FILL and "var(--jp-layout-color3" in theme.MASKED_FILL
    assert style_value(c[1][0], "color") == theme.MASKED_FG
    # The legend says what the dash means.
    assert MASKED_LEGEND == "masked (blocked before the softmax)" and f"<span>{MASKED_LEGEND}</span>" in html
    # The scale is set by the finite entries only: ±3, so -3 is the full orange of the diverging scale.
    assert style_value(c[3][0], "background") == theme.NEGATIVE_HUE


def test_highlight_outlines_exactly_one_cell():
    M = np.zeros((3, 3))
    c = cells(matrix_html(M, highlight=(1, 2)))
    outlined = [k for k, (style, _) in enumerate(c) if "outline:" in style]
    assert outlined == [1 * 3 + 2]


def test_large_uses_bigger_font():
    M = np.eye(2)
    small = re.search(r"font-size:(\d+)px", matrix_html(M)).group(1)
    large = re.search(r"font-size:(\d+)px", matrix_html(M, large=True)).group(1)
    assert int(large) >= int(small) + 5


def test_title_superscripts_and_escaping():
    html = matrix_html(np.eye(1), title="Q = X·W^Q <b>")
    assert "Q = X·W<sup>Q</sup> &lt;b&gt;" in html


def test_labels_are_escaped():
    html = matrix_html(np.eye(1), ["<script>alert(1)</script>"], ["a&b"])
    assert "<script>" not in html
    assert "&lt;script&gt;" in html and "a&amp;b" in html


def test_bad_arguments_raise_value_error_naming_them():
    with pytest.raises(ValueError, match="row_labels has 1 labels but the matrix has 2"):
        matrix_html(np.eye(2), ["a"])
    with pytest.raises(ValueError, match=r"2-D .*shape \(2, 2, 2\)"):
        matrix_html(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="palette"):
        matrix_html(np.eye(2), palette="jet")


def test_attention_weights_html_adds_row_sums_and_axis_captions():
    W = np.array([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]])
    html = attention_weights_html(W, ["le", "chat"], ["the", "cat", "sat"])
    texts = [t for _, t in cells(html)]
    # Three weights then the row sum, per row.
    # Weights and row sums always with two decimals, even the whole row sums.
    assert texts == ["0.50", "0.25", "0.25", "1.00", "0.10", "0.20", "0.70", "1.00"]
    assert re.search(r"<span>0.00</span>.*<span>1.00</span>", html)  # the legend: the fixed scale's ends
    assert ">row sum</th>" in html and "Queries ↓" in html and "Keys →" in html
    assert "Attention weights" in html and "(2 × 3)" in html
    # Weights share one fixed [0, 1] scale: 0.5 is mid-scale, not the top.
    assert style_value(cells(html)[0][0], "background") != theme.WEIGHT_HUE


def test_a_wide_table_narrows_its_columns_and_turns_long_labels_whole():
    """Ten tokens do not fit a notebook 573 px wide at the usual column width: the columns become as wide as the
    widest number, the labels are turned on their side, whole, each with its text as a tooltip, and the numbers keep
    their size."""
    tokens = "[CLS] i went to the bank to deposit money [SEP]".split()
    W = np.full((10, 10), 0.1)
    wide = attention_weights_html(W, tokens, tokens)
    assert 'style="width:4ch"' in wide  # "0.10": four characters
    for label in [*tokens, "row sum"]:
        assert re.search(rf'<th[^>]* title="{re.escape(label)}" style="[^"]*rotate\(180deg\)[^"]*">'
                         rf"{re.escape(label)}</th>", wide), label
    assert f"font-size:{theme.sizes().font}" in wide
    # Three tokens fit as they are: the usual columns, labels level.
    narrow = attention_weights_html(W[:3, :3], tokens[:3], tokens[:3])
    assert "writing-mode" not in narrow and "title=" not in narrow
    assert f"width:{theme.sizes().cell_width}" in narrow


def test_show_matrix_wraps_html_for_display():
    out = show_matrix(np.eye(2), title="I")
    assert out.data == matrix_html(np.eye(2), title="I")


def test_heatmap_labels_axes_and_annotates():
    from matplotlib.figure import Figure

    W = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    fig = heatmap(W, ["le", "chat"], ["the", "cat", "sat"], title="weights")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["the", "cat", "sat"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["le", "chat"]
    assert ax.get_xlabel() == "Keys →" and ax.get_ylabel() == "Queries ↓"
    assert ax.get_title() == "weights"
    assert len(fig.axes) == 2  # the colour bar
    assert sorted(t.get_text() for t in ax.texts) == sorted(["0.50", "0.50", "0.00", "0.20", "0.30", "0.50"])


def colour_scale(fig):
    return fig.axes[0].images[0].get_clim()


def test_heatmap_of_weights_uses_the_fixed_unit_scale():
    # Weights that peak at 1/3 (07's block-diagonal pattern) still sit on 0..1: a third of the way up.
    W = np.full((3, 3), 1 / 3)
    assert colour_scale(heatmap(W, list("abc"), list("abc"))) == (0.0, 1.0)
    # Another matrix on its own scale, on request; a matrix that cannot be weights is refused by default.
    S = np.array([[-2.0, 5.0]])
    # Signed: symmetric around 0, on the diverging palette.
    fig = heatmap(S, ["q"], ["a", "b"], scale="data")
    assert colour_scale(fig) == (-5.0, 5.0) and fig.axes[0].images[0].get_cmap().name == "course-signed"
    with pytest.raises(ValueError, match=r"fixed \[0, 1\] scale.*−2 to 5.*scale='data'"):
        heatmap(S, ["q"], ["a", "b"])
    with pytest.raises(ValueError, match="scale must be"):
        heatmap(W, list("abc"), list("abc"), scale="auto")


def _luminance(rgba):
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_heatmaps_of_several_heads_share_one_unit_scale_and_label_every_panel():
    W = np.array([[[1.0, 0.0], [0.5, 0.5]], [[0.25, 0.75], [0.0, 1.0]], [[0.5, 0.5], [0.5, 0.5]]])
    fig = heatmaps(W, ["le", "chat"], ["the", "cat"], ["head 1", "head 2", "head 3"], title="three heads")
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["head 1", "head 2", "head 3"]
    for ax in panels:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["the", "cat"]
        assert [t.get_text() for t in ax.get_yticklabels()] == ["le", "chat"]
        assert ax.get_xlabel() == "Keys →" and ax.get_ylabel() == "Queries ↓"
        assert ax.images[0].get_clim() == (0.0, 1.0)
    assert len(fig.axes) == 4  # three panels and one colour bar
    assert fig.get_suptitle() == "three heads"
    assert sorted(t.get_text() for t in panels[1].texts) == ["0.00", "0.25", "0.75", "1.00"]
    # Side by side in one row: the panels' tops line up, left to right.
    boxes = [ax.get_position() for ax in panels]
    assert len({round(b.y1, 6) for b in boxes}) == 1 and boxes[0].x0 < boxes[1].x0 < boxes[2].x0
    assert fig.alt.startswith("three heads: 3 heatmaps side by side.") and "head 2: heatmap" in fig.alt
    assert "head 2: heatmap" in fig.alt and "chat → cat 1." in fig.alt  # head 2: chat reads cat only


def test_heatmaps_of_many_heads_wrap_and_refuse_what_is_not_one_matrix_per_title():
    W = np.full((6, 2, 2), 0.5)
    fig = heatmaps(W, ["a", "b"], ["a", "b"], [f"head {i}" for i in range(1, 7)])
    panels = [ax for ax in fig.axes if ax.images and ax.get_visible()]
    assert len(panels) == 6
    assert len({round(ax.get_position().y1, 6) for ax in panels}) == 2  # four in the first row, two under them
    with pytest.raises(ValueError, match=r"titles must give one title per panel: 6 panels, 2 titles"):
        heatmaps(W, ["a", "b"], ["a", "b"], ["head 1", "head 2"])
    with pytest.raises(ValueError, match=r"weights must be one matrix per panel.*\(2, 2\)"):
        heatmaps(W[0], ["a", "b"], ["a", "b"], ["head 1"])
    with pytest.raises(ValueError, match=r"fixed \[0, 1\] scale"):
        heatmaps(W * 3, ["a", "b"], ["a", "b"], [f"head {i}" for i in range(1, 7)])


def test_heatmap_follows_the_theme_and_a_plain_figure_gets_the_paper():
    """A course heatmap has no background and the theme's text colours (shown as SVG); drawn into a plain figure
    (shown as a PNG), it gets opaque light paper, dark text and a border, whatever matplotlib style is on."""
    import io

    import matplotlib.style
    from IPython.core.pylabtools import print_figure
    from matplotlib.colors import to_rgba
    from matplotlib.figure import Figure
    from PIL import Image

    from helpers.look.render import figure_svg_html

    W = np.array([[0.5, 0.5], [0.2, 0.8]])
    with matplotlib.style.context("dark_background"):  # white text on a black figure
        fig = heatmap(W, ["a", "b"], ["a", "b"], title="weights")
        host = Figure()
        heatmap(W, ["a", "b"], ["a", "b"], ax=host.add_subplot(), annotate=False)

    def texts(f):
        ax = f.axes[0]
        return [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels(), *ax.get_yticklabels()]

    # Themed: nothing opaque behind the heatmap; the text in the ink that the page turns into its text colour.
    assert theme.is_themed(fig) and to_rgba(fig.get_facecolor())[3] == 0
    assert all(to_rgba(t.get_color()) == to_rgba(theme.FIGURE_INK) for t in texts(fig))
    svg = figure_svg_html(fig)
    assert theme.FIGURE_INK not in svg and theme.PANEL_FG in svg
    assert svg.count("<svg ") == 1 and 'role="img"' in svg and 'aria-label="weights: heatmap' in svg
    assert "<style" not in svg  # nothing that would style the rest of the page
    # Paper: opaque light pixels inside a grey border on every side.
    face = to_rgba(host.get_facecolor())
    assert face[3] == 1.0 and _luminance(face) > 0.9, face
    for t in texts(host):
        assert _luminance(to_rgba(t.get_color())) < 0.05, (t.get_text(), t.get_color())
    png = Image.open(io.BytesIO(print_figure(host, "png", bbox_inches="tight"))).convert("RGBA")
    px = np.asarray(png, dtype=float) / 255
    assert px[..., 3].min() == 1.0  # nothing transparent for a dark page to show through
    h, w = px.shape[:2]
    grey = np.all(np.abs(px[..., :3] - to_rgba(theme.FIGURE_EDGE)[:3]) < 0.12, axis=-1)
    assert grey[: h // 8].any(axis=0).mean() > 0.8 and grey[-h // 8:].any(axis=0).mean() > 0.8  # top and bottom
    assert grey[:, : w // 8].any(axis=1).mean() > 0.8 and grey[:, -w // 8:].any(axis=1).mean() > 0.8  # the sides


def test_a_themed_figure_gives_the_same_markup_twice_and_a_long_title_is_not_cut():
    from helpers.look.render import figure_svg_html

    W = np.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]])
    title = "Cross-attention: decoder input (queries) × English (keys)"
    one = figure_svg_html(heatmap(W, ["le", "chat"], ["the", "cat", "sat"], title=title))
    two = figure_svg_html(heatmap(W, ["le", "chat"], ["the", "cat", "sat"], title=title))
    assert one == two
    fig = heatmap(W, ["le", "chat"], ["the", "cat", "sat"], title=title)
    fig.canvas.draw()
    box = fig.axes[0].title.get_window_extent()
    assert "\n" in fig.axes[0].title.get_text() and 0 <= box.x0 and box.x1 <= fig.bbox.width


def test_heatmap_without_annotations_and_with_masked_cells():
    W = np.array([[1.0, -np.inf], [0.5, 0.5]])
    fig = heatmap(W, ["a", "b"], ["a", "b"], annotate=False)
    assert len(fig.axes[0].texts) == 0
    fig = heatmap(W, ["a", "b"], ["a", "b"])
    assert sorted(t.get_text() for t in fig.axes[0].texts) == ["0.50", "0.50", "1.00", "—"]


def masked_patches(ax):
    return [p for p in ax.patches if p.get_hatch()]


def test_heatmap_draws_a_mask_as_hatched_cells_without_numbers_and_explains_them():
    weights = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [np.exp(-10), 0.5, 0.5 - np.exp(-10)]])
    mask = np.tril(np.ones((3, 3), dtype=bool))
    fig = heatmap(weights, list("abc"), list("abc"), mask=mask)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    # The three blocked weights are dashes; the real tiny weight e⁻¹⁰ is still a number.
    assert texts.count("—") == 3 and texts[6] == "0.00"
    assert len(masked_patches(ax)) == 3
    (key,) = fig.legends
    assert [t.get_text() for t in key.get_texts()] == [f"— {MASKED_LEGEND}"]
    assert "3 entries masked (blocked before the softmax)" in fig.alt
    # Without a mask: no hatching, no key.
    plain = heatmap(weights, list("abc"), list("abc"))
    assert not masked_patches(plain.axes[0]) and not plain.legends and "masked" not in plain.alt
    # Several masked panels in one figure explain the hatching once.
    host = render_described_figure(figsize=(8, 3), layout="constrained")
    for k in range(2):
        heatmap(weights, list("abc"), list("abc"), mask=mask, ax=host.add_subplot(1, 2, k + 1))
    assert len(host.legends) == 1
    with pytest.raises(ValueError, match=r"mask must have the matrix's shape \(3, 3\).*\(2, 2\)"):
        heatmap(weights, list("abc"), list("abc"), mask=np.ones((2, 2), dtype=bool))


def render_described_figure(**kwargs):
    from helpers.look.render import described_figure

    return described_figure(**kwargs)


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 5)), elements=finite))
def test_render_never_raises_on_finite_matrices(M):
    n, m = M.shape
    html = matrix_html(M, [f"r{i}" for i in range(n)], [f"c{j}" for j in range(m)], title="M")
    c = cells(html)
    assert len(c) == n * m
    assert all(text and text != "nan" for _, text in c)
    assert "<script" not in html and "http" not in html
    w = attention_weights_html(M, [f"r{i}" for i in range(n)], [f"c{j}" for j in range(m)])
    assert len(cells(w)) == n * (m + 1)


def test_fonts_and_sizes_come_from_the_theme():
    for large in (False, True):
        html = matrix_html(np.eye(2), title="I", large=large, note="a note")
        sz = theme.sizes(large)
        assert f"font-size:{sz.font}" in html and f"font-size:{sz.title}" in html and f"font-size:{sz.small}" in html
        assert f"width:{sz.cell_width}" in html and f"padding:{sz.pad}" in html
        assert theme.MONO in html and theme.SANS in html and f"color:{theme.MUTED_FG}" in html


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=st.floats(-0.0049, 0.0049)))
def test_no_cell_ever_reads_minus_zero(M):
    for html in (matrix_html(M), matrix_html(M, digits=0), attention_weights_html(np.abs(M), None, None)):
        for _, text in cells(html):
            assert not re.fullmatch(r"[-\u2212]0(\.0*)?", text), text
        assert not re.search(r"<span>-0(\.0*)?</span>", html)  # nor the legend


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=finite))
def test_one_table_has_one_number_format(M):
    """Every number in a table has the same count of decimals (or none at all)."""
    texts = [t for _, t in cells(matrix_html(M))]
    plain = [t for t in texts if "e" not in t]
    decimals = {len(t.split(".")[1]) if "." in t else 0 for t in plain}
    assert len(decimals) <= 1, texts


# --------------------------------------------------------------------------- the colour rules


def backgrounds(html):
    return [style_value(style, "background") for style, _ in cells(html)]


def legend_of(html):
    """The legend's visible text: the words and numbers of its spans, in order."""
    tail = html.rsplit("</table>", 1)[1]
    return re.findall(r"<span[^>]*>([^<]*)</span>", tail)


@pytest.mark.parametrize("others", [[0.5], [0.0], [0.25, 0.25], [0.1, 0.2, 0.2]])
def test_a_weight_of_one_half_has_one_colour_whatever_the_other_weights(others):
    row = np.array([[0.5, *others]])
    table = backgrounds(attention_weights_html(row, ["q"], [f"k{j}" for j in range(row.shape[1])]))
    compact = backgrounds(matrix_html(row, scale=WEIGHTS))
    # Half of the weights' hue over the panel: the colour at 0.5 of the fixed [0, 1] scale.
    assert table[0] == compact[0] and theme.WEIGHT_HUE in table[0]
    for shade in ("light", "dark"):
        assert rgb(table[0], shade) == rgb(colour_for(0.5, "weights")[0], shade)
    fig = heatmap(row, ["q"], [f"k{j}" for j in range(row.shape[1])])
    assert colour_scale(fig) == (0.0, 1.0)


def test_a_signed_matrix_is_centred_on_zero_and_mirrors_its_signs():
    M = np.array([[-3.0, 3.0, -1.5, 1.5, 0.0]])
    bg = backgrounds(matrix_html(M))
    # ±3 are the full hues, ±1.5 half of each over the panel, 0 the panel itself.
    assert bg[:2] == [theme.NEGATIVE_HUE, theme.POSITIVE_HUE] and bg[4] == theme.TABLE_PANEL
    for shade in ("light", "dark"):
        assert rgb(bg[2], shade) == rgb(colour_for(0.25, "signed")[0], shade)
        assert rgb(bg[3], shade) == rgb(colour_for(0.75, "signed")[0], shade)
    for shade in ("light", "dark"):
        assert np.allclose(rgb(bg[2], shade), [(a + b) / 2 for a, b in zip(rgb(bg[0]), rgb(bg[4], shade))], atol=0.01)
    # Orange below zero, blue above: the sign is the hue.
    r, g, b = rgb(bg[0])
    assert r > b
    r, g, b = rgb(bg[1])
    assert b > r


@pytest.mark.parametrize("shade", ["light", "dark"])
def test_zero_is_the_panels_own_colour_on_every_scale_in_both_themes(shade):
    panel = rgb(theme.PANEL_BG, shade)
    weights = backgrounds(attention_weights_html(np.array([[0.0, 1.0]]), ["q"], ["a", "b"]))
    signed = backgrounds(matrix_html(np.array([[-2.0, 0.0, 2.0]])))
    one_sided = backgrounds(matrix_html(np.array([[0.0, 2.0]]))) + backgrounds(matrix_html(np.array([[-2.0, 0.0]])))
    for zero in (weights[0], signed[1], one_sided[0], one_sided[3]):
        assert rgb(zero, shade) == panel, zero
    # ... and no zero is white in the dark theme (the brightest thing on the page).
    if shade == "dark":
        assert all(rgb(z, shade) != (1.0, 1.0, 1.0) for z in (weights[0], signed[1]))
    # A figure's colour for 0: fully transparent, so the page's panel shows.
    for scale in (WEIGHTS, signed_scale(np.array([[-2.0, 2.0]]))):
        cmap, lo, hi = scale.colormap()
        zero = (0.0 - lo) / (hi - lo)
        assert cmap(zero)[3] == 0.0


def test_an_all_positive_or_all_negative_matrix_uses_a_one_sided_scale():
    positive, negative = np.array([[1.0, 5.5]]), np.array([[-1.0, -5.5]])
    assert signed_scale(positive) == ColourScale("signed", 0.0, 5.5)
    assert signed_scale(negative) == ColourScale("signed", -5.5, 0.0)
    # The largest entry gets the full hue (not half of a ±5.5 scale), and only one hue is used.
    assert backgrounds(matrix_html(positive))[1] == theme.POSITIVE_HUE
    assert backgrounds(matrix_html(negative))[1] == theme.NEGATIVE_HUE
    assert theme.NEGATIVE_HUE not in matrix_html(positive) and theme.POSITIVE_HUE not in matrix_html(negative)
    # The legend shows the one side: 0 to the largest.
    assert legend_of(matrix_html(positive)) == ["0.00", "", "5.50"]
    assert legend_of(matrix_html(negative)) == ["−5.50", "", "0.00"]
    # The figure too: its colour map and its ends are one-sided.
    fig = heatmap(positive, ["q"], ["a", "b"], scale="data")
    assert colour_scale(fig) == (0.0, 5.5) and fig.axes[0].images[0].get_cmap().name == "course-positive"
    fig = heatmap(negative, ["q"], ["a", "b"], scale="data")
    assert colour_scale(fig) == (-5.5, 0.0) and fig.axes[0].images[0].get_cmap().name == "course-negative"


VIRIDIS_PURPLE = (0x44 / 255, 0x01 / 255, 0x54 / 255)


def test_signed_and_weights_scales_have_distinct_hues_and_no_viridis_purple():
    weights_hue = hue_angle(rgb(theme.WEIGHT_HUE))
    for end in (theme.NEGATIVE_HUE, theme.POSITIVE_HUE):
        gap = abs(hue_angle(rgb(end)) - weights_hue) % 360
        assert min(gap, 360 - gap) >= 25, end  # a scaled score never looks like a weight
    assert abs(hue_angle(rgb(theme.NEGATIVE_HUE)) - hue_angle(rgb(theme.POSITIVE_HUE))) >= 90
    # No colour of a signed table is near viridis' darkest purple (the old "0" of weights) in either theme.
    html = matrix_html(np.linspace(-5.5, 5.5, 23).reshape(1, -1))
    for bg in backgrounds(html):
        for shade in ("light", "dark"):
            assert max(abs(a - b) for a, b in zip(rgb(bg, shade), VIRIDIS_PURPLE)) > 0.15, bg
    # The steps view's case: a scaled score of 5.50 and a weight of 0.01 no longer look alike.
    score = signed_scale(np.array([[5.5, 1.0]])).colour(5.5)[0]
    weight = WEIGHTS.colour(0.01)[0]
    assert contrast(rgb(score), rgb(weight)) > 3


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=st.floats(-1e6, 1e6)))
def test_a_and_minus_a_get_mirrored_colours(M):
    both = np.concatenate([M.ravel(), -M.ravel()])
    scale = signed_scale(both)
    assert scale.lo == -scale.hi
    assert np.array_equal(scale.levels(M), -scale.levels(-M))
    assert scale.colour(0.0) == colour_for(0.5, "signed") and colour_for(0.5, "signed")[0] == theme.PANEL_BG
    one_sided = signed_scale(np.abs(M))
    assert one_sided.lo == 0.0 and (one_sided.levels(np.abs(M)) >= 0).all()


@pytest.mark.parametrize("palette", sorted(PALETTES))
def test_text_is_readable_on_every_colour_of_every_palette(palette):
    for t in np.linspace(0, 1, 257):
        bg, fg = colour_for(t, palette)
        for shade in ("light", "dark"):
            assert contrast(rgb(bg, shade), rgb(fg, shade)) >= 4.5, (palette, t, bg, fg, shade)


def test_the_signed_legend_shows_both_ends_and_zero():
    assert legend_of(matrix_html(np.array([[-1.0, 3.0]]))) == ["−3", "", "0", "", "3"]
    assert legend_of(matrix_html(np.array([[-0.5, 0.25]]))) == ["−0.50", "", "0.00", "", "0.50"]


@pytest.mark.parametrize("html", [
    matrix_html(np.full((2, 3), 0.5)),
    matrix_html(np.zeros((2, 2))),
    matrix_html(np.full((2, 2), -4.0), palette="weights"),
    matrix_html(np.full((1, 2), 7.0), palette="weights", vmin=7.0, vmax=7.0),
    attention_weights_html(np.full((2, 2), 0.5), ["a", "b"], ["a", "b"]),
    matrices_html([np.zeros((2, 2)), np.zeros((2, 2))]),
], ids=["half", "zeros", "weights-constant", "equal-ends", "weights", "shared-zeros"])
def test_no_legend_has_two_equal_ends(html):
    legend = [t for t in legend_of(html) if t]
    numbers = [t for t in legend if re.fullmatch(r"-?[\d.e+]+", t)]
    assert len(numbers) != 2 or numbers[0] != numbers[1], legend
    if len(numbers) < 2:  # a constant matrix says so in words, beside a swatch of its one colour
        assert any(t.startswith("every entry ") for t in legend), legend


def test_a_constant_matrix_says_what_its_one_value_is():
    assert legend_of(matrix_html(np.zeros((2, 2))))[-1] == "every entry 0"
    assert legend_of(matrix_html(np.full((2, 2), 0.5))) == ["0.00", "", "0.50"]  # one-sided: 0 to 0.5
    # Weights keep the fixed [0, 1] legend even when every weight is the same.
    assert legend_of(attention_weights_html(np.full((2, 2), 0.5), None, None))[:3] == ["0.00", "", "1.00"]


def test_masked_weights_are_not_numbers_and_the_legend_says_why():
    mask = np.tril(np.ones((3, 3), dtype=bool))
    tiny = np.exp(-10)
    W = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [tiny, 0.5, 0.5 - tiny]])
    html = attention_weights_html(W, list("abc"), list("abc"), mask=mask)
    texts = [t for _, t in cells(html)]
    # Row by row: the weights (a dash where blocked), then the row sum.
    assert texts == ["1.00", "—", "—", "1.00", "0.50", "0.50", "—", "1.00", "0.00", "0.50", "0.50", "1.00"]
    assert html.count('aria-label="masked"') == 3
    assert legend_of(html)[-2:] == ["—", MASKED_LEGEND]
    # No mask: every weight is a number, 0.00 included, and no masked key.
    plain = attention_weights_html(W, list("abc"), list("abc"))
    assert "—" not in [t for _, t in cells(plain)] and MASKED_LEGEND not in plain
    # The key shows even where the colour legend is left out (the compact explorer).
    assert MASKED_LEGEND in attention_weights_html(W, None, None, mask=mask, legend=False)
    with pytest.raises(ValueError, match=r"mask must have the matrix's shape \(3, 3\)"):
        attention_weights_html(W, None, None, mask=np.ones(4, dtype=bool))


def test_weights_cannot_take_a_diverging_palette():
    with pytest.raises(ValueError, match="palette of attention weights"):
        attention_weights_html(np.eye(2), None, None, palette="signed")
    with pytest.raises(ValueError, match="diverging"):
        signed_scale(np.eye(2), palette="weights")


def test_matrices_compared_share_one_scale_and_one_legend():
    small, big = np.array([[1.0, -0.5]]), np.array([[4.0, -2.0]])
    html = matrices_html([small, big], titles=["W^Q", "W^K"], col_labels=["d1", "d2"])
    bg = backgrounds(html)
    # On its own, 1 would be the top of its scale; beside 4 it is a quarter of the way from the middle.
    assert backgrounds(matrix_html(small))[0] == theme.POSITIVE_HUE
    assert rgb(bg[0]) == rgb(colour_for(0.625, "signed")[0]) and bg[2] == theme.POSITIVE_HUE
    assert shared_scale(small, big) == signed_scale(small, big) and shared_scale(small, weights=True) == WEIGHTS
    # One legend under both cards (the cards have none), one number format in all of them.
    assert html.count("linear-gradient(to right") == 2  # the two halves of the one signed legend
    assert legend_of(html) == ["−4.00", "", "0.00", "", "4.00"]
    # (decimals in the card of whole numbers too, because the other card needs them)
    assert [t for _, t in cells(html)] == ["1.00", "−0.50", "4.00", "−2.00"]
    assert "W<sup>Q</sup>" in html and "W<sup>K</sup>" in html
    # Side by side: the cards sit in one flex row.
    assert re.search(r'display:flex;flex-wrap:wrap[^>]*>(<div style="display:inline-block)', html)
    with pytest.raises(ValueError, match="titles has 1 titles but there are 2 matrices"):
        matrices_html([small, big], titles=["one"])
    with pytest.raises(ValueError, match="at least one matrix"):
        matrices_html([])


def test_figures_are_drawn_denser_and_shown_larger_in_the_lecture_mode(monkeypatch):
    from helpers.look.render import described_figure, figure_img_html

    def shown(html):
        import base64
        import io

        from PIL import Image

        data = re.search(r'base64,([^"]+)"', html).group(1)
        width = re.search(r' width="(\d+)"', html)
        return Image.open(io.BytesIO(base64.b64decode(data))).width, int(width.group(1)) if width else None

    fig = described_figure(paper=True, figsize=(3, 2))  # a paper figure is shown as a PNG
    fig.add_subplot().plot([0, 1], [1, 0])
    monkeypatch.setenv("COURSE_LECTURE", "0")
    pixels, width = shown(figure_img_html(fig))
    assert width is None and pixels == 300  # a notebook stores the figure at its own size, 100 dpi
    monkeypatch.setenv("COURSE_LECTURE", "1")
    dense, width = shown(figure_img_html(fig))
    # Shown 1.4 times larger (ticks read from the back of a room), with two image pixels per screen pixel.
    assert width == 420 and dense == 840


# --------------------------------------------------------------------------- colour that eases in


def test_a_live_views_changed_cells_ease_from_their_old_colour_unless_motion_is_off(monkeypatch):
    from helpers.look.colour_easing import ColourEasing
    from helpers.look.render import linked_weights_html

    easing = ColourEasing()  # the colour memory a widget holds for its live views

    before, after = np.array([[0.5, 0.5], [0.1, 0.9]]), np.array([[0.9, 0.1], [0.1, 0.9]])
    monkeypatch.setenv("COURSE_ANIMATION", "on")
    first = linked_weights_html(before, ["a", "b"], ["x", "y"], title="eased", easing=easing)
    assert "--from-bg" not in first  # nothing to ease from
    second = linked_weights_html(after, ["a", "b"], ["x", "y"], title="eased", easing=easing)
    marked = [style for style, _ in cells(second) if "--from-bg" in style]
    # The two weights that changed start from their old colours; the two that stayed do not move.
    half = theme.scale_fill(theme.WEIGHT_HUE, 128, theme.TABLE_PANEL)
    assert len(marked) == 2 and f"--from-bg:{half};" in marked[0]
    assert f"transition:background-color {theme.COLOUR_EASE_MS}ms" in second
    assert "prefers-reduced-motion:no-preference" in second and theme.COLOUR_EASE_MS == 150
    # A table shown once (not a live view) never eases; COURSE_ANIMATION=off: no live view does.
    assert "--from-bg" not in attention_weights_html(before, ["a", "b"], ["x", "y"], title="eased")
    monkeypatch.setenv("COURSE_ANIMATION", "off")
    assert "--from-bg" not in linked_weights_html(before, ["a", "b"], ["x", "y"], title="eased", easing=easing)
    assert "<style>" not in linked_weights_html(after, ["a", "b"], ["x", "y"], title="eased", easing=easing)


def test_each_widget_eases_from_what_it_drew_itself(monkeypatch):
    # Two explorers with the same titles and tokens keep their own colour memory: an edit in one eases its cells from
    # its own last colours, and the first drawing of another (nothing of its own to ease from) does not ease at all.
    from helpers.widgets.explorer import AttentionExplorer

    monkeypatch.setenv("COURSE_ANIMATION", "on")
    X = np.array([[1.0, 0.0], [0.0, 1.0]])

    def explorer():
        return AttentionExplorer(["a", "b"], X, np.eye(2), np.eye(2), np.eye(2))

    one = explorer()
    one.editors["X"].value = np.array([[3.0, 0.0], [0.0, 3.0]])  # sharper weights: the diagonal grows
    assert "--from-bg" in one.views["weights"].value
    two = explorer()
    assert "--from-bg" not in two.views["weights"].value
