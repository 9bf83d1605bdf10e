"""The concept inventory's items for objective 1 (why Q, K, V, and how they differ): questions, options, the right one,
what each wrong one suggests and where the course teaches the idea (:mod:`.items` says what makes a good item)."""

from helpers.exercises.inventory.item import Item

ITEMS = [
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
]
