"""Decoding (notebook 05's math): what a decoder reads, and a tiny decoder that cheats when nothing stops it.

* **The decoder's input.** A decoder is trained to produce a target sequence; its input is that target shifted one
  place to the right, with :data:`BOS` in front (:func:`shift_right`): the row whose input is target token t - 1 is
  the one that produces target token t. :data:`TARGET` is the French sentence notebook 05 shifts (06 translates it).
* **Cheating.** A tiny next-token "model": one attention head that looks a fixed
  number of positions away (``delta``), followed by a linear read-out fitted by
  least squares. :func:`train` tries every head in :data:`LOOK_OFFSETS` and keeps
  the one that fits the training data best. Without the causal mask the best head
  is ``delta = +1``: it reads the answer (the next token) straight from the input,
  scores 100 % in training and collapses when generating, where the next token does
  not exist yet.

:func:`parse_sentence` reads what the learner types into the cheating demo of :mod:`helpers.demos.decoding`.

Nothing here is random: the corpus is listed below and the least-squares fit has a
unique solution, so every number is reproducible.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from helpers.core.arrays import whole_number
from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention
from helpers.core.masking import BOS
from helpers.core.parsing import quote

__all__ = [
    "BOS",
    "TARGET",
    "shift_right",
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

# ---------------------------------------------------------------------------------
# The decoder's input: the target shifted right
# ---------------------------------------------------------------------------------

# "the black cat sat" in French, one token per row of the decoder (notebook 05 section 1; 06 translates it).
TARGET = ("le", "chat", "noir", "s'", "est", "assis")


def shift_right(target, start: str = BOS) -> list[str]:
    """The decoder's input for a target: ``start`` in front, the last token dropped.

    Parameters
    ----------
    target : sequence of str, length n >= 1, the tokens the decoder must produce
    start : str, the start token

    Returns
    -------
    list of str, length n: row t holds ``target[t - 1]`` (``start`` for t = 0) and produces ``target[t]``
    """
    target = [str(t) for t in target]
    if not target:
        raise ValueError("target must hold at least one token; got none")
    return [start, *target[:-1]]


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
