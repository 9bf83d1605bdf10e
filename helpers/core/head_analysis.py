"""Measuring the attention heads of a real pretrained model (all-MiniLM-L6-v2, see helpers.core.pretrained).

Pure numpy on a :class:`~helpers.core.pretrained.MiniLMOutput` (notebook 12's math): which keys one
token attends to, how much attention every head gives from one token to others, how
"previous-token", "[CLS]-parking" or position-bound each head is, and how similar the
last-layer vectors of a word are across sentences. The head explorer and the thumbnails of
all 6 × 12 heads, which show these weights, are in :mod:`helpers.demos.real_model`.

A claim about one head needs a control. The head that always looks at the previous
token sends "bank" to "river" in "the river bank" without knowing what either word
means; moving "river" after "bank" (a positional shift) or swapping it for another word
(a minimal pair) tells position from content.

The model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0).
"""

from __future__ import annotations

import numpy as np

from helpers.core.arrays import whole_number
from helpers.core.pretrained import CLS, SEP, MiniLMOutput

__all__ = [
    "token_index",
    "check_layer_head",
    "attention_from",
    "attention_to",
    "rank_heads",
    "previous_token_score",
    "special_token_share",
    "mean_distance",
    "within_group_share",
    "content_following",
    "word_vector",
    "cosine",
    "similarity_matrix",
    "shared_words",
    "sense_similarity",
    "FIRST_NOUN_NOT_SUBJECT",
    "BANK_SENSES_NO_SHARED_WORDS",
]


# ---------------------------------------------------------------------------------------------
# Probes: inputs that tell two explanations of a reading apart (notebook 12)
# ---------------------------------------------------------------------------------------------

# In the trophy sentences of notebook 12 the subject is also the first noun. Here the first noun ("hall") is not the
# subject ("trophy"): does layer 3, head 1 send "it" to the subject or to the first noun?
FIRST_NOUN_NOT_SUBJECT = "in the hall the trophy did not fit in the suitcase because it was too big"

# The two senses of "bank", two sentences each (money, money, river, river), in which no two sentences share a word
# but "bank". In notebook 12's first four sentences each same-sense pair also shares words ("deposit money",
# "river"); here a same-sense pair's similar vectors cannot come from words the two sentences have in common.
BANK_SENSES_NO_SHARED_WORDS = (
    "she opened a savings account at the bank",
    "my salary goes into this bank every month",
    "we fished from that grassy bank",
    "reeds grew along its muddy bank",
)


# ---------------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------------

def token_index(out: MiniLMOutput, token: str, occurrence: int = 0) -> int:
    """Position of ``token`` in ``out.tokens`` (the ``occurrence``-th one, 0-based).

    Raises
    ------
    ValueError
        If the token is not there, listing the tokens that are.
    """
    hits = [i for i, t in enumerate(out.tokens) if t == token]
    if occurrence < 0 or occurrence >= len(hits):
        found = f"{len(hits)} time(s)" if hits else "not at all"
        raise ValueError(
            f"token {token!r} (occurrence {occurrence}) is not in the sentence: it occurs {found}; "
            f"tokens are {out.tokens}"
        )
    return hits[occurrence]


def check_layer_head(out: MiniLMOutput, layer: int, head: int) -> None:
    """A ValueError unless ``layer`` and ``head`` are integers that index ``out.attentions`` (layers, heads, n, n)."""
    L, H = out.attentions.shape[:2]
    whole_number(layer, "layer", 0, L - 1)
    whole_number(head, "head", 0, H - 1)


def attention_from(out: MiniLMOutput, token: str, layer: int, head: int, occurrence: int = 0):
    """Where one token looks: ``[(key token, weight), ...]`` in sentence order.

    This is row ``token_index(out, token)`` of ``out.attentions[layer, head]``; the weights
    are Python floats and sum to 1.
    """
    check_layer_head(out, layer, head)
    i = token_index(out, token, occurrence)
    return [(t, float(w)) for t, w in zip(out.tokens, out.attentions[layer, head, i])]


def attention_to(out: MiniLMOutput, query: str, keys, occurrence: int = 0) -> np.ndarray:
    """For every head, the total weight the ``query`` token gives to the ``keys`` tokens.

    Parameters
    ----------
    out : MiniLMOutput
    query : str
        A token of the sentence (its ``occurrence``-th appearance).
    keys : str or sequence of str
        Key tokens; every appearance of each is counted. Each must occur at least once.

    Returns
    -------
    ndarray (layers, heads): values in [0, 1].
    """
    keys = [keys] if isinstance(keys, str) else list(keys)
    if not keys:
        raise ValueError("keys must name at least one token")
    i = token_index(out, query, occurrence)
    cols = []
    for k in keys:
        token_index(out, k)  # raises a clear error if the key is missing
        cols.extend(j for j, t in enumerate(out.tokens) if t == k)
    return out.attentions[:, :, i, cols].sum(axis=-1)


def rank_heads(scores, k: int = 5):
    """The ``k`` largest entries of a (layers, heads) score array: ``[(layer, head, score), ...]``.

    Ties are broken by (layer, head) order, so the ranking is deterministic.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must have shape (layers, heads); got shape {scores.shape}")
    flat = scores.ravel()
    order = np.argsort(-flat, kind="stable")[: max(int(k), 0)]
    H = scores.shape[1]
    return [(int(f // H), int(f % H), float(flat[f])) for f in order]


def _inner_rows(out: MiniLMOutput) -> slice:
    if len(out.tokens) < 3:
        raise ValueError(f"the sentence has no word tokens (tokens {out.tokens}); type a sentence")
    return slice(1, len(out.tokens) - 1)


def previous_token_score(out: MiniLMOutput) -> np.ndarray:
    """(layers, heads): mean weight each token after ``[CLS]`` gives to the token just before it.

    1 means a pure previous-token head (position-based: it ignores what the words are).
    """
    A = out.attentions
    n = A.shape[-1]
    if n < 2:
        raise ValueError("need at least two tokens")
    i = np.arange(1, n)
    return A[:, :, i, i - 1].mean(axis=-1)


def special_token_share(out: MiniLMOutput, token: str = CLS) -> np.ndarray:
    """(layers, heads): mean weight the word tokens (not [CLS]/[SEP]) give to ``token``.

    A head whose word tokens all send most of their attention to ``[CLS]`` draws a vertical
    stripe in the heatmap: attention "parked" on a token that carries little content.
    """
    if token not in (CLS, SEP):
        raise ValueError(f"token must be {CLS!r} or {SEP!r}; got {token!r}")
    rows = _inner_rows(out)
    j = 0 if token == CLS else len(out.tokens) - 1
    return out.attentions[:, :, rows, j].mean(axis=-1)


def mean_distance(out: MiniLMOutput) -> np.ndarray:
    """(layers, heads): average |i − j| over the attention word tokens give to word tokens.

    ``[CLS]`` and ``[SEP]`` are left out as queries and as keys, so parking on [CLS] counts
    as neither short- nor long-range: the result is Σ A_ij |i − j| / Σ A_ij over word
    tokens i, j. Near 1 means local (neighbours); larger means the head reaches across
    the sentence.
    """
    rows = _inner_rows(out)
    A = out.attentions[:, :, rows, rows].astype(float)
    idx = np.arange(A.shape[-1])
    D = np.abs(idx[:, None] - idx[None, :])
    return (A * D).sum(axis=(-1, -2)) / A.sum(axis=(-1, -2))


def within_group_share(out: MiniLMOutput, groups, min_distance: int = 1):
    """How much attention stays inside a group of tokens (a clause, a phrase): the block pattern.

    Parameters
    ----------
    out : MiniLMOutput
    groups : sequence of int, length n
        A group number per token; 0 leaves the token out (as query and as key), e.g. for
        ``[CLS]``, ``[SEP]`` and a conjunction between two clauses.
    min_distance : int
        Only pairs of tokens at least this far apart count. 1 leaves out attention to oneself;
        a larger value is the control for locality: a head that looks only at its neighbours
        keeps its attention inside the clause without knowing where the clause ends.

    Returns
    -------
    share : ndarray (layers, heads)
        Of the attention between counted pairs, the fraction that stays in the same group
        (NaN for a head that gives the counted pairs no attention at all).
    chance : float
        The fraction of counted pairs that are in the same group: what a head spreading its
        attention evenly would score.
    """
    g = np.asarray(groups)
    n = len(out.tokens)
    if g.shape != (n,):
        raise ValueError(f"groups must give one number per token ({n} tokens); got shape {g.shape}")
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    counted = (g[i] > 0) & (g[j] > 0) & (np.abs(i - j) >= min_distance)
    if not counted.any():
        raise ValueError(f"no pair of grouped tokens is at least min_distance = {min_distance} apart")
    same = counted & (g[i] == g[j])
    A = out.attentions.astype(float)
    with np.errstate(invalid="ignore"):  # NaN for a head that gives counted pairs no attention at all
        share = (A * same).sum(axis=(-1, -2)) / (A * counted).sum(axis=(-1, -2))
    return share, float(same.sum() / counted.sum())


def content_following(model, text: str, trials: int = 5, seed: int = 0) -> np.ndarray:
    """(layers, heads): does a head follow the words or stay at positions when words are shuffled?

    The words of ``text`` (each must be a single token) are shuffled ``trials`` times, keeping
    ``[CLS]`` first and ``[SEP]`` last. For each head, with A the weights on the original
    sentence and A' on a shuffled one (P the permutation):

    * a position-based head keeps its pattern in place: A' ≈ A;
    * a content-based head moves with the words: A' ≈ P A Pᵀ.

    The score is d_pos / (d_pos + d_content), with d_pos = Σ|A' − A| and
    d_content = Σ|A' − P A Pᵀ|, averaged over the shuffles: near 0 for position-based heads,
    near 1 for content-based ones. Every layer-0 head mixes both, since its queries and keys
    are built from word embeddings plus position embeddings.
    """
    base = model(text)
    words = base.tokens[1:-1]
    if len(words) < 3:
        raise ValueError(f"text needs at least 3 word tokens to shuffle; got {words}")
    rng = np.random.default_rng(seed)
    n = len(base.tokens)
    L, H = base.attentions.shape[:2]
    total = np.zeros((L, H))
    for _ in range(trials):
        perm = rng.permutation(len(words))
        shuffled = model(" ".join(words[p] for p in perm))
        if shuffled.tokens[1:-1] != [words[p] for p in perm]:
            raise ValueError(
                "every word of text must be a single token (no '##' pieces, no punctuation glued on); "
                f"tokens are {base.tokens}"
            )
        P = np.concatenate([[0], perm + 1, [n - 1]])  # shuffled position k holds original token P[k]
        A = base.attentions
        As = shuffled.attentions
        follow = A[:, :, P][:, :, :, P]
        d_pos = np.abs(As - A).sum(axis=(-1, -2))
        d_con = np.abs(As - follow).sum(axis=(-1, -2))
        total += d_pos / (d_pos + d_con)
    return total / trials


def word_vector(out: MiniLMOutput, token: str, layer: int = -1, occurrence: int = 0) -> np.ndarray:
    """(384,): the vector of ``token`` after ``layer`` (-1: the last layer; 0: the embeddings)."""
    L = out.hidden_states.shape[0]
    layer = whole_number(layer, "layer (0 = embeddings, -1 = the last layer)", -L, L - 1)
    return out.hidden_states[layer, token_index(out, token, occurrence)]


def cosine(a, b) -> float:
    """Cosine similarity a·b / (|a| |b|) of two vectors of the same shape, as a float."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-D of the same length; got shapes {a.shape} and {b.shape}")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        raise ValueError("cosine similarity is undefined for a zero vector")
    return float(a @ b / (na * nb))


def shared_words(sentences, but: str = "bank") -> list[str]:
    """The words (lower-cased, split at spaces) that occur in two or more of ``sentences``, ``but`` left out; sorted."""
    seen: dict[str, int] = {}
    for text in sentences:
        for w in set(str(text).lower().split()) - {but.lower()}:
            seen[w] = seen.get(w, 0) + 1
    return sorted(w for w, count in seen.items() if count > 1)


def sense_similarity(S) -> tuple[float, float]:
    """(same sense, different sense) from a (4, 4) similarity matrix of sentences ordered sense A, A, B, B.

    Same sense: the mean of the two within-sense pairs, S[0, 1] and S[2, 3]; different sense: the mean of the four
    pairs across, S[:2, 2:].
    """
    S = np.asarray(S, dtype=float)
    if S.shape != (4, 4):
        raise ValueError(f"S must be the (4, 4) similarities of two sentences per sense; got shape {S.shape}")
    return float((S[0, 1] + S[2, 3]) / 2), float(S[:2, 2:].mean())


def similarity_matrix(model, sentences, word: str = "bank", layer: int = -1) -> np.ndarray:
    """(s, s): cosine similarities of ``word``'s vectors after ``layer`` across ``s`` sentences."""
    vecs = [word_vector(model(s), word, layer) for s in sentences]
    return np.array([[cosine(a, b) for b in vecs] for a in vecs])

