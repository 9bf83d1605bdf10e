"""Layer 2, the look: colours and sizes, number formatting, HTML tables and figures, the data-flow diagram, typeset
math. Imports only the math and data layer."""
