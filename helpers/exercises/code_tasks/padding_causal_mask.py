"""Code task ``"padding_causal_mask"`` (04_masking): ``fn(lengths, n)`` -> bool (b, n, n), a decoder's batch mask.

``mask[b, i, j]`` is True where query i of sentence b may attend to key j: key j is a real token of sentence b
(``j < lengths[b]``) and not after the query (``j <= i``). A pad query still attends, to the real tokens before it.
Probes: a batch of one sentence and a batch of as many sentences as tokens (so that a padding mask without its query
axis broadcasts and gives its own wrong numbers), ``lengths`` as a list (as 04 writes it) and as an array.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, padding_mask
from helpers.exercises.code_tasks.causal_mask import (
    CAUSAL_ADDITIVE,
    CAUSAL_BLOCKED,
    CAUSAL_NO_DIAGONAL,
    CAUSAL_UPPER,
    MASK_NOT_BOOL,
)
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake

__all__ = ["TASK", "my_padding_causal_mask", "WHERE", "PADDING_LEFT_OUT", "CAUSAL_LEFT_OUT", "PAD_ROWS_NOT_KEYS",
           "PAD_OFF_BY_ONE", "MASKS_OR", "MASK_ALL_INVERTED", "PAD_NO_QUERY_AXIS",
           "LENGTHS_AS_ARRAY"]

WHERE = '04_masking, "Padding masks for a batch"'

PADDING_LEFT_OUT = Mistake(
    "padding_left_out", "the causal mask alone: the pad keys are not blocked",
    "A key must also be a real token of its sentence: key j of sentence b is padding when j ≥ lengths[b]. Each "
    "sentence has its own padding, so the mask has one (n, n) block per sentence.",
    WHERE)
CAUSAL_LEFT_OUT = Mistake(
    "causal_left_out", "the padding mask alone: later keys are not blocked",
    "A decoder's query may not read a later token either: key j is allowed only if it is not after query i, as well "
    "as a real token.",
    '04_masking, "The causal mask in two forms"')
PAD_ROWS_NOT_KEYS = Mistake(
    "pad_rows_not_keys", "the pad queries' rows blocked: the padding applied to the queries",
    "Padding blocks keys, the columns: no query may read a pad token. A pad query's row still reads the real tokens "
    "before it; a row with every key blocked gives a softmax of 0/0 = nan (its output is ignored later anyway).",
    '04_masking, "Padding masks for a batch"; 08_pitfalls, "Masked scores: −10⁹ or −∞?"')
PAD_OFF_BY_ONE = Mistake(
    "pad_off_by_one", "the padding off by one",
    "lengths[b] counts the real tokens of sentence b: they are keys 0 to lengths[b] − 1, and key lengths[b] is the "
    "first pad.",
    WHERE)
MASKS_OR = Mistake(
    "masks_or", "the two masks combined with 'or' instead of 'and'",
    "A key is allowed only if it passes both tests, a real token and not later: combine the two boolean masks with "
    "& (and); | (or) lets through a key that passes either.",
    '04_masking, "Padding masks for a batch"')
MASK_ALL_INVERTED = Mistake(
    "mask_all_inverted", "True where the query may not attend (the whole mask inverted)",
    "True means 'may attend': a real key, not after the query. Your True marks the pairs to block.",
    '04_masking, "The causal mask in two forms"')
PAD_NO_QUERY_AXIS = Mistake(
    "pad_no_query_axis", "the padding mask without its axis for the queries",
    "The real keys are one row per sentence, (b, n); the causal mask is one row per query, (n, n). Combined as they "
    "are, numpy lines the sentences up with the queries. Give the padding an axis of length 1 for the queries, "
    "(b, 1, n), so that it broadcasts to (b, n, n).",
    WHERE)
LENGTHS_AS_ARRAY = Mistake(
    "lengths_as_array", "lengths indexed as an array when it is a list",
    "04 writes lengths = [3, 5, 2], a Python list: it has no axes to index with [:, None] or compare entry by "
    "entry. Make an array of it first (np.asarray).",
    WHERE)


def my_padding_causal_mask(lengths, n):
    """lengths: the real length of each of b sentences (a list or an array), each padded to n tokens.
    Returns bool (b, n, n): entry [b, i, j] is True where query i of sentence b may attend to key j."""
    positions = np.arange(n)
    real = positions[None, :] < np.asarray(lengths)[:, None]     # (b, n): key j is a real token of sentence b
    not_later = positions[None, :] <= positions[:, None]         # (n, n): key j is not after query i
    return real[:, None, :] & not_later                          # (b, 1, n) & (n, n) -> (b, n, n)


def _cases() -> list[Case]:
    return [
        Case("two sentences, lengths [2, 3], padded to n = 3", ([2, 3], 3)),
        Case("04's batch: lengths [3, 5, 2], n = 5", ([3, 5, 2], 5)),
        Case("a batch of one sentence: lengths [2], n = 4", ([2], 4)),
        Case("as many sentences as tokens: lengths [3, 1, 2], n = 3", ([3, 1, 2], 3)),
        Case("lengths as an array, np.array([4, 1]), n = 6", (np.array([4, 1]), 6)),
    ]


def _reference(lengths, n):
    return causal_mask(n) & padding_mask(np.asarray(lengths), n)


def _real(lengths, n, extra: int = 0):
    """(b, n): True where key j is one of the first ``lengths[b] + extra`` tokens."""
    return np.arange(n)[None, :] < np.asarray(lengths)[:, None] + extra


def _with_causal(triangle):
    """The padding right, its causal part ``triangle(n)`` (bool (n, n)) instead of the lower triangle."""
    return lambda lengths, n: _real(lengths, n)[:, None, :] & triangle(n)


def _list_refused(lengths, n):
    """Right for an array of lengths; a list raises, as indexing it with [:, None] does."""
    if isinstance(lengths, list):
        raise TypeError("list indices must be integers or slices, not tuple")
    return _reference(lengths, n)


def _per_sentence(lengths, n, block):
    """(b, n, n): ``block(n)`` for every sentence."""
    return np.broadcast_to(block(n), (len(np.asarray(lengths)), n, n)).copy()


TASK = CodeTask(
    name="padding_causal_mask",
    order=60,
    idea=("Two tests decide each (sentence, query, key) entry, and a key must pass both: it is a real token of that "
          "sentence (the first lengths[b] positions), and it is not after the query. Padding blocks keys, the "
          "columns, never queries: a pad query still reads the real tokens. Build each test as an array over the "
          "axes it depends on, sentence × key and query × key, and let broadcasting line them up to b × n × n."),
    outputs=(("the mask", "b × n × n"),),
    cases=_cases,
    reference=_reference,
    solution=my_padding_causal_mask,
    models=(
        (LENGTHS_AS_ARRAY, _list_refused),
        (PADDING_LEFT_OUT, lambda lengths, n: _per_sentence(lengths, n, causal_mask)),
        (PADDING_LEFT_OUT, lambda lengths, n: causal_mask(n)),
        (CAUSAL_LEFT_OUT, lambda lengths, n: _per_sentence(lengths, n, lambda m: np.ones((m, m), dtype=bool))
         & _real(lengths, n)[:, None, :]),
        (PAD_ROWS_NOT_KEYS, lambda lengths, n: _real(lengths, n)[:, :, None] & causal_mask(n)),
        # With the causal mask, blocking the pad rows alone or the pad rows and the pad keys is the same mask.
        (PAD_OFF_BY_ONE, lambda lengths, n: _real(lengths, n, 1)[:, None, :] & causal_mask(n)),
        (PAD_OFF_BY_ONE, lambda lengths, n: _real(lengths, n, -1)[:, None, :] & causal_mask(n)),
        (MASKS_OR, lambda lengths, n: _real(lengths, n)[:, None, :] | causal_mask(n)),
        (CAUSAL_UPPER, _with_causal(lambda n: np.triu(np.ones((n, n), dtype=bool)))),
        (CAUSAL_NO_DIAGONAL, _with_causal(lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1))),
        (CAUSAL_BLOCKED, _with_causal(lambda n: np.triu(np.ones((n, n), dtype=bool), k=1))),
        (MASK_ALL_INVERTED, lambda lengths, n: ~_reference(lengths, n)),
        (CAUSAL_ADDITIVE, lambda lengths, n: np.where(_reference(lengths, n), 0.0, -np.inf)),
        (MASK_NOT_BOOL, lambda lengths, n: _reference(lengths, n).astype(int)),
        (MASK_NOT_BOOL, lambda lengths, n: _reference(lengths, n).astype(float)),
        # (b, n) & (n, n): runs when b is 1 or n, and gives an (n, n) mask lining sentences up with queries.
        (PAD_NO_QUERY_AXIS, lambda lengths, n: _real(lengths, n) & causal_mask(n)),
    ),
)
