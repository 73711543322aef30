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
  named in the details.

Each is read as :mod:`.pallas` reads Mosaic's own message -- the op involved, the kernel's
line, a fix by the reason -- so the failure and its advice are the same whatever the wording.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..advice import AdviceKind
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .pallas import _mosaic

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"Internal TPU kernel compiler error: (?P<tkc_why>[^\n]{0,400})"
    r"|failed to legalize operation '(?P<legal_op>[a-z_]+\.[\w.]+)'"
    r"|NotImplementedError: (?P<layout_why>unsupported layout change[^\n]{0,200})"
    r"|P(?:allas encountered an internal verification error\.[^\n]{0,200}?Error details: "
    r"(?P<verify_why>[^\n]{0,400}))"
)
# The op MLIR's verifier names: `'tpu.matmul' op Expected matching lhs and rhs dtypes`.
_VERIFIED_OP = re.compile(r"'(?P<op>[a-z_]+\.[\w.]+)' op\b")
# Mosaic's own dialect: its ops are a kernel's wherever they are named.
_MOSAIC_DIALECT = "tpu."
# Dialects a kernel's module shares with other MLIR users: a kernel's only in a Pallas log.
_KERNEL_DIALECTS = ("vector.", "arith.", "math.", "memref.", "scf.", "func.")
_PALLAS_WORDS = re.compile(r"pallas|Mosaic|tpu_custom_call")


def _mosaic_names(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["legal_op"]:
        op = m["legal_op"]
        if "Mosaic failed to compile TPU kernel" in log.before_on_line(m.start()):
            return  # Mosaic's own message, read by .pallas
        ours = op.startswith(_MOSAIC_DIALECT) or (
            op.startswith(_KERNEL_DIALECTS) and _PALLAS_WORDS.search(log.text) is not None
        )
        if not ours:
            return
        yield _mosaic(log, m, why=f"failed to legalize operation '{op}'")
        return
    if m["verify_why"] is not None:
        failure = _mosaic(log, m, why=m["verify_why"])
        named = _VERIFIED_OP.search(m["verify_why"])
        if named is not None and failure.finding.op == "tpu_custom_call":
            failure.finding.op = named["op"]
        # Pallas asks for a bug report: it made a module its own verifier refuses.
        failure.more_advice.append((str(AdviceKind.REPORT_BUG), _VERIFY_REPORT))
        yield failure
        return
    yield _mosaic(log, m, why=m["tkc_why"] or m["layout_why"] or "")


_VERIFY_REPORT = (
    "Pallas made a kernel module MLIR's verifier refuses: report it (https://github.com/"
    "jax-ml/jax/issues) with the kernel and jax.print_environment_info()"
)


RECOGNISER = Recogniser(Family.PALLAS, _OPENING, _mosaic_names)
