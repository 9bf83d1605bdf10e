"""The concept inventory's items for objective 2 (Q, K, V by linear projections): questions, options, the right one,
what each wrong one suggests and where the course teaches the idea (:mod:`.items` says what makes a good item)."""

from helpers.exercises.inventory.item import Item

ITEMS = [
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
]
