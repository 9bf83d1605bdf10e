"""03_heads' two-head layer (helpers.core.heads): head 1 is 02's worked example, the layer is multi_head_attention's,
the notebook types the same numbers, and head_columns refuses what is not a head."""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest

from helpers.core.attention import multi_head_attention, split_heads
from helpers.core.heads import TOKENS, H, head_columns, heads_layer, two_head_layer
from helpers.exercises.code_tasks import examples

from conftest import NOTEBOOK_DIR


def test_head_1_is_02s_worked_example():
    X, W_q, W_k, W_v, _ = two_head_layer()
    np.testing.assert_array_equal(X, examples.X3)
    for W, head_1 in ((W_q, examples.W_Q3), (W_k, examples.W_K3), (W_v, examples.W_V3)):
        np.testing.assert_array_equal(head_columns(W, 0, H), head_1)
    assert TOKENS == examples.SIX_TOKENS[:3]


def test_the_layer_head_by_head_is_multi_head_attention():
    X, W_q, W_k, W_v, W_o = two_head_layer()
    layer = heads_layer(X, W_q, W_k, W_v, W_o, H)
    output, weights = multi_head_attention(X, W_q, W_k, W_v, W_o, H)
    np.testing.assert_allclose(layer.output, output)
    np.testing.assert_allclose(np.stack(layer.weights), weights)
    np.testing.assert_allclose(layer.concat, np.concatenate(layer.heads, axis=1))
    np.testing.assert_allclose(layer.residual, X + output)
    assert layer.concat.shape == layer.output.shape == layer.residual.shape == X.shape == (3, 4)
    assert [A.shape for A in layer.weights] == [(3, 3)] * H and [hd.shape for hd in layer.heads] == [(3, 2)] * H


def test_the_two_heads_read_differently():
    """Head 1 is 02's head ('The' reads 'cat'); head 2 keeps each token mostly on itself, as 03 says."""
    weights = heads_layer(*two_head_layer(), H).weights
    assert [TOKENS[j] for j in weights[0].argmax(axis=1)] == ["cat", "sat", "The"]
    np.testing.assert_allclose(weights[0].max(axis=1).round(2), [0.67, 0.62, 0.64])
    assert list(weights[1].argmax(axis=1)) == [0, 1, 2]
    np.testing.assert_allclose(np.diag(weights[1]).round(2), [0.94, 0.73, 0.99])


def test_head_columns_are_split_heads_blocks():
    rng = np.random.default_rng(3)
    M = rng.normal(size=(5, 12))
    for h in (1, 2, 3, 4, 6, 12):
        for i in range(h):
            np.testing.assert_array_equal(head_columns(M, i, h), split_heads(M, h)[i])


@pytest.mark.parametrize("i, h, words", [(0, 3, "h = 3 must be a whole number that divides the 4 columns"),
                                         (2, 2, "i = 2 is not a head: with h = 2 the heads are 0 to 1"),
                                         (-1, 2, "i = -1 is not a head"), (0, True, "h = True")])
def test_head_columns_refuses_what_is_not_a_head(i, h, words):
    with pytest.raises(ValueError, match=words):
        head_columns(np.zeros((3, 4)), i, h)


def assigned_in_notebook(stem: str, names: tuple[str, ...]) -> dict:
    """The values of ``names`` as the first code cell of the notebook that assigns all of them assigns them (its
    assignments to them only, which are written out as numbers)."""
    nb = json.loads((NOTEBOOK_DIR / f"{stem}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        tree = ast.parse(source)
        assigned = {t.id for s in tree.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
        if set(names) <= assigned:
            namespace = {"np": np}
            wanted = [s for s in tree.body if isinstance(s, ast.Assign)
                      and {t.id for t in s.targets if isinstance(t, ast.Name)} & set(names)]
            exec(compile(ast.Module(wanted, []), stem, "exec"), namespace)
            return {name: namespace[name] for name in names}
    raise AssertionError(f"no code cell of {stem} assigns all of {', '.join(names)}")


def test_03s_numbers_are_the_helpers():
    """The predictions and the design task of 03 compute from helpers.core.heads: the notebook types the same
    numbers."""
    X, W_q, W_k, W_v, W_o = two_head_layer()
    nb = assigned_in_notebook("03_heads", ("tokens", "X", "W_q", "W_k", "W_v", "h"))
    assert tuple(nb["tokens"]) == TOKENS and nb["h"] == H
    for name, want in (("X", X), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        np.testing.assert_array_equal(nb[name], want, err_msg=name)
    np.testing.assert_array_equal(assigned_in_notebook("03_heads", ("W_o",))["W_o"], W_o)


def test_03s_first_values_are_section_3s():
    """Section 1 sets one head against two on the values section 3 computes, whose first two columns are 02's."""
    X, _, _, W_v, _ = two_head_layer()
    V = assigned_in_notebook("03_heads", ("V", "one_head"))["V"]
    np.testing.assert_array_equal(V, X @ W_v)
    np.testing.assert_array_equal(V[:, :2], examples.X3 @ examples.W_V3)
