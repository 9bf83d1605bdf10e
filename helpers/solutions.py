"""The notebooks' import path for :mod:`helpers.widgets.solutions`: the names they import from it."""

from helpers.widgets.solutions import (  # noqa: F401
    instructor_switch,
)
