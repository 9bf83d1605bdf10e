"""Write the navigation lines and the index's course map (``make navigation``).

:mod:`course.navigation` says how; ``python -m course.navigation`` is the same.
"""

import sys

from course.navigation import main

sys.exit(main())
