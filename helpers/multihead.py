"""The notebooks' import path for :mod:`helpers.core.multihead`: the names they import from it."""

from helpers.core.multihead import (  # noqa: F401
    rotary_example,
)
