"""The concept inventory: its items (coverage, misconceptions, no surface cues, right answers that the course's own
math confirms), judging, the post-test's order, the scores and the normalized gain."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import numpy as np
import pytest

from helpers.attention import causal_mask, project_qkv, scaled_dot_product_attention, softmax, split_heads
from helpers.exercises import Progress, progress, record
from helpers.exercises.code_tasks.examples import X6, six_token_qkv
from helpers.exercises.inventory import (
    LETTERS,
    OBJECTIVES,
    TEST_KINDS,
    Item,
    items,
    judge_item,
    missed,
    normalized_gain,
    objective_scores,
    post_order,
)
from helpers.exercises.progress import ENV_VAR, Result

from conftest import NOTEBOOK_DIR

ITEMS = items()
JUNK = [None, 0, 1, 2.5, float("nan"), True, [], ["a"], ("a",), {}, {"answer": "a"}, b"a", "", "   ", "e", "z)",
        "ab", "1", "the right one", "x" * 10_000, object(), np.array(["a"]), "\x00"]


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "progress.json"
    monkeypatch.setenv(ENV_VAR, str(path))
    return path


def headings(notebook: str) -> list[str]:
    """The markdown headings of a notebook, without their '#' marks."""
    cells = json.loads((NOTEBOOK_DIR / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
    return [line.lstrip("#").strip() for cell in cells if cell["cell_type"] == "markdown"
            for line in "".join(cell["source"]).splitlines() if re.match(r"#+ ", line)]


# --------------------------------------------------------------------------- coverage and form


def test_at_least_fifteen_items_and_two_per_objective():
    assert len(ITEMS) >= 15
    per_objective = Counter(item.objective for item in ITEMS.values())
    assert set(per_objective) == {1, 2, 3, 4, 5} == set(OBJECTIVES)
    assert min(per_objective.values()) >= 2, per_objective
    objectives = [item.objective for item in ITEMS.values()]
    assert objectives == sorted(objectives), "items come grouped by objective, in the lesson's order"


def test_the_objectives_are_the_lessons_as_notebook_00_lists_them():
    lesson = (NOTEBOOK_DIR.parent / "lesson" / "self-attention-qkv.txt").read_text(encoding="utf-8")
    index = (NOTEBOOK_DIR / "00_index.ipynb").read_text(encoding="utf-8")
    listed = [line.strip("• ").strip() for line in lesson.split("Learning Objectives", 1)[1].split("Prerequisites")[0]
              .splitlines() if line.strip().startswith("•")]
    assert list(OBJECTIVES.values()) == listed
    for text in OBJECTIVES.values():
        assert text in index


@pytest.mark.parametrize("name", ITEMS)
def test_each_item_is_well_formed(name):
    item = ITEMS[name]
    assert item.name == name and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name)
    assert len(item.options) == 4 and len(set(item.options)) == 4
    assert item.answer in item.options
    wrong = [o for o in item.options if o != item.answer]
    assert set(item.misconceptions) == set(wrong), "a misconception for every wrong option, and only for those"
    for option, text in item.misconceptions.items():
        assert text.strip().endswith(".") and len(text) > 20, (option, text)
        assert item.answer not in text, "a misconception does not quote the right answer"
    assert "\n" not in item.question and item.question.rstrip().endswith("?")


@pytest.mark.parametrize("name", ITEMS)
def test_each_item_names_a_section_of_its_notebook(name):
    item = ITEMS[name]
    assert (NOTEBOOK_DIR / f"{item.notebook}.ipynb").exists(), item.notebook
    assert item.section in headings(item.notebook), f"{item.notebook} has no heading {item.section!r}"


def test_no_two_items_ask_the_same_question():
    assert len({item.question for item in ITEMS.values()}) == len(ITEMS)


def test_an_item_refuses_to_be_malformed():
    good = dict(name="x-y", objective=1, question="Which?", options=("a1", "b2", "c3", "d4"), answer="a1",
                misconceptions={"b2": "B.", "c3": "C.", "d4": "D."}, notebook="01_intuition", section="S")
    Item(**good)
    for change, words in [({"name": "X Y"}, "lower-case"), ({"objective": 6}, "objective"),
                          ({"objective": True}, "objective"), ({"answer": "e5"}, "not one of its options"),
                          ({"options": ("a1", "b2", "c3")}, "4 different"), ({"options": ("a1", "A1 ", "c3", "d4")},
                                                                           "4 different"),
                          ({"misconceptions": {"b2": "B.", "c3": "C."}}, "missing"),
                          ({"misconceptions": {"b2": "B.", "c3": "C.", "d4": " "}}, "non-empty"),
                          ({"notebook": "intuition"}, "notebook"), ({"section": ""}, "section")]:
        with pytest.raises(ValueError, match=words):
            Item(**{**good, **change})


# --------------------------------------------------------------------------- no surface cues

# Words that carry no content: a question word found in the right option is a cue only when it is a content word.
STOP_WORDS = set("""a an the of to in is are and or for on by with what which why how does do did it its be that this as
at from when if can will into than then their there these those them they so each one all any only not no after before
over under has have had you your we our was were been about between per""".split())


def content_words(text: str) -> set[str]:
    """The content words of ``text``, lower case, plurals as singulars ("queries" -> "query", "keys" -> "key")."""
    words = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(word) <= 1 or word in STOP_WORDS:
            continue
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            word = word[:-1]
        words.add(word)
    return words


def test_content_words_reads_plurals_and_skips_stop_words():
    assert content_words("Which queries see the keys of a row?") == {"query", "see", "key", "row"}


def test_the_right_option_is_not_told_by_its_length():
    """A test-wise learner picks the longest (or the shortest) option: the right one is strictly the longest in at most
    a quarter of the items, as strictly the shortest, and neither never (always avoiding the extremes is a cue too)."""
    lengths = {name: (len(item.answer), [len(o) for o in item.options if o != item.answer])
               for name, item in ITEMS.items()}
    longest = [name for name, (right, wrong) in lengths.items() if right > max(wrong)]
    shortest = [name for name, (right, wrong) in lengths.items() if right < min(wrong)]
    tied_longest = [name for name, (right, wrong) in lengths.items() if right >= max(wrong)]
    assert 0 < len(longest) <= 0.25 * len(ITEMS), longest
    assert 0 < len(shortest) <= 0.25 * len(ITEMS), shortest
    assert len(tied_longest) <= 0.25 * len(ITEMS), tied_longest


def test_the_right_option_is_not_told_by_its_place():
    places = Counter(item.options.index(item.answer) for item in ITEMS.values())
    assert set(places) == {0, 1, 2, 3}
    assert max(places.values()) <= 0.35 * len(ITEMS), places
    post_places = Counter(item.post_order().index(item.answer) for item in ITEMS.values())
    assert max(post_places.values()) <= 0.35 * len(ITEMS), post_places


@pytest.mark.parametrize("name", ITEMS)
def test_no_question_word_is_echoed_by_the_right_option_alone(name):
    item = ITEMS[name]
    echoed = content_words(item.question) & content_words(item.answer)
    in_wrong = set().union(*(content_words(o) for o in item.options if o != item.answer))
    assert echoed <= in_wrong, f"only the right option repeats {sorted(echoed - in_wrong)} from the question"


# --------------------------------------------------------------------------- the right answers, by the course's math


def _weights(Q, K, V=None, mask=None):
    return scaled_dot_product_attention(Q, K, K if V is None else V, mask=mask)[1]


def test_raw_embeddings_give_symmetric_self_preferring_scores():
    S = X6 @ X6.T                                     # W^Q = W^K = I
    assert np.allclose(S, S.T)
    assert (S.argmax(axis=1) == np.arange(len(S))).all(), "01's tokens each score themselves highest"
    assert ITEMS["raw-embeddings-as-queries"].answer.startswith("Symmetric")


def test_a_value_is_what_is_handed_over_and_not_what_decides_the_weights():
    Q, K, V = six_token_qkv()
    out, w = scaled_dot_product_attention(Q, K, V)
    out2, w2 = scaled_dot_product_attention(Q, K, V + 1.0)
    assert np.allclose(w, w2) and not np.allclose(out, out2)
    K2 = K.copy()
    K2[0] += 1.0          # one key moved (every key moved alike would shift each row's scores alike: no change)
    assert not np.allclose(_weights(Q, K2), w), "the keys decide the weights"
    assert not np.allclose(w @ K, out), "mixing the keys does not give the output"
    assert "hands over" in ITEMS["what-a-value-is"].answer


def test_swapping_w_q_and_w_k_changes_the_weights_and_does_not_transpose_them():
    from helpers.pitfalls import running_example
    _, X, W_q, W_k, W_v = running_example()
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    A = _weights(Q, K)
    Q2, K2, _ = project_qkv(X, W_k, W_q, W_v)
    A_swap = _weights(Q2, K2)
    assert np.allclose(Q2 @ K2.T, (Q @ K.T).T), "the scores transpose"
    assert not np.allclose(A_swap, A) and not np.allclose(A_swap, A.T)
    assert ITEMS["swap-w-q-and-w-k"].answer.startswith("They change")


def test_row_i_of_q_depends_on_token_i_alone():
    X = X6.copy()
    rng = np.random.default_rng(0)
    W_q = rng.normal(size=(X.shape[1], 3))
    Q = project_qkv(X, W_q, W_q, W_q)[0]
    X[4] += 1.0
    Q2 = project_qkv(X, W_q, W_q, W_q)[0]
    changed = ~np.isclose(Q, Q2).all(axis=1)
    assert changed.tolist() == [i == 4 for i in range(len(X))]
    assert ITEMS["row-of-q"].answer.startswith("Token i alone")


def test_an_entry_of_w_q_moves_whole_rows_of_the_scores():
    rng = np.random.default_rng(1)
    W_q, W_k = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    feature = next(d for d in range(X6.shape[1]) if 0 < np.count_nonzero(X6[:, d]) < len(X6))
    S = (X6 @ W_q) @ (X6 @ W_k).T
    W_q2 = W_q.copy()
    W_q2[feature, 0] += 1.0
    changed = ~np.isclose(S, (X6 @ W_q2) @ (X6 @ W_k).T)
    rows = changed.any(axis=1)
    assert changed[rows].all(), "a row that changes changes in every column"
    assert rows.tolist() == (X6[:, feature] != 0).tolist(), "the rows of the tokens with that feature"
    assert ITEMS["edit-of-w-q"].answer.startswith("Whole rows")


def test_only_the_query_and_key_widths_must_match():
    rng = np.random.default_rng(2)
    out, w = scaled_dot_product_attention(rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 5)))
    assert out.shape == (3, 5) and w.shape == (3, 4)
    with pytest.raises(ValueError):
        scaled_dot_product_attention(rng.normal(size=(3, 2)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3)))
    assert ITEMS["widths-that-must-match"].answer.startswith("Q's and K's")


def test_a_head_reads_all_of_x_through_its_own_columns():
    rng = np.random.default_rng(3)
    X, W_q, h = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), 2
    d_k = 4 // h
    heads = split_heads(X @ W_q, h)
    assert np.allclose(heads[0], X @ W_q[:, :d_k])
    X2 = X.copy()
    X2[:, -1] += 1.0                                  # a feature in the "second half" of x
    assert not np.allclose(split_heads(X2 @ W_q, h)[0], heads[0]), "head 1 reads that feature too"
    assert "block of d_k columns" in ITEMS["a-heads-queries"].answer


def test_row_i_of_the_weights_is_query_is_share_over_the_keys():
    Q, K, _ = six_token_qkv()
    w = _weights(Q, K)
    i = 2
    scores = np.array([Q[i] @ k for k in K]) / math.sqrt(Q.shape[1])
    e = np.exp(scores - scores.max())
    assert np.allclose(w[i], e / e.sum()) and np.allclose(w.sum(axis=1), 1)
    assert ITEMS["row-of-the-weights"].answer.startswith("How query i shares")


def test_a_column_sums_to_anything_from_zero_to_the_number_of_queries():
    Q, K, _ = six_token_qkv()
    sums = _weights(Q, K).sum(axis=0)
    assert not np.allclose(sums, 1) and not np.allclose(sums, 1 / len(K)) and not np.allclose(sums, 0)
    assert (sums >= 0).all() and (sums <= len(Q)).all() and sums.max() > 1
    big = _weights(np.ones((5, 1)) * 10, np.array([[1.0], [0.0], [0.0]]))   # every query picks key 0
    assert big.sum(axis=0)[0] == pytest.approx(5, abs=1e-3)
    assert ITEMS["column-sums"].answer.startswith("Anything from 0 up to n_q")


def test_a_vertical_stripe_is_many_queries_on_one_key():
    from helpers.patterns import pattern_attention
    w = pattern_attention(pattern="vertical").weights
    favourites = w.argmax(axis=1)
    assert len(set(favourites.tolist())) == 1, "every query's largest weight is on the same key"
    assert ITEMS["vertical-stripe"].answer.startswith("Many queries")


def test_a_previous_token_head_ignores_shuffling_and_a_content_head_does_not():
    from helpers.patterns import PHRASES, SHUFFLE_ORDER, TOKENS, pattern_attention
    shuffled = [TOKENS[k] for k in SHUFFLE_ORDER]
    for pattern, same in (("previous", True), ("long_range", False)):
        before = pattern_attention(TOKENS, PHRASES, pattern=pattern).weights
        after = pattern_attention(shuffled, PHRASES, pattern=pattern).weights
        assert np.allclose(before, after) == same, pattern
    assert ITEMS["content-or-position-head"].answer.startswith("Position-based")


def test_the_causal_mask_hides_the_future_and_keeps_the_diagonal():
    m = causal_mask(5)
    assert m.diagonal().all(), "a token may attend to itself"
    assert not m[np.triu_indices(5, k=1)].any(), "every later token is hidden"
    assert ITEMS["why-the-decoder-is-masked"].answer.startswith("Unmasked, each position could read")


def test_the_mask_changes_every_row_but_the_last():
    from helpers.masking import decoder_example
    Q, K, V = project_qkv(*decoder_example())
    encoder = _weights(Q, K, V)
    decoder = _weights(Q, K, V, mask=causal_mask(len(Q)))
    differs = ~np.isclose(encoder, decoder).all(axis=1)
    assert differs.tolist() == [True] * (len(Q) - 1) + [False]
    assert ITEMS["rows-the-mask-changes"].answer == "Every row except the last token's"


def test_cross_attention_weights_are_target_by_source():
    rng = np.random.default_rng(4)
    target, source = rng.normal(size=(5, 3)), rng.normal(size=(7, 3))
    assert _weights(target, source).shape == (5, 7)
    assert ITEMS["cross-attention-weights-shape"].answer.startswith("5 × 7")
    assert ITEMS["cross-attention-sources"].answer == "Q from the decoder; K and V from the encoder"


def test_the_softmax_runs_along_the_keys():
    Q, K, _ = six_token_qkv()
    S = Q @ K.T / math.sqrt(Q.shape[1])
    rows, columns = softmax(S, axis=-1), softmax(S, axis=0)
    whole = np.exp(S - S.max()) / np.exp(S - S.max()).sum()
    assert np.allclose(rows, _weights(Q, K)) and np.allclose(rows.sum(axis=1), 1)
    assert not np.allclose(columns, rows) and not np.allclose(whole, rows)
    assert ITEMS["softmax-axis"].answer.startswith("Along each row")


def test_rows_still_sum_to_one_under_a_mask():
    Q, K, _ = six_token_qkv()
    S = Q @ K.T / math.sqrt(Q.shape[1])
    mask = causal_mask(len(S))
    assert np.allclose(softmax(np.where(mask, S, -np.inf)).sum(axis=1), 1)
    after = softmax(S) * mask                              # the mask applied after the softmax
    assert (after.sum(axis=1)[:-1] < 1 - 1e-9).all()
    assert ITEMS["rows-under-a-mask"].answer.startswith("Still 1")


def test_the_scale_keeps_wide_heads_from_saturating_and_keeps_the_favourite():
    from helpers.pitfalls import MAX_D_K, saturation
    raw, scaled = saturation(MAX_D_K, scale=False), saturation(MAX_D_K, scale=True)
    assert raw.max_weight > scaled.max_weight and raw.grad_norm < scaled.grad_norm
    assert raw.weights.argmax() == scaled.weights.argmax(), "the same key matches best"
    assert saturation(1, scale=False).max_weight < raw.max_weight, "unscaled, wider heads saturate"
    assert ITEMS["why-divide-by-sqrt-d-k"].answer.startswith("Scores that grow with d_k")


def test_row_i_of_the_output_averages_the_values():
    Q, K, V = six_token_qkv()
    out, w = scaled_dot_product_attention(Q, K, V)
    assert np.allclose(out[3], sum(w[3, j] * V[j] for j in range(len(V))))
    assert not np.allclose(out[3], w[3] @ K)
    assert "value rows" in ITEMS["row-of-the-output"].answer


# --------------------------------------------------------------------------- judging


@pytest.mark.parametrize("name", ITEMS)
def test_judge_item_reads_every_option_and_its_letter(name):
    item = ITEMS[name]
    for letter, option in zip(LETTERS, item.options):
        for answer in (option, f"  {option.upper()} ", letter, letter.upper(), f"{letter})"):
            verdict = judge_item(name, answer)
            assert verdict.readable and verdict.answer == option and verdict.truth == item.answer
            assert verdict.correct == (option == item.answer)
            assert verdict.misconception == ("" if option == item.answer else item.misconceptions[option])


@pytest.mark.parametrize("junk", JUNK, ids=lambda j: type(j).__name__)
def test_judge_item_never_raises_on_junk_and_reveals_nothing(junk):
    verdict = judge_item("column-sums", junk)
    assert not verdict.correct and verdict.problem and verdict.truth == "" and verdict.misconception == ""
    assert ITEMS["column-sums"].answer not in verdict.problem


def test_an_unknown_item_raises_naming_the_known_ones():
    for name in ("no-such-item", "", None, 3):
        with pytest.raises(ValueError, match="column-sums"):
            judge_item(name, "a")
        with pytest.raises(ValueError, match="row-of-q"):
            post_order(name)


@pytest.mark.parametrize("name", ITEMS)
def test_the_post_test_shows_the_same_options_each_in_another_place(name):
    pre, post = ITEMS[name].options, post_order(name)
    assert sorted(post) == sorted(pre)
    assert all(a != b for a, b in zip(pre, post)), "no option keeps its place"
    assert post == post_order(name), "the same order every time"


# --------------------------------------------------------------------------- scores and gain


def test_objective_scores_from_recorded_progress(progress_file):
    names_by_objective = {k: [n for n, i in ITEMS.items() if i.objective == k] for k in OBJECTIVES}
    assert objective_scores(progress(), "inventory-pre") == dict.fromkeys(OBJECTIVES)
    # Objective 1: every item right; objective 2: one right of its items; objective 3: all wrong; 4 and 5 not taken.
    for name in names_by_objective[1]:
        record("inventory-pre", name, correct=True, answer=ITEMS[name].answer)
    first, *rest = names_by_objective[2]
    record("inventory-pre", first, correct=True, answer=ITEMS[first].answer)
    for name in rest + names_by_objective[3]:
        record("inventory-pre", name, correct=False)
    record("inventory-pre", "not-an-item", correct=False)          # a name the inventory no longer has
    record("inventory-post", names_by_objective[4][0], correct=True)
    scores = objective_scores(progress(), "inventory-pre")
    assert scores == {1: 100.0, 2: pytest.approx(100 / len(names_by_objective[2])), 3: 0.0, 4: None, 5: None}
    assert objective_scores(progress(), "inventory-post")[4] == 100.0
    assert missed(progress(), "inventory-pre") == tuple(rest + names_by_objective[3])
    with pytest.raises(ValueError, match="inventory-pre"):
        objective_scores(progress(), "prediction")


def test_a_record_without_a_verdict_does_not_count():
    state = Progress({**{k: {} for k in Progress().records}, "inventory-pre": {
        "column-sums": Result("inventory-pre", "column-sums", None, 1)}})
    assert objective_scores(state, "inventory-pre")[3] is None


@pytest.mark.parametrize("pre, post, gain", [(40, 70, 0.5), (0, 100, 1.0), (50, 50, 0.0), (80, 60, -1.0),
                                             (25.0, 62.5, 0.5), (0, 0, 0.0), (99, 100, 1.0)])
def test_normalized_gain_is_hakes(pre, post, gain):
    assert normalized_gain(pre, post) == pytest.approx(gain)


def test_normalized_gain_with_no_room_to_gain_and_out_of_range_values():
    assert normalized_gain(100, 100) is None and normalized_gain(100, 40) is None
    for pre, post in [(-1, 50), (50, 101), (float("nan"), 50), (50, float("inf")), (True, 50), ("40", 50),
                      (None, 50), (50, [60])]:
        with pytest.raises(ValueError, match="pre|post"):
            normalized_gain(pre, post)


def test_the_kinds_are_progress_kinds():
    from helpers.exercises.progress import FIRST_TRY_KINDS
    assert set(TEST_KINDS) <= set(FIRST_TRY_KINDS)
