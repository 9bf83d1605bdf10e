"""What tests/quick_start.py leaves undone changes nothing a person reads."""

import io
import logging
import pprint

import nbval.kernel
from quick_start import FormatWhenWritten


def test_nbvals_debug_log_of_a_kernel_message_reads_as_before():
    msg = {"header": {"msg_type": "comm_open"}, "content": {"data": {"state": {"value": "x" * 200}}}}
    stream = io.StringIO()
    logger = logging.getLogger("nbval-debug-check")
    logger.addHandler(logging.StreamHandler(stream))
    logger.setLevel(logging.DEBUG)
    logger.debug("Kernel message (%s):\n%s", "iopub", nbval.kernel.pformat(msg))  # as nbval.kernel writes it
    assert nbval.kernel.pformat is FormatWhenWritten  # in use in this run
    assert stream.getvalue() == f"Kernel message (iopub):\n{pprint.pformat(msg)}\n"
