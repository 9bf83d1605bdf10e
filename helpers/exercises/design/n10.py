"""The design tasks of 10_multi_head."""

from __future__ import annotations

from helpers.exercises.code_tasks.examples import SIX_TOKENS, X6, six_token_weights
from helpers.exercises.design.goals import head_2_attends_most, multi_head_weights
from helpers.exercises.design.task import DesignTask

H = 2
_W_Q, _W_K, _W_V, _W_O = six_token_weights()
_HEAD_1 = multi_head_weights({"X": X6, "W_q": _W_Q, "W_k": _W_K}, H)[0]   # head 1's weights as the task starts
_SOLUTION_W_Q = _W_Q.copy()
# In head 2 (columns 2 and 3) the query of 'cat' (its row of X is [2, 1, 0, 0]) becomes 2 × row 0 + row 1 = (8, -2):
# against the keys of head 2 it scores 'mat' 14, 'the' and 'on' 10, the others less.
_SOLUTION_W_Q[:2, 2:] = [[3.0, -1.0], [2.0, 0.0]]


TASKS = [
    DesignTask(
        name="10-head-2-cat-reads-mat",
        notebook="10_multi_head",
        goal=("In head 2, make 'cat' give 'mat' more attention than any other key, and at least 0.5, by changing W^Q "
              "(X, W^K and h = 2 stay as they are), while head 1's weights stay as they are."),
        start={"W_q": _W_Q},
        solution={"W_q": _SOLUTION_W_Q},
        given={"X": X6, "W_k": _W_K},
        judge=head_2_attends_most(SIX_TOKENS, "cat", "mat", _HEAD_1, changed="W^Q"),
        hint=("Head 2 reads columns 2 and 3 of W^Q and W^K. There the query of 'cat' is 2 × row 0 + row 1 of W^Q "
              "(its row of X is [2, 1, 0, 0]); the keys it meets are the rows of (X @ W_k)[:, 2:]."),
    ),
]
