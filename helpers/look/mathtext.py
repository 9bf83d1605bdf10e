"""Math in the text of widgets, written as HTML: ``W^Q`` → W<sup>Q</sup>, ``W^Q_1`` → W<sup>Q</sup><sub>1</sub>,
``X_dec`` → X<sub>dec</sub>, ``d_k`` → d<sub>k</sub>, ``e^(x_i + C)`` → e<sup>x<sub>i</sub> + C</sup>, ``Σ_j`` →
Σ<sub>j</sub>, next to the typeset formulas of the prose; and the same math as words for a screen reader
(:func:`math_words`: ``W^Q`` → "W Q").

Authors keep writing titles and labels in the short plain form (``title="W^Q"``); the views and editors show them
typeset. A subscript is read after one letter only (``x_cat``, ``d_model``), so that names such as ``row_sum`` or a
token with an underscore in it stay as they are.
"""

from __future__ import annotations

import html as _html
import re

__all__ = ["math_html", "math_words"]

_SUP_GROUP = re.compile(r"\^\(([^()]+)\)")  # e^(s_i): the bracketed exponent, raised without its brackets
_SUP = re.compile(r"\^([A-Za-z0-9]+(?:\.[0-9]+)?)")  # n^1.93: a decimal exponent whole
_SUB_AFTER_SUP = re.compile(r"(</sup>)_([A-Za-z0-9]+)(?![A-Za-z0-9_])")
_SUB = re.compile(r"(?<![A-Za-z0-9_&#])([A-Za-zΣ])_([A-Za-z0-9]+)(?![A-Za-z0-9_])")
_WORD_SUP = re.compile(r"\^([A-Za-z0-9]+(?:\.[0-9]+)?)")  # n^1.93: a decimal exponent whole
_WORD_SUB = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z]|[A-Za-z]\s[A-Za-z0-9]+)_([A-Za-z0-9]+)(?![A-Za-z0-9_])")


def math_html(text) -> str:
    """``text`` escaped, with ``^X`` and ``^(...)`` raised and ``a_b`` lowered (see the module's docstring)."""
    out = _SUP_GROUP.sub(r"<sup>\1</sup>", _html.escape(str(text)))
    out = _SUP.sub(r"<sup>\1</sup>", out)
    out = _SUB_AFTER_SUP.sub(r"\1<sub>\2</sub>", out)
    return _SUB.sub(r"\1<sub>\2</sub>", out)


def math_words(text) -> str:
    """``text`` with its math as a screen reader should say it: ``W^Q`` → "W Q", ``W^Q_1`` → "W Q 1", ``X_dec``
    → "X dec" (plain text, not escaped). A name such as ``row_sum`` stays as it is."""
    out = _WORD_SUP.sub(r" \1", str(text))
    return _WORD_SUB.sub(r"\1 \2", out)

