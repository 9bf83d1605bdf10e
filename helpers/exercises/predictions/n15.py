"""The predictions of 15_learning, computed on its copy task (helpers.core.learning): the same data, starting weights
and training as the notebook's."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from helpers.core.attention import softmax
from helpers.core.explain import fmt
from helpers.core.learning import (
    VOCAB,
    attention_weights,
    copy_task,
    encode,
    init_weights,
    loss_and_gradients,
    previous_token_share,
    train,
)
from helpers.core.numbers import number_text
from helpers.exercises.predictions.prediction import Prediction

_D_K, _STEPS = 4, 300
_EXAMPLE = "BADCAB"   # the sequence the monitor and the heatmaps show


@cache
def _task():
    return copy_task(64, seed=0)


def _start_weights():
    return init_weights(_task().X.shape[-1], _D_K, seed=0, scale=0.1)


@cache
def _trained(lr: float = 1.0):
    """The weights after the notebook's training (300 steps of gradient descent from the small starting weights)."""
    return train(_task(), *_start_weights(), steps=_STEPS, lr=lr)


def _example_weights(W_q, W_k) -> np.ndarray:
    """The head's weights on BADCAB, (6, 6)."""
    X, _, _ = encode([_EXAMPLE])
    return attention_weights(X, W_q, W_k)[0]


# --------------------------------------------------------------------------- the loss at the start

_LOG5, _LOG3 = math.log(len(VOCAB)), math.log(3)   # a guess among five letters; -log(2/6)


def _start_loss() -> float:
    return loss_and_gradients(*_start_weights(), _task().X, _task().V, _task().targets)[0]


def _start_why() -> str:
    return (f"The rows start nearly uniform, 1/6 per position. The right letter sits at i − 1 and, on average, at one "
            f"more position, so its share averages about 2/6; but the loss averages −log of each share, and −log is "
            f"convex: a share of 1/6 costs 1.79, 0.69 more than −log(2/6) = 1.10, one of 3/6 costs 0.69, only 0.41 "
            f"less (Jensen's inequality). The mean of −log of the shares is {fmt(_start_loss(), 3)}: above 1.10, "
            "below log 5.")


# --------------------------------------------------------------------------- the softmax's backward without its row sum

_ERROR_OPTIONS = ("about 0: the term is too small to notice", "small, about 0.01", "large: above 0.1")


def _gradient_error_without_row_sum() -> float:
    """The relative error of dL/dW_q with the softmax's backward as A * dA (the row sum left out), against the right
    gradient, on the notebook's check: 4 sequences (seed 1), weights of scale 0.7."""
    small = copy_task(4, seed=1)
    W_q, W_k = init_weights(small.X.shape[-1], _D_K, seed=1, scale=0.7)
    _, right, _ = loss_and_gradients(W_q, W_k, small.X, small.V, small.targets)
    Q, K = small.X @ W_q, small.X @ W_k
    A = softmax(Q @ np.swapaxes(K, -1, -2) / math.sqrt(_D_K))
    O = A @ small.V
    picked = np.take_along_axis(O[:, 1:], small.targets[..., None], axis=-1)[..., 0]
    dO = np.zeros_like(O)
    np.put_along_axis(dO[:, 1:], small.targets[..., None], (-1.0 / (picked.size * picked))[..., None], axis=-1)
    dS = A * (dO @ np.swapaxes(small.V, -1, -2)) / math.sqrt(_D_K)    # the "- rowsum(dA * A)" left out
    wrong = np.einsum("mnd,mnk->dk", small.X, dS @ K)
    return float(np.linalg.norm(wrong - right) / max(np.linalg.norm(wrong), np.linalg.norm(right)))


def _error_truth() -> str:
    error = _gradient_error_without_row_sum()
    return _ERROR_OPTIONS[0] if error < 1e-3 else _ERROR_OPTIONS[1] if error < 0.1 else _ERROR_OPTIONS[2]


# --------------------------------------------------------------------------- the pattern that forms

_PATTERN_OPTIONS = ("on its own position", "on the position just before it", "on the earlier positions with its "
                    "letter", "spread evenly over the row")


def _pattern_truth() -> str:
    A = _example_weights(_trained().W_q, _trained().W_k)
    tops = A[1:].argmax(axis=1)
    rows = np.arange(1, len(_EXAMPLE))
    if (tops == rows - 1).all():
        return _PATTERN_OPTIONS[1]
    if (tops == rows).all():
        return _PATTERN_OPTIONS[0]
    if np.allclose(A[1:], 1 / len(_EXAMPLE), atol=0.05):
        return _PATTERN_OPTIONS[3]
    return _PATTERN_OPTIONS[2]


# --------------------------------------------------------------------------- three learning rates

_RATES = (0.1, 10.0, 100.0)
_RATE_OPTIONS = ("0.1 only", "10 only", "100 only", "10 and 100", "all three", "none of them")
_LEARNED = 0.9   # the weight on the previous token, in unseen sequences, of a head that learned the pattern


@cache
def _learned_share(lr: float) -> float | None:
    """The weight on the previous token in 500 unseen sequences after 300 steps at ``lr``; None if training broke
    down (the loss stopped being a finite number)."""
    try:
        run = _trained(lr)
    except ValueError:
        return None
    return previous_token_share(attention_weights(copy_task(500, seed=123).X, run.W_q, run.W_k))


def _rates_truth() -> str:
    learned = tuple(r for r in _RATES if (_learned_share(r) or 0.0) > _LEARNED)
    by_rates = {(0.1,): 0, (10.0,): 1, (100.0,): 2, (10.0, 100.0): 3, _RATES: 4, (): 5}
    if learned not in by_rates:
        raise ValueError(f"the rates that learn, {learned}, are none of the options")
    return _RATE_OPTIONS[by_rates[learned]]


def _rates_why() -> str:
    said = []
    for r in _RATES:
        share = _learned_share(r)
        said.append(f"η = {fmt(r)}: " + ("the loss stops being a finite number within a few steps" if share is None
                                          else f"weight {number_text(share, 2, trim=False)} on the previous token"))
    return ("A step is η times the gradient: too small barely moves in 300 steps, too large overshoots until the "
            "weight of the right letter rounds to 0. " + "; ".join(said) + ".")


# --------------------------------------------------------------------------- W^Q R and W^K R

_ROTATE_OPTIONS = ("W^Q changes, the attention weights do not", "both change", "neither changes",
                   "the attention weights change, W^Q does not")


def _rotation():
    R, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(_D_K, _D_K)))   # the notebook's random orthogonal R
    return R


def _rotate_truth() -> str:
    W_q, W_k, R = _trained().W_q, _trained().W_k, _rotation()
    weights_move = not np.allclose(_example_weights(W_q @ R, W_k @ R), _example_weights(W_q, W_k))
    w_q_moves = not np.allclose(W_q @ R, W_q)
    return _ROTATE_OPTIONS[{(True, False): 0, (True, True): 1, (False, False): 2, (False, True): 3}[
        (w_q_moves, weights_move)]]


# --------------------------------------------------------------------------- the roles swapped

_SWAP_OPTIONS = ("still the previous token", "the next token", "the token itself", "spread evenly over the row")


def _swapped_tops() -> np.ndarray:
    return _example_weights(_trained().W_k, _trained().W_q).argmax(axis=1)


def _swap_truth() -> str:
    tops, rows = _swapped_tops()[:-1], np.arange(len(_EXAMPLE) - 1)   # the last row has no next token
    if (tops == rows + 1).all():
        return _SWAP_OPTIONS[1]
    if (tops[1:] == rows[1:] - 1).all():
        return _SWAP_OPTIONS[0]
    if (tops == rows).all():
        return _SWAP_OPTIONS[2]
    return _SWAP_OPTIONS[3]


PREDICTIONS = [
    Prediction(
        name="15-start-loss",
        notebook="15_learning",
        question=("Training starts from small random weights (about ±0.1), so every score is near 0. What is the "
                  "loss, the mean of −log(share of the right letter), at the start?"),
        form="number",
        minimum=0,
        tolerance=0.04,
        truth=_start_loss,
        why=_start_why(),
        thought={
            _LOG5: ("the head guesses among five letters; it averages the letters of all six positions, and the "
                    "right one is always among them (at i − 1), so its share starts near 2/6, not 1/5"),
            _LOG3: ("the loss is −log of the average share, 2/6; it is the average of −log of each position's share, "
                    "and −log is convex: shares below 2/6 cost more than shares above save (Jensen's inequality)"),
            math.log(6): ("the right letter gets 1/6, the share of its own position; it also sits, on average, at "
                          "one more of the six positions"),
            0.0: "nothing is wrong before training; the loss measures the right letter's share, about 2/6 at first",
        },
    ),
    Prediction(
        name="15-missing-row-sum",
        notebook="15_learning",
        question=("Leave the subtracted row sum out of the softmax's backward pass (S̄ = A ⊙ Ā). What relative "
                  "error does the finite-difference check report?"),
        form="choice",
        options=_ERROR_OPTIONS,
        truth=_error_truth,
        why=(f"The row sum is as large as the term it is subtracted from: leaving it out gives a relative error of "
             f"{fmt(_gradient_error_without_row_sum(), 2)}, a gap more than half the size of the larger gradient."),
        thought={
            _ERROR_OPTIONS[0]: ("the row sum is a small correction; it is Σ_j Ā_j A_j, the same size as Ā itself"),
            _ERROR_OPTIONS[1]: ("a missing term makes a small error; it is as large as the term it corrects"),
        },
    ),
    Prediction(
        name="15-pattern-forms",
        notebook="15_learning",
        question=(f"After {_STEPS} steps, where will each row i ≥ 1 of the head's weights on {_EXAMPLE} put its "
                  "largest weight?"),
        form="choice",
        options=_PATTERN_OPTIONS,
        truth=_pattern_truth,
        why=("The loss rewards exactly one thing: weight on position i − 1, whatever its letter. The head learns "
             "that position rule, and keeps it on sequences it never saw."),
        thought={
            _PATTERN_OPTIONS[0]: ("a trained head attends to its own token first; nothing in the loss rewards "
                                  "that here"),
            _PATTERN_OPTIONS[2]: ("the head learns to match letters; the target is the letter before, which can be "
                                  "any letter: only the position says where it is"),
            _PATTERN_OPTIONS[3]: ("300 steps are too few to leave uniform rows; the loss falls to near 0, which "
                                  "needs nearly all the weight on one position"),
        },
    ),
    Prediction(
        name="15-learning-rates",
        notebook="15_learning",
        question=("Train the same head from scratch for 300 steps at η = 0.1, at η = 10 and at η = 100 (η = 1 "
                  "learned it). Which of them learn the previous-token pattern (a weight above 0.9 on the previous "
                  "token, in unseen sequences)?"),
        form="choice",
        options=_RATE_OPTIONS,
        truth=_rates_truth,
        why=_rates_why(),
        thought={
            _RATE_OPTIONS[0]: ("small steps are the safe ones; they are, but in 300 steps η = 0.1 barely leaves the "
                               "uniform start"),
            **dict.fromkeys((_RATE_OPTIONS[2], _RATE_OPTIONS[3]), "a larger step always learns faster; past some "
                            "size a step overshoots, and at η = 100 the loss stops being a finite number"),
            _RATE_OPTIONS[4]: ("the learning rate changes only the speed; too small is too slow for 300 steps, "
                               "too large diverges"),
            "*": "the learning rate hardly matters; it decides whether 300 steps learn anything at all",
        },
    ),
    Prediction(
        name="15-rotate-both",
        notebook="15_learning",
        question=("Multiply both learned matrices on the right by the same random orthogonal R (a rotation or "
                  "reflection, RRᵀ = I): W^Q R and W^K R. What changes?"),
        form="choice",
        options=_ROTATE_OPTIONS,
        truth=_rotate_truth,
        why=("The scores use the matrices only through W^Q (W^K)ᵀ, and W^Q R (W^K R)ᵀ = W^Q R Rᵀ (W^K)ᵀ = "
             "W^Q (W^K)ᵀ: new entries, the same QK circuit, the same weights."),
        thought={
            _ROTATE_OPTIONS[1]: ("new weight matrices mean a new head; only their product W^Q (W^K)ᵀ enters the "
                                 "scores, and R Rᵀ = I leaves it as it was"),
            _ROTATE_OPTIONS[2]: ("a rotation keeps the matrices; it keeps their product, while each matrix's entries "
                                 "move a lot"),
            _ROTATE_OPTIONS[3]: ("the weights follow the rotated vectors; queries and keys turn together, so their "
                                 "dot products stay"),
        },
    ),
    Prediction(
        name="15-swapped-roles",
        notebook="15_learning",
        question=("Swap the two learned matrices: the learned W^K makes the queries and the learned W^Q the keys. "
                  f"Where does each row of the weights on {_EXAMPLE} put its largest weight now?"),
        form="choice",
        options=_SWAP_OPTIONS,
        truth=_swap_truth,
        why=("Swapped, the scores become Sᵀ: the entry that meant \"query i likes key i − 1\" now means \"query "
             "i − 1 likes key i\", so each row looks one token ahead."),
        thought={
            _SWAP_OPTIONS[0]: ("the two matrices do the same job, so swapping changes nothing; W^Q makes the rows of "
                               "the scores and W^K the columns, so swapping transposes them"),
            _SWAP_OPTIONS[2]: ("swapping cancels out and each token finds itself; the scores are transposed, and the "
                               "transpose of 'one before' is 'one after'"),
            _SWAP_OPTIONS[3]: "swapping destroys the pattern; it turns it round: the transpose of 'one before'",
        },
    ),
]
