"""The room's vote on a prediction (peer instruction): counts read from what the presenter types, and the tally of
one or two votes beside the truth. No widgets: :mod:`helpers.widgets.predict_vote` shows it.

Peer instruction (Crouch & Mazur, 2001): the room votes on a question, discusses it with neighbours, votes again,
and only then sees the answer. A vote is, for a ``"choice"`` or ``"region"`` prediction, a count of hands per option;
for a ``"cell"`` prediction, a count per entry of the matrix; for a ``"number"`` prediction, the guesses themselves
("0.3, 0.5, 0.25", one number per person asked). :func:`tally` puts one or two votes side by side, one row per
answer given (every option for the choice forms), with the truth's row marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from helpers.core.parsing import ParseError, parse_count, parse_numbers, quote
from helpers.exercises.predictions.prediction import Prediction

__all__ = ["MAX_COUNT", "MAX_GUESSES", "ROUNDS", "Tally", "read_count", "read_guesses", "tally", "vote_keys"]

# A count for one answer in one vote: more hands than a lecture hall holds is a typing slip.
MAX_COUNT = 2000
# Guesses typed for a number: one per person asked.
MAX_GUESSES = 500
# Vote, discuss, vote again.
ROUNDS = 2


def read_count(text) -> int:
    """The number of hands typed into one field: a whole number from 0 to :data:`MAX_COUNT`; an empty field is 0.

    Raises
    ------
    ValueError
        Saying what is wrong (not a number, not whole, negative, too many).
    """
    if not isinstance(text, str):
        raise ValueError(f"a count is typed as text, e.g. 12; got {type(text).__name__}")
    if not text.strip():
        return 0
    try:
        value = parse_count(text)
    except ParseError:
        raise ValueError(f"a count is a whole number of hands, e.g. 12; {quote(text.strip())} is not") from None
    if value < 0:
        raise ValueError(f"a count is 0 or more; {quote(text.strip())} is not")
    if value > MAX_COUNT:
        raise ValueError(f"{quote(text.strip())} is more hands than a room holds (at most {MAX_COUNT})")
    return value


def read_guesses(prediction: Prediction, text) -> tuple[float, ...]:
    """The room's guesses at a ``"number"`` prediction, ``"0.3, 0.5, 0.25"``: each one person's, each possible
    (within the prediction's bounds); at most :data:`MAX_GUESSES`. An empty field is no guess.

    Raises
    ------
    ValueError
        Naming the first guess that cannot be used and why.
    """
    if not isinstance(text, str):
        raise ValueError(f"the guesses are typed as text, e.g. 0.3, 0.5, 0.25; got {type(text).__name__}")
    if not text.strip():
        return ()
    try:
        values = parse_numbers(text, what="guess")
    except ParseError as err:
        raise ValueError(f"the guesses are numbers separated by commas, e.g. 0.3, 0.5, 0.25: {err}") from None
    if len(values) > MAX_GUESSES:
        raise ValueError(f"{len(values)} guesses: at most {MAX_GUESSES} (one per person asked)")
    guesses = []
    for k, value in enumerate(values):
        try:
            guesses.append(prediction.read(value))
        except ValueError as err:
            raise ValueError(f"guess {k + 1}: {err}") from None
    return tuple(guesses)


def vote_keys(prediction: Prediction) -> tuple:
    """What a vote counts hands for: the options (``"choice"``, ``"region"``) or every ``(row, column)`` entry
    (``"cell"``), in the order shown; ``()`` for ``"number"`` (the guesses are typed, not counted)."""
    if prediction.form in ("choice", "region"):
        return prediction.options
    if prediction.form == "cell":
        return tuple((r, c) for r in prediction.row_labels for c in prediction.col_labels)
    return ()


@dataclass(frozen=True)
class Tally:
    """One or two votes side by side, one row per answer.

    Attributes
    ----------
    labels : tuple of str
        Each row's answer, as the reveal shows it.
    counts : tuple of tuple of int
        ``counts[v][r]``: how many in vote ``v`` (0 first) gave row ``r``'s answer.
    truth : int
        The index of the truth's row.
    right : tuple of bool
        Per row: whether its answer is right (for a number, every guess within the tolerance is counted in the
        truth's row).
    """

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    truth: int
    right: tuple[bool, ...]

    @property
    def totals(self) -> tuple[int, ...]:
        """How many voted in each vote."""
        return tuple(sum(c) for c in self.counts)

    def shares(self, vote: int) -> tuple[float, ...]:
        """Each row's share of vote ``vote`` (0 to 1; all 0 for a vote nobody took part in)."""
        total = self.totals[vote]
        return tuple(c / total if total else 0.0 for c in self.counts[vote])


def tally(prediction: Prediction, votes: Sequence) -> Tally:
    """The votes side by side beside the truth.

    Parameters
    ----------
    prediction : Prediction
    votes : sequence of one or two votes
        ``"choice"``, ``"region"``, ``"cell"``: a mapping from each key of :func:`vote_keys` to its count (keys left
        out count 0); ``"number"``: a sequence of guesses (canonical numbers, as :func:`read_guesses` gives).

    Returns
    -------
    Tally
        Choice and region: one row per option, in the options' order. Cell: the entries someone voted for and the
        truth, in the grid's order. Number: the truth's row (every right guess) and one row per other guess,
        by value.
    """
    if not 1 <= len(votes) <= ROUNDS:
        raise ValueError(f"votes must hold 1 to {ROUNDS} votes; got {len(votes)}")
    truth = prediction.truth_value()
    if prediction.form == "number":
        return _tally_numbers(prediction, truth, votes)
    keys = vote_keys(prediction)
    for vote in votes:
        if not isinstance(vote, Mapping) or set(vote) - set(keys):
            raise ValueError("a vote is a mapping from the prediction's options (or entries) to counts")
    if prediction.form == "cell":
        keys = tuple(k for k in keys if k == truth or any(vote.get(k, 0) for vote in votes))
    counts = tuple(tuple(int(vote.get(k, 0)) for k in keys) for vote in votes)
    return Tally(tuple(prediction.text(k) for k in keys), counts, keys.index(truth),
                 tuple(k == truth for k in keys))


def _tally_numbers(prediction: Prediction, truth: float, votes: Sequence) -> Tally:
    """Right guesses in the truth's row; the others grouped by their value as the reveal writes it."""
    text = prediction.text
    wrong = sorted({text(g): g for vote in votes for g in vote if not prediction.is_right(g)}.items(),
                   key=lambda item: item[1])
    rows = [(label, value) for label, value in wrong if value < truth]
    rows.append((text(truth), truth))
    rows += [(label, value) for label, value in wrong if value > truth]
    at = len([1 for _label, value in wrong if value < truth])

    def row_of(guess: float) -> int:
        if prediction.is_right(guess):
            return at
        return [label for label, _v in rows].index(text(guess))

    counts = []
    for vote in votes:
        row_counts = [0] * len(rows)
        for guess in vote:
            row_counts[row_of(guess)] += 1
        counts.append(tuple(row_counts))
    return Tally(tuple(label for label, _v in rows), tuple(counts), at, tuple(k == at for k in range(len(rows))))
