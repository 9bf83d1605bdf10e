"""The notebooks' import path for :mod:`helpers.look.flow`: the names they import from it."""

from helpers.look.flow import (  # noqa: F401
    attention_flow,
)
