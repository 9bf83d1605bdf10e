"""The notebooks' import path for :mod:`helpers.core.head_analysis`: the names they import from it."""

from helpers.core.head_analysis import (  # noqa: F401
    BANK_SENSES_NO_SHARED_WORDS,
    FIRST_NOUN_NOT_SUBJECT,
    attention_from,
    attention_to,
    content_following,
    cosine,
    mean_distance,
    previous_token_score,
    rank_heads,
    sense_similarity,
    shared_words,
    similarity_matrix,
    special_token_share,
    within_group_share,
    word_vector,
)
