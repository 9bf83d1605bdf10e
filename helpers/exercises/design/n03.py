"""The design tasks of 03_heads."""

from __future__ import annotations

from helpers.core.explain import fmt
from helpers.core.heads import TOKENS, H, two_head_layer
from helpers.exercises.design.goals import head_2_attends_most, multi_head_weights
from helpers.exercises.design.task import DesignTask

__all__ = ["TASKS"]

_X, _W_Q, _W_K, _W_V, _W_O = two_head_layer()
_HEAD_1 = multi_head_weights({"X": _X, "W_q": _W_Q, "W_k": _W_K}, H)[0]   # head 1's weights: 02's
_SOLUTION_W_K = _W_K.copy()
# Row d1, column k4 (head 2's second column): 0 -> -3. Only 'The' and 'cat' use d1; in head 2 the key of 'cat'
# becomes (1, -6) and that of 'The' (1, -1), so the query of 'sat', (-2, -2), scores 'cat' 10, 'sat' 4, 'The' 0.
_SOLUTION_W_K[0, 3] = -3.0
_SAT = TOKENS.index("sat")
_Q_SAT_TEXT = ", ".join(fmt(v) for v in (_X @ _W_Q)[_SAT, 2:])   # its query in head 2


TASKS = [
    DesignTask(
        name="03-head-2-sat-reads-cat",
        notebook="03_heads",
        goal=("In head 2, make 'sat' give 'cat' more attention than any other key, and at least 0.5, by changing W^K "
              "(X, W^Q and h = 2 stay as they are), while head 1's weights stay as they are."),
        start={"W_k": _W_K},
        solution={"W_k": _SOLUTION_W_K},
        given={"X": _X, "W_q": _W_Q},
        judge=head_2_attends_most(TOKENS, "sat", "cat", _HEAD_1, changed="W^K"),
        hint=(f"Head 2 reads columns 2 and 3. There the query of 'sat' is ({_Q_SAT_TEXT}): "
              "give 'cat' a key that points the same way. Its key is 2 × row d1 + row d2 of W^K's columns 2 and 3 "
              "(x_cat = [2, 1, 0, 0]), and only 'The' and 'cat' use row d1."),
    ),
]
