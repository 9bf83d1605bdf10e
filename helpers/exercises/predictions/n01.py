"""The predictions of 01_intuition."""

from __future__ import annotations

import numpy as np

from helpers.core.explain import fmt
from helpers.core.lookup import KEYS, QUERY, TITLES, VALUES, lookup
from helpers.exercises.code_tasks.examples import SIX_TOKENS, X6
from helpers.exercises.predictions.prediction import Prediction

_SCORES, _WEIGHTS, _ = lookup(QUERY, KEYS, VALUES)
_PASTA = TITLES.index("Pasta recipes")
_BEST = int(_SCORES.argmax())


def _pasta_weight() -> float:
    """The soft look-up's weight of "Pasta recipes" for the query "what should I feed my cat?"."""
    return float(lookup(QUERY, KEYS, VALUES)[1][_PASTA])


# --------------------------------------------------------------------------- section 6: temperature

_COLD, _HOT = 0.1, 10.0  # the two temperatures asked about; section 6's table shows both


def _weights_at(temperature: float) -> np.ndarray:
    """The look-up's weights of the four documents at ``temperature``."""
    return lookup(QUERY, KEYS, VALUES, temperature=temperature)[1]


def _peak(weights: np.ndarray) -> str:
    """How peaked a row of weights is: ``"sharp"`` (one weight ≥ 0.9), ``"even"`` (all within 0.1) or ``"between"``."""
    if weights.max() >= 0.9:
        return "sharp"
    if weights.max() - weights.min() <= 0.1:
        return "even"
    return "between"


_BEST_TITLE = TITLES[_BEST]
# (how the weights at T = 0.1 look, at T = 10) -> the option that says so
_PEAKS = {
    ("sharp", "even"): f"T = {fmt(_COLD)}: nearly all on '{_BEST_TITLE}'; T = {fmt(_HOT)}: nearly even",
    ("even", "sharp"): f"T = {fmt(_COLD)}: nearly even; T = {fmt(_HOT)}: nearly all on '{_BEST_TITLE}'",
}
_UNCHANGED = "both as at T = 1: dividing by T changes nothing"


def _temperature_shapes() -> str:
    """The option that says how the weights at T = 0.1 and T = 10 look, read off the weights themselves."""
    cold, hot = _weights_at(_COLD), _weights_at(_HOT)
    if np.allclose(cold, _WEIGHTS) and np.allclose(hot, _WEIGHTS):
        return _UNCHANGED
    peaks = (_peak(cold), _peak(hot))
    sharp = cold if peaks[0] == "sharp" else hot
    if peaks not in _PEAKS or int(sharp.argmax()) != _BEST:
        raise ValueError(f"the look-up's weights at T = {fmt(_COLD)} and {fmt(_HOT)} are {peaks}, with the largest "
                         f"on {TITLES[int(sharp.argmax())]!r}: none of the options says so")
    return _PEAKS[peaks]


_GAP = float(_SCORES[_BEST] - _SCORES[_PASTA])  # the best score against the runner-up's

# --------------------------------------------------------------------------- section 8: W = I, S = X Xᵀ

_S = X6 @ X6.T
_SAT, _CAT, _ON = (SIX_TOKENS.index(t) for t in ("sat", "cat", "on"))
_SAT_OPTIONS = ("sat itself", "cat", "on", "another token")


def _as_option(query: int, key: int, options: tuple[str, ...]) -> str:
    """Key ``key`` as one of ``options`` ("<query> itself", a token, or "another token")."""
    if key == query:
        return options[0]
    return SIX_TOKENS[key] if SIX_TOKENS[key] in options[1:] else "another token"


def _sat_favourite() -> str:
    """The key with the highest score in the row of 'sat' of S = X Xᵀ."""
    return _as_option(_SAT, int(_S[_SAT].argmax()), _SAT_OPTIONS)


# The pair of section 8 that shows a longer vector beating a token's own score (typed out there).
_A, _B = np.array([1.0, 0.0]), np.array([3.0, 1.0])
_PAIR_OPTIONS = ("a · a", "a · b", "they are equal")


def _larger_score() -> str:
    """Which of a · a and a · b is larger."""
    aa, ab = float(_A @ _A), float(_A @ _B)
    return _PAIR_OPTIONS[2] if aa == ab else _PAIR_OPTIONS[0] if aa > ab else _PAIR_OPTIONS[1]


# --------------------------------------------------------------------------- section 9: W^K shifts the features

# Section 9's W^K (typed out there): every feature of a key moves one slot to the left, the first wraps round.
_W_K_SHIFT = np.roll(np.eye(X6.shape[1]), -1, axis=1)
_S_SHIFT = X6 @ _W_K_SHIFT.T @ X6.T  # W^Q = I: S = X (X W^K)ᵀ
_CAT_OPTIONS = ("cat itself", "sat", "on", "another token")


def _cat_after_shift() -> str:
    """The key 'cat' attends to most with W^Q = I and the shifting W^K."""
    return _as_option(_CAT, int(_S_SHIFT[_CAT].argmax()), _CAT_OPTIONS)


def _row(scores: np.ndarray, query: int) -> str:
    """A row of scores as "'The' 1, 'cat' 2, ..."."""
    return ", ".join(f"'{t}' {fmt(s)}" for t, s in zip(SIX_TOKENS, scores[query]))


PREDICTIONS = [
    Prediction(
        name="01-pasta-weight",
        notebook="01_intuition",
        question=(f"The query \"what should I feed my cat?\" scores the four documents "
                  f"{', '.join(fmt(s) for s in _SCORES)} ({', '.join(TITLES)}). "
                  f"What weight will the softmax give \"{TITLES[_PASTA]}\"?"),
        form="number",
        quantity="weight",
        truth=_pasta_weight,
        # e^2 / (e^2.5 + e^1.5 + e^2 + 1) estimated with e^x rounded is 0.29 to 0.30; 1/3, the scores divided by
        # their sum, is only 0.038 away, and must stay beyond twice the tolerance (close) to keep its thought.
        tolerance=0.015,
        why=(f"Softmax weighs each document by e^score: e^{fmt(_SCORES[_PASTA])} / "
             f"({' + '.join(f'e^{fmt(s)}' for s in _SCORES)}) = {fmt(_WEIGHTS[_PASTA], 3)}, second only to "
             f"\"{TITLES[_BEST]}\" ({fmt(_WEIGHTS[_BEST], 3)}): a soft look-up keeps the runner-up."),
        thought={
            0.0: "the soft look-up keeps only the best document, as the hard (argmax) look-up does",
            0.25: "the four documents share the weight evenly, whatever their scores",
            float(_SCORES[_PASTA] / _SCORES.sum()): (
                f"the weights are the scores divided by their sum ({fmt(_SCORES[_PASTA])} / {fmt(_SCORES.sum())}); "
                "softmax takes e^score first, which gives the higher scores more than their share"),
            "higher": (f"a score close to the best ({fmt(_SCORES[_PASTA])} against {fmt(_SCORES[_BEST])}) gets "
                       f"nearly as much weight; but e^{fmt(_SCORES[_BEST])} is "
                       f"{fmt(_WEIGHTS[_BEST] / _WEIGHTS[_PASTA], 2)} times e^{fmt(_SCORES[_PASTA])}"),
            "lower": ("a document that is not the best gets almost nothing; softmax sharpens the weights but keeps "
                      "every document"),
        },
    ),
    Prediction(
        name="01-temperature",
        notebook="01_intuition",
        question=(f"The same four scores ({', '.join(fmt(s) for s in _SCORES)}), divided by T before the softmax. "
                  f"How will the weights look at T = {fmt(_COLD)} and at T = {fmt(_HOT)}?"),
        form="choice",
        options=(*_PEAKS.values(), _UNCHANGED),
        truth=_temperature_shapes,
        why=(f"Softmax sees only the gaps between scores, and dividing by T divides them: the gap of "
             f"{fmt(_GAP)} between '{_BEST_TITLE}' and '{TITLES[_PASTA]}' becomes {fmt(_GAP / _COLD)} at "
             f"T = {fmt(_COLD)} (weights {fmt(_weights_at(_COLD)[_BEST], 3)} and "
             f"{fmt(_weights_at(_COLD)[_PASTA], 3)}) and {fmt(_GAP / _HOT)} at T = {fmt(_HOT)} "
             f"({fmt(_weights_at(_HOT)[_BEST], 3)} and {fmt(_weights_at(_HOT)[_PASTA], 3)})."),
        thought={
            _PEAKS[("even", "sharp")]: (
                f"a higher temperature makes the softmax more decisive; but dividing by a large T shrinks the gaps "
                f"between the scores ({fmt(_SCORES[_BEST])} and {fmt(_SCORES[_PASTA])} become "
                f"{fmt(_SCORES[_BEST] / _HOT)} and {fmt(_SCORES[_PASTA] / _HOT)}), and nearly equal numbers have "
                "nearly equal exponentials"),
            _UNCHANGED: (
                "the softmax ignores a common factor as it ignores a common shift; adding the same number to every "
                "score changes nothing, but dividing by T divides the gaps between the scores"),
        },
    ),
    Prediction(
        name="01-sat-favourite",
        notebook="01_intuition",
        question=("Use the embeddings as they are: Q = K = X, so the scores are S = XXᵀ, score(i, j) = x_i · x_j. "
                  "In the row of 'sat' (the query 'sat'), which key gets the highest score?"),
        form="choice",
        options=_SAT_OPTIONS,
        truth=_sat_favourite,
        why=(f"x_sat · x_j gives {_row(_S, _SAT)}: a vector's dot product with itself is its squared length, "
             f"{fmt(_S[_SAT, _SAT])}, and no other row of X is longer or points the same way."),
        thought={
            "cat": (f"attention follows meaning (a verb looks for its subject); with W = I a score is only the dot "
                    f"product of two embeddings, and x_sat · x_cat = {fmt(_S[_SAT, _CAT])}"),
            "on": (f"the most similar other token wins; but no token is more similar to 'sat' than 'sat' itself: "
                   f"x_sat · x_sat = {fmt(_S[_SAT, _SAT])} > x_sat · x_on = {fmt(_S[_SAT, _ON])}"),
            "another token": (f"a longer vector or a far-off word wins; here every row of X has the same squared "
                              f"length, {fmt(_S[_SAT, _SAT])}, so the one pointing the way x_sat points, itself, "
                              "wins"),
        },
    ),
    Prediction(
        name="01-longer-vector",
        notebook="01_intuition",
        question=(f"Take a = [{', '.join(fmt(v) for v in _A)}] and b = [{', '.join(fmt(v) for v in _B)}]. "
                  "With a as the query, which score is larger?"),
        form="choice",
        options=_PAIR_OPTIONS,
        truth=_larger_score,
        why=(f"a · a = {fmt(_A @ _A)} but a · b = {fmt(_A @ _B)}: b points roughly the way a does and is longer "
             f"(|b|² = {fmt(_B @ _B)} against |a|² = {fmt(_A @ _A)}), so it beats a at its own query."),
        thought={
            "a · a": ("a vector always scores itself highest; that holds only against vectors no longer than "
                      "itself (Cauchy–Schwarz), and b is longer"),
            "they are equal": ("a dot product counts the features two vectors share; it multiplies their sizes, "
                               f"and b has {fmt(_B[0])} where a has {fmt(_A[0])}"),
        },
    ),
    Prediction(
        name="01-cat-after-shift",
        notebook="01_intuition",
        question=("Keep W^Q = I and let W^K move every feature of a key one slot to the left (the first wraps round "
                  "to the last). Which token will 'cat' attend to most now?"),
        form="choice",
        options=_CAT_OPTIONS,
        truth=_cat_after_shift,
        why=(f"The query of 'cat' is x_cat = [{', '.join(fmt(v) for v in X6[_CAT])}], and the key of 'sat', its "
             f"features moved one slot left, is [{', '.join(fmt(v) for v in (X6 @ _W_K_SHIFT)[_SAT])}], the same "
             f"vector: the scores of 'cat' are {_row(_S_SHIFT, _CAT)}."),
        thought={
            "cat itself": ("a token still prefers itself; that held because its query and its key were the same "
                           "vector, and now W^K makes them differ"),
            "on": (f"the token most like 'sat' would win; 'on' is close (score {fmt(_S_SHIFT[_CAT, _ON])}), but "
                   f"the shifted key of 'sat' equals the query of 'cat' (score {fmt(_S_SHIFT[_CAT, _SAT])})"),
            "another token": ("the shift scrambles the scores at random; it moves features to new slots, so a key "
                              "matches the queries that ask for its features in those slots"),
        },
    ),
]
