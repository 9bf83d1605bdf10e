"""Lecture mode: a notebook served by Voila, code hidden, widgets live, large text (``make present``).

:mod:`course.present` says how; ``python -m course.present`` is the same.
"""

import sys

from course.present import main

sys.exit(main())
