"""Build the student edition in student/, graded with nbgrader (``make student``).

:mod:`course.student` says how; ``python -m course.student`` is the same.
"""

import sys

from course.student import main

sys.exit(main())
