"""The notebooks' import path for :mod:`helpers.core.pretrained`: the names they import from it."""

from helpers.core.pretrained import (  # noqa: F401
    MiniLM,
)
