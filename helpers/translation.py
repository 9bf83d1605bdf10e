"""The notebooks' import path for :mod:`helpers.core.translation`: the names they import from it."""

from helpers.core.translation import (  # noqa: F401
    alignment,
    cross_attention,
    input_dim,
    toy_translation,
)
