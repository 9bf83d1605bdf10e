"""Build the course as a static web site in _site/, from the stored notebooks (``make site``).

:mod:`course.site` says how; ``python -m course.site`` is the same.
"""

import sys

from course.site import main

sys.exit(main())
