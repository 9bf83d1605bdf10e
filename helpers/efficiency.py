"""The notebooks' import path for :mod:`helpers.core.efficiency`: the names they import from it."""

from helpers.core.efficiency import (  # noqa: F401
    attention_cost,
    decode_with_kv_cache,
    elu_plus_one,
    fit_exponent,
    kept_fraction,
    kv_cache_size,
    linear_attention_weights,
    lora_example,
    lora_parameters,
    peak_memory,
    sliding_window_mask,
    strided_mask,
    two_hop_reach,
)
