"""The notebooks' import path for :mod:`helpers.core.pitfalls`: the names they import from it."""

from helpers.core.pitfalls import (  # noqa: F401
    running_example,
    saturated_query,
    saturation_table,
)
