"""The predictions of 01_intuition."""

from __future__ import annotations

from helpers.exercises.predictions.prediction import Prediction
from helpers.explain import fmt
from helpers.lookup import KEYS, QUERY, TITLES, VALUES, lookup

_SCORES, _WEIGHTS, _ = lookup(QUERY, KEYS, VALUES)
_PASTA = TITLES.index("Pasta recipes")
_BEST = int(_SCORES.argmax())


def _pasta_weight() -> float:
    """The soft look-up's weight of "Pasta recipes" for the query "what should I feed my cat?"."""
    return float(lookup(QUERY, KEYS, VALUES)[1][_PASTA])


PREDICTIONS = [
    Prediction(
        name="01-pasta-weight",
        notebook="01_intuition",
        question=(f"The query \"what should I feed my cat?\" scores the four documents "
                  f"{', '.join(fmt(s) for s in _SCORES)} ({', '.join(TITLES)}). "
                  f"What weight will the softmax give \"{TITLES[_PASTA]}\" (a number from 0 to 1)?"),
        form="number",
        truth=_pasta_weight,
        tolerance=0.02,
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
]
