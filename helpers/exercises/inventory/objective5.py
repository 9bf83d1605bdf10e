"""The concept inventory's items for objective 5 (computing attention outputs): questions, options, the right one, what
each wrong one suggests and where the course teaches the idea (:mod:`.items` says what makes a good item)."""

from helpers.exercises.inventory.item import Item

ITEMS = [
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
