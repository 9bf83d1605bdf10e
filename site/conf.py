"""The Sphinx configuration of the course's web site (``make site``): all of it is :mod:`course.site_conf`."""

from course.site_conf import *  # noqa: F403  (Sphinx reads the settings and setup() from this file's names)
from course.site_conf import setup  # noqa: F401  (said by name: the hook Sphinx calls)
