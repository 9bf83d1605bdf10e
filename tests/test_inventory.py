"""The concept inventory: its items (coverage, misconceptions, no surface cues, right answers that the course's own
math confirms), judging, the post-test's order, the scores and the normalized gain."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import numpy as np
import pytest

from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention, softmax, split_heads
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
    from helpers.core.pitfalls import running_example
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
    from helpers.core.patterns import pattern_attention
    w = pattern_attention(pattern="vertical").weights
    favourites = w.argmax(axis=1)
    assert len(set(favourites.tolist())) == 1, "every query's largest weight is on the same key"
    assert ITEMS["vertical-stripe"].answer.startswith("Many queries")


def test_a_previous_token_head_ignores_shuffling_and_a_content_head_does_not():
    from helpers.core.patterns import PHRASES, SHUFFLE_ORDER, TOKENS, pattern_attention
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
    from helpers.core.masking import decoder_example
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
    from helpers.core.pitfalls import MAX_D_K, saturation
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


# --------------------------------------------------------------------------- the test widget (00 and 09)

from helpers.demos.inventory import InventoryTest, inventory_results, inventory_test, section_href  # noqa: E402
from helpers.exercises.progress import progress_json  # noqa: E402
from helpers.widgets.live import RUN_TO_SHOW  # noqa: E402

from conftest import as_shown, html_text, walk  # noqa: E402

MISCONCEPTIONS = [text for item in ITEMS.values() for text in item.misconceptions.values()]


def shown_text(widget) -> str:
    """Every word the widget's HTML parts show (its questions and options are not HTML)."""
    import ipywidgets as widgets

    from helpers.widgets.layout import LinkedHTML
    return " ".join(html_text(w) for w in walk(widget) if isinstance(w, (widgets.HTML, LinkedHTML)))


def answer_all(test: InventoryTest, right: set[str] = frozenset(), skip: tuple[int, ...] = ()) -> dict[str, str]:
    """Pick an option for every question (numbered from 1) but ``skip``: the right one for the names in ``right``, a
    wrong one for the others. Returns name -> the option picked."""
    picked = {}
    for number, (name, radio) in enumerate(test.choices.items(), start=1):
        if number in skip:
            continue
        item = ITEMS[name]
        choice = item.answer if name in right else next(o for o in radio.options if o != item.answer)
        radio.value = choice
        picked[name] = choice
    return picked


def picture(test) -> str:
    """The static picture the test's output keeps, without its <style> (written once per page)."""
    return re.sub(r"<style>.*?</style>", "", test._repr_mimebundle_()["text/html"])


def choices_drawn(shown: str) -> list[str]:
    """The questions and their options as a picture draws them, one text per question."""
    return re.findall(r"<div class='cs-field course-choice[^']*'>.*?</div></div>", shown)


def test_the_test_shows_every_item_numbered_and_grouped_by_objective(progress_file):
    test = inventory_test("pre")
    assert list(test.choices) == list(ITEMS)
    for number, (name, radio) in enumerate(test.choices.items(), start=1):
        assert radio.description == f"{number}. {ITEMS[name].question}", "the question names the options' group"
        assert tuple(radio.options) == ITEMS[name].options and radio.value is None
    headings = [html_text(w) for w in walk(test) if "inventory-objective" in w._dom_classes]
    assert headings == [f"Objective {k}: {text}" for k, text in OBJECTIVES.items()]
    classes = {c for w in walk(test) for c in getattr(w, "_dom_classes", ())}
    assert {"concept-inventory", "concept-inventory-pre", "inventory-item", "inventory-submit", "inventory-message",
            "inventory-result", "inventory-verdict"} <= classes
    post = inventory_test("post")
    assert all(tuple(radio.options) == post_order(name) for name, radio in post.choices.items())
    with pytest.raises(ValueError, match="'pre'"):
        inventory_test("after")


def test_nothing_is_revealed_before_the_whole_test_is_submitted(progress_file):
    test = inventory_test("post")
    answer_all(test, right=set(list(ITEMS)[:5]), skip=(20,))
    test.submit_button.click()
    words = shown_text(test)
    assert "question without an answer (20)" in words
    for hidden in ("✓", "✗", "Right", "Submitted", "right answer", "Taught in", *MISCONCEPTIONS):
        assert hidden not in words, hidden
    assert not test.submitted and progress().results("inventory-post") == {}
    assert not any(radio.disabled for radio in test.choices.values())


def test_submit_says_which_questions_are_open_and_records_nothing(progress_file):
    test = inventory_test("pre")
    test.submit_button.click()
    assert "no question is answered yet" in html_text(test.message_html)
    answer_all(test, skip=(3, 7, 12))
    test.submit_button.click()
    assert "3 questions without an answer (3, 7 and 12)" in html_text(test.message_html)
    for number, radio in enumerate(test.choices.values(), start=1):
        radio.value = None if number in (1, 2, 3, 4, 9) else radio.options[0]
    test.submit_button.click()
    assert "5 questions without an answer (1–4 and 9)" in html_text(test.message_html)
    assert progress().empty and not progress_file.exists()
    assert test.last_unexpected is None


@pytest.mark.parametrize("when", ["pre", "post"])
def test_submit_records_every_item_locks_and_shows_the_results(progress_file, when):
    test = inventory_test(when)
    right = {name for k, name in enumerate(ITEMS) if k % 3 == 0}
    picked = answer_all(test, right=right)
    test.submit_button.click()
    kind = f"inventory-{when}"
    for name, choice in picked.items():
        result = progress().result(kind, name)
        assert (result.correct, result.answer, result.tries) == (name in right, choice, 1)
    assert test.submitted and all(radio.disabled for radio in test.choices.values())
    assert test.submit_button.layout.display == "none" and html_text(test.message_html) == ""
    assert f"Submitted: {len(right)} of {len(ITEMS)} questions right." in html_text(test.result_html)
    for name, verdict_html in test._verdict_html.items():
        words, item = html_text(verdict_html), ITEMS[name]
        if name in right:
            assert words == "✓ Right."
            continue
        assert words.startswith("✗ Not this one.") and as_shown(item.misconceptions[picked[name]]) in words
        assert (as_shown(item.answer) in words) == (when == "post"), "only the post-test gives the right answer"
        assert item.notebook in words
        assert (section_href(item.notebook, item.section) in verdict_html.value) == (when == "post")
    test.submit_button.click()                               # a second click (the button is hidden) does nothing
    assert all(progress().result(kind, name).tries == 1 for name in ITEMS)
    assert progress().results("inventory-pre" if when == "post" else "inventory-post") == {}


def test_a_test_submitted_before_a_restart_shows_its_answers_and_results(progress_file):
    names = list(ITEMS)
    chosen = {name: ITEMS[name].options[k % 4] for k, name in enumerate(names)}
    state = {"format": 2, "records": {"inventory-post": {
        name: {"correct": chosen[name] == ITEMS[name].answer, "tries": 1, "answer": chosen[name], "solved_on": None}
        for name in names[:-1]}}}                             # the last item: not answered when submitted
    progress_file.write_text(json.dumps(state), encoding="utf-8")
    test = inventory_test("post")
    assert test.submitted and test.submit_button.layout.display == "none"
    for name in names[:-1]:
        assert test.choices[name].value == chosen[name] and test.choices[name].disabled
        assert test.verdicts[name] == (chosen[name] == ITEMS[name].answer)
    assert test.choices[names[-1]].value is None and test.verdicts[names[-1]] is None
    assert "Not answered when the test was submitted" in html_text(test._verdict_html[names[-1]])
    right = sum(chosen[n] == ITEMS[n].answer for n in names[:-1])
    assert f"Submitted: {right} of {len(names) - 1} questions right." in html_text(test.result_html)
    assert not inventory_test("pre").submitted, "the other test is still a blank form"


def test_the_text_form_and_the_picture_keep_no_answers(progress_file):
    blank = picture(inventory_test("pre"))
    test = inventory_test("pre")
    picked = answer_all(test, right=set(list(ITEMS)[::2]))
    test.submit_button.click()
    bundle = test._repr_mimebundle_()
    assert bundle["text/plain"].endswith(f"({RUN_TO_SHOW})") and not re.search(r"\d", bundle["text/plain"])
    again = inventory_test("pre")                            # after a restart, from progress
    for shown in (picture(test), picture(again)):
        assert choices_drawn(shown) == choices_drawn(blank), "the questions and options as in the blank form"
        assert "checked" not in shown and "Submitted" not in shown and "✓" not in shown and "✗" not in shown
        assert all(text not in shown for text in MISCONCEPTIONS)
    assert len(choices_drawn(blank)) == len(ITEMS) and "checked" not in blank
    assert {name: radio.value for name, radio in test.choices.items()} == picked, "the choices stay on screen"
    assert not re.search(r"\d", repr(again))


def test_section_links_name_the_heading_as_jupyterlab_does():
    assert section_href("04_masking", "2. The causal mask in two forms") == \
        "04_masking.ipynb#2.-The-causal-mask-in-two-forms"
    assert section_href("03_heads", '3. Splitting into heads: "The cat sat" with two') == \
        "03_heads.ipynb#3.-Splitting-into-heads:-%22The-cat-sat%22-with-two"
    for item in ITEMS.values():   # a heading with math or code would render to other text than its source
        assert not re.search(r"[$`*_]", item.section), item.section


# --------------------------------------------------------------------------- 00's results


def made_up_class_of_one(path):
    """A progress file: per objective, the first ``k`` of its items right before and after (k by objective)."""
    by_objective = {k: [n for n, i in ITEMS.items() if i.objective == k] for k in OBJECTIVES}
    right_before = {1: 2, 2: 4, 3: 0, 4: 1, 5: 1}
    right_after = {1: 4, 2: 3, 3: 1, 4: 1, 5: 4}
    records = {"inventory-pre": {}, "inventory-post": {}}
    for kind, right in (("inventory-pre", right_before), ("inventory-post", right_after)):
        for k, names in by_objective.items():
            for position, name in enumerate(names):
                records[kind][name] = {"correct": position < right[k], "tries": 1, "answer": None}
    path.write_text(json.dumps({"format": 2, "records": records}), encoding="utf-8")
    return by_objective, right_after


def test_inventory_results_per_objective_and_the_items_missed(progress_file):
    view = inventory_results()
    assert "pre-test is not taken yet" in html_text(view.notes_html)
    assert "post-test is not taken yet" in html_text(view.notes_html)
    assert html_text(view.table_html) == "" and html_text(view.missed_html) == ""
    by_objective, right_after = made_up_class_of_one(progress_file)
    view.refresh_button.click()                               # another kernel wrote the file: Refresh reads it
    # Four items per objective: 2, 4, 0, 1, 1 right before (50, 100, 0, 25, 25 %), 4, 3, 1, 1, 4 after.
    assert [len(names) for names in by_objective.values()] == [4] * 5
    assert view.pre == {1: 50.0, 2: 100.0, 3: 0.0, 4: 25.0, 5: 25.0}
    assert view.post == {1: 100.0, 2: 75.0, 3: 25.0, 4: 25.0, 5: 100.0}
    assert view.gains == {1: 1.0, 2: None, 3: 0.25, 4: 0.0, 5: 1.0}
    rows = re.findall(r"<tr>(.*?)</tr>", view.table_html.value)
    cells = [[html_text(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)] for row in rows]
    assert cells[0] == ["objective", "right before", "right after", "gain g"]
    assert [row[1:] for row in cells[1:]] == [["50 %", "100 %", "1.00"], ["100 %", "75 %", "no room to gain"],
                                              ["0 %", "25 %", "0.25"], ["25 %", "25 %", "0.00"],
                                              ["25 %", "100 %", "1.00"]]
    assert html_text(view.notes_html) == ""
    missed_names = [name for k, names in by_objective.items() for name in names[right_after[k]:]]
    assert view.missed == tuple(missed_names)
    links = re.findall(r'<a href="([^"]+)" class="inventory-link">', view.missed_html.value)
    assert links == [section_href(ITEMS[n].notebook, ITEMS[n].section).replace('"', "&quot;") for n in missed_names]
    words = html_text(view.missed_html)
    for name in missed_names:
        assert as_shown(ITEMS[name].question) in words and as_shown(ITEMS[name].section) in words
    assert not re.search(r"\d", repr(view)) and view.last_unexpected is None
    shown = picture(view)
    assert "%" not in shown and "no room" not in shown and "Missed" not in shown


def test_inventory_results_with_only_the_pre_test(progress_file):
    record("inventory-pre", "column-sums", correct=True, answer=ITEMS["column-sums"].answer)
    view = inventory_results()
    assert html_text(view.notes_html) == "The post-test is not taken yet: it is at the end of 09_practice."
    assert view.pre[3] == 100.0 and view.post[3] is None and view.gains[3] is None
    assert "not taken" in html_text(view.table_html) and html_text(view.missed_html) == ""


def test_a_progress_file_written_by_the_widget_reads_back_as_written(progress_file):
    test = inventory_test("pre")
    answer_all(test, right=set(ITEMS))
    test.submit()
    assert progress_json(progress()) == progress_file.read_text(encoding="utf-8")
    assert objective_scores(progress(), "inventory-pre") == dict.fromkeys(OBJECTIVES, 100.0)


def test_linked_html_shows_its_value_through_jupyterlabs_renderer():
    from helpers.widgets.layout import LinkedHTML
    from helpers.widgets.snapshot import snapshot_html
    view = LinkedHTML('<a href="04_masking.ipynb#x">04</a>')
    assert view.value == '<a href="04_masking.ipynb#x">04</a>'
    assert view.outputs == ({"output_type": "display_data", "data": {"text/html": view.value}, "metadata": {}},)
    assert "href='04_masking.ipynb#x'" in snapshot_html(view), "a page's picture shows it too"
    view.value = ""
    assert view.outputs == () and view.value == ""


def test_a_second_copy_of_the_test_shows_what_the_first_recorded(progress_file):
    first, second = inventory_test("pre"), inventory_test("pre")   # the cell run twice, or a second kernel
    answer_all(first, right=set(ITEMS))
    first.submit_button.click()
    answer_all(second, right=set())
    second.submit_button.click()
    assert second.submitted and all(second.verdicts.values()), "the first answers, recorded, count"
    assert "submitted before" in html_text(second.result_html)
    assert all(progress().result("inventory-pre", name).correct for name in ITEMS)


def test_a_progress_file_that_cannot_be_written_is_said(tmp_path, monkeypatch):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv(ENV_VAR, str(folder))          # a folder where the file should be: no write succeeds
    test = inventory_test("post")
    answer_all(test)
    test.submit_button.click()
    assert test.submitted and test.last_unexpected is None
    assert "could not be saved" in html_text(test.result_html)
