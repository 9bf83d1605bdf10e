"""The notebooks' import path for :mod:`helpers.core.decoding`: the names they import from it."""

from helpers.core.decoding import (  # noqa: F401
    CORPUS,
    VOCAB,
    best_possible_accuracy,
    corpus_sentences,
    head_features,
    train,
)
