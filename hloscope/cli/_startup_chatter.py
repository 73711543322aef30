"""TensorFlow's C++ start-up lines kept out of a command's output.

Importing TensorFlow 2.21 writes to the process's stderr (file descriptor 2, from C++, below
Python's ``sys.stderr``) before its logging is set up, whatever ``TF_CPP_MIN_LOG_LEVEL`` says:
absl's ``WARNING: All log messages before absl::InitializeLog() is called are written to
STDERR`` and oneDNN's ``I0000 ... port.cc:153] oneDNN custom operations are on ...``. A command
that imports a user's script in its own process (``check SCRIPT.py:FUNCTION``) runs that
import inside :func:`startup_chatter_filtered`: file descriptor 2 goes to a temporary file for
the while, and afterwards every line of it that is not such start-up chatter is written to the
real stderr, in order (a warning of the user's own script still shows).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator

# Start-up lines of TensorFlow's native libraries (absl, oneDNN, CPU features, CUDA probes on a
# machine without a GPU): said at every import, about the installation, never about the code.
_CHATTER = re.compile(
    r"WARNING: All log messages before absl::InitializeLog\(\) is called"
    r"|oneDNN custom operations are on"
    r"|This TensorFlow binary is optimized to use available CPU instructions"
    r"|To enable the following instructions: .* rebuild TensorFlow"
    r"|Could not find cuda drivers on your machine"
    r"|Unable to register cu(?:DNN|FFT|BLAS) factory"
    r"|computation placer already registered"
    r"|TF-TRT Warning: Could not find TensorRT"
)


@contextlib.contextmanager
def startup_chatter_filtered() -> Iterator[None]:
    """Run the block with file descriptor 2 caught, then pass on all but the start-up lines."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to catch (a closed descriptor): nothing to filter
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [
                line
                for line in caught.read().decode("utf-8", "replace").splitlines(keepends=True)
                if not _CHATTER.search(line)
            ]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()
