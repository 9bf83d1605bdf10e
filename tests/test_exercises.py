"""helpers.exercises: the lesson's questions accept right answers, explain wrong ones, survive junk;
generated problems are correct, friendly, reproducible and explained."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers.core import questions as data
from helpers.core.parsing import ParseError, parse_count, parse_matrix, parse_number
from helpers.exercises import (
    DIFFICULTIES,
    KINDS,
    QUESTIONS,
    Feedback,
    Generated,
    Kind,
    check,
    generate,
    given_matrix,
    kinds,
    register_kind,
    unregister_kind,
)

import junk

QIDS = [f"q{i}" for i in range(1, 9)]
# The kinds whose answers are numbers (matrices, shapes); "heatmap" problems are answered by reading.
NUMERIC_KINDS = tuple(k for k in KINDS if k != "heatmap")

# Right answers written out here (from the lesson, verified by hand), not taken from the module.
RIGHT = {
    "q1": {"d_k": 64, "Q": (8, 12, 20, 64), "K": (8, 12, 20, 64), "V": (8, 12, 20, 64),
           "weights": (8, 12, 20, 20), "output": (8, 20, 768)},
    "q2": (32, 64),
    "q3": "c",
    "q4": "b",
    "q5": {"Q": [[2, 1], [0, 3]], "K": [[1, 2], [3, 0]], "V": [[1.5, 1.5], [1.5, 1.5]]},
    "q6": "d",
    "q7": 10000,
    "q8": "a",
}


def test_every_question_is_there_with_text_hint_and_solution():
    assert list(QUESTIONS) == QIDS
    for q in QUESTIONS.values():
        assert q.text.strip() and q.hint.strip() and q.solution.strip()
        assert q.text.rstrip().endswith(("?", ".")), q.id


@pytest.mark.parametrize("qid", QIDS)
def test_right_answer_is_accepted(qid):
    fb = check(qid, RIGHT[qid])
    assert isinstance(fb, Feedback)
    assert fb.correct, fb.message
    assert fb.message


@pytest.mark.parametrize(
    "qid, answer",
    [
        ("q1", {"d_k": "64", "Q": [8, 12, 20, 64], "K": "(8, 12, 20, 64)", "V": np.array([8, 12, 20, 64]),
                "weights": "8 x 12 x 20 x 20", "output": (8.0, 20.0, 768.0)}),
        ("q1", {"d_k": 64.0, "Q": "8, 12, 20, 64", "K": "[8,12,20,64]", "V": (8, 12, 20, 64),
                "weights": "8×12×20×20", "output": [8, 20, 768]}),
        # A fraction is a number: "768 / 12" is 64.
        ("q1", {"d_k": "768 / 12", "Q": (8, 12, 20, 64), "K": (8, 12, 20, 64), "V": (8, 12, 20, 64),
                "weights": (8, 12, 20, 20), "output": (8, 20, 768)}),
        ("q2", [32, 64]),
        ("q2", "32, 64"),
        ("q2", np.array([32.0, 64.0])),
        ("q2", ("32", "64")),
        ("q2", "32; 64"),
        ("q2", ("256/8", "64")),
        ("q3", "C"),
        ("q3", " (c) "),
        ("q4", "b)"),
        ("q5", {"Q": np.array([[2, 1], [0, 3]]), "K": ((1, 2), (3, 0)), "V": "[[1.5, 1.5], [1.5, 1.5]]"}),
        ("q5", {"Q": [[2.0000001, 1], [0, 3]], "K": [[1, 2], [3, 0]], "V": [[1.5, 1.5], [1.5, 1.5]]}),
        # Typed matrices are read like matrix cells: "3/2" and "−1" are numbers everywhere.
        ("q5", {"Q": "2 1; 0 3", "K": "[[1, 2], [3, 0]]", "V": "[[3/2, 3/2], [3/2, 3/2]]"}),
        ("q5", {"Q": [["2", "1"], ["0", "3"]], "K": [[1, 2], [3, 0]], "V": [["3/2", "1.5"], ["1.5", "3/2"]]}),
        ("q6", "nothing"),
        ("q6", "No change"),
        ("q6", "d. Nothing: the weights stay exactly the same, whatever the value of C."),
        ("q7", "10000"),
        ("q7", "10,000"),
        ("q7", "10 000"),
        ("q7", 10000.0),
        ("q7", np.int64(10000)),
        ("q7", 100 * 100),
        ("q8", "A"),
    ],
)
def test_sensible_equivalents_are_accepted(qid, answer):
    fb = check(qid, answer)
    assert fb.correct, fb.message


# ---------------------------------------------------------------- wrong answers, specific reasons


def _q1_with(**changes):
    answer = dict(RIGHT["q1"])
    answer.update(changes)
    return answer


@pytest.mark.parametrize(
    "changes, expected_words",
    [
        ({"Q": (8, 20, 64)}, ["shape per head"]),
        ({"Q": (8, 20, 768)}, ["before splitting"]),
        ({"K": (8, 12, 64, 20)}, ["swapped d_k and the sequence length"]),
        ({"V": (8, 20, 12, 64)}, ["heads axis comes after the sequence axis", "V is a seq_len × d_k matrix",
                                  "(batch, heads, seq_len, d_k)"]),
        ({"Q": (12, 8, 20, 64)}, ["batch comes first"]),
        ({"Q": (8, 12, 20, 768)}, ["d_k", "64"]),
        ({"weights": (8, 12, 20, 64)}, ["(batch, heads, n, n)", "one row per query, one column per key"]),
        ({"weights": (8, 20, 20)}, ["own weights"]),
        ({"output": (8, 12, 20, 64)}, ["before the heads are combined"]),
        ({"output": (8, 20, 64)}, ["one head"]),
        ({"d_k": 9216}, ["you multiplied"]),
        ({"d_k": 768}, ["d_model"]),
        ({"Q": (8, 12, 21, 64)}, ["seq_len"]),
        ({"Q": (8, 12, 20)}, ["expected 4 numbers"]),
    ],
)
def test_q1_wrong_shapes_say_what_is_wrong(changes, expected_words):
    fb = check("q1", _q1_with(**changes))
    assert not fb.correct
    assert "5 of 6 right" in fb.message
    for words in expected_words:
        assert words in fb.message, fb.message


def test_q1_speaks_only_of_what_the_core_path_taught():
    """09 comes before 10, where heads are split by reshape: Q1's solution and the reason for every wrong shape it
    names use 03's columns and axes, never a reshape."""
    texts = [*data.QUESTIONS["q1"]["solution"], data.QUESTIONS["q1"]["hint"],
             *(entry["why"] for entries in data.SHAPE_MISTAKES.values() for entry in entries)]
    assert texts and not [t for t in texts if "reshape" in t.lower()]
    for shape in ((8, 20, 12, 64), (8, 12, 20, 768), (8, 20, 768)):
        message = check("q1", _q1_with(Q=shape, K=shape, V=shape)).message
        assert "reshape" not in message.lower(), message


def test_q1_missing_parts_are_named():
    fb = check("q1", {"d_k": 64, "Q": (8, 12, 20, 64)})
    assert not fb.correct
    assert "K: missing" in fb.message and "output: missing" in fb.message


@pytest.mark.parametrize(
    "answer, words",
    [
        ((2048, 64), "you multiplied"),
        ((32, 16384), "you multiplied"),
        ((64, 32), "swapped the two cases"),
        ((256, 64), "d_model"),
        ((8, 64), "number of heads"),
        ((32,), "two"),
        (32, "two cases"),
    ],
)
def test_q2_wrong_answers_say_why(answer, words):
    fb = check("q2", answer)
    assert not fb.correct
    assert words in fb.message, fb.message


def test_q5_wrong_entry_points_at_the_arithmetic():
    # Row 2, column 1 of K is 0·0 + 3·1 = 3 (X row [0, 3] times W^K column [0, 1]).
    fb = check("q5", {"Q": [[2, 1], [0, 3]], "K": [[1, 2], [0, 0]], "V": [[1.5, 1.5], [1.5, 1.5]]})
    assert not fb.correct
    assert "2 of 3 right" in fb.message
    assert "row 2, column 1 of K" in fb.message
    assert "0·0 + 3·1" in fb.message
    assert "✓ Q" in fb.message and "✓ V" in fb.message


@pytest.mark.parametrize(
    "K, words",
    [
        ([[1, 3], [2, 0]], "transposed"),
        ([[0, 3], [2, 1]], "W^K·X"),  # W^K @ X
        ([[2, 1], [0, 3]], "X unchanged"),
        ([[1, 2, 0], [3, 0, 0]], "expected shape (2, 2)"),
        ([1, 2, 3, 0], "expected shape (2, 2)"),  # the right numbers, but not written as a matrix
    ],
)
def test_q5_common_mistakes_are_recognised(K, words):
    fb = check("q5", {"Q": [[2, 1], [0, 3]], "K": K, "V": [[1.5, 1.5], [1.5, 1.5]]})
    assert not fb.correct
    assert words in fb.message, fb.message


def test_q5_v_from_the_wrong_weight_matrix():
    fb = check("q5", {"Q": [[2, 1], [0, 3]], "K": [[1, 2], [3, 0]], "V": [[1, 2], [3, 0]]})
    assert not fb.correct
    assert "X·W^K" in fb.message and "W^V" in fb.message


def test_q5_tolerance_is_tight():
    fb = check("q5", {"Q": [[2, 1], [0, 3]], "K": [[1, 2], [3, 0]], "V": [[1.5, 1.5], [1.5, 1.51]]})
    assert not fb.correct


@pytest.mark.parametrize(
    "answer, words",
    [
        (9900, "every token also compares with itself"),
        (4950, "unordered pairs"),
        (5050, "causal mask"),
        (100, "all n keys"),
        (200, "n · n"),
        (12345, "one per (query, key) pair"),
        ("n^2", "n = 100"),
        ("1,5", "write decimals with a point (1.5)"),
    ],
)
def test_q7_wrong_counts_say_why(answer, words):
    fb = check("q7", answer)
    assert not fb.correct
    assert words in fb.message, fb.message


@pytest.mark.parametrize("qid", ["q3", "q4", "q6", "q8"])
def test_multiple_choice_has_one_right_option_and_explains_every_wrong_one(qid):
    q = QUESTIONS[qid]
    assert len(q.choices) >= 4
    assert sum(c.correct for c in q.choices) == 1
    explanations = [c.explanation for c in q.choices]
    assert len(set(explanations)) == len(explanations)
    for c in q.choices:
        fb = check(qid, c.key)
        assert fb.correct == c.correct
        assert c.explanation in fb.message
        assert fb.message.startswith("Correct") == c.correct


def test_the_right_option_does_not_give_itself_away_by_length_or_place():
    # A learner who always picks the longest, most specific option must not score: the right option is the
    # longest in at most a third of the questions, never much longer than its neighbours, and not always
    # in the same place.
    multiple = [q for q in QUESTIONS.values() if q.choices]
    assert len(multiple) >= 3
    longest = 0
    for q in multiple:
        lengths = [len(c.text) for c in q.choices]
        right = next(len(c.text) for c in q.choices if c.correct)
        longest += right == max(lengths)
        assert right <= 1.3 * sum(lengths) / len(lengths), q.id
    assert longest <= len(multiple) / 3
    places = {next(k for k, c in enumerate(q.choices) if c.correct) for q in multiple}
    assert len(places) >= 3


@pytest.mark.parametrize("qid", ["q3", "q4", "q6", "q8"])
def test_multiple_choice_unknown_letter_lists_the_choices(qid):
    fb = check(qid, "z")
    assert not fb.correct
    assert "a, b, c, d" in fb.message


# ---------------------------------------------------------------- junk never raises

def junk_id(answer) -> str:
    """A short name for a junk answer, without a memory address."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(answer))[:25]


def not_plain_feedback(fb) -> str:
    """What is wrong with the verdict on a junk answer ('' if nothing): a Feedback, not correct, a message that is
    neither a traceback nor the catch-all for unforeseen errors."""
    if not isinstance(fb, Feedback):
        return f"returned {type(fb).__name__}"
    if fb.correct is not False:
        return "marked correct"
    if not (isinstance(fb.message, str) and fb.message.strip()) or "Traceback" in fb.message:
        return f"message {fb.message!r}"
    if fb.message.startswith("could not check"):  # the catch-all must not be what answers ordinary junk
        return fb.message
    return ""


@pytest.mark.parametrize("qid", QIDS)
def test_junk_gets_feedback_not_an_exception(qid):
    wrong = {junk_id(a): why for a in junk.ANSWERS if (why := not_plain_feedback(check(qid, a)))}
    assert not wrong, wrong


@pytest.mark.parametrize("kind", KINDS)
def test_junk_gets_feedback_on_generated_problems(kind):
    problem = generate(kind, 1, "medium")
    wrong = {junk_id(a): why for a in junk.ANSWERS if (why := not_plain_feedback(problem.check(a)))}
    assert not wrong, wrong


def test_nan_is_named_in_the_feedback():
    fb = check("q5", {"Q": [[np.nan, 1], [0, 3]], "K": [[1, 2], [3, 0]], "V": [[1.5, 1.5], [1.5, 1.5]]})
    assert "NaN" in fb.message
    assert "NaN" in check("q7", float("nan")).message


def test_ragged_matrix_is_named_in_the_feedback():
    fb = check("q5", {"Q": [[2, 1], [0]], "K": [[1, 2], [3, 0]], "V": [[1.5, 1.5], [1.5, 1.5]]})
    assert "not rectangular" in fb.message


@pytest.mark.parametrize("bad", ["q9", "q0", "", "Q 1", None, 5])
def test_unknown_question_id_raises(bad):
    with pytest.raises((KeyError, ValueError)):
        check(bad, 1)


def test_question_ids_are_case_insensitive():
    assert check("Q7", 10000).correct


# ---------------------------------------------------------------- generated problems

seeds = st.integers(min_value=0, max_value=10**6)
difficulties = st.sampled_from(DIFFICULTIES)
FAST = settings(max_examples=50, deadline=None)


def _softmax_rows(S):
    """Independent reference: exp / row sum, -inf gives 0."""
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _attention_reference(Q, K, V, mask=None):
    S = Q @ K.T / math.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    W = _softmax_rows(S)
    return W, W @ V


def _friendly(x) -> bool:
    x = np.asarray(x, dtype=float)
    return bool(np.all(np.abs(x * 10 - np.round(x * 10)) < 1e-9) and np.all(np.abs(x) <= 10))


@FAST
@given(seed=seeds, difficulty=difficulties)
def test_projection_problems_match_numpy(seed, difficulty):
    p = generate("projection", seed, difficulty)
    X = p.inputs["X"]
    for name, W in (("Q", "W_q"), ("K", "W_k"), ("V", "W_v")):
        ref = np.einsum("nd,dk->nk", X, p.inputs[W])
        np.testing.assert_allclose(p.answer[name], ref, atol=1e-12)
    assert all(_friendly(v) for v in p.inputs.values())


@FAST
@given(seed=seeds, difficulty=difficulties)
def test_attention_problems_match_numpy(seed, difficulty):
    p = generate("attention", seed, difficulty)
    W, out = _attention_reference(p.inputs["Q"], p.inputs["K"], p.inputs["V"])
    np.testing.assert_allclose(p.answer["weights"], W, atol=1e-12)
    np.testing.assert_allclose(p.answer["output"], out, atol=1e-12)
    assert all(_friendly(v) for v in p.inputs.values())


@FAST
@given(seed=seeds, difficulty=difficulties)
def test_masked_problems_never_leave_a_query_without_keys(seed, difficulty):
    p = generate("masked", seed, difficulty)
    mask = p.inputs["mask"]
    assert mask.dtype == bool
    assert mask.any(axis=1).all()
    W, out = _attention_reference(p.inputs["Q"], p.inputs["K"], p.inputs["V"], mask)
    np.testing.assert_allclose(p.answer["weights"], W, atol=1e-12)
    np.testing.assert_allclose(p.answer["output"], out, atol=1e-12)
    assert np.all(p.answer["weights"][~mask] == 0)
    assert all(_friendly(p.inputs[k]) for k in ("Q", "K", "V"))


@FAST
@given(seed=seeds, difficulty=difficulties)
def test_softmax_problems_match_numpy(seed, difficulty):
    p = generate("softmax", seed, difficulty)
    s = p.inputs["scores"]
    ref = np.exp(s) / np.exp(s).sum()
    np.testing.assert_allclose(p.answer["weights"], ref, atol=1e-12)
    assert _friendly(s)


@FAST
@given(seed=seeds, difficulty=difficulties)
def test_shapes_problems_are_consistent(seed, difficulty):
    p = generate("shapes", seed, difficulty)
    B, n, D, h = (p.inputs[k] for k in ("batch", "seq_len", "d_model", "heads"))
    assert D % h == 0
    d_k = D // h
    assert len({B, n, D, h, d_k}) == 5  # distinct, so each diagnosis is unambiguous
    assert p.answer["d_k"] == d_k
    assert tuple(p.answer["Q"]) == (B, h, n, d_k)
    assert tuple(p.answer["weights"]) == (B, h, n, n)
    assert tuple(p.answer["output"]) == (B, n, D)
    fb = p.check({**p.answer, "Q": (B, n, d_k)})
    assert not fb.correct and "per head" in fb.message


@FAST
@given(kind=st.sampled_from(NUMERIC_KINDS), seed=seeds, difficulty=difficulties, data=st.data())
def test_generated_answers_check_and_perturbed_ones_do_not(kind, seed, difficulty, data):
    p = generate(kind, seed, difficulty)
    assert p.check(p.answer).correct
    if kind == "shapes":
        key = data.draw(st.sampled_from(["Q", "K", "V", "weights", "output"]))
        shape = list(p.answer[key])
        shape[-1] += 1
        assert not p.check({**p.answer, key: tuple(shape)}).correct
        assert not p.check({**p.answer, "d_k": p.answer["d_k"] + 1}).correct
        return
    rounded = {k: np.round(v, 2) for k, v in p.answer.items()}
    assert p.check(rounded).correct, p.check(rounded).message
    key = data.draw(st.sampled_from(sorted(p.answer)))
    M = np.array(p.answer[key], dtype=float)
    idx = tuple(data.draw(st.integers(0, s - 1)) for s in M.shape)
    delta = data.draw(st.sampled_from([-0.5, 0.5, 1.0, -2.0]))
    M[idx] += delta
    fb = p.check({**p.answer, key: M})
    assert not fb.correct
    assert key in fb.message


@FAST
@given(kind=st.sampled_from(KINDS), seed=seeds, difficulty=difficulties)
def test_same_seed_same_problem(kind, seed, difficulty):
    a, b = generate(kind, seed, difficulty), generate(kind, seed, difficulty)
    assert a.prompt == b.prompt and a.solution == b.solution
    assert a.inputs.keys() == b.inputs.keys()
    for k in a.inputs:
        np.testing.assert_array_equal(a.inputs[k], b.inputs[k])
    assert f"Problem {seed}" in a.prompt
    assert a == b and hash(a) == hash(b)
    assert a != generate(kind, seed + 1, difficulty)


def _fmt4(v: float) -> str:
    """How the course writes a number to 4 decimals: 2, 0.5, −1.25 (not 2.0000), with the true minus sign."""
    r = round(float(v), 4)
    if r == 0:
        return "0"
    return (str(int(r)) if r == int(r) else f"{r:.4f}".rstrip("0")).replace("-", "\u2212")


@FAST
@given(kind=st.sampled_from(NUMERIC_KINDS), seed=seeds, difficulty=difficulties)
def test_solutions_contain_every_answer_number_and_prompts_every_input(kind, seed, difficulty):
    p = generate(kind, seed, difficulty)
    if kind == "shapes":
        for key in ("Q", "weights", "output"):
            assert "(" + ", ".join(str(v) for v in p.answer[key]) + ")" in p.solution
        assert f"= {p.answer['d_k']}" in p.solution
        for v in p.inputs.values():
            assert str(v) in p.prompt
        return
    for value in p.answer.values():
        for v in np.ravel(value):
            unsigned = _fmt4(v).replace("\u2212", "")
            assert unsigned in p.solution.replace("-", "").replace("\u2212", ""), (_fmt4(v), p.solution)
    assert "rounded to 2 decimals" in p.prompt
    for name, value in p.inputs.items():
        if name == "mask":
            continue
        for v in np.ravel(value):
            assert re.search(rf"(?<![\d.]){re.escape(_fmt4(v))}(?![\d.])", p.prompt), (name, v)


def test_difficulty_grows():
    sizes = [generate("attention", 7, d).answer["weights"].size for d in DIFFICULTIES]
    assert sizes[0] < sizes[1] < sizes[2]
    sizes = [generate("projection", 7, d).inputs["X"].size for d in DIFFICULTIES]
    assert sizes[0] < sizes[1] < sizes[2]


@pytest.mark.parametrize(
    "args",
    [("nonsense", 1), ("attention", -1), ("attention", 1.5), ("attention", "7"), ("attention", True),
     ("attention", 1, "impossible")],
)
def test_generate_rejects_bad_arguments(args):
    with pytest.raises(ValueError):
        generate(*args)


# ---------------------------------------------------------------- diagnoses on generated problems


def test_unscaled_weights_are_recognised():
    p = generate("attention", 3, "medium")
    Q, K, V = (p.inputs[k] for k in "QKV")
    W = _softmax_rows(Q @ K.T)  # forgot the 1/√d_k
    fb = p.check({"weights": W, "output": W @ V})
    assert not fb.correct
    assert "√d_k" in fb.message
    assert "your weights·V" in fb.message  # the output step itself was right


def test_ignored_mask_is_recognised():
    p = generate("masked", 11, "easy")
    W, out = _attention_reference(p.inputs["Q"], p.inputs["K"], p.inputs["V"])  # no mask
    fb = p.check({"weights": W, "output": out})
    assert not fb.correct
    assert "without the mask" in fb.message


def test_weight_on_a_blocked_key_is_named():
    p = generate("masked", 5, "easy")  # causal: query 0 may only see key 0
    W = np.array(p.answer["weights"])
    W[0] = [0.5, 0.5, 0.0]
    fb = p.check({"weights": W, "output": p.answer["output"]})
    assert "query q0 may not attend to key k1" in fb.message


def test_transposed_weights_are_recognised():
    for seed in range(50):
        p = generate("attention", seed, "medium")
        W = p.answer["weights"]
        if not np.allclose(W, W.T, atol=0.01):
            break
    fb = p.check({"weights": W.T, "output": p.answer["output"]})
    assert "columns sum to 1" in fb.message


def test_wrong_output_entry_shows_the_weighted_sum():
    p = generate("attention", 9, "easy")
    out = np.array(p.answer["output"])
    out[1, 0] += 1
    fb = p.check({"weights": p.answer["weights"], "output": out})
    assert "output[1,0] (row q1, column d0)" in fb.message
    V = p.inputs["V"]
    w = p.answer["weights"][1]
    assert f"{w[0]:.2f}".rstrip("0").rstrip(".") in fb.message
    assert str(int(V[0, 0])) in fb.message


def test_wrong_answer_shape_states_the_expected_shape():
    p = generate("attention", 2, "hard")  # weights 3×4
    fb = p.check({"weights": np.zeros((4, 3)), "output": p.answer["output"]})
    assert "expected shape (n_q, n_k) = (3, 4)" in fb.message
    p = generate("projection", 2, "medium")
    fb = p.check({**p.answer, "K": np.zeros((2, 2))})
    assert "expected shape (3, 2)" in fb.message


def test_softmax_mistakes_are_recognised():
    p = generate("softmax", 4, "easy")
    s = p.inputs["scores"]
    assert "exps" in p.check(np.exp(s)).message
    assert "sum to" in p.check(np.full(s.size, 0.5)).message
    assert p.check(list(np.round(p.answer["weights"], 2))).correct
    p = next(generate("softmax", k, "medium") for k in range(100)
             if len(set(generate("softmax", k, "medium").inputs["scores"])) == 4)
    s = p.inputs["scores"]
    backwards = np.empty_like(s)
    backwards[np.argsort(s)] = np.sort(p.answer["weights"])[::-1]  # the largest weight on the smallest score
    assert "must get more weight" in p.check(backwards).message


@pytest.mark.parametrize("text", ["8x12x20x64", "8 x 12 x 20 x 64", "8×12×20×64", "8 × 12 × 20 × 64"])
def test_a_shape_written_with_times_signs_is_read(text):
    fb = check("q1", {"d_k": "64", "Q": text, "K": "(8, 12, 20, 64)", "V": "(8, 12, 20, 64)",
                      "weights": "(8, 12, 20, 20)", "output": "(8, 20, 768)"})
    assert fb.correct, fb.message


def _refusal(parse, typed: str) -> str:
    """The shared wording of helpers.core.parsing for ``typed``."""
    with pytest.raises(ParseError) as err:
        parse(typed)
    return str(err.value)


@pytest.mark.parametrize(
    "qid, answer, field, parse, typed",
    [
        ("q7", "100*100", "the number of comparisons", parse_count, "100*100"),
        ("q7", "nan", "the number of comparisons", parse_count, "nan"),
        ("q7", "None", "the number of comparisons", parse_count, "None"),
        ("q7", "10000.5", "the number of comparisons", parse_count, "10000.5"),
        ("q2", ("32", "6,4"), "d_k for case 2", parse_number, "6,4"),
        ("q1", {"d_k": "1e999"}, "✗ d_k", parse_number, "1e999"),
        ("q5", {"Q": "[[2, 1], [0, 1/0]]"}, "✗ Q", parse_matrix, "[[2, 1], [0, 1/0]]"),
    ],
)
def test_a_typed_answer_is_refused_in_the_shared_words_after_its_field_name(qid, answer, field, parse, typed):
    fb = check(qid, answer)
    assert not fb.correct
    assert f"{field}: {_refusal(parse, typed)}" in fb.message, fb.message


@pytest.mark.parametrize("typed", ["n*n", "n²", "n(n-1)", "N^2"])
def test_a_formula_in_n_asks_for_the_number(typed):
    fb = check("q7", typed)
    assert not fb.correct and "evaluate your formula" in fb.message


def test_an_empty_field_says_so_after_its_name():
    fb = check("q1", {"d_k": "  ", "Q": "", "K": "(8, 12, 20, 64)"})
    assert "✗ d_k: missing" in fb.message.splitlines()
    assert "✗ Q: missing" in fb.message.splitlines()


def test_an_unreadable_part_of_q1_names_its_field_once():
    fb = check("q1", {"d_k": "abc", "Q": "max", "K": "(8, 12, 20, 64)"})
    lines = fb.message.splitlines()
    assert f"✗ d_k: {_refusal(parse_number, 'abc')}" in lines
    assert f"✗ Q: entry 1: {_refusal(parse_number, 'max')}" in lines


@pytest.mark.parametrize("text", ["100²", "100^2", "100**2", "100 * 100"])
def test_a_power_or_product_typed_as_the_count_asks_for_the_result(text):
    fb = check("q7", text)
    assert not fb.correct and "is a calculation: type its result as one number" in fb.message


def test_grouped_thousands_only_where_a_count_is_asked():
    assert check("q7", "10,000").correct
    assert check("q7", "10 000").correct
    # d_k is a number, not a count: "6,4" is a decimal comma there, refused rather than guessed.
    assert not check("q2", ("32", "6,4")).correct
    # A shape is read as Python reads a tuple, brackets or not: every comma separates two sizes.
    assert check("q1", {**RIGHT["q1"], "Q": "8,12,20,64", "output": "(8,20,768)"}).correct
    fb = check("q1", {**RIGHT["q1"], "Q": "8,12,20,6,4"})
    assert "5 of 6 right" in fb.message and "✗ Q" in fb.message


@settings(max_examples=200, deadline=None)
@given(qid=st.sampled_from(QIDS), answer=st.one_of(
    st.text(max_size=40),
    st.dictionaries(st.sampled_from(["d_k", "Q", "K", "V", "weights", "output", "case1"]),
                    st.one_of(st.text(max_size=20), st.integers(), st.floats(), st.none(),
                              st.lists(st.one_of(st.text(max_size=5), st.floats()), max_size=4)), max_size=6),
    st.lists(st.one_of(st.text(max_size=8), st.integers(), st.floats()), max_size=5),
    st.floats(), st.integers()))
def test_check_never_raises_whatever_is_typed(qid, answer):
    fb = check(qid, answer)
    assert isinstance(fb, Feedback) and isinstance(fb.message, str) and fb.message.strip()


# ---------------------------------------------------------------- the words are data


def test_every_question_reads_its_words_from_the_data():
    assert list(data.QUESTIONS) == QIDS
    for qid, words in data.QUESTIONS.items():
        q = QUESTIONS[qid]
        for key in ("title", "text", "hint"):
            assert isinstance(words[key], str) and words[key].strip(), (qid, key)
        assert all(isinstance(line, str) for line in words["solution"]) and "".join(words["solution"]).strip()
        assert (q.title, q.text, q.hint) == (words["title"], words["text"], words["hint"])
        assert q.solution == "\n".join(words["solution"])
        assert q.lesson_note == words.get("lesson_note", "")
        assert [(c.key, c.text, c.correct, c.explanation) for c in q.choices] == [
            (c["key"], c["text"], c["correct"], c["explanation"]) for c in words.get("choices", ())]


def test_mistake_catalogues_are_the_words_of_the_diagnoses():
    # The q7 catalogue of the data, word for word, is what check says.
    for count, why in data.QUESTIONS["q7"]["mistakes"].items():
        fb = check("q7", count)
        assert not fb.correct and why in fb.message
    # A shape mistake of the data (filled with q1's sizes) is what check says.
    fb = check("q1", {**RIGHT["q1"], "Q": (8, 20, 64)})
    per_head = next(m for m in data.SHAPE_MISTAKES["Q, K, V"] if m["shape"] == "batch, seq_len, d_k")
    assert per_head["why"].format(heads=12) in fb.message


@pytest.mark.parametrize("kind", KINDS)
def test_a_problem_has_a_title_and_an_instruction_and_the_prompt_joins_them(kind):
    p = generate(kind, 7, "easy")
    assert p.title == f"Problem 7 ({kind}, easy)"
    assert p.instruction.strip() and p.title not in p.instruction
    assert p.prompt.startswith(f"{p.title}. {p.instruction}")
    for g in p.given:
        assert g.text in p.prompt


# ---------------------------------------------------------------- a new kind is one registry entry


def _sum_kind(name="sum of two"):
    """A tiny kind: add two small integers. One entry: a generator; grids and checking are the defaults."""

    def make(rng, difficulty):
        a, b = (int(v) for v in rng.integers(1, 10, size=2))
        return Generated(inputs={"a": a, "b": b}, answer={"total": np.array([[a + b]])},
                         instruction=f"Add {a} and {b}.", solution=f"{a} + {b} = {a + b}",
                         given=(given_matrix("a and b", [[a, b]]),))

    return Kind(name, make)


@pytest.fixture
def sum_kind():
    kind = _sum_kind()
    register_kind(kind)
    yield kind.name
    unregister_kind(kind.name)


def test_a_registered_kind_is_generated_and_checked_through_the_public_functions(sum_kind):
    assert sum_kind in kinds()
    p = generate(sum_kind, 5, "easy")
    a, b = p.inputs["a"], p.inputs["b"]
    assert p.title == "Problem 5 (sum of two, easy)"
    assert p.prompt.startswith(f"Problem 5 (sum of two, easy). Add {a} and {b}.")
    assert [(f.name, f.widget, f.shape) for f in p.fields] == [("total", "matrix", (1, 1))]
    assert p.check({"total": [[a + b]]}).correct
    assert p.check({"total": f"{a + b}"}).correct
    assert not p.check({"total": [[a + b + 1]]}).correct
    for answer in junk.ANSWERS:
        fb = p.check(answer)
        assert isinstance(fb, Feedback) and not fb.correct and fb.message.strip()
    assert generate(sum_kind, 5, "easy").inputs == p.inputs


def test_an_unregistered_kind_is_gone_and_names_are_unique(sum_kind):
    with pytest.raises(ValueError):
        register_kind(_sum_kind())
    unregister_kind(sum_kind)
    try:
        assert sum_kind not in kinds()
        with pytest.raises(ValueError):
            generate(sum_kind, 1)
    finally:
        register_kind(_sum_kind())  # the fixture unregisters it


def test_a_kind_whose_checker_breaks_still_gives_feedback():
    def broken(problem, answer):
        raise RuntimeError("boom")

    register_kind(Kind("broken checker", _sum_kind().generate, check=broken))
    try:
        fb = generate("broken checker", 1).check({"total": [[1]]})
    finally:
        unregister_kind("broken checker")
    assert not fb.correct and "could not check this answer (RuntimeError)" in fb.message


# ---------------------------------------------------------------- reading a heatmap

PAD = "[PAD]"
PATTERNS = ("diagonal", "previous-token", "vertical", "block", "long-range")


def _groupings(n):
    """Every cut of n tokens into at least two contiguous groups of 2 or more."""
    def cuts(start):
        if start == n:
            yield []
        for stop in range(start + 2, n + 1):
            for rest in cuts(stop):
                yield [(start, stop), *rest]

    return [c for c in cuts(0) if len(c) >= 2]


def _patterns_seen(shown, rows):
    """Every pattern the shown weights fit, judged from where each counted row puts its largest weight."""
    top = {i: int(np.argmax(shown[i])) for i in rows}
    seen = set()
    if all(top[i] == i for i in rows):
        seen.add("diagonal")
    if all(top[i] == max(i - 1, 0) for i in rows):
        seen.add("previous-token")
    if len(set(top.values())) == 1:
        seen.add("vertical")
    if all(abs(top[i] - i) >= 2 for i in rows) and len(set(top.values())) > 1:
        seen.add("long-range")
    if list(rows) == list(range(len(rows))) and any(
            all(shown[i, a:b].sum() >= 0.6 and shown[i, a:b].min() >= 0.08 for a, b in g for i in range(a, b))
            for g in _groupings(len(rows))):
        seen.add("block")
    return seen


def _masks_seen(W, keys):
    zero = W == 0
    seen = set()
    if not zero.any():
        seen.add("none")
    if W.shape[0] == W.shape[1] and np.array_equal(zero, np.triu(np.ones(W.shape, dtype=bool), 1)):
        seen.add("causal")
    pads = [j for j, k in enumerate(keys) if k == PAD]
    if pads and pads == list(range(len(keys) - len(pads), len(keys))) and np.array_equal(
            zero, np.repeat(np.isin(np.arange(len(keys)), pads)[None, :], W.shape[0], axis=0)):
        seen.add("padding")
    return seen


@settings(max_examples=300, deadline=None)
@given(seed=seeds, difficulty=difficulties)
def test_heatmap_problems_have_one_reading_on_the_numbers_shown(seed, difficulty):
    p = generate("heatmap", seed, difficulty)
    W = p.inputs["weights"]
    queries, keys = list(p.inputs["queries"]), list(p.inputs["keys"])
    shown = np.round(W, 2)
    assert W.shape == (len(queries), len(keys))
    np.testing.assert_allclose(W.sum(axis=1), 1, atol=1e-12)
    assert (W >= 0).all() and (W <= 1).all()
    # Only a mask writes 0.00: every weight it leaves shows as 0.01 or more.
    assert (shown[W > 0] >= 0.01).all()
    rows = [i for i, q in enumerate(queries) if q != PAD]
    assert _patterns_seen(shown, rows) == {p.answer["pattern"]}
    if p.answer["pattern"] != "block":
        for i in rows:
            top2 = np.sort(shown[i])[-2:]
            assert top2[1] - top2[0] >= 0.1 - 1e-9, (i, shown[i])
    assert _masks_seen(W, keys) == {p.answer["mask"]}
    if queries == keys:
        assert p.answer["attention"] == "self"
    else:
        assert p.answer["attention"] == "cross" and not set(queries) & (set(keys) - {PAD})
    i = queries.index(p.inputs["query"])
    order = np.argsort(-shown[i])
    assert keys[order[0]] == p.answer["strongest"] != PAD
    assert shown[i, order[0]] - shown[i, order[1]] >= 0.1 - 1e-9
    assert p.check(p.answer).correct
    assert f"{p.inputs['query']} → " in p.solution and p.answer["strongest"] in p.solution


def test_heatmap_problems_cover_every_pattern_mask_and_kind_of_attention():
    answers = [generate("heatmap", seed, d).answer for seed in range(60) for d in DIFFICULTIES]
    assert {a["pattern"] for a in answers} == set(PATTERNS)
    assert {a["mask"] for a in answers} == {"none", "causal", "padding"}
    assert {a["attention"] for a in answers} == {"self", "cross"}
    # Easy problems are one sentence attending to itself, with or without a causal mask.
    easy = [generate("heatmap", seed, "easy") for seed in range(30)]
    assert {p.answer["attention"] for p in easy} == {"self"} and {p.answer["mask"] for p in easy} == {"none", "causal"}


def _heatmap_with(**wanted):
    for seed in range(500):
        for d in DIFFICULTIES:
            p = generate("heatmap", seed, d)
            if all(p.answer[k] == v for k, v in wanted.items()):
                return p
    raise AssertionError(wanted)


def test_a_wrong_pattern_is_named_with_the_row_that_contradicts_it():
    p = _heatmap_with(pattern="previous-token")
    fb = p.check({**p.answer, "pattern": "diagonal"})
    assert not fb.correct and fb.message.startswith("3 of 4 right.")
    line = next(m for m in fb.message.splitlines() if m.startswith("✗ pattern"))
    assert "not diagonal: that is the previous-token pattern" in line
    assert "just left of the diagonal" in line
    # The first row that breaks "diagonal", with the numbers a learner sees.
    shown, queries, keys = np.round(p.inputs["weights"], 2), p.inputs["queries"], p.inputs["keys"]
    i = next(i for i in range(len(queries)) if int(np.argmax(shown[i])) != i)
    j = int(np.argmax(shown[i]))
    assert f"row «{queries[i]}» puts {shown[i, i]:.2f} on «{keys[i]}»" in line
    assert f"but {shown[i, j]:.2f} on «{keys[j]}»" in line


def test_wrong_mask_attention_and_key_say_what_the_heatmap_shows():
    p = _heatmap_with(mask="causal")
    fb = p.check({**p.answer, "mask": "none"})
    assert "that is a causal mask" in fb.message and "above the diagonal is exactly 0" in fb.message
    p = _heatmap_with(mask="padding", attention="self")
    fb = p.check({**p.answer, "mask": "causal"})
    assert "that is a padding mask" in fb.message and "a later token" in fb.message
    p = _heatmap_with(attention="cross")
    n_q, n_k = p.inputs["weights"].shape
    fb = p.check({**p.answer, "attention": "self", "mask": "causal"})
    assert "that is cross-attention" in fb.message and "two different sequences" in fb.message
    if n_q != n_k:
        assert f"{n_q} by {n_k}" in fb.message
    assert "needs the same sequence on both axes" in fb.message
    shown, keys = np.round(p.inputs["weights"], 2), p.inputs["keys"]
    i = p.inputs["queries"].index(p.inputs["query"])
    wrong = next(k for k in keys if k not in (p.answer["strongest"], PAD))
    fb = p.check({**p.answer, "strongest": wrong})
    assert (f"not «{wrong}»: row «{p.inputs['query']}» puts {shown[i, keys.index(wrong)]:.2f} on «{wrong}» but "
            f"{shown[i].max():.2f} on «{p.answer['strongest']}»") in fb.message


def test_heatmap_answers_may_be_typed():
    p = _heatmap_with(pattern="previous-token", mask="none", attention="self")
    typed = {"pattern": " Previous token", "mask": "no mask", "attention": "Self-attention",
             "strongest": f"«{p.answer['strongest'].upper()}»"}
    assert p.check(typed).correct, p.check(typed).message
    fb = p.check({**typed, "pattern": "zigzag", "mask": ""})
    assert "'zigzag' is not one of the options (diagonal, previous-token, vertical, block, long-range)" in fb.message
    assert "✗ mask: missing" in fb.message
