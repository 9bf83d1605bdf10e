"""Layer 1, math and data: the attention math in numpy, one module per topic, the real model, the parser, the question
texts. No widget library."""
