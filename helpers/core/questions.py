"""Every word of the practice exercises, as data: questions, options, hints, worked solutions,
the catalogues of mistakes and the texts of generated problems.

This module holds literals only (no logic): :mod:`helpers.exercises` reads it at import,
checks answers and fills the templates. A template's ``{name}`` fields are filled with
``str.format``; the fields each template receives are listed next to it.

Shape and value expressions in the mistake catalogues (``"batch, seq_len, d_model"``,
``"d_model*heads"``) name the sizes of the problem; :mod:`helpers.exercises` evaluates them
(names joined by ``*`` or ``/``, nothing else) for the problem at hand.
"""

ROUNDING = "Answers rounded to 2 decimals are accepted."

# How the rows and columns of given matrices and answer grids are named: (template, first index).
# Learners count tokens and columns from 1 ("row 2, column 1 of K"); attention's queries,
# keys, values and output columns are named from 0, as in the explorers (q0, k0, v0, d0).
LABELS = {
    "token": ("token {}", 1),
    "col": ("col {}", 1),
    "row": ("row {}", 1),
    "query": ("q{}", 0),
    "key": ("k{}", 0),
    "value": ("v{}", 0),
    "dim": ("d{}", 0),
}
# The one row of a softmax problem's scores and of its answer.
SCORES_ROW = "scores"
WEIGHTS_ROW = "weights"

# --------------------------------------------------------------------------- answer fields

# d_k and the five shapes asked for in Q1 and in generated "shapes" problems:
# (name, widget, label, placeholder); widget "number" for a typed number, "shape" for a typed shape.
SHAPE_FIELDS = (
    ("d_k", "number", "d_k =", "a number"),
    ("Q", "shape", "Q shape:", "e.g. (1, 2, 3)"),
    ("K", "shape", "K shape:", "e.g. (1, 2, 3)"),
    ("V", "shape", "V shape:", "e.g. (1, 2, 3)"),
    ("weights", "shape", "attention weights shape:", "e.g. (1, 2, 3)"),
    ("output", "shape", "output shape (heads combined):", "e.g. (1, 2, 3)"),
)

# --------------------------------------------------------------------------- the lesson's questions

QUESTIONS = {
    "q1": {
        "title": "Shapes with batch and heads",
        "text": "What is the shape of Q, K, V for a batch of 8 sequences, each of length 20, d_model=768, and 12 "
                "heads? Give d_k, the shapes of Q, K and V after splitting into heads, of the attention weights, "
                "and of the output after the heads are combined.",
        "form": "shapes",
        "params": {"batch": 8, "seq_len": 20, "d_model": 768, "heads": 12},
        "hint": "First d_k = d_model / heads. After splitting, Q, K and V are (batch, heads, tokens, per-head "
                "width). The weights compare every query with every key of the same sequence.",
        "solution": (
            "d_k = d_model / heads = 768 / 12 = 64.",
            "Projection: (8, 20, 768) × (768, 64) = (8, 20, 64) for one head. All 12 heads are stacked on a new "
            "axis after the batch: Q is (8, 12, 20, 64) = (batch, heads, seq_len, d_k).",
            "(In code one multiplies by a single (768, 768) matrix, giving (8, 20, 768), and head i takes its "
            "columns 64·i to 64·i + 63, as in notebook 03: the same numbers.)",
            "K: same as Q, (8, 12, 20, 64).  V: same, (8, 12, 20, 64) (here d_v = d_k = 64).",
            "Weights: Q·Kᵀ per head is (20, 64) × (64, 20) = (20, 20), so (8, 12, 20, 20): one row per query, one "
            "column per key.",
            "Output: weights·V per head is (20, 20) × (20, 64) = (20, 64), so (8, 12, 20, 64); combining the "
            "heads (concatenating their 12 × 64 = 768 columns) gives (8, 20, 768), which the output projection "
            "W^O (768 × 768) keeps at (8, 20, 768).",
            "Notebook 03 builds each of these shapes: the split into heads, one head's attention, the "
            "concatenation and W^O.",
        ),
        "lesson_note": "The lesson writes \"(8, 20, 768) × (768, 64) = (8, 20, 64) per head → after splitting: "
                       "(8, 12, 20, 64)\". The product is the shape for one head; the arrow then stacks the 12 "
                       "heads. Its other arrows (per-head output (8, 12, 20, 64) → combined (8, 20, 768)) are "
                       "right.",
    },
    "q2": {
        "title": "The per-head dimension d_k",
        "text": "If d_model=256, h=8, what is d_k? What if d_model=1024, h=16?",
        "form": "d_k pair",
        "cases": (
            {"name": "case1", "label": "d_model = 256, h = 8:  d_k =", "d_model": 256, "heads": 8},
            {"name": "case2", "label": "d_model = 1024, h = 16:  d_k =", "d_model": 1024, "heads": 16},
        ),
        "hint": "The model's width is shared out equally between the heads.",
        "solution": (
            "Each head gets an equal share of the model width: d_k = d_model / h (notebook 03).",
            "Case 1: d_k = 256 / 8 = 32.  Case 2: d_k = 1024 / 16 = 64.",
            "The per-head dimension typically stays between 32 and 128 in most architectures: more heads on a "
            "wider model, not wider heads.",
        ),
        "messages": {
            "right": "Case 1: d_k = 256 / 8 = 32. Case 2: d_k = 1024 / 16 = 64.",
            "swapped": "you swapped the two cases: case 1 is d_model = 256, h = 8",
            "one_number": "Q2 has two cases: give both values of d_k, e.g. (32, 64)",
            "how_many": "Q2 has two cases: give two values of d_k, e.g. (32, 64); you gave {count}",  # count
        },
    },
    "q3": {
        "title": "Why the decoder is causal",
        "text": "Why can't the decoder use bidirectional attention during training?",
        "form": "choice",
        "hint": "During training the whole target sentence is fed in at once. What could position 2 read if "
                "nothing were masked, and what is it supposed to predict?",
        "solution": (
            "If the decoder could attend to future tokens during training, it would \"cheat\" by looking at the "
            "correct next token instead of learning to predict it. Training to predict the third word \"sat\" in "
            "\"The cat sat\":",
            "• without a mask, the model sees \"sat\" as a key and uses its value directly: a trivial prediction;",
            "• with the causal mask, it must predict \"sat\" from \"The\" and \"cat\" only: actual learning.",
            "During training the whole target is present at once (teacher forcing), so the future keys exist and "
            "must be masked: every position then sees exactly the context it will have when generating.",
            "When generating, the future tokens do not exist yet. With a key/value cache each step runs only the "
            "newest query against the cached keys, its own and the earlier tokens', so nothing needs masking. A "
            "decoder that re-runs the whole text so far at each step still uses the mask: it keeps every earlier "
            "position's output as it was in training (notebook 05, section 3; notebook 13 measures the cache).",
        ),
        "lesson_note": "The lesson says that during inference \"the mask naturally prevents looking at "
                       "non-existent tokens\". A token not generated yet cannot be looked at, mask or no mask. "
                       "With a key/value cache a step needs no mask: its one query sees only cached keys, none "
                       "from a later token. Re-running the whole prefix instead, the mask keeps the earlier outputs "
                       "unchanged.",
        "choices": (
            {"key": "a", "correct": False,
             "text": "Bidirectional attention makes n² scores instead of about n²/2, and a decoder must be fast to "
                     "generate.",
             "explanation": "Speed is not the reason: simple implementations compute all n² scores anyway and set "
                            "the blocked ones to −∞ (optimised kernels can skip masked blocks, a bonus, notebook "
                            "14). The reason is what the model may see."},
            {"key": "b", "correct": False,
             "text": "Without the mask, which multiplies future weights by 0 after the softmax, rows would not "
                     "sum to 1.",
             "explanation": "Two slips: the mask sets blocked scores to −∞ before the softmax (multiplying weights "
                            "by 0 afterwards would leave rows summing to less than 1), and the softmax makes every "
                            "row sum to 1 with or without a mask; the mask only decides which keys share that 1."},
            {"key": "c", "correct": True,
             "text": "Each position could read the very token it is trained to predict, and copy it instead of "
                     "learning.",
             "explanation": "Training predicts each next token from the tokens before it. Without the causal "
                            "mask, \"cat\" could read \"sat\" from its key and value, a trivial copy that is "
                            "impossible at generation time, when \"sat\" has not been produced yet."},
            {"key": "d", "correct": False,
             "text": "In training the future tokens have no keys yet, so bidirectional attention would have nothing "
                     "to read.",
             "explanation": "It is the other way round: in training the whole target sentence is fed at once "
                            "(teacher forcing), so future keys do exist. That is exactly why they must be "
                            "masked."},
        ),
    },
    "q4": {
        "title": "Cross-attention: who asks, who answers",
        "text": "In cross-attention, why does Q come from the decoder while K and V come from the encoder?",
        "form": "choice",
        "hint": "The output of attention has one row per query. Which sequence needs one new vector per position?",
        "solution": (
            "Q represents \"what the decoder needs to know next\". The decoder asks: \"given what I have "
            "generated so far, what part of the input should I look at to generate the next token?\"",
            "K and V from the encoder represent \"what the input contains\": the encoder has already processed "
            "the full input into rich representations.",
            "Shapes make the same point: the weights are (n_target × n_source) and the output (n_target × d_v), "
            "one updated vector per decoder position, which is what the decoder needs for its next prediction "
            "(notebook 06).",
            "If the roles were reversed (Q from the encoder, K and V from the decoder), the output would have one "
            "row per source token, and the encoder would be querying a sequence that is built incrementally.",
        ),
        "choices": (
            {"key": "a", "correct": False,
             "text": "The encoder's sequence is the longer one, and the longer sequence must supply the keys and "
                     "values.",
             "explanation": "Lengths decide nothing: the source can be shorter or longer than the target. The "
                            "weights are simply n_target × n_source."},
            {"key": "b", "correct": True,
             "text": "The decoder is the one seeking information, and the output has one row per query: one per "
                     "target word.",
             "explanation": "Q asks \"what do I need next?\", K says \"what each source token is about\", V "
                            "carries its content. The output is (n_target × d_v): one updated vector per decoder "
                            "position, built from the source's values."},
            {"key": "c", "correct": False,
             "text": "Q and K are interchangeable: swapping which side gives them would only transpose the "
                     "attention weights.",
             "explanation": "Q and K are not interchangeable: the softmax runs over the keys, so each row (one "
                            "query) sums to 1, and swapping does not just transpose the weights. The output has "
                            "one row per query: swapped, one per source token, which is not what the decoder "
                            "needs."},
            {"key": "d", "correct": False,
             "text": "Cross-attention needs a causal mask over the source, and only the decoder's queries can "
                     "carry that mask.",
             "explanation": "Cross-attention has no causal mask: the source sentence is known in full, and every "
                            "decoder position may look at all of it."},
        ),
    },
    "q5": {
        "title": "Compute Q, K, V by hand",
        "text": "Compute Q, K, V for X = [[2, 1], [0, 3]] with W^Q = [[1, 0], [0, 1]], W^K = [[0, 1], [1, 0]], "
                "W^V = [[0.5, 0.5], [0.5, 0.5]].",
        "form": "projection",
        "inputs": {
            "X": [[2, 1], [0, 3]],
            "W_q": [[1, 0], [0, 1]],
            "W_k": [[0, 1], [1, 0]],
            "W_v": [[0.5, 0.5], [0.5, 0.5]],
        },
        "hint": "Q = X·W^Q: entry (i, j) is row i of X times column j of W^Q. X is 2×2 and every W is 2×2, so Q, "
                "K and V are 2×2. Which W is the identity?",
        "solution": (
            "Each entry of X·W is a row of X times a column of W (rows of X are the tokens; notebook 02).",
            "",
            "Q = X·W^Q, shape (2, 2) × (2, 2) → (2, 2)",
            "  Q[0,0] = 2·1 + 1·0 = 2",
            "  Q[0,1] = 2·0 + 1·1 = 1",
            "  Q[1,0] = 0·1 + 3·0 = 0",
            "  Q[1,1] = 0·0 + 3·1 = 3",
            "  Q = [[2, 1], [0, 3]]",
            "",
            "K = X·W^K, shape (2, 2) × (2, 2) → (2, 2)",
            "  K[0,0] = 2·0 + 1·1 = 1",
            "  K[0,1] = 2·1 + 1·0 = 2",
            "  K[1,0] = 0·0 + 3·1 = 3",
            "  K[1,1] = 0·1 + 3·0 = 0",
            "  K = [[1, 2], [3, 0]]",
            "",
            "V = X·W^V, shape (2, 2) × (2, 2) → (2, 2)",
            "  V[0,0] = 2·0.5 + 1·0.5 = 1.5",
            "  V[0,1] = 2·0.5 + 1·0.5 = 1.5",
            "  V[1,0] = 0·0.5 + 3·0.5 = 1.5",
            "  V[1,1] = 0·0.5 + 3·0.5 = 1.5",
            "  V = [[1.5, 1.5], [1.5, 1.5]]",
            "",
            "So Q = [[2, 1], [0, 3]], K = [[1, 2], [3, 0]], V = [[1.5, 1.5], [1.5, 1.5]], as the lesson says.",
            "W^Q is the identity, so Q = X; W^K swaps the two columns, so K is X with its columns swapped.",
            "Notice V: both rows are [1.5, 1.5] (2 + 1 = 0 + 3 = 3, halved). Every output row, whatever the "
            "weights, is then [1.5, 1.5]: when all values are equal, attention cannot tell the tokens apart.",
        ),
    },
    "q6": {
        "title": "Adding a constant to every score",
        "text": "What happens to attention weights if we add a constant C to all scores before softmax?",
        "form": "choice",
        "hint": "Write one weight as e^(x_i + C) / Σ_j e^(x_j + C) and split each exponential.",
        "solution": (
            "Nothing. Adding a constant to all elements of a row before softmax does not change the result: "
            "softmax(x_i + C) = e^(x_i + C) / Σ_j e^(x_j + C) = e^(x_i)·e^C / (e^C·Σ_j e^(x_j)) = softmax(x_i).",
            "But adding a constant to a single element (keeping the others) does change the distribution.",
            "This is also why a stable softmax may subtract the row's maximum first: same weights, no overflow "
            "(notebook 08).",
            "Masked entries stay −∞ (−∞ + C = −∞), so masks are unaffected.",
        ),
        "lesson_note": "The lesson's \"all scores\" means the same C for every score of a row (or of the whole "
                       "matrix). A different constant per key (per column) does change the weights.",
        "choices": (
            {"key": "a", "correct": False, "text": "Every weight is multiplied by e^C, so a large C makes them all "
                                                   "larger.",
             "explanation": "e^C appears in the numerator and in the denominator (the sum), so it cancels."},
            {"key": "b", "correct": False, "text": "Like dividing by √d_k, a positive C flattens the weights towards "
                                                   "uniform.",
             "explanation": "Dividing the scores by a number greater than 1 (like √d_k) flattens the weights. "
                            "Adding shifts every score equally; only differences between scores matter."},
            {"key": "c", "correct": False, "text": "The weights no longer sum to 1: each row now sums to e^C "
                                                   "instead.",
             "explanation": "Softmax divides by the sum of its exponentials, so its weights always sum to 1."},
            {"key": "d", "correct": True, "text": "Nothing: the weights stay exactly the same, whatever the value "
                                                  "of C.",
             "explanation": "softmax(x + C) = e^(x_i)·e^C / (e^C·Σ_j e^(x_j)) = softmax(x): the factor e^C "
                            "cancels."},
        ),
        # Words a learner may type instead of the letter.
        "synonyms": {"nothing": "d", "no change": "d", "unchanged": "d", "they stay the same": "d",
                     "stay the same": "d", "same": "d", "nothing happens": "d"},
    },
    "q7": {
        "title": "Counting comparisons",
        "text": "For a sequence of length n, how many pairwise attention comparisons are made in self-attention? "
                "Give the number for n = 100.",
        "form": "count",
        "field": {"name": "count", "label": "n = 100:  number of comparisons =", "what": "the number of "
                                                                                          "comparisons"},
        "expected": 10000,
        "hint": "One score for every (query, key) pair. How many queries? How many keys does each one meet?",
        "solution": (
            "n² comparisons: every token (as a query) compares against every token (as a key), itself included.",
            "For n = 100 that is 100 · 100 = 10,000 comparisons.",
            "This quadratic growth is the reason Transformers are computationally expensive for long sequences: "
            "doubling the length quadruples the scores (notebook 13 measures it).",
            "(Not n(n−1)/2: q_i·k_j and q_j·k_i differ, because queries and keys are different projections.)",
        ),
        "messages": {
            "right": "n² = 100 · 100 = 10,000: every token (as a query) is compared with every token (as a key), "
                     "itself included.",
            "formula": "give the number for n = 100: evaluate your formula ({text})",  # text: what was typed
            "otherwise": "count the scores: one per (query, key) pair, for n = 100 tokens",
        },
        # Wrong counts a learner may reach, and what each one means (n = 100).
        "mistakes": {
            9900: "n(n−1)? every token also compares with itself: q_i·k_i is one of the scores",
            4950: "n(n−1)/2 counts unordered pairs without self; but q_i·k_j ≠ q_j·k_i (queries and keys are "
                  "different projections), so both orders are computed, and each token with itself",
            5050: "n(n+1)/2 is what a causal mask keeps; plain self-attention scores every query against every "
                  "key",
            100: "that is one score per token; each of the n queries is compared with all n keys",
            200: "each of the n queries is compared with all n keys: n · n, not n + n",
            1000000: "n³ is too many: one score per (query, key) pair",
        },
    },
    "q8": {
        "title": "Content-based vs position-based attention",
        "text": "What is the difference between \"content-based\" attention and \"position-based\" attention?",
        "form": "choice",
        "hint": "Take the token \"bank\". Does its score with another token depend on what that token is, or on "
                "where it is?",
        "solution": (
            "Content-based attention: the score depends on what the tokens represent (the q·k dot product "
            "measures how well one token's query matches another token's key). \"bank\" attends to \"money\" "
            "because its query matches \"money\"'s key.",
            "Position-based attention: the score depends on where the tokens are. A head may learn to always "
            "attend to the token at position i−1 (the previous token) regardless of content.",
            "Multi-head attention can capture both: some heads learn content-based patterns, others "
            "position-based ones. The learned projections decide which kind each head specializes in (notebook 07 "
            "builds one of each and shuffles the words).",
        ),
        "lesson_note": "The lesson says \"bank\" attends to \"money\" \"because their representations are "
                       "similar\". More precisely the score is q_bank·k_money, after the learned projections W^Q "
                       "and W^K: the two tokens' own vectors need not be similar, their query and key must match.",
        "choices": (
            {"key": "a", "correct": True,
             "text": "Content-based: the score depends on what the tokens are; position-based: on where they "
                     "are.",
             "explanation": "Content-based heads match meanings through q·k (\"bank\" → \"money\"); "
                            "position-based heads match positions, like a previous-token head. Different heads "
                            "of one model learn different kinds."},
            {"key": "b", "correct": False,
             "text": "Content-based attention scores with the keys K; position-based attention scores with the "
                     "values V.",
             "explanation": "Both compute scores from queries and keys and both mix the values. The difference "
                            "is what the scores respond to: what a token is, or where it is."},
            {"key": "c", "correct": False,
             "text": "Content-based heads sit in the encoder and position-based heads in the decoder, because of "
                     "its mask.",
             "explanation": "Both kinds appear in any layer; heads specialise. A causal mask limits which keys may "
                            "be seen, it does not make the scores depend on position."},
            {"key": "d", "correct": False,
             "text": "Position-based attention uses fixed weights set by the positions, which are not learned in "
                     "training.",
             "explanation": "Position-based patterns are learned too: the projections pick up positional "
                            "information in the token vectors, so a head can learn \"look one to the left\". "
                            "(Some models also add fixed position biases to the scores, e.g. ALiBi, but a "
                            "position-based head as discussed here is learned.)"},
        ),
    },
}

# --------------------------------------------------------------------------- verdicts

VERDICTS = {
    "some_right": "{right} of {total} right.",   # right, total
    "choice_right": "Correct. ",
    "choice_wrong": "Not quite. ",
    "choose": "choose one of {keys}",          # keys: "a, b, c, d"
    "choose_letter": "answer with the letter of your choice ({keys}); got {got}",
    "not_a_choice": "{text} is not one of the choices; answer {keys}",
    "shapes_right": "All six right.",
    "projection_right": "Q, K and V are all right.",
    "attention_right": "Weights and output are right.",
    "weights_ok": "every row right (and sums to 1)",
    "output_ok": "every row right",
    "softmax_right": "The weights are right (and sum to 1).",
    "entries_right": "Every part is right.",
    "missing": "missing",
    "nothing_yet": "nothing to check yet: give {keys}",
    "expected_dict": "expected a dict with keys {keys} (e.g. {example}); got {got}",
    "unforeseen": "could not check this answer ({error}): {got}",
}

# --------------------------------------------------------------------------- mistake catalogues

# d_k for d_model and heads; first match wins. Values: d_model, heads, product (d_model·heads).
DK_MISTAKES = (
    {"value": "d_model*heads", "why": "d_k = d_model / h, you multiplied ({d_model}·{heads} = {product})"},
    {"value": "d_model", "why": "{d_model} is d_model, the width of the whole model; each of the {heads} heads gets "
                                "d_model / h"},
    {"value": "heads", "why": "{heads} is the number of heads h; d_k = d_model / h"},
    {"value": "heads/d_model", "why": "upside down: d_k = d_model / h, not h / d_model"},
)
DK_OTHERWISE = "d_k = d_model / h = {d_model} / {heads}: check the division"

# The axes of each shape, in order, as the messages name them.
SHAPE_AXES = {
    "Q": ("batch", "heads", "seq_len", "d_k"),
    "K": ("batch", "heads", "seq_len", "d_k"),
    "V": ("batch", "heads", "seq_len", "d_k"),
    "weights": ("batch", "heads", "queries", "keys"),
    "output": ("batch", "seq_len", "d_model"),
}
SHAPE_GENERIC = {
    "count": "expected {expected} numbers, ({axes}); you gave {got}",
    "axis": "the {axis} axis is off (you wrote {value}); the order is ({axes})",
}

# Wrong shapes a learner may give, per answer part; first match wins. "only" limits an entry to
# some parts. Fields: key (the part: Q, K or V), batch, seq_len, d_model, heads, d_k.
SHAPE_MISTAKES = {
    "Q, K, V": (
        {"shape": "batch, seq_len, d_model",
         "why": "that is {key} for all heads together, before splitting into {heads} heads of d_k = {d_k}"},
        {"shape": "batch, seq_len, d_k",
         "why": "that is the shape per head; stacking the {heads} heads gives (batch, heads, seq_len, d_k)"},
        {"shape": "batch, heads, d_k, seq_len", "only": ("K",),
         "why": "you swapped d_k and the sequence length (that is Kᵀ, the transposed keys used in Q·Kᵀ)"},
        {"shape": "batch, heads, d_k, seq_len", "why": "you swapped d_k and the sequence length"},
        {"shape": "batch, seq_len, heads, d_k",
         "why": "the heads axis comes after the sequence axis here; each head's {key} is a seq_len × d_k matrix "
                "(03's {key}_i), so those two axes come last, after batch and heads: (batch, heads, seq_len, "
                "d_k)"},
        {"shape": "heads, batch, seq_len, d_k", "why": "batch comes first, then heads: (batch, heads, seq_len, d_k)"},
        {"shape": "batch, heads, seq_len, d_model",
         "why": "each head has only d_k = d_model / h = {d_k} columns, not d_model = {d_model}"},
        {"shape": "batch, heads, seq_len, d_model*heads", "why": "d_k = d_model / h, you multiplied"},
        {"shape": "seq_len, d_k", "why": "that is one head of one sequence; add the batch and heads axes"},
        {"shape": "seq_len, d_model", "why": "that is one sequence before splitting; add the batch axis and split "
                                             "into heads"},
    ),
    "weights": (
        {"shape": "batch, heads, seq_len, d_k",
         "why": "weights are (batch, heads, n, n): one row per query, one column per key; d_k is summed away in "
                "each q·k"},
        {"shape": "batch, heads, d_k, d_k",
         "why": "d_k × d_k? the weights compare tokens with tokens: (n, n) per head"},
        {"shape": "batch, seq_len, seq_len",
         "why": "each of the {heads} heads has its own weights: (batch, heads, n, n)"},
        {"shape": "seq_len, seq_len", "why": "that is one head of one sequence; add the batch and heads axes"},
        {"shape": "batch, heads, d_model, d_model",
         "why": "weights compare tokens with tokens: (n, n) per head, not d_model × d_model"},
    ),
    "output": (
        {"shape": "batch, heads, seq_len, d_k",
         "why": "that is every head's output, stacked, before the heads are combined; concatenating the {heads} "
                "heads of {d_k} gives (batch, seq_len, d_model)"},
        {"shape": "batch, seq_len, d_k",
         "why": "that is one head's output; concatenating {heads} heads of {d_k} gives d_model = {d_model}"},
        {"shape": "batch, heads, seq_len, seq_len",
         "why": "that is the shape of the weights; the output is weights·V, then the heads are combined"},
        {"shape": "batch, seq_len, seq_len",
         "why": "that is the shape of one head's weights; the output has one d_model-wide row per token"},
        {"shape": "batch, seq_len, d_model*heads",
         "why": "concatenating the heads gives h · d_k = d_model columns, not d_model · h"},
    ),
}

# Q, K or V = X·W gone wrong. Fields: key (Q, K or V), w (its weight matrix, "W^K"), other (another
# part), other_w (that part's weight matrix), where (the entry, both ways of counting), terms.
PROJECTION_MISTAKES = {
    "transposed": "you have {key} transposed: row i of {key} belongs to token i (row i of X)",
    "w_times_x": "that is {w}·X; the product is X·{w} (tokens are the rows of X)",
    "x_unchanged": "that is X unchanged; {key} = X·{w}",
    "w_itself": "that is {w} itself; {key} = X·{w}",
    "other_weight": "that is X·{other_w}; {key} uses {w}",
    "entry": "{where}: check {terms}",
}
# How an entry is named: learners count from 1, the code from 0. Fields: name, row, col, i, j.
ENTRY = "row {row}, column {col} of {name} ({name}[{i},{j}])"

# Attention weights gone wrong. Fields: d_k, i, j (query and key index), total (a row's sum).
WEIGHTS_MISTAKES = {
    "unscaled": "these are the weights without dividing the scores by √d_k = √{d_k}; scale first, then softmax",
    "unmasked": "these are the weights without the mask: blocked keys get score −∞, so weight 0",
    "blocked": "query q{i} may not attend to key k{j} (the mask blocks it): its weight must be 0",
    "negative": "a weight is negative; softmax weights are between 0 and 1",
    "columns": "your columns sum to 1, not your rows: row q_i is query i, spreading 1 unit of attention over the "
               "keys (transposed?)",
    "row_sum": "row q{i} sums to {total}; each row of weights must sum to 1",
    "entry": "row q{i} is off at key k{j}: check the scores q{i}·k_j / √{d_k} of that row, then the softmax",
}
# The output (weights·V) gone wrong. Fields: d_k, i, c (row and column), terms.
OUTPUT_MISTAKES = {
    "follows_weights": "your output is your weights·V, so the step is right; fix the weights and it follows",
    "unscaled": "computed with unscaled weights: divide the scores by √d_k = √{d_k} before the softmax",
    "entry": "output[{i},{c}] (row q{i}, column d{c}) is Σ_j weight[{i},j]·V[j,{c}]: check {terms} (weights "
             "rounded to 2 decimals)",
}
# One row of softmax gone wrong. Fields: total, j, k (key indices), score_j, score_k.
SOFTMAX_MISTAKES = {
    "divided_by_sum": "you divided each score by the sum of the scores; softmax divides exp(score) by the sum of "
                      "the exps",
    "exps": "these are the exps; divide each by their sum so the weights add up to 1",
    "sum": "your weights sum to {total}; softmax weights always sum to 1",
    "order": "key {j} has a higher score than key {k} ({score_j} > {score_k}), so it must get more weight: exp "
             "keeps the order",
    "entry": "weight {j} is off: it is exp({score_j} − max) / Σ exp(score − max)",
}
# Shapes of matrix answers. Fields: key, expected (the shape), sizes ("2×2"), got, axes.
MATRIX_SHAPE = "expected shape {axes}{expected} ({sizes}); got {got}"

# --------------------------------------------------------------------------- generated problems

TITLE = "Problem {seed} ({kind}, {difficulty})"

KINDS = {
    "projection": {
        # n tokens, d_model, d_k
        "instruction": "Compute Q = X·W^Q, K = X·W^K and V = X·W^V (each {n}×{d_k}). Rows of X are tokens. "
                       "{rounding}",
        "solution": ("X is {n}×{d_model} and each W is {d_model}×{d_k}, so Q, K and V are {n}×{d_k}.",
                     "Entry (i, j) is row i of X times column j of W."),
    },
    "attention": {
        # n_q, n_k, d_k, d_v
        "instruction": "Compute the attention weights softmax(Q·Kᵀ / √d_k) ({n_q}×{n_k}) and the output "
                       "weights·V ({n_q}×{d_v}). d_k = {d_k}. {rounding}",
    },
    "masked": {
        # n_q, n_k, d_k, d_v, mask (one of "masks")
        "instruction": "Compute the masked attention weights ({n_q}×{n_k}) and the output ({n_q}×{d_v}) with "
                       "{mask}. Blocked scores become −∞ before the softmax. Scale by √d_k, d_k = {d_k}. "
                       "{rounding}",
        "masks": {
            "causal": "a causal mask (query i may attend to keys 0..i)",
            "padding": "a padding mask (the last key is padding: no query may attend to it)",
            "random": "the mask below (✓ = may attend, ✗ = blocked)",
        },
        "mask_title": "mask (added to the scores)",
    },
    "softmax": {
        # n (number of scores)
        "instruction": "Turn this row of {n} scores into attention weights with softmax. {rounding}",
        "solution_end": "weights (rounded) = {weights}",
    },
    "shapes": {
        # batch, seq_len, d_model, heads
        "instruction": "A batch of {batch} sequences, each of length {seq_len}, d_model = {d_model}, {heads} "
                       "heads. Give d_k, the shapes of Q, K and V after splitting into heads, of the attention "
                       "weights, and of the output after the heads are combined.",
        # batch, seq_len, d_model, heads, d_k and the shapes Q, K, weights, output, per_head_output
        "solution": (
            "d_k = d_model / heads = {d_model} / {heads} = {d_k}.",
            "One head: ({batch}, {seq_len}, {d_model}) × ({d_model}, {d_k}) = ({batch}, {seq_len}, {d_k}); the "
            "{heads} heads stacked after the batch: Q = {Q} (batch, heads, seq_len, d_k).",
            "K and V: the same, {K} (d_v = d_k = {d_k}).",
            "Weights: per head ({seq_len}, {d_k}) × ({d_k}, {seq_len}) = ({seq_len}, {seq_len}), so {weights}.",
            "Output: per head ({seq_len}, {seq_len}) × ({seq_len}, {d_k}) = ({seq_len}, {d_k}), so "
            "{per_head_output}; combining {heads} heads × {d_k} = {d_model} columns gives {output}.",
        ),
    },
}

# The worked solution of attention and masked problems. Fields as named in each line.
ATTENTION_SOLUTION = {
    "scores": "Scores: q_i·k_j for every query i and key j, divided by √d_k = √{d_k} = {sqrt_d_k}.",
    "shapes": "Q is {n_q}×{d_k}, Kᵀ is {d_k}×{n_k}: the scores are {n_q}×{n_k}.",
    "masked": "  ({i},{j}): masked: query {i} may not attend to key {j}, score −∞",
    "softmax": "Softmax of each row (each row of weights sums to 1):",
    "query": " query {i}:",
    "weights": "Weights ({n_q}×{n_k}, rounded) = {weights}",
    "output_rule": "Output row i = Σ_j weight[i,j]·v_j:",
    "output": "Output ({n_q}×{d_v}, rounded) = {output}",
}

# --------------------------------------------------------------------------- reading a heatmap

# Generated "heatmap" problems: a weights matrix drawn as a heatmap (Queries ↓, Keys →), four questions about
# it. Option keys are what the learner picks (and what ``check`` takes); "what" says how the heatmap shows it.
HEATMAP = {
    # n_q, n_k
    "instruction": "Read the heatmap: {n_q} queries (rows, ↓) by {n_k} keys (columns, →), each row one query's "
                   "weights (they sum to 1), colours on the fixed 0 to 1 scale, numbers rounded to 2 decimals. "
                   "Answer the four questions below.",
    "title": "attention weights",
    # The four answer fields: (name, label). {token}: the query of the last question.
    "fields": (
        ("pattern", "Which pattern is it?"),
        ("mask", "Which mask produced it?"),
        ("attention", "One sequence on both axes (self) or two (cross)?"),
        ("strongest", "Which key does the query «{token}» read most?"),
    ),
    "pad_rows": "Rows of [PAD] queries do not count for the pattern: their outputs are thrown away.",
    "patterns": {
        "diagonal": "each row's largest weight is on the diagonal: every token reads itself most",
        "diagonal_cross": "each row's largest weight is on the diagonal: target word i reads source word i most "
                          "(a word-for-word alignment)",
        "previous-token": "each row's largest weight is just left of the diagonal: every token reads the token "
                          "before it (the first token, which has none, reads itself)",
        "vertical": "one column holds every row's largest weight: every query reads «{key}»",
        "block": "the weight stays inside squares along the diagonal ({groups}): each token spreads its weight "
                 "over the tokens of its own group",
        "long-range": "each row's largest weight is far from the diagonal (2 or more positions away), on a "
                      "different key for different rows: tokens read distant partners",
    },
    # Why a pattern the learner chose does not fit: the first row that contradicts it. Fields: row, key,
    # best (that row's largest weight), own (its weight on the key the pattern expects), target, distance.
    "patterns_not": {
        "diagonal": "row «{row}» puts {own} on «{target}», on the diagonal, but {best} on «{key}»",
        "previous-token": "row «{row}» puts {own} on «{target}», the token before it, but {best} on «{key}»",
        "vertical": "no single column is every row's largest: row «{row}» peaks at «{key}», row «{row2}» at "
                    "«{key2}»",
        "block": "no grouping fits: row «{row}» puts {best} on «{key}» alone instead of spreading its weight "
                 "over a group of neighbours",
        "long-range": "row «{row}» peaks at {where}: that is not far",
        "long-range_self": "itself",
        "long-range_near": "«{key}», {distance} position{s} away",
    },
    "masks": {
        "none": "no weight is exactly 0: every query reads every key",
        "causal": "every weight above the diagonal is exactly 0 (0.00) and every other one is not: query i reads "
                  "keys up to itself only",
        "padding": "the last column{s} ({keys}) {are} exactly 0 in every row, and nothing else is: no query reads "
                   "the padding",
    },
    # Why a mask the learner chose does not fit. Fields: row, key, weight, keys.
    "masks_not": {
        "none": "some weights are exactly 0 (row «{row}», key «{key}»: 0.00): something blocked them",
        "causal": "row «{row}» reads «{key}», a later token, with weight {weight}; a causal mask would make it 0",
        "causal_cross": "a causal mask needs the same sequence on both axes (query i may read keys 0..i); these "
                        "are two sequences",
        "padding": "no column is 0 in every row: row «{row}» reads «{key}» with weight {weight}",
    },
    "attention": {
        "self": "the same {n} tokens label the rows and the columns: one sequence asks and answers",
        "cross": "the rows ({queries}) and the columns ({keys}) are two different sequences{shape}",
    },
    # How the verdicts name the right reading: "that is {name}".
    "names": {
        "pattern": "the {} pattern",
        "mask": {"none": "no mask", "causal": "a causal mask", "padding": "a padding mask"},
        "attention": {"self": "self-attention", "cross": "cross-attention"},
    },
    "attention_shape": ", {n_q} by {n_k}",
    "attention_not": {
        "self": "the rows and columns are labelled with different tokens{shape}",
        "cross": "the rows and the columns carry the same tokens, in the same order",
    },
    "options": {
        "pattern": ("diagonal", "previous-token", "vertical", "block", "long-range"),
        "mask": ("none", "causal", "padding"),
        "attention": ("self", "cross"),
    },
    # Words a learner may type for an option.
    "synonyms": {"previous": "previous-token", "previous token": "previous-token", "long range": "long-range",
                 "block-diagonal": "block", "block diagonal": "block", "no mask": "none", "no": "none",
                 "self-attention": "self", "cross-attention": "cross", "one": "self", "two": "cross",
                 "one sequence": "self", "two sequences": "cross"},
    "strongest": "row «{query}» puts {best} on «{key}», its largest weight (next: {second} on «{key2}»)",
    "strongest_not": "row «{query}» puts {chosen_weight} on «{chosen}» but {best} on «{key}»",
    "not_option": "{got} is not one of the options ({options})",
    "wrong": "not {chosen}: that is {actual}: {what}; {why}",
    "right": "{chosen}: {what}",
    "all_right": "All four read right.",
    "solution": {
        "rows": "Read the heatmap row by row: each row is one query, and its largest weight is where it looks.",
        "row": "  {query} → {key} {weight}",
        "pattern": "Pattern: {what}. So: {option}.",
        "mask": "Mask: {what}. So: {option}.",
        "attention": "Queries and keys: {what}. So: {option}.",
        "strongest": "«{query}»: {what}.",
    },
}

# Token sequences of the heatmap problems: every token once, so that a label names one position.
HEATMAP_SENTENCES = {
    5: ("the cat sat down quietly", "she read every page twice", "rain fell on old roofs",
        "my brother fixed bikes there"),
    6: ("the cat sat on a mat", "we walked home after the game", "a small bird sang at dawn",
        "he left his keys at work"),
    7: ("the old man fed pigeons every morning", "a bank near the river sold bread",
        "they painted the door bright red today", "my sister wrote songs about the sea"),
}
# Cross-attention: (target words, the queries; source words, the keys). The source has a final "." that
# a vertical head may read.
HEATMAP_TRANSLATIONS = (
    ("the cat sleeps now", "le chat dort maintenant ."),
    ("my house is small", "mein haus ist klein ."),
    ("we see the sea", "wir sehen das meer ."),
    ("the dog runs fast", "der hund läuft schnell ."),
    ("she reads a book", "elle lit un livre ."),
)
PAD = "[PAD]"
