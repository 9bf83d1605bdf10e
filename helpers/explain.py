"""The notebooks' import path for :mod:`helpers.core.explain`: the names they import from it."""

from helpers.core.explain import (  # noqa: F401
    attention_entry_lines,
    matmul_lines,
    softmax_lines,
    weighted_sum_lines,
)
