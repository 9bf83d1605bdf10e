"""Masks at work (notebook 04's math): the notebook's examples and padded batches.

* **Padding.** :func:`pad_batch` pads sentences of different lengths with :data:`PAD`;
  :func:`batch_mask` combines the key-padding mask with the causal mask (logical and);
  :func:`padded_batch_attention` runs attention over such a batch.
* **The notebook's examples.** :func:`decoder_example` (section 1's four tokens and projections) and
  :func:`batch_example` (section 4's padded batch), written out in the notebook too, so that the predictions and the
  design task of 04 compute their truths from the same numbers the learner sees (05 runs section 1's example again).

:func:`parse_lengths` reads what the learner types into the padding demo of :mod:`helpers.demos.masking`.
The tiny decoder that cheats without the mask is notebook 05's, in :mod:`helpers.core.decoding`.

Nothing here is random: every example is drawn from a seeded generator, so every number is reproducible.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, padding_mask, project_qkv, scaled_dot_product_attention
from helpers.core.parsing import parse_counts

__all__ = [
    "PAD",
    "BOS",
    "DECODER_TOKENS",
    "decoder_example",
    "BATCH_SENTENCES",
    "batch_example",
    "SENTENCE_POOL",
    "pad_batch",
    "batch_mask",
    "padded_batch_attention",
    "parse_lengths",
]

PAD = "<pad>"
BOS = "<s>"

# ---------------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------------

# Sentences the padding demo cuts to the lengths the learner types: sequence b is
# the first lengths[b] words of SENTENCE_POOL[b]. They begin with 04's batch (BATCH_SENTENCES), so the demo's
# first lengths, 3, 5 and 2, show the sentences the notebook's text computes with.
SENTENCE_POOL = [
    "the cat sat on the mat all day".split(),
    "a dog ran home fast for its dinner".split(),
    "birds sing at dawn in the tall trees".split(),
    "we read books by the warm fire tonight".split(),
]
MAX_BATCH = len(SENTENCE_POOL)
MAX_PADDED = min(len(s) for s in SENTENCE_POOL)


def pad_batch(sentences, pad: str = PAD):
    """Pad token lists to the longest one.

    Parameters
    ----------
    sentences : sequence of sequences of str, length batch; none empty
    pad : str, the padding token

    Returns
    -------
    tokens : list of lists of str, shape (batch, n) with n = the longest length
    lengths : list of int, length batch: the real length of each sentence
    """
    sentences = [list(s) for s in sentences]
    if not sentences:
        raise ValueError("sentences must hold at least one sentence; got none")
    lengths = [len(s) for s in sentences]
    if min(lengths) == 0:
        raise ValueError(f"every sentence needs at least one token; got lengths {lengths}")
    n = max(lengths)
    return [s + [pad] * (n - len(s)) for s in sentences], lengths


def batch_mask(lengths, n: int, causal: bool) -> np.ndarray:
    """The mask of a padded batch: key padding, and the causal mask when ``causal``.

    Returns
    -------
    ndarray of bool, shape (batch, n, n): ``True`` where query i of sequence b may
    attend to key j. Padding only blocks *keys*; combined with the causal mask by
    logical and.
    """
    pad = padding_mask(lengths, n)  # (batch, 1, n), broadcasts over the queries
    mask = np.broadcast_to(pad, (len(lengths), n, n))
    if causal:
        mask = mask & causal_mask(n)  # (n, n) broadcasts over the batch
    return mask.copy()


# ---------------------------------------------------------------------------------
# The notebook's own examples (notebook 04 writes them out; tests/test_code_tasks.py checks they agree)
# ---------------------------------------------------------------------------------

# Section 1: the same four tokens run through an encoder (no mask) and a decoder (causal mask).
DECODER_TOKENS = ("<s>", "the", "cat", "sat")
# Section 4: a batch of three sentences of different lengths.
BATCH_SENTENCES = (("the", "cat", "sat"), ("a", "dog", "ran", "home", "fast"), ("birds", "sing"))


def decoder_example():
    """Section 1's example: X (4, 4) of :data:`DECODER_TOKENS` and W^Q, W^K, W^V (4, 2), small integers (seed 71).

    Returns
    -------
    X : ndarray (4, 4)
        Integers from -2 to 2.
    W_q, W_k, W_v : ndarray (4, 2)
        Integers from -1 to 1, drawn after X from the same generator.
    """
    rng = np.random.default_rng(71)
    X = rng.integers(-2, 3, size=(4, 4)).astype(float)
    W_q, W_k, W_v = (rng.integers(-1, 2, size=(4, 2)).astype(float) for _ in range(3))
    return X, W_q, W_k, W_v


def batch_example():
    """Section 4's padded batch: :data:`BATCH_SENTENCES` padded with :data:`PAD`, and their token vectors.

    Returns
    -------
    padded : list of lists of str, shape (3, 5)
    lengths : list of int, the real lengths (3, 5, 2)
    X : ndarray (3, 5, 4)
        One vector per word, integers from -2 to 2 drawn in alphabetical order of the words (seed 7); zeros for
        :data:`PAD`.
    """
    padded, lengths = pad_batch(BATCH_SENTENCES)
    rng = np.random.default_rng(7)
    emb = {w: rng.integers(-2, 3, size=4).astype(float) for w in sorted({w for s in BATCH_SENTENCES for w in s})}
    emb[PAD] = np.zeros(4)
    return padded, lengths, np.array([[emb[w] for w in row] for row in padded])


def _word_vectors(words, d_model: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    vocab = sorted(set(words))
    table = np.round(rng.normal(0.0, 1.0, size=(len(vocab), d_model)), 1)
    return dict(zip(vocab, table))


_POOL_VECTORS = _word_vectors([w for s in SENTENCE_POOL for w in s], d_model=4, seed=0)
_POOL_RNG = np.random.default_rng(1)
# Small seeded projections (one decimal), so the weights are neither uniform nor one-hot.
POOL_W_Q, POOL_W_K, POOL_W_V = (np.round(_POOL_RNG.normal(0.0, 0.6, size=(4, 4)), 1) for _ in range(3))


def padded_batch_attention(tokens, lengths, causal: bool, W_q=None, W_k=None, W_v=None):
    """Attention over a padded batch with the padding (and optionally causal) mask.

    Parameters
    ----------
    tokens : list of lists of str, shape (batch, n); the pad token's vector is all zeros
    lengths : sequence of int, shape (batch,)
    causal : bool
    W_q, W_k, W_v : array_like (4, 4), optional (default: the seeded demo matrices)

    Returns
    -------
    X : ndarray (batch, n, 4)
    mask : ndarray of bool (batch, n, n)
    weights : ndarray (batch, n, n); exactly 0 on padded keys
    output : ndarray (batch, n, 4)
    """
    W_q = POOL_W_Q if W_q is None else W_q
    W_k = POOL_W_K if W_k is None else W_k
    W_v = POOL_W_V if W_v is None else W_v
    n = len(tokens[0])
    zero = np.zeros(4)
    X = np.array([[_POOL_VECTORS.get(t, zero) if t != PAD else zero for t in row] for row in tokens])
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    mask = batch_mask(lengths, n, causal)
    output, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return X, mask, weights, output


def parse_lengths(text: str, max_batch: int = MAX_BATCH, max_len: int = MAX_PADDED) -> list[int]:
    """``"3, 5, 2"`` -> ``[3, 5, 2]``: one length per sentence, as typed into the lengths field.

    Read by :func:`helpers.core.parsing.parse_counts` (so ``"1,5"`` is refused, ``"1, 5"`` is two
    lengths), then checked against the batch: at most ``max_batch`` sentences, each
    1 to ``max_len`` tokens.

    Raises
    ------
    ValueError
        Starting with "lengths: " and saying what is wrong.
    """
    try:
        lengths = parse_counts(text, "length")
    except ValueError as err:
        raise ValueError(f"lengths: {err}") from None
    if len(lengths) > max_batch:
        raise ValueError(f"lengths: at most {max_batch} sentences; got {len(lengths)}")
    if min(lengths) < 1 or max(lengths) > max_len:
        raise ValueError(f"lengths: every length must be between 1 and {max_len}; "
                         f"got {', '.join(map(str, lengths))}")
    return lengths
