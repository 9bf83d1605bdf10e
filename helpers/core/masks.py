"""Attention masks of every kind, as boolean arrays: ``True`` where a query *may* attend to a key (pure numpy).

Every notebook that masks gets its masks from here: the causal mask (04, 05), key padding (04, 08), the sparse
patterns of 14 (a sliding window, strides, global tokens). :func:`as_mask` turns what a caller may pass as a mask
(``None``, ``"causal"`` or a boolean array) into the one boolean (n_q, n_k) array the math uses, and says clearly
what is wrong with anything else; :func:`is_causal` tells whether a mask is the causal one.

The older import paths keep working: :mod:`helpers.core.attention` re-exports :func:`causal_mask` and
:func:`padding_mask`, and :mod:`helpers.core.efficiency` the sparse patterns.
"""

from __future__ import annotations

import numpy as np

from helpers.core.arrays import positive_int, whole_number

__all__ = [
    "causal_mask",
    "padding_mask",
    "sliding_window_mask",
    "strided_mask",
    "global_mask",
    "FrozenMask",
    "mask_value",
    "as_mask",
    "is_causal",
]

_KINDS = 'None, "causal" or a boolean array (True = may attend)'


def causal_mask(n: int) -> np.ndarray:
    """Boolean causal mask, shape (n, n): True on and below the diagonal.

    Query i may attend to keys 0..i (itself and the past). The blocked entries form
    the *strict upper* triangle; the additive form puts ``-inf`` exactly there
    (see :func:`helpers.core.attention.additive_mask`).
    """
    n = whole_number(n, "n (the sequence length)")
    return np.tril(np.ones((int(n), int(n)), dtype=bool))


def padding_mask(lengths, n: int) -> np.ndarray:
    """Boolean key-padding mask for a batch of sequences padded to length ``n``.

    Parameters
    ----------
    lengths : sequence of int, shape (batch,)
        The real length of each sequence; positions ``>= length`` are padding.
    n : int
        The padded length.

    Returns
    -------
    ndarray of bool, shape (batch, 1, n): True where the key is a real token. It
    broadcasts against scores of shape (batch, n_q, n).
    """
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"lengths must be a 1-D sequence of integers; got {lengths!r}")
    n = whole_number(n, "n (the padded length)")
    if (lengths < 1).any() or (lengths > n).any():
        raise ValueError(f"every length must be between 1 and n = {n}; got lengths {lengths.tolist()}")
    return (np.arange(n)[None, :] < lengths[:, None])[:, None, :]


def sliding_window_mask(n: int, window: int, causal: bool = True) -> np.ndarray:
    """Local attention: query i sees the ``window`` keys ending at itself (causal) or within
    ``window - 1`` on either side (not causal). Bool (n, n), True = may attend."""
    n = positive_int(n, "n")
    window = positive_int(window, "window")
    # A band around the diagonal, cut from two triangles (np.tri(n, k=c)[i, j] is j <= i + c): no (n, n) matrix of
    # offsets i - j, which at n = 4096 is 128 MB of integers.
    near_past = ~np.tri(n, k=-window, dtype=bool)            # i - j < window
    if causal:
        return near_past & causal_mask(n)
    return near_past & np.tri(n, k=window - 1, dtype=bool)   # j - i < window


def strided_mask(n: int, stride: int) -> np.ndarray:
    """Strided attention (Child et al. 2019): query i sees the past keys j with i - j a multiple of ``stride``.

    Bool (n, n), causal. Combined with a sliding window at least ``stride`` wide (logical or), every query
    reaches every past key in two steps (:func:`helpers.core.efficiency.two_hop_reach`); a narrower window leaves gaps.
    """
    n = positive_int(n, "n")
    stride = positive_int(stride, "stride")
    # i - j is a multiple of the stride exactly when i and j leave the same remainder.
    phase = np.arange(n) % stride
    return causal_mask(n) & (phase[:, None] == phase[None, :])


def global_mask(n: int, global_tokens) -> np.ndarray:
    """Global tokens (Longformer style): every query sees them, and they see every key. Bool (n, n), not causal."""
    n = positive_int(n, "n")
    g = np.asarray(list(global_tokens), dtype=int)
    if g.size and (g.min() < 0 or g.max() >= n):
        raise ValueError(f"global_tokens must be positions 0..{n - 1}; got {g.tolist()}")
    mask = np.zeros((n, n), dtype=bool)
    mask[:, g] = True
    mask[g, :] = True
    return mask


class _AllEqual(np.ndarray):
    """The elementwise result of ``a == b`` for a :class:`FrozenMask`; as a yes or no: equal everywhere."""

    def __bool__(self) -> bool:
        return bool(np.all(self.view(np.ndarray)))

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))


class _AnyDiffers(np.ndarray):
    """The elementwise result of ``a != b`` for a :class:`FrozenMask`; as a yes or no: different somewhere."""

    def __bool__(self) -> bool:
        return bool(np.any(self.view(np.ndarray)))

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))


class FrozenMask(np.ndarray):
    """A read-only boolean mask, elementwise like any array, whose comparisons also answer yes or no.

    ``mask == other`` and ``mask != other`` are the usual boolean arrays, but ``bool()`` of them is "equal
    everywhere" and "different somewhere" (not numpy's "ambiguous" error): traitlets asks exactly that when it decides
    whether a trait changed and when ``link`` checks that both ends agree, so that a mask held in a trait can be
    observed and linked. Comparing with something of another shape is simply "not equal".
    """

    def _compare(self, other, op, answer):
        try:
            result = op(self.view(np.ndarray), other)
        except (ValueError, TypeError):
            return op is np.not_equal
        return result.view(answer) if isinstance(result, np.ndarray) and result.ndim else bool(result)

    def __eq__(self, other):
        return self._compare(other, np.equal, _AllEqual)

    def __ne__(self, other):
        return self._compare(other, np.not_equal, _AnyDiffers)

    __hash__ = None

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        # What is computed from a mask (~mask, mask.sum(), mask & other) is a plain array or number.
        arr = np.asarray(arr)
        return arr[()] if return_scalar else arr

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))


def mask_value(mask, name: str = "mask"):
    """``mask`` checked for what it is, before any sizes are known: ``None``, ``"causal"``, or a 2-D bool array.

    Returns
    -------
    None, "causal", or a read-only boolean copy of the array (a :class:`FrozenMask`; the caller's array stays
    theirs).

    Raises
    ------
    ValueError
        Naming ``name``: another string, something that is not an array, an array that is not boolean (0/1 and
        0/−∞ masks are other conventions, and the message says how to turn them into one), or not 2-D.
    """
    if mask is None:
        return None
    if isinstance(mask, str):
        if mask == "causal":
            return "causal"
        raise ValueError(f"{name} must be {_KINDS}; got the string {mask!r}")
    try:
        arr = np.array(mask)  # a copy
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {_KINDS}; got {type(mask).__name__}") from None
    if arr.dtype != bool:
        if arr.dtype == object or arr.ndim == 0:
            raise ValueError(f"{name} must be {_KINDS}; got {type(mask).__name__} {mask!r:.60}")
        raise ValueError(f"{name} must be boolean (True = may attend); got an array of {arr.dtype} with shape "
                         f"{arr.shape}. A 0/1 mask m becomes one with `np.asarray(m) == 1`, an additive 0/−∞ mask "
                         "with `np.asarray(m) == 0`")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D boolean array (n_q, n_k), one row per query and one column per "
                         f"key; got shape {arr.shape}")
    arr = arr.view(FrozenMask)
    arr.flags.writeable = False
    return arr


def as_mask(mask, n_q: int, n_k: int, name: str = "mask", query_labels=None) -> np.ndarray:
    """The boolean (n_q, n_k) array that ``mask`` stands for: True where query i may attend to key j.

    Parameters
    ----------
    mask : None, "causal" or bool array_like (n_q, n_k)
        ``None`` blocks nothing; ``"causal"`` is :func:`causal_mask` and needs ``n_q == n_k``.
    n_q, n_k : int
        The numbers of queries and keys.
    name : str
        What the messages call the mask (the caller's argument or trait).
    query_labels : sequence of str, optional
        The queries' tokens: a message about a row names its token too.

    Returns
    -------
    ndarray of bool, shape (n_q, n_k), a new array.

    Raises
    ------
    ValueError
        Naming ``name`` and the shapes: as :func:`mask_value`, and a shape other than (n_q, n_k), a causal mask with
        ``n_q != n_k``, or a row with no True (that query would have nothing to attend to).
    """
    n_q = whole_number(n_q, "n_q (the number of queries)")
    n_k = whole_number(n_k, "n_k (the number of keys)")
    mask = mask_value(mask, name)
    if mask is None:
        return np.ones((n_q, n_k), dtype=bool)
    if isinstance(mask, str):
        if n_q != n_k:
            raise ValueError(f"a causal {name} needs as many queries as keys; got {n_q} queries and {n_k} keys")
        return causal_mask(n_q)
    if mask.shape != (n_q, n_k):
        raise ValueError(f"{name} has shape {mask.shape}, but there are {n_q} queries and {n_k} keys: it needs "
                         f"shape (n_q, n_k) = ({n_q}, {n_k}), one row per query and one column per key")
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        i = int(empty[0])
        who = f"query '{query_labels[i]}' (row {i})" if query_labels is not None else f"query row {i}"
        raise ValueError(f"{name} blocks every key for {who}: that query would have nothing to attend to. Leave at "
                         "least one True in every row")
    return mask.copy()


def is_causal(mask) -> bool:
    """Whether ``mask`` is the causal mask: ``"causal"``, or a square boolean array equal to :func:`causal_mask`."""
    if isinstance(mask, str):
        return mask == "causal"
    if mask is None:
        return False
    arr = np.asarray(mask)
    return (arr.dtype == bool and arr.ndim == 2 and arr.shape[0] == arr.shape[1] and arr.size > 0
            and bool(np.array_equal(arr, np.tri(arr.shape[0], dtype=bool))))
