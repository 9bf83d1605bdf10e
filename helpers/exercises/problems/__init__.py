"""The built-in kinds of generated problems, one module each (generator, checker, answer fields).

Each module that defines ``KIND`` (a :class:`helpers.exercises.Kind`) is a kind: the registry finds it
(:func:`helpers.exercises.kinds`), in the order of the kinds' ``order`` (as the practice widget offers them). A new
kind is one new module here; :mod:`.friendly` is the numbers they share.
"""
