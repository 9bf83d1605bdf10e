"""A pytest plugin loaded before all others (``-p quick_start`` in pyproject.toml): work no test needs, left undone.

* nbval imports nbformat, which imports jsonschema, and jsonschema's format checkers import ``rfc3987_syntax`` when
  it is installed (jupyter-events needs it). That package builds 38 Lark parsers at import: 1.4 s in the main
  process and again in each pytest-xdist worker, before any test runs. The notebook schema checks no ``iri``
  format, so no check of the tests uses those parsers. Marking the module as absent makes jsonschema's optional
  import fail quietly, as on a machine without it; the kernels and servers the tests start are not affected.
* nbval 0.11 logs every message a kernel sends at debug level, and formats it with ``pprint.pformat`` before the
  logger decides whether to write it (``logger.debug("...%s", pformat(msg))`` in ``nbval.kernel``): every widget
  model a notebook opens was pretty-printed for nothing, more than half of what strict nbval costs a pytest worker
  (5.2 s of CPU for the 14 notebooks, 2.3 s without). :class:`FormatWhenWritten` makes the same text only when a
  debug log is written.
* OpenBLAS starts one thread per CPU in every process that multiplies matrices: each pytest-xdist worker and each
  kernel nbval starts. With two workers on two CPUs those threads wait for each other and for the other worker, and
  a small product took milliseconds of spinning instead of microseconds (notebook 13's timing panel: 1.5 s of CPU
  instead of 0.6 under load). One thread per process (``OPENBLAS_NUM_THREADS=1``, set before numpy is imported and
  inherited by the kernels), unless the environment says otherwise.
* Python's garbage collector walks every object the process holds in each full collection: what the imports built,
  the collected tests and every widget the tests left behind, half a million objects by the end of a worker's run.
  A worker spent 2.6 s in a dozen such walks, then 2-3 s more in the walks of its exit while the main process
  waited for it. Each time a test file (or a notebook) starts, what the files before it left is set aside
  (``gc.freeze``), so later collections walk only the objects of the file at hand (0.3 s in all); at the end of the
  session all is set aside, and the process exits without walking it. What is set aside is never collected:
  the garbage of earlier files stays in memory (a worker's peak grew by about 60 MB).
"""

import gc
import os
import pprint
import sys

import pytest

sys.modules.setdefault("rfc3987_syntax", None)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class FormatWhenWritten:
    """``pprint.pformat(obj)``, made when the logger turns it into text (``%s``), not before."""

    def __init__(self, obj):
        self.obj = obj

    def __str__(self):
        return pprint.pformat(self.obj)


_file_at_hand = None  # the file of the test that ran last


def pytest_runtest_setup(item):
    """Before the first test of each file: set aside all the process holds (see the module's docstring)."""
    global _file_at_hand
    if item.path != _file_at_hand:
        _file_at_hand = item.path
        gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    gc.freeze()


def pytest_configure(config):
    import nbval.kernel

    if getattr(nbval.kernel, "pformat", None) is pprint.pformat:  # as in nbval 0.11; a later nbval is left alone
        nbval.kernel.pformat = FormatWhenWritten
