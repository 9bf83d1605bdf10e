"""The notebooks' import path for :mod:`helpers.widgets.hints`: the names they import from it."""

from helpers.widgets.hints import (  # noqa: F401
    hints,
)
