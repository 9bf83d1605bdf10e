"""Masks at work (notebook 03's math): padded batches, and a tiny decoder that cheats when nothing stops it.

* **Padding.** :func:`pad_batch` pads sentences of different lengths with :data:`PAD`;
  :func:`batch_mask` combines the key-padding mask with the causal mask (logical and);
  :func:`padded_batch_attention` runs attention over such a batch.
* **The notebook's examples.** :func:`decoder_example` (section 1's four tokens and projections) and
  :func:`batch_example` (section 4's padded batch), written out in the notebook too, so that the predictions and the
  design task of 03 compute their truths from the same numbers the learner sees.
* **Cheating.** A tiny next-token "model": one attention head that looks a fixed
  number of positions away (``delta``), followed by a linear read-out fitted by
  least squares. :func:`train` tries every head in :data:`LOOK_OFFSETS` and keeps
  the one that fits the training data best. Without the causal mask the best head
  is ``delta = +1``: it reads the answer (the next token) straight from the input,
  scores 100 % in training and collapses when generating, where the next token does
  not exist yet.

:func:`parse_lengths` and :func:`parse_sentence` read what the learner types into the demos of
:mod:`helpers.demos.masking` (the padding demo and the cheating demo), which show all of this.

Nothing here is random: the corpus is listed below and the least-squares fit has a
unique solution, so every number is reproducible.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from helpers.arrays import whole_number
from helpers.attention import causal_mask, padding_mask, project_qkv, scaled_dot_product_attention
from helpers.parsing import parse_counts, quote

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
    "CORPUS",
    "corpus_sentences",
    "VOCAB",
    "MAX_LEN",
    "LOOK_OFFSETS",
    "embed",
    "look_head",
    "head_features",
    "fit_readout",
    "NextTokenModel",
    "train",
    "best_possible_accuracy",
    "parse_sentence",
]

PAD = "<pad>"
BOS = "<s>"

# ---------------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------------

# Sentences the padding demo cuts to the lengths the learner types: sequence b is
# the first lengths[b] words of SENTENCE_POOL[b].
SENTENCE_POOL = [
    "the cat sat on the mat all day".split(),
    "a dog ran to the park and back".split(),
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
# The notebook's own examples (notebook 03 writes them out; tests/test_code_tasks.py checks they agree)
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

    Read by :func:`helpers.parsing.parse_counts` (so ``"1,5"`` is refused, ``"1, 5"`` is two
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


# ---------------------------------------------------------------------------------
# A decoder that cheats without the causal mask
# ---------------------------------------------------------------------------------

# (sentence, how many times it appears in the training data)
CORPUS = (
    ("the cat sat .", 3),
    ("the cat slept .", 1),
    ("the dog ran .", 2),
    ("the dog barked .", 1),
    ("a bird flew .", 2),
    ("a bird sang .", 1),
    ("a cat sat .", 1),
    ("a dog ran .", 1),
    ("the bird flew .", 1),
)
MAX_LEN = 5  # "<s>" + three words + "."
LOOK_OFFSETS = (-2, -1, 0, 1, 2)


def corpus_sentences(corpus=CORPUS) -> list[list[str]]:
    """Every training sentence as tokens, ``"<s>"`` first, repeated as often as listed."""
    out = []
    for text, count in corpus:
        out += [[BOS, *text.split()] for _ in range(count)]
    return out


VOCAB = sorted({t for s in corpus_sentences() for t in s})
_INDEX = {t: i for i, t in enumerate(VOCAB)}


def _check_tokens(tokens) -> list[str]:
    tokens = list(tokens)
    if not tokens:
        raise ValueError("tokens must hold at least one token; got none")
    unknown = [t for t in tokens if t not in _INDEX]
    if unknown:
        raise ValueError(f"tokens {unknown} are not in the vocabulary {VOCAB}")
    if len(tokens) > MAX_LEN:
        raise ValueError(f"at most {MAX_LEN} tokens (positions 0..{MAX_LEN - 1}); got {len(tokens)}")
    return tokens


def embed(tokens) -> np.ndarray:
    """One-hot word | one-hot position, shape (n, len(VOCAB) + MAX_LEN)."""
    tokens = _check_tokens(tokens)
    n, v = len(tokens), len(VOCAB)
    X = np.zeros((n, v + MAX_LEN))
    X[np.arange(n), [_INDEX[t] for t in tokens]] = 1.0
    X[np.arange(n), v + np.arange(n)] = 1.0
    return X


def look_head(delta: int, strength: float = 10.0):
    """W^Q, W^K, W^V of a head in which query i looks at key i + delta.

    The queries and keys use only the position part of the embedding: q_i is
    ``strength`` times the one-hot of position i and k_j is the one-hot of position
    ``j - delta``, so ``q_i · k_j = strength`` exactly when ``j = i + delta`` and 0
    otherwise. The values are the one-hot words, so the head's output is (mostly)
    the word it looks at.

    Returns
    -------
    W_q, W_k : ndarray (len(VOCAB) + MAX_LEN, MAX_LEN);  W_v : ndarray (len(VOCAB) + MAX_LEN, len(VOCAB))
    """
    delta = whole_number(delta, "delta", -(MAX_LEN - 1), MAX_LEN - 1)
    v = len(VOCAB)
    d = v + MAX_LEN
    W_q = np.zeros((d, MAX_LEN))
    W_k = np.zeros((d, MAX_LEN))
    W_v = np.zeros((d, v))
    for p in range(MAX_LEN):
        W_q[v + p, p] = strength
        if 0 <= p - delta < MAX_LEN:
            W_k[v + p, p - delta] = 1.0
    W_v[:v, :] = np.eye(v)
    return W_q, W_k, W_v


def head_features(tokens, delta: int, causal: bool, scale: bool = False):
    """The read-out's input at every position: [current word, head output, 1].

    The scores are not divided by √d_k (``scale=False``, the models' setting): the head is built by hand and its
    strength (10, :func:`look_head`) is chosen to put almost all of a query's weight, 0.9998 among 5 keys, on the
    one key it looks for. Divided by √d_k = √5 the same head would put only 0.96 there (``scale=True``, for
    comparison) and blur the word it copies.

    Returns
    -------
    features : ndarray (n, 2 * len(VOCAB) + 1)
    weights : ndarray (n, n), the head's attention weights (Queries ↓, Keys →)
    """
    X = embed(tokens)
    n = X.shape[0]
    Q, K, V = project_qkv(X, *look_head(delta))
    out, weights = scaled_dot_product_attention(Q, K, V, mask=causal_mask(n) if causal else None, scale=scale)
    return np.hstack([X[:, : len(VOCAB)], out, np.ones((n, 1))]), weights


def fit_readout(sentences, delta: int, causal: bool, ridge: float = 1e-3):
    """Least-squares read-out from the features to the one-hot next token.

    Each sentence of n tokens gives n - 1 training pairs (position t -> token t + 1),
    all positions at once, as in teacher-forced training. A small ridge term makes
    the solution unique.

    Returns
    -------
    W_out : ndarray (2 * len(VOCAB) + 1, len(VOCAB))
    mse : float, the mean squared error on the training pairs
    """
    F, Y = [], []
    eye = np.eye(len(VOCAB))
    for s in sentences:
        feats, _ = head_features(s, delta, causal)
        F.append(feats[:-1])
        Y.append(eye[[_INDEX[t] for t in s[1:]]])
    F, Y = np.vstack(F), np.vstack(Y)
    W_out = np.linalg.solve(F.T @ F + ridge * np.eye(F.shape[1]), F.T @ Y)
    return W_out, float(np.mean((F @ W_out - Y) ** 2))


@dataclass
class NextTokenModel:
    """A trained next-token model: one look-``delta`` head and its read-out."""

    causal: bool
    delta: int
    W_out: np.ndarray
    losses: dict = field(default_factory=dict)  # delta -> training mse, for every head tried

    def predict(self, tokens) -> list[str]:
        """The predicted next token at every position of ``tokens`` (all positions at once)."""
        feats, _ = head_features(tokens, self.delta, self.causal)
        return [VOCAB[int(k)] for k in np.argmax(feats @ self.W_out, axis=1)]

    def attention(self, tokens) -> np.ndarray:
        """The head's weights on ``tokens``, shape (n, n)."""
        return head_features(tokens, self.delta, self.causal)[1]

    def accuracy(self, sentences, future_visible: bool = True) -> float:
        """Fraction of next tokens predicted right.

        ``future_visible=True``: each sentence goes in whole, as in training.
        ``False``: position t only gets tokens 0..t, as when generating.
        """
        right = total = 0
        for s in sentences:
            if future_visible:
                preds = self.predict(s)[:-1]
            else:
                preds = [self.predict(s[: t + 1])[-1] for t in range(len(s) - 1)]
            right += sum(p == t for p, t in zip(preds, s[1:]))
            total += len(s) - 1
        return right / total

    def generate(self, start=(BOS,), steps: int = 4) -> list[str]:
        """Greedy generation: append the predicted token, ``steps`` times."""
        tokens = list(start)
        for _ in range(min(steps, MAX_LEN - len(tokens))):
            tokens.append(self.predict(tokens)[-1])
        return tokens


def train(causal: bool, sentences=None, offsets=LOOK_OFFSETS) -> NextTokenModel:
    """Try every look-``delta`` head, fit its read-out, keep the lowest training error."""
    sentences = corpus_sentences() if sentences is None else sentences
    fits = {d: fit_readout(sentences, d, causal) for d in offsets}
    best = min(offsets, key=lambda d: fits[d][1])
    return NextTokenModel(causal, best, fits[best][0], {d: fits[d][1] for d in offsets})


def best_possible_accuracy(sentences) -> float:
    """The highest accuracy any model can reach when it sees only the past.

    For each prefix, the best guess is the most frequent next token after that
    prefix in the data; counted, not fitted.
    """
    following = defaultdict(Counter)
    for s in sentences:
        for t in range(len(s) - 1):
            following[tuple(s[: t + 1])][s[t + 1]] += 1
    right = sum(max(c.values()) for c in following.values())
    return right / sum(sum(c.values()) for c in following.values())


def parse_sentence(text: str) -> list[str]:
    """The tokens of a typed sentence: words from :data:`VOCAB` separated by spaces.

    ``<s>`` is added at the front when missing.

    Raises
    ------
    ValueError
        Starting with "sentence: ": empty, a word not in the vocabulary (quoted), or too long.
    """
    words = str(text).split()
    if not words or words[0] != BOS:
        words = [BOS, *words]
    if len(words) < 2:
        raise ValueError(f"sentence: is empty: type at least one word after {BOS}")
    unknown = [w for w in words if w not in _INDEX]
    if unknown:
        raise ValueError(f"sentence: {quote(unknown[0])} is not in the vocabulary; "
                         f"use: {' '.join(t for t in VOCAB if t != BOS)}")
    if len(words) > MAX_LEN:
        raise ValueError(f"sentence: at most {MAX_LEN - 1} words after {BOS}; got {len(words) - 1}")
    return words
