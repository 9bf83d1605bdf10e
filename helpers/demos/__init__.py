"""The widgets and figures that show one notebook's topic (layer 5): ``demos/X.py`` draws what ``X.py`` computes.

The general explorers live in helpers.widgets; the math and data never import from here.
"""
