"""Live widgets: an editable matrix and the self- and cross-attention explorers.

The names notebooks import from here live in their own modules:

* :class:`MatrixEditor` in :mod:`helpers.widgets.matrix_editor`;
* :class:`AttentionExplorer` and :class:`CrossAttentionExplorer` (one explorer class,
  :class:`helpers.widgets.explorer.Explorer`, with one or two token sides) in :mod:`helpers.widgets.explorer`;
* :class:`AttentionResult` (every stage of one computation) and the pure function that
  computes it, :func:`helpers.core.attention.attention_stages`, in :mod:`helpers.core.attention`;
* :func:`parse_number`, the course's one parser for typed numbers, in :mod:`helpers.core.parsing`.

Every update is synchronous: when :meth:`MatrixEditor.set_text` (or a control's
``.value``) returns, the editor's ``.value`` and ``.message``, the explorer's
``.result`` and every view already show the new state. The state is held in traitlets
traits (an editor's ``value``, an explorer's ``mask``, ``causal``, ``scale``, ``weights``,
``output``), so ``observe``, ``widgets.link`` and ``hold_trait_notifications()`` work
on them as on any ipywidgets widget.
"""

from __future__ import annotations

from helpers.core.attention import AttentionResult
from helpers.core.parsing import parse_number
from helpers.widgets.explorer import AttentionExplorer, CrossAttentionExplorer
from helpers.widgets.matrix_editor import MatrixEditor

__all__ = [
    "parse_number",
    "MatrixEditor",
    "AttentionResult",
    "AttentionExplorer",
    "CrossAttentionExplorer",
]
