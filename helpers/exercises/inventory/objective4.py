"""The concept inventory's items for objective 4 (self, cross and bidirectional attention): questions, options, the
right one, what each wrong one suggests and where the course teaches the idea (:mod:`.items` says what makes a good
item)."""

from helpers.exercises.inventory.item import Item

ITEMS = [
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
]
