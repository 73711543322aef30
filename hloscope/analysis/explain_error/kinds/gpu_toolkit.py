"""XLA:GPU could not find the CUDA toolkit's files it compiles with: libdevice, ptxas.

XLA links CUDA's libdevice bitcode (``nvvm/libdevice/libdevice.10.bc``) into every GPU
program that calls a math routine, from the CUDA directories it searches (the pip
``nvidia-cuda-nvcc`` package, ``/usr/local/cuda``, ``--xla_gpu_cuda_data_dir``). Where none
holds it, the compile stops, in the words of XLA's GPU backend:

* ``INTERNAL: libdevice not found at ./libdevice.10.bc`` (the status JAX and TF raise, the
  path the last one tried);
* ``libdevice is required by this HLO module but was not found at ./libdevice.10.bc`` (its
  log line, after "Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice" and the
  directories searched);
* ``UNAVAILABLE: No PTX compilation provider is available. Neither ptxas/nvlink nor nvjtlink
  is available.`` (no CUDA compiler at all to turn XLA's PTX into machine code: no ptxas
  binary, no nvJitLink library, the driver's compiler not enabled).

Kind :attr:`~.record.Family.BACKEND_STARTUP`: the GPU backend's installation lacks a part it
needs -- a CUDA installation to fix, not the program.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, own_line
from ..catalogue import words_of
from ..device import platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _gpu_toolkit(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    searched = _RE.searched.search(log.text, max(0, m.start() - 4096), m.start())
    hints = [f"XLA searched for CUDA in: {searched['dirs'].strip()}"] if searched else []
    yield _KIND.failure(
        log,
        m.start(),
        op="ptxas" if m["ptx"] else "libdevice",
        advice=(
            _TEXT.ptx if m["ptx"] else _TEXT.install.format(path=m["ld_path"]),
            AdviceKind.INSTALL,
        ),
        device="gpu",
        platform=platform_of("gpu"),
        hints=[" ".join(hint.split()) for hint in hints],
    )


_KIND = Kind(Family.BACKEND_STARTUP, Reason.COMPILE_ERROR, own_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _RE.opening, _gpu_toolkit)
