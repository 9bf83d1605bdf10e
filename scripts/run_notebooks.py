"""Re-run notebooks fresh, top to bottom, so that a re-run changes no byte (``make notebooks``).

:mod:`course.runner` says how; ``python -m course.runner`` is the same.
"""

import sys

from course.runner import main

sys.exit(main())
