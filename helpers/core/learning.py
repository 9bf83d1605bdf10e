"""Learning W^Q and W^K by gradient descent on the copy-the-previous-token task (notebook 15).

The task: a sequence of ``LENGTH`` letters drawn at random from ``VOCAB``. At every position ``i >= 1`` the head
must output the letter at position ``i - 1``. Each token's row of ``X`` is readable::

    pos0 … pos{n-1}   one-hot position: where the token is
    A … E             one-hot letter: what the token is

The values are fixed, ``V`` = the letter one-hot (``W^V`` reads the letter columns and is not trained), so the
head's output row ``o_i = sum_j A_ij v_j`` is a probability distribution over the letters: the share of attention
that lands on each letter. The loss is the cross-entropy of the right letter, averaged over positions 1 … n-1:

    L = -mean_{b, i >= 1} log o_{b, i, y_{b, i}},   y_{b, i} = letter at position i - 1.

Only ``W^Q`` and ``W^K`` learn. The position columns come first, as in :mod:`helpers.core.patterns`, so a learned
``W^Q W^K^T`` can be laid next to the hand-built previous-token head of notebook 07.

This module is the math, plain numpy (:func:`attention_weights`, :func:`loss_and_gradients`,
:func:`softmax_backward`, :func:`train`). The loss curve, the training monitor and the learning-rate lab that draw
its numbers are in :mod:`helpers.demos.learning`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import whole_number
from helpers.core.attention import softmax

__all__ = [
    "VOCAB",
    "LENGTH",
    "feature_names",
    "encode",
    "CopyTask",
    "copy_task",
    "init_weights",
    "attention_weights",
    "softmax_backward",
    "loss_and_gradients",
    "TrainingRun",
    "train",
    "previous_token_share",
]

VOCAB = ("A", "B", "C", "D", "E")
LENGTH = 6


def feature_names(length: int = LENGTH, vocab=VOCAB) -> list[str]:
    """Names of the ``length + len(vocab)`` columns of ``X``: ``pos0`` … then the letters."""
    return [f"pos{i}" for i in range(length)] + [str(v) for v in vocab]


def encode(sequences, vocab=VOCAB):
    """Features and values of equally long letter sequences.

    Parameters
    ----------
    sequences : sequence of str (or of sequences of letters), ``m`` of them, each of length ``n``
    vocab : sequence of str, the letters

    Returns
    -------
    X : ndarray (m, n, n + len(vocab)), one-hot position then one-hot letter
    V : ndarray (m, n, len(vocab)), the letter one-hot (the fixed values)
    letters : ndarray of int (m, n), each letter's index in ``vocab``
    """
    vocab = [str(v) for v in vocab]
    seqs = [list(s) for s in sequences]
    if not seqs or not seqs[0]:
        raise ValueError("sequences must hold at least one non-empty sequence")
    n = len(seqs[0])
    lengths = sorted({len(s) for s in seqs})
    if len(lengths) > 1:
        raise ValueError(f"every sequence must have the same length; got lengths {lengths}")
    unknown = sorted({str(t) for s in seqs for t in s} - set(vocab))
    if unknown:
        raise ValueError(f"sequences contain letters not in vocab {vocab}: {unknown}")
    index = {v: k for k, v in enumerate(vocab)}
    letters = np.array([[index[str(t)] for t in s] for s in seqs], dtype=int)
    m = len(seqs)
    V = np.zeros((m, n, len(vocab)))
    V[np.arange(m)[:, None], np.arange(n)[None, :], letters] = 1.0
    X = np.concatenate([np.broadcast_to(np.eye(n), (m, n, n)), V], axis=-1)
    return X, V, letters


@dataclass
class CopyTask:
    """Sequences of the copy-the-previous-token task, encoded.

    Attributes
    ----------
    sequences : list of str, ``count`` sequences of ``n`` letters
    X : ndarray (count, n, n + len(vocab)), one-hot position then one-hot letter (columns: ``features``)
    V : ndarray (count, n, len(vocab)), the letter one-hot (the fixed values)
    targets : ndarray of int (count, n - 1), the letter (index in ``vocab``) each position 1 … n-1 must copy:
        the one before it
    vocab : tuple of str, the letters
    features : list of str, the column names of ``X``
    """

    sequences: list[str]
    X: np.ndarray
    V: np.ndarray
    targets: np.ndarray
    vocab: tuple[str, ...]
    features: list[str]


def copy_task(count: int = 64, length: int = LENGTH, vocab=VOCAB, seed: int = 0) -> CopyTask:
    """``count`` random sequences of ``length`` letters for the copy-the-previous-token task (seeded).

    Returns
    -------
    CopyTask, with ``X`` (count, length, length + len(vocab)) and ``targets`` (count, length - 1)
    """
    count = whole_number(count, "count")
    length = whole_number(length, "length (a token and the one before it)", low=2)
    vocab = tuple(str(v) for v in vocab)
    rng = np.random.default_rng(seed)
    letters = rng.integers(0, len(vocab), size=(count, length))
    sequences = ["".join(vocab[k] for k in row) for row in letters]
    X, V, letters = encode(sequences, vocab)
    return CopyTask(sequences=sequences, X=X, V=V, targets=letters[:, :-1].copy(), vocab=vocab,
                    features=feature_names(length, vocab))


def init_weights(d_model: int, d_k: int, seed: int = 0, scale: float = 0.1):
    """Small random ``W_q``, ``W_k`` of shape (d_model, d_k): every score starts near 0, every row near uniform."""
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, scale, (d_model, d_k)), rng.normal(0.0, scale, (d_model, d_k))


def _check_weights(X, W_q, W_k):
    X, W_q, W_k = (np.asarray(a, dtype=float) for a in (X, W_q, W_k))
    if W_q.ndim != 2 or W_k.shape != W_q.shape:
        raise ValueError(f"W_q and W_k must be matrices of one shape (d_model, d_k); got W_q {W_q.shape}, "
                         f"W_k {W_k.shape}")
    if X.ndim < 2 or X.shape[-1] != W_q.shape[0]:
        raise ValueError(f"X (..., n, d_model) must have as many columns as W_q has rows; got X {X.shape}, "
                         f"W_q {W_q.shape}")
    return X, W_q, W_k


def attention_weights(X, W_q, W_k) -> np.ndarray:
    """``softmax(X W_q (X W_k)^T / sqrt(d_k))``: X (..., n, d_model), W_q and W_k (d_model, d_k) -> (..., n, n)."""
    X, W_q, W_k = _check_weights(X, W_q, W_k)
    Q, K = X @ W_q, X @ W_k
    return softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(W_q.shape[1]))


def softmax_backward(weights, grad_weights) -> np.ndarray:
    """dL/dscores from dL/dweights, where ``weights = softmax(scores)`` along the last axis.

    Parameters
    ----------
    weights : array_like (..., n), rows summing to 1
    grad_weights : array_like, same shape, dL/dweights

    Returns
    -------
    ndarray, same shape: ``weights * (grad_weights - sum(grad_weights * weights, axis=-1, keepdims=True))``
    """
    A = np.asarray(weights, dtype=float)
    G = np.asarray(grad_weights, dtype=float)
    if A.shape != G.shape or A.ndim == 0:
        raise ValueError(f"weights and grad_weights must be arrays of one shape (..., n); got weights {A.shape}, "
                         f"grad_weights {G.shape}")
    return A * (G - (G * A).sum(axis=-1, keepdims=True))


def loss_and_gradients(W_q, W_k, X, V, targets):
    """The copy task's loss and its gradients with respect to ``W_q`` and ``W_k``.

    Parameters
    ----------
    W_q, W_k : (d_model, d_k)
    X : (m, n, d_model);  V : (m, n, n_letters);  targets : int (m, n - 1), the letter position i must output

    Returns
    -------
    loss : float;  dW_q, dW_k : (d_model, d_k)
    """
    X, W_q, W_k = _check_weights(X, W_q, W_k)
    V = np.asarray(V, dtype=float)
    targets = np.asarray(targets)
    m, n = X.shape[0], X.shape[-2]
    if X.ndim != 3 or V.shape[:2] != (m, n) or V.ndim != 3 or targets.shape != (m, n - 1):
        raise ValueError(f"X (m, n, d_model), V (m, n, n_letters) and targets (m, n - 1) do not fit; got X {X.shape}, "
                         f"V {V.shape}, targets {targets.shape}")
    d_k = W_q.shape[1]
    Q, K = X @ W_q, X @ W_k
    A = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k))
    O = A @ V
    picked = np.take_along_axis(O[:, 1:], targets[..., None], axis=-1)[..., 0]  # (m, n - 1)
    loss = float(-np.log(picked).mean())
    dO = np.zeros_like(O)
    np.put_along_axis(dO[:, 1:], targets[..., None], (-1.0 / (picked.size * picked))[..., None], axis=-1)
    dA = dO @ np.swapaxes(V, -1, -2)
    dS = softmax_backward(A, dA) / np.sqrt(d_k)
    dQ, dK = dS @ K, np.swapaxes(dS, -1, -2) @ Q
    dW_q = np.einsum("mnd,mnk->dk", X, dQ)
    dW_k = np.einsum("mnd,mnk->dk", X, dK)
    return loss, dW_q, dW_k


@dataclass
class TrainingRun:
    """What :func:`train` returns.

    Attributes
    ----------
    W_q, W_k : ndarray (d_model, d_k), the trained weights
    losses : list of float, one per step: the loss before that step's update
    """

    W_q: np.ndarray
    W_k: np.ndarray
    losses: list[float]


def train(task: CopyTask, W_q, W_k, steps: int = 300, lr: float = 1.0,
          callback: Callable[[int, float, np.ndarray, np.ndarray], object] | None = None) -> TrainingRun:
    """Plain gradient descent on the copy task, from copies of ``W_q`` and ``W_k``.

    Parameters
    ----------
    task : CopyTask (or anything with ``X`` (m, n, d_model), ``V`` (m, n, n_letters) and ``targets`` (m, n - 1))
    W_q, W_k : array_like (d_model, d_k), the starting weights (not changed)
    steps : int >= 0;  lr : float > 0, the learning rate
    callback : ``callback(step, loss, W_q, W_k)``, if given, is called after every update (step counts from 1)

    Returns
    -------
    TrainingRun with the trained ``W_q``, ``W_k`` (d_model, d_k) and ``losses`` (one per step)

    Raises
    ------
    ValueError
        If ``steps`` is not a non-negative integer or ``lr`` not a positive finite number, or if training breaks
        down (a step so large that a score or the loss stops being a finite number), saying at which step.
    """
    steps = whole_number(steps, "steps", low=0)
    lr = float(lr)
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr (the learning rate) must be a positive number; got {lr!r}")
    W_q, W_k = np.array(W_q, dtype=float), np.array(W_k, dtype=float)
    losses = []
    for step in range(1, steps + 1):
        # Too large a learning rate overshoots until a weight of the right letter rounds to 0 (log 0 = -inf)
        # or a score overflows: say so instead of letting numpy's warnings or softmax's NaN message out.
        with np.errstate(all="ignore"):
            try:
                loss, dW_q, dW_k = loss_and_gradients(W_q, W_k, task.X, task.V, task.targets)
            except ValueError:
                loss = float("nan")
            if not (np.isfinite(loss) and np.isfinite(dW_q).all() and np.isfinite(dW_k).all()):
                raise ValueError(f"training broke down at step {step} of {steps}: with learning rate {lr:g} the steps "
                                 "overshoot until the loss is no longer a finite number; try a smaller learning rate")
        W_q -= lr * dW_q
        W_k -= lr * dW_k
        losses.append(loss)
        if callback is not None:
            callback(step, loss, W_q, W_k)
    return TrainingRun(W_q=W_q, W_k=W_k, losses=losses)


def previous_token_share(weights) -> float:
    """The mean weight that positions 1 … n-1 give the position just before them: 1.0 for a perfect head."""
    A = np.asarray(weights, dtype=float)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2] or A.shape[-1] < 2:
        raise ValueError(f"weights must be square self-attention weights (..., n, n) with n >= 2; got {A.shape}")
    n = A.shape[-1]
    return float(A[..., np.arange(1, n), np.arange(n - 1)].mean())
