"""The concept inventory's items, as data: the questions, their options, the right one, what each wrong one suggests
and where the course teaches the idea.

Every wrong option is a misconception the course meets elsewhere: a prediction's "you probably thought" (the
``thought`` tables of :mod:`helpers.exercises.predictions`), a mistake that :func:`~helpers.exercises.check_code`
recognises (:data:`helpers.exercises.code_tasks.MISTAKES`) or one of the lesson's pitfalls. The options are in the
pre-test's order; the right one sits in every position about equally often, and it is neither the longest nor the
shortest option in more than a quarter of the items (tests/test_inventory.py keeps these and the other rules that stop
an item being answered from its wording alone).
"""

from __future__ import annotations

from helpers.exercises.inventory.item import Item

__all__ = ["OBJECTIVES", "ITEMS"]

# The lesson's five learning objectives, in its order and words (notebook 00's table lists them too).
OBJECTIVES = {
    1: "Explain why Q, K, V matrices are necessary and how they differ",
    2: "Derive Q, K, V from input embeddings through linear projections",
    3: "Interpret attention weight matrices and visualize attention patterns",
    4: "Distinguish between self-attention, cross-attention, and bidirectional attention",
    5: "Compute attention outputs manually for small examples",
}

ITEMS = [
    # ------------------------------------------------------------------ 1. why Q, K, V, and how they differ
    Item(
        name="raw-embeddings-as-queries",
        objective=1,
        question=("Suppose a model skipped the projections and used each token's embedding x as its query and as its "
                  "key (W^Q = W^K = I). What would its attention scores be like?"),
        options=(
            "Just as good: embeddings already carry meaning, the projections only resize them",
            "Symmetric: i scores j as j scores i, and a token tends to score itself highest",
            "Random: without learned matrices no score would relate one token to another",
            "Equal: every key would get the same score, so attention would be uniform",
        ),
        answer="Symmetric: i scores j as j scores i, and a token tends to score itself highest",
        misconceptions={
            "Just as good: embeddings already carry meaning, the projections only resize them": (
                "That W^Q and W^K only change sizes; the lesson's point is that a word needs different features "
                "as a query than as a key."),
            "Random: without learned matrices no score would relate one token to another": (
                "That the scores come from the matrices alone; a score is a dot product of two token vectors, and "
                "those differ from token to token."),
            "Equal: every key would get the same score, so attention would be uniform": (
                "That nothing tells tokens apart without projections; their embeddings differ, and so do their "
                "dot products."),
        },
        notebook="01_intuition",
        section="9. Learned projections break the symmetry",
    ),
    Item(
        name="what-a-value-is",
        objective=1,
        question="In self-attention every token plays three roles. Which one describes its value?",
        options=(
            "What it is looking for among the other tokens",
            "What it advertises, so that queries can match it",
            "How much attention it receives from the other tokens in total",
            "What it hands over to the tokens that attend to it",
        ),
        answer="What it hands over to the tokens that attend to it",
        misconceptions={
            "What it is looking for among the other tokens": (
                "A mix-up of the value with the query, the side that asks."),
            "What it advertises, so that queries can match it": (
                "A mix-up of the value with the key: what is matched is not what is passed on."),
            "How much attention it receives from the other tokens in total": (
                "Reading a column sum of the weights as the value; a value is a vector of features, not an amount "
                "of attention."),
        },
        notebook="01_intuition",
        section="8. Self-attention: every token is a query, a key and a value",
    ),
    Item(
        name="swap-w-q-and-w-k",
        objective=1,
        question=("A trained model's W^Q and W^K are swapped, everything else kept. What happens to its attention "
                  "weights A?"),
        options=(
            "Nothing changes: Q and K are only names for two projections that work alike",
            "They become exactly Aᵀ: the old weights with their rows and columns swapped",
            "They change, and the new weights are not simply the old ones transposed",
            "Only how sharp they are changes; each query still favours the very same keys",
        ),
        answer="They change, and the new weights are not simply the old ones transposed",
        misconceptions={
            "Nothing changes: Q and K are only names for two projections that work alike": (
                "The lesson's pitfall 1: taking Q, K and V for arbitrary names whose roles could be exchanged."),
            "They become exactly Aᵀ: the old weights with their rows and columns swapped": (
                "That a softmax and a transpose can be taken in either order."),
            "Only how sharp they are changes; each query still favours the very same keys": (
                "That W^Q and W^K set only how peaked the weights are, not which keys a query matches."),
        },
        notebook="08_pitfalls",
        section="Pitfall 1: Q, K and V are not arbitrary names",
    ),
    Item(
        name="why-values-not-keys",
        objective=1,
        question=("The keys already decide where each query looks. Why is the output mixed from separate value "
                  "vectors rather than from the keys?"),
        options=(
            "A good match and what is worth passing on differ, so each gets its own projection",
            "The values hold the attention weights, and mixing the keys would lose them",
            "The keys are used up by the softmax, so a second copy of the input is needed",
            "Not needed: mixing the keys gives the same output; the values only set its width",
        ),
        answer="A good match and what is worth passing on differ, so each gets its own projection",
        misconceptions={
            "The values hold the attention weights, and mixing the keys would lose them": (
                "That the values carry the weights; the weights come from the queries and keys alone."),
            "The keys are used up by the softmax, so a second copy of the input is needed": (
                "That computing the weights changes K, as if the softmax consumed it."),
            "Not needed: mixing the keys gives the same output; the values only set its width": (
                "That the keys could stand in for the values: the code mistake weights @ K."),
        },
        notebook="08_pitfalls",
        section="Pitfall 1: Q, K and V are not arbitrary names",
    ),
    # ------------------------------------------------------------------ 2. Q, K, V by linear projections
    Item(
        name="row-of-q",
        objective=2,
        question="Q = XW^Q, with one row of X per token. Which tokens does row i of Q depend on?",
        options=(
            "Token i and the tokens before it",
            "Every token: the projection mixes all the rows of X",
            "Token i and the tokens its query attends to",
            "Token i alone: its row of X times W^Q",
        ),
        answer="Token i alone: its row of X times W^Q",
        misconceptions={
            "Token i and the tokens before it": (
                "That the causal mask already acts in the projection; it acts on the weights, later."),
            "Every token: the projection mixes all the rows of X": (
                "That the projection mixes tokens; it mixes one token's features, and attention is the step that "
                "mixes tokens."),
            "Token i and the tokens its query attends to": (
                "That the projection already depends on attention, which comes after it."),
        },
        notebook="02_projections",
        section='2. Worked example: projecting "The cat sat"',
    ),
    Item(
        name="edit-of-w-q",
        objective=2,
        question=("You change one entry of W^Q and nothing else. Which part of the score matrix QKᵀ (queries ↓, "
                  "keys →) can change?"),
        options=(
            "Whole columns: those of the keys that change",
            "Only one score: the query and key at the entry's row and column",
            "Nothing, unless W^K is changed to match",
            "Whole rows: those of the queries that change",
        ),
        answer="Whole rows: those of the queries that change",
        misconceptions={
            "Whole columns: those of the keys that change": (
                "A mix-up of W^Q with W^K: a column of the scores is a key, and W^Q makes queries."),
            "Only one score: the query and key at the entry's row and column": (
                "That one entry of W^Q feeds one score; it feeds the query of every token that has that feature."),
            "Nothing, unless W^K is changed to match": (
                "That queries and keys must change together before a score moves."),
        },
        notebook="02_projections",
        section='6. Live: the whole pipeline for "The cat sat on the mat"',
    ),
    Item(
        name="widths-that-must-match",
        objective=2,
        question="In softmax(QKᵀ/√d_k)V, which widths (numbers of columns) must be equal?",
        options=(
            "Q's, K's and V's: the projections always share one width",
            "Q's and K's: each score is a dot product of a query and a key",
            "Q's and V's: the output row replaces the query row",
            "None: the softmax adapts to whatever widths come in",
        ),
        answer="Q's and K's: each score is a dot product of a query and a key",
        misconceptions={
            "Q's, K's and V's: the projections always share one width": (
                "That d_v must equal d_k; it often does (64 and 64 in the original Transformer), but nothing "
                "requires it."),
            "Q's and V's: the output row replaces the query row": (
                "That the output takes the query's place and so its width; its width is the values'."),
            "None: the softmax adapts to whatever widths come in": (
                "That the softmax reshapes what it gets; it keeps the scores' shape, and they need a dot product "
                "first."),
        },
        notebook="02_projections",
        section="4. The whole formula, with shapes",
    ),
    Item(
        name="a-heads-queries",
        objective=2,
        question="With h heads, how does head 1 get its queries from the token vectors X (n × d_model)?",
        options=(
            "Through W^Q applied to its own slice of each x, d_model / h features",
            "From the same queries as every head, divided by h",
            "Through its own block of d_k columns of W^Q, reading all of each x",
            "Through a d_model × d_model W^Q of its own",
        ),
        answer="Through its own block of d_k columns of W^Q, reading all of each x",
        misconceptions={
            "Through W^Q applied to its own slice of each x, d_model / h features": (
                "That the split into heads cuts each token's vector into pieces."),
            "From the same queries as every head, divided by h": (
                "That heads share their queries and differ only in scale."),
            "Through a d_model × d_model W^Q of its own": (
                "The lesson's pitfall 2: taking a head's width d_k for the model's width d_model."),
        },
        notebook="03_heads",
        section='3. Splitting into heads: "The cat sat" with two',
    ),
    # ------------------------------------------------------------------ 3. reading weights and patterns
    Item(
        name="row-of-the-weights",
        objective=3,
        question="In an attention weight matrix (queries ↓, keys →), what does row i tell you?",
        options=(
            "How much attention token i receives from all the queries",
            "How query i shares its attention among all the keys",
            "How similar token i's key is to each of the other keys",
            "Which features of its own value vector token i keeps",
        ),
        answer="How query i shares its attention among all the keys",
        misconceptions={
            "How much attention token i receives from all the queries": (
                "Reading the matrix transposed: what one key receives is a column."),
            "How similar token i's key is to each of the other keys": (
                "That the weights compare keys with keys; a query meets every key."),
            "Which features of its own value vector token i keeps": (
                "That the weights pick features; they weigh whole value vectors, one per key."),
        },
        notebook="02_projections",
        section="Step 3: softmax, row by row",
    ),
    Item(
        name="column-sums",
        objective=3,
        question="Each row of the attention weights sums to 1. What does a column sum to?",
        options=(
            "Anything from 0 up to n_q, the number of queries",
            "1 as well, since the softmax normalises both ways",
            "1 / n: each key's fair share of all the attention",
            "0, since the rows have used up the total of 1",
        ),
        answer="Anything from 0 up to n_q, the number of queries",
        misconceptions={
            "1 as well, since the softmax normalises both ways": (
                "The lesson's pitfall 3: expecting the columns to sum to 1 like the rows."),
            "1 / n: each key's fair share of all the attention": (
                "That every key receives the same amount of attention in total."),
            "0, since the rows have used up the total of 1": (
                "That rows and columns share a single budget of attention."),
        },
        notebook="08_pitfalls",
        section="Pitfall 3: rows sum to 1, columns do not",
    ),
    Item(
        name="vertical-stripe",
        objective=3,
        question=("In a heatmap of weights (queries ↓, keys →), one column is high in almost every row: a vertical "
                  "stripe. What does it mean?"),
        options=(
            "Each token attends mostly to itself",
            "One key is masked, hidden from all the queries",
            "Many queries give most of their weight to the same key",
            "One query spreads its weight evenly over every key",
        ),
        answer="Many queries give most of their weight to the same key",
        misconceptions={
            "Each token attends mostly to itself": "Taking the stripe for the diagonal pattern.",
            "One key is masked, hidden from all the queries": (
                "That a stripe marks a blocked key; a masked key gets weight 0 in every row."),
            "One query spreads its weight evenly over every key": (
                "Reading a column as a row: one query's weights are a row."),
        },
        notebook="07_patterns",
        section="3. Which pattern?",
    ),
    Item(
        name="content-or-position-head",
        objective=3,
        question=("A head puts most of each token's weight on the token just before it, and keeps doing so after "
                  "the words are shuffled. What kind of head is it?"),
        options=(
            "Content-based: each word looks for the word it relates to",
            "A broken head: attention is meant to follow the meaning",
            "A masked head: the causal mask forces the previous token",
            "Position-based: its scores depend on where tokens are",
        ),
        answer="Position-based: its scores depend on where tokens are",
        misconceptions={
            "Content-based: each word looks for the word it relates to": (
                "That attention always follows meaning; a head that reads content moves with the words."),
            "A broken head: attention is meant to follow the meaning": (
                "That heads attend only by meaning; heads that attend by position are common and useful."),
            "A masked head: the causal mask forces the previous token": (
                "That the causal mask picks the previous token; it only blocks the later ones."),
        },
        notebook="07_patterns",
        section="Content-based vs position-based attention (Q8)",
    ),
    # ------------------------------------------------------------------ 4. self, cross and bidirectional attention
    Item(
        name="why-the-decoder-is-masked",
        objective=4,
        question="Why is a decoder's self-attention masked during training?",
        options=(
            "Masking half the scores makes training about twice as fast",
            "Unmasked, each position could read the very token it must predict",
            "It stops each token from attending to itself, which would be trivial",
            "Later tokens matter less to a sentence's meaning than earlier ones",
        ),
        answer="Unmasked, each position could read the very token it must predict",
        misconceptions={
            "Masking half the scores makes training about twice as fast": (
                "That the mask is there for speed; the blocked scores are usually computed anyway, then set to −∞."),
            "It stops each token from attending to itself, which would be trivial": (
                "That the causal mask hides the diagonal; a token may attend to itself."),
            "Later tokens matter less to a sentence's meaning than earlier ones": (
                "That the mask weighs tokens by importance; it blocks by position only."),
        },
        notebook="05_decoding",
        section="2. Why the decoder needs the mask (Q3)",
    ),
    Item(
        name="cross-attention-sources",
        objective=4,
        question="In an encoder–decoder model, where do a cross-attention layer's Q, K and V come from?",
        options=(
            "Q from the decoder; K and V from the encoder",
            "Q from the encoder; K and V from the decoder",
            "Q and K from the encoder; V from the decoder",
            "Q, K and V all from the encoder's final output",
        ),
        answer="Q from the decoder; K and V from the encoder",
        misconceptions={
            "Q from the encoder; K and V from the decoder": (
                "The roles reversed: the encoder would query a decoder that is still being written."),
            "Q and K from the encoder; V from the decoder": (
                "That a key and its value come from different places; both describe the same token."),
            "Q, K and V all from the encoder's final output": (
                "That cross-attention is the encoder attending to itself."),
        },
        notebook="06_cross_attention",
        section="1. Self-attention vs cross-attention (section 1.3)",
    ),
    Item(
        name="rows-the-mask-changes",
        objective=4,
        question=("An encoder and a decoder get the same Q, K and V for a sentence; only the decoder applies the "
                  "causal mask. Which rows of the weights differ between the two?"),
        options=(
            "Every row, the last token's included",
            "Only the first token's row",
            "Every row except the last token's",
            "Only the last token's row",
        ),
        answer="Every row except the last token's",
        misconceptions={
            "Every row, the last token's included": (
                "That the mask takes something from every row, even from a token with nothing after it."),
            "Only the first token's row": (
                "That only the first token loses keys, as if the others had no later tokens."),
            "Only the last token's row": (
                "That the mask works on the last token, the one with no future to hide."),
        },
        notebook="04_masking",
        section="1. Encoder and decoder: the same formula, one extra matrix",
    ),
    Item(
        name="cross-attention-weights-shape",
        objective=4,
        question=("A decoder reading a 7-token source sentence has 5 target tokens so far. What shape are its "
                  "cross-attention weights, rows × columns?"),
        options=(
            "7 × 7: attention weights are always square",
            "5 × 5: the decoder attends only among its own target tokens",
            "7 × 5: one row per source token, one column per target token",
            "5 × 7: one row per target token, one column per source token",
        ),
        answer="5 × 7: one row per target token, one column per source token",
        misconceptions={
            "7 × 7: attention weights are always square": (
                "That attention weights are square as in self-attention; their shape is queries × keys."),
            "5 × 5: the decoder attends only among its own target tokens": (
                "A mix-up of cross-attention with the decoder's own self-attention."),
            "7 × 5: one row per source token, one column per target token": (
                "That the source makes the rows; the rows are the queries, and here the queries are the "
                "decoder's."),
        },
        notebook="06_cross_attention",
        section="1. Self-attention vs cross-attention (section 1.3)",
    ),
    # ------------------------------------------------------------------ 5. computing attention outputs
    Item(
        name="softmax-axis",
        objective=5,
        question=("Scores S have one row per query and one column per key. Along which axis must the softmax run, "
                  "and why?"),
        options=(
            "Along each row (the keys), so each query's weights sum to 1",
            "Along each column (the queries), so each key's weights sum to 1",
            "Over every row and column at once, so all weights sum to 1",
            "Either way: the weights come out the same",
        ),
        answer="Along each row (the keys), so each query's weights sum to 1",
        misconceptions={
            "Along each column (the queries), so each key's weights sum to 1": (
                "The softmax over the queries (axis 0), a mistake the course's code checks recognise."),
            "Over every row and column at once, so all weights sum to 1": (
                "That all queries share one budget of attention."),
            "Either way: the weights come out the same": (
                "That the axis does not matter; a softmax normalises along one axis only."),
        },
        notebook="02_projections",
        section="Step 3: softmax, row by row",
    ),
    Item(
        name="rows-under-a-mask",
        objective=5,
        question=("A causal mask sets blocked scores to −∞ before the softmax. What does each row of the weights then "
                  "sum to?"),
        options=(
            "Still 1: the blocked keys' share goes to the keys left",
            "Less than 1: the blocked keys' share is lost",
            "The number of keys that row may see",
            "0 in the rows that have blocked keys, 1 in the others",
        ),
        answer="Still 1: the blocked keys' share goes to the keys left",
        misconceptions={
            "Less than 1: the blocked keys' share is lost": (
                "The mask applied after the softmax, zeroing weights: a mistake the course's code checks recognise."),
            "The number of keys that row may see": (
                "That a row counts its visible keys instead of sharing one unit of attention among them."),
            "0 in the rows that have blocked keys, 1 in the others": (
                "That a row with blocked keys is switched off altogether."),
        },
        notebook="04_masking",
        section="3. Worked example: masked attention, every step (section 1.5.2)",
    ),
    Item(
        name="why-divide-by-sqrt-d-k",
        objective=5,
        question="What does dividing the scores by √d_k prevent?",
        options=(
            "e^score overflowing to infinity whenever the scores are large",
            "Scores that grow with d_k and push the softmax to one key",
            "Rows of weights that no longer sum to exactly 1 when d_k is large",
            "The key that matches best changing as d_k grows larger and larger",
        ),
        answer="Scores that grow with d_k and push the softmax to one key",
        misconceptions={
            "e^score overflowing to infinity whenever the scores are large": (
                "A mix-up of the scale with the max trick, which is what keeps e^score finite."),
            "Rows of weights that no longer sum to exactly 1 when d_k is large": (
                "That the scale normalises the rows; the softmax does that at any scale."),
            "The key that matches best changing as d_k grows larger and larger": (
                "That scaling changes which key matches best; dividing every score by one positive number keeps "
                "their order."),
        },
        notebook="08_pitfalls",
        section="Saturation and vanishing gradients",
    ),
    Item(
        name="row-of-the-output",
        objective=5,
        question="What is row i of the output softmax(QKᵀ/√d_k)V?",
        options=(
            "An average of the key rows (K), weighted by row i of the weights",
            "Row i of V, scaled by the weight token i gives itself",
            "An average of the value rows, weighted by row i of the weights",
            "Row i of the weights; V only changes how many numbers it holds",
        ),
        answer="An average of the value rows, weighted by row i of the weights",
        misconceptions={
            "An average of the key rows (K), weighted by row i of the weights": (
                "That the output mixes the keys: the code mistake weights @ K."),
            "Row i of V, scaled by the weight token i gives itself": (
                "That a token keeps only its own value; its output mixes every token's value."),
            "Row i of the weights; V only changes how many numbers it holds": (
                "That the output is the weights; they are multiplied by V next."),
        },
        notebook="02_projections",
        section="3. The pipeline, one step at a time",
    ),
]
