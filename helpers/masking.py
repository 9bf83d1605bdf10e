"""The notebooks' import path for :mod:`helpers.core.masking`: the names they import from it."""

from helpers.core.masking import (  # noqa: F401
    decoder_example,
)
