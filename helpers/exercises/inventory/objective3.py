"""The concept inventory's items for objective 3 (reading weights and patterns): questions, options, the right one,
what each wrong one suggests and where the course teaches the idea (:mod:`.items` says what makes a good item)."""

from helpers.exercises.inventory.item import Item

ITEMS = [
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
]
