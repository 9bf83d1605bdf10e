"""Matrices as HTML tables and matplotlib figures: the names notebooks import, from the modules that do each job.

- :mod:`helpers.look.colour_scales`: which colour a number gets (:class:`ColourScale`, :data:`WEIGHTS`,
  :func:`signed_scale`, :func:`shared_scale`, :func:`colour_map`) and the legends;
- :mod:`helpers.core.numbers`: how a number is written (:func:`number_format`, one format per view);
- :mod:`helpers.look.tables`: matrices as HTML tables (:func:`matrix_html`, :func:`attention_weights_html`,
  :func:`matrices_html`), and their colour easing in a live widget (:mod:`helpers.look.colour_easing`);
- :mod:`helpers.look.display_hooks`: figures a notebook shows with alt text (:func:`described_figure`);
- :mod:`helpers.look.figure_output`: a figure as PNG, SVG or HTML (:func:`figure_svg_html`, :func:`figure_png`);
- :mod:`helpers.look.heatmaps`: attention weights as matplotlib heatmaps (:func:`heatmap`, :func:`heatmaps`).
"""

from __future__ import annotations

from helpers.core.numbers import number_format
from helpers.look.colour_scales import (
    DIVERGING,
    MASKED_LEGEND,
    MASKED_TEXT,
    PALETTES,
    SEQUENTIAL,
    WEIGHTS,
    ColourScale,
    colour_for,
    colour_map,
    level_colour,
    shared_scale,
    signed_scale,
)
from helpers.look.display_hooks import described_figure
from helpers.look.figure_output import (
    diagram_svg_html,
    draw_figure,
    figure_img_html,
    figure_png,
    figure_svg,
    figure_svg_html,
    smaller_png,
)
from helpers.look.heatmaps import heatmap, heatmap_alt, heatmaps
from helpers.look.tables import (
    attention_weights_html,
    labels_or_default,
    linked_matrix_html,
    linked_weights_html,
    matrices_html,
    matrix_html,
    show_matrices,
    show_matrix,
    title_html,
)

__all__ = [
    "PALETTES", "SEQUENTIAL", "DIVERGING", "MASKED_TEXT", "MASKED_LEGEND", "ColourScale", "WEIGHTS", "signed_scale",
    "shared_scale", "colour_for", "number_format", "matrix_html", "matrices_html",
    "show_matrix", "show_matrices", "attention_weights_html", "linked_matrix_html", "linked_weights_html",
    "labels_or_default", "title_html", "heatmap", "heatmaps", "heatmap_alt", "colour_map", "level_colour",
    "described_figure", "diagram_svg_html", "figure_svg", "figure_svg_html", "draw_figure", "figure_png",
    "smaller_png", "figure_img_html"
]
