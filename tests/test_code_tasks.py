"""The code tasks as modules: each reference solution (real code) passes and its skeleton is "not written yet", and
the examples the checker runs the learner's functions on are the notebooks' own, number for number."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io

import numpy as np
import pytest

from helpers.core import lookup
from helpers.core.attention import project_qkv
from helpers.exercises import check_code
from helpers.exercises.code_tasks import MISTAKES, SKELETONS, SOLUTIONS, TASKS, examples, solution_source

from conftest import NOTEBOOK_DIR, code_cells, without_magics

# --------------------------------------------------------------------------- each task's solution and skeleton


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_reference_solution_as_imported_passes(task):
    fb = check_code(task, SOLUTIONS[task])
    assert fb.correct and fb.mistake == "", fb.message


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_skeleton_is_the_solutions_signature_and_docstring_and_is_not_written_yet(task):
    solution = TASKS[task].solution
    skeleton_ns = {"np": np}
    exec(SKELETONS[task], skeleton_ns)
    skeleton = skeleton_ns[solution.__name__]
    assert inspect.signature(skeleton) == inspect.signature(solution)
    assert skeleton.__doc__ == solution.__doc__ and solution.__doc__
    assert SKELETONS[task].rstrip().endswith("\n    ...")
    fb = check_code(task, skeleton)
    assert not fb.correct and fb.mistake == "not_written", fb.message
    assert f"{task}: not written yet" in fb.message


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_solution_shown_is_the_function_that_is_checked(task):
    source = solution_source(task)
    assert source == inspect.getsource(SOLUTIONS[task])
    (func,) = ast.parse(source).body
    assert isinstance(func, ast.FunctionDef) and func.name == SOLUTIONS[task].__name__ == f"my_{task}"


def _differ(got: np.ndarray, want: np.ndarray) -> bool:
    """Different shapes, numbers where booleans are wanted, or different values."""
    if got.shape != want.shape or (want.dtype == bool) != (got.dtype == bool):
        return True
    return not np.allclose(got.astype(float), want.astype(float), equal_nan=True)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_every_wrong_implementation_stands_for_a_mistake_in_the_table_and_differs_from_the_reference(task):
    spec = TASKS[task]
    for mistake, model in spec.models:
        assert MISTAKES[mistake.key] is mistake
        differs = False
        for case in spec.cases():
            try:
                with np.errstate(all="ignore"):
                    got = model(*case.args)
            except Exception:  # noqa: BLE001 - a model may fail where the learner's code would (shapes)
                differs = True
                continue
            want = spec.reference(*case.args)
            got, want = (got, want) if len(spec.outputs) > 1 else ((got,), (want,))
            differs |= any(_differ(np.asarray(g), np.asarray(w)) for g, w in zip(got, want))
        assert differs, f"{task}: the model of {mistake.key} gives the right results on every case"


def test_an_unknown_task_has_no_solution_source():
    with pytest.raises(ValueError, match="task must be one of"):
        solution_source("sofmax")


# --------------------------------------------------------------------------- the notebooks' examples


def notebook_values(stem: str, *names: str) -> dict:
    """The values of ``names`` as notebook ``stem`` defines them.

    The first code cell that assigns every one of ``names`` at its top level runs, statement by statement, up to
    the last of those assignments (its prints and displays after them are left out); the names a cell before it
    defined are not needed, as each example is written out in one cell.
    """
    for source in code_cells(NOTEBOOK_DIR / f"{stem}.ipynb"):
        statements = ast.parse(without_magics(source)).body
        assigned = [{t.id for target in s.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
                    if isinstance(s, ast.Assign) else set() for s in statements]
        if not set(names) <= set().union(*assigned):
            continue
        last = max(k for k, names_k in enumerate(assigned) if names_k & set(names))
        namespace = {"np": np}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(ast.Module(statements[:last + 1], []), stem, "exec"), namespace)
        return {name: namespace[name] for name in names}
    raise AssertionError(f"no code cell of {stem} assigns all of {', '.join(names)}")


def test_01s_look_up_scores_are_the_checkers():
    nb = {**notebook_values("01_intuition", "K"), **notebook_values("01_intuition", "q")}
    np.testing.assert_array_equal(nb["q"] @ nb["K"].T, examples.LOOKUP_SCORES)


def test_01s_library_and_query_are_the_helpers():
    """The predictions of 01 compute their truths from helpers.core.lookup: its library and query are the notebook's."""
    nb = notebook_values("01_intuition", "titles", "K", "V")
    assert nb["titles"] == lookup.TITLES
    np.testing.assert_array_equal(nb["K"], lookup.KEYS)
    np.testing.assert_array_equal(nb["V"], lookup.VALUES)
    np.testing.assert_array_equal(notebook_values("01_intuition", "q")["q"], lookup.QUERY)


def test_01s_six_tokens_are_the_checkers():
    assert tuple(notebook_values("01_intuition", "tokens")["tokens"]) == examples.SIX_TOKENS


@pytest.mark.parametrize("stem, name", [("01_intuition", "X"), ("02_projections", "X6"), ("10_multi_head", "X6"),
                                       ("11_positions", "X6")])
def test_the_six_tokens_are_the_checkers(stem, name):
    np.testing.assert_array_equal(notebook_values(stem, name)[name], examples.X6)


def test_02s_worked_example_and_its_d_v_3_are_the_checkers():
    nb = notebook_values("02_projections", "X", "W_q", "W_k", "W_v")
    for got, want in ((nb["X"], examples.X3), (nb["W_q"], examples.W_Q3), (nb["W_k"], examples.W_K3),
                      (nb["W_v"], examples.W_V3)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(notebook_values("02_projections", "W_v3")["W_v3"], examples.W_V33)


def test_02s_live_six_token_example_is_the_checkers():
    nb = notebook_values("02_projections", "X6", "W_q6", "W_k6", "W_v6")
    for got, want in zip(project_qkv(nb["X6"], nb["W_q6"], nb["W_k6"], nb["W_v6"]), examples.six_token_qkv()):
        np.testing.assert_array_equal(got, want)


def test_03s_masked_example_is_the_checkers():
    nb = notebook_values("04_masking", "Q3", "K3", "V3")
    for got, want in ((nb["Q3"], examples.Q_M), (nb["K3"], examples.K_M), (nb["V3"], examples.V_M)):
        np.testing.assert_array_equal(got, want)


def test_04s_first_cross_attention_example_is_the_checkers():
    nb = notebook_values("06_cross_attention", "Q", "K", "V")
    for got, want in zip((nb["Q"], nb["K"], nb["V"]), examples.cross_qkv()):
        np.testing.assert_array_equal(got, want)


def test_03s_examples_are_the_helpers():
    """The predictions and the design task of 04 compute their truths from helpers.masking: its section 1 example and
    its section 4 batch are the notebook's, number for number."""
    from helpers.core import masking

    nb = notebook_values("04_masking", "tokens", "X", "W_q", "W_k", "W_v")
    assert tuple(nb["tokens"]) == masking.DECODER_TOKENS
    for got, want in zip((nb["X"], nb["W_q"], nb["W_k"], nb["W_v"]), masking.decoder_example()):
        np.testing.assert_array_equal(got, want)
    nb = notebook_values("04_masking", "padded", "lengths", "Xb")
    padded, lengths, Xb = masking.batch_example()
    assert nb["padded"] == padded and nb["lengths"] == lengths
    np.testing.assert_array_equal(nb["Xb"], Xb)


def test_05s_target_and_input_are_the_helpers():
    """The prediction of 05's section 1 computes its truth from helpers.decoding: the target and its shifted input
    are the notebook's."""
    from helpers.core import decoding

    nb = notebook_values("05_decoding", "target", "inputs")
    assert tuple(nb["target"]) == decoding.TARGET
    assert nb["inputs"] == decoding.shift_right(decoding.TARGET)


def test_02s_six_token_weights_are_the_notebooks():
    """The predictions and the design task of 02 start from six_token_weights(): the notebook's W_q6, W_k6, W_v6."""
    nb = notebook_values("02_projections", "W_q6", "W_k6", "W_v6")
    for got, want in zip((nb["W_q6"], nb["W_k6"], nb["W_v6"]), examples.six_token_weights()):
        np.testing.assert_array_equal(got, want)


def case_args(task: str, name_start: str) -> tuple:
    """The arguments of ``task``'s case whose name starts with ``name_start``."""
    (case,) = [c for c in TASKS[task].cases() if c.name.startswith(name_start)]
    return case.args


def test_04s_padded_batch_is_the_padding_tasks():
    nb = notebook_values("04_masking", "lengths", "n")
    assert case_args("padding_causal_mask", "04's batch") == (nb["lengths"], nb["n"]) == ([3, 5, 2], 5)


def test_06s_first_example_is_the_padded_cross_attention_tasks():
    nb = notebook_values("06_cross_attention", "X_dec", "X_enc", "W_q", "W_k", "W_v")
    args = case_args("cross_attention_padded", "06's first example, X_dec")
    for got, want in zip((nb["X_dec"], nb["X_enc"], nb["W_q"], nb["W_k"], nb["W_v"]), args):
        np.testing.assert_array_equal(got, want)
    assert args[-1] == 2, "the last two of the four source tokens are padding"


def test_14s_sliding_window_figure_is_the_window_tasks():
    nb = notebook_values("14_efficiency", "n", "w")
    assert case_args("sliding_window_mask", "14's figure") == (nb["n"], nb["w"]) == (16, 4)


def test_05s_four_tokens_are_the_kv_cache_tasks():
    from helpers.core.masking import decoder_example

    for got, want in zip(case_args("kv_cache_decode", '"<s> the cat sat"'), decoder_example()):
        np.testing.assert_array_equal(got, want)
    assert any("decoder_example()" in source for source in code_cells(NOTEBOOK_DIR / "05_decoding.ipynb"))


def test_12s_sentences_are_the_ones_its_predictions_compute_from():
    """The predictions of 12_real_model run the model on the notebook's own sentences."""
    from helpers.exercises.predictions import n12

    assert tuple(notebook_values("12_real_model", "sentences")["sentences"]) == n12.BANK_SENSES
    code = " ".join(code_cells(NOTEBOOK_DIR / "12_real_model.ipynb"))
    for sentence in (n12.TROPHY_BIG, n12.TROPHY_SMALL, n12.MUDDY, n12.PROBE):
        assert f'"{sentence}"' in code, sentence
