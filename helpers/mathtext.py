"""Math in the text of widgets, written as HTML: ``W^Q`` → W<sup>Q</sup>, ``W^Q_1`` → W<sup>Q</sup><sub>1</sub>,
``X_dec`` → X<sub>dec</sub>, ``d_k`` → d<sub>k</sub>, next to the typeset formulas of the prose.

Authors keep writing titles and labels in the short plain form (``title="W^Q"``); the views and editors show them
typeset. A subscript is read after one letter only (``x_cat``, ``d_model``), so that names such as ``row_sum`` or a
token with an underscore in it stay as they are.
"""

from __future__ import annotations

import html as _html
import re

__all__ = ["math_html"]

_SUP = re.compile(r"\^([A-Za-z0-9]+)")
_SUB_AFTER_SUP = re.compile(r"(</sup>)_([A-Za-z0-9]+)(?![A-Za-z0-9_])")
_SUB = re.compile(r"(?<![A-Za-z0-9_&#])([A-Za-z])_([A-Za-z0-9]+)(?![A-Za-z0-9_])")


def math_html(text) -> str:
    """``text`` escaped, with ``^X`` raised and ``a_b`` lowered (see the module's docstring)."""
    out = _SUP.sub(r"<sup>\1</sup>", _html.escape(str(text)))
    out = _SUB_AFTER_SUP.sub(r"\1<sub>\2</sub>", out)
    return _SUB.sub(r"\1<sub>\2</sub>", out)

