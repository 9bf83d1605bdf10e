"""The notebooks' import path for :mod:`helpers.core.learning`: the names they import from it."""

from helpers.core.learning import (  # noqa: F401
    copy_task,
    encode,
    feature_names,
    init_weights,
    previous_token_share,
)
