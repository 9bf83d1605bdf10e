"""The notebooks' import path for :mod:`helpers.widgets.reveal`: the names they import from it."""

from helpers.widgets.reveal import (  # noqa: F401
    after_prediction,
)
