"""A pytest plugin loaded before all others (``-p quick_start`` in pyproject.toml): every pytest process starts
about 1.4 s sooner.

nbval imports nbformat, which imports jsonschema, and jsonschema's format checkers import ``rfc3987_syntax`` when
it is installed (jupyter-events needs it). That package builds 38 Lark parsers at import: 1.4 s in the main
process and again in each pytest-xdist worker, before any test runs. The notebook schema checks no ``iri``
format, so no check of the tests uses those parsers. Marking the module as absent makes jsonschema's optional
import fail quietly, as on a machine without it; the kernels and servers the tests start are not affected.
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)
