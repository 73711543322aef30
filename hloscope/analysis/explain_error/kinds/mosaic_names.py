"""Mosaic (Pallas's TPU compiler) refusing a kernel, in the words other versions use.

JAX 0.4.2x and later say ``Mosaic failed to compile TPU kernel: <why>`` (:mod:`.pallas`); the
same refusal reads otherwise elsewhere:

* ``RuntimeError: Internal TPU kernel compiler error: unsupported operand shapes or layouts``
  (JAX 0.4.20, with the same ``The MLIR operation involved:`` after it);
* ``failed to legalize operation 'tpu.matmul'``: an MLIR conversion of the kernel's module
  refused an op, said without the Mosaic line (the op of a Mosaic dialect: ``tpu.``, or
  ``vector.``/``arith.``/``memref.`` in a log that names Pallas or Mosaic);
* ``NotImplementedError: unsupported layout change``: the older Python layout pass;
* ``VerificationError: Pallas encountered an internal verification error. ... Error details:
  'tpu.matmul' op ...`` (JAX 0.4.3x on): MLIR's verifier refused the kernel's module, the op
  named in the details;
* ``MLIRError: Failure while executing pass pipeline:`` with ``error: <loc>: 'vector.transpose'
  op Padded transposes unsupported`` after it (JAX 0.4.2x ran Mosaic's passes in Python): a
  pass refused an op -- Mosaic's only where the traceback runs through Pallas's TPU lowering
  or Mosaic's driver (any MLIR user's pipeline fails in these words).

Each is read as :mod:`.pallas` reads Mosaic's own message -- the op involved, the kernel's
line, a fix by the reason -- so the failure and its advice are the same whatever the wording.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..advice import AdviceKind
from ..catalogue import words_of
from ..log import Log
from ..mlir_location import location_op
from ..recogniser import Recogniser
from ..record import Failure, Family
from .pallas import _mosaic

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# Mosaic's own dialect: its ops are a kernel's wherever they are named.
_MOSAIC_DIALECT = "tpu."
# Dialects a kernel's module shares with other MLIR users: a kernel's only in a Pallas log.
_KERNEL_DIALECTS = ("vector.", "arith.", "math.", "memref.", "scf.", "func.")


def _mosaic_names(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["legal_op"]:
        op = m["legal_op"]
        if "Mosaic failed to compile TPU kernel" in log.before_on_line(m.start()):
            return  # Mosaic's own message, read by .pallas
        ours = op.startswith(_MOSAIC_DIALECT) or (
            op.startswith(_KERNEL_DIALECTS) and _RE.pallas_words.search(log.text) is not None
        )
        if not ours:
            return
        yield _mosaic(log, m, why=f"failed to legalize operation '{op}'")
        return
    if m["pipeline"]:
        stack = log.traceback_before(m.start())
        if not any(_RE.mosaic_frame.search(frame.file) for frame in stack):
            return  # another MLIR user's pass pipeline (a DSL's, torch-mlir's)
        failure = _mosaic(log, m, why="")  # the reason is on the "error:" line after
        said = _RE.pipeline_error.search(log.text, m.end(), m.end() + 2048)
        if said is not None and failure.finding.op == "tpu_custom_call":
            # MLIR's diagnostic names the op's location first: the kernel's primitive there
            # ("/transpose[...]"), else the MLIR op it names.
            failure.finding.op = location_op(said["loc"]) or said["op"]
        yield failure
        return
    if m["verify_why"] is not None:
        failure = _mosaic(log, m, why=m["verify_why"])
        named = _RE.verified_op.search(m["verify_why"])
        if named is not None and failure.finding.op == "tpu_custom_call":
            failure.finding.op = named["op"]
        # Pallas asks for a bug report: it made a module its own verifier refuses.
        failure.more_advice.append((str(AdviceKind.REPORT_BUG), _TEXT.verify_report))
        yield failure
        return
    yield _mosaic(log, m, why=m["tkc_why"] or m["layout_why"] or "")


RECOGNISER = Recogniser(Family.PALLAS, _RE.opening, _mosaic_names)
