"""The notebooks' import path for :mod:`helpers.look.render`: the names they import from it."""

from helpers.look.render import (  # noqa: F401
    attention_weights_html,
    colour_map,
    described_figure,
    heatmap,
    matrix_html,
    show_matrices,
    show_matrix,
)
