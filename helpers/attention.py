"""The notebooks' import path for :mod:`helpers.core.attention`: the names they import from it."""

from helpers.core.attention import (  # noqa: F401
    additive_mask,
    causal_mask,
    flash_attention,
    grouped_query_attention,
    head_dim,
    merge_heads,
    multi_head_attention,
    padding_mask,
    project_qkv,
    rotary_embedding,
    scaled_dot_product_attention,
    sinusoidal_positions,
    softmax,
    split_heads,
)
