"""The notebooks' import path for :mod:`helpers.core.patterns`: the names they import from it."""

from helpers.core.patterns import (  # noqa: F401
    BANK_SENTENCES,
    PHRASES,
    SHUFFLE_ORDER,
    TOKENS,
    bank_embeddings,
    feature_names,
    pattern_attention,
    pattern_weights,
    token_features,
)
