"""The notebooks' import path for :mod:`helpers.widgets.predict`: the names they import from it."""

from helpers.widgets.predict import (  # noqa: F401
    predict,
)
