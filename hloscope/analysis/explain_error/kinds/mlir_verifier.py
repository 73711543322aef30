"""JAX's or XLA's own MLIR verifier refused a module they made: a bug to report.

MLIR checks every op it builds; a module that fails the check is the compiler's mistake, not
the program's (the program was traced and lowered by them). The refusal has one structure
whatever the op: a quoted op and its reason, ``'scf.if' op along control flow edge from
Operation scf.yield ...``, ``'stablehlo.custom_call' op incorrect layout ...``, under JAX's
``Cannot lower jaxpr with verifier errors:`` or MLIR's ``Verification failed:``, often with the
op's location (``loc("jit(f)/add"(callsite(...)))``, whose name stack names the primitive:
the failure's node, else the op refused).

An op of Shardy's dialect (``'sdy.collective_permute' op requires the same type for all
operands and results``, ``'sdy.sharding_constraint' op unknown mesh``) is a sharding the
frontend or the partitioner wrote wrong: the sharding family's, still a bug to report.

It is a fallback: where another family reads the refusal (a sharding the verifier counted
wrong is the sharding family's), that reading stands; the header alone is a stage, dropped
where another failure explains the lines after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, own_line
from ..catalogue import words_of
from ..log import Log
from ..mlir_location import location_op
from ..recogniser import Recogniser
from ..record import Failure, Family
from .pallas import verification_restated

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_LOOKAHEAD = 2048
# The op reported: a stage, which gives way where another family reads the lines after it.
_STAGE = "MLIR verifier"


def _mlir_verifier(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    start = log.line_start(m.start())
    if m["op"]:
        above = log.text[log.previous_line_start(m.start()) : m.start()]
        if not _RE.error_line.search(log.text[start : m.start()]) or _RE.opening.search(above):
            return  # quoted in prose or code; or listed under a header read as its own
    window = log.text[m.start() : min(len(log.text), m.start() + _LOOKAHEAD)]
    quoted = _RE.quoted_op.search(window)
    located = _RE.location.search(window)
    primitive = location_op(located["loc"]) if located else None
    quoted_op = quoted["op"] if quoted else ""
    what = f" ({quoted_op}: {quoted['why'][:120]})" if quoted else ""
    lowering = _pallas_lowering(log, m)
    if lowering is not None and verification_restated(log, m.end()):
        return  # Pallas restates it with its reason: mosaic_names.py reads that
    if lowering is not None:
        yield _pallas(log, m, lowering, primitive or quoted_op, what)
        return
    jaxs = bool(m["jax"]) or primitive is not None or "jit(" in window[:400]
    who, where = (
        ("JAX", "https://github.com/jax-ml/jax/issues")
        if jaxs
        else (
            "XLA",
            "https://github.com/openxla/xla/issues",
        )
    )
    # An op of Shardy's dialect (sdy.) is a sharding: its mesh, axes or collectives as the
    # frontend or the partitioner wrote them.
    kind = _SHARDY if quoted_op.startswith("sdy.") else _KIND
    failure = kind.failure(
        log,
        m.start(),
        op=_STAGE,
        advice=(_TEXT.report.format(who=who, what=what, where=where), AdviceKind.REPORT_BUG),
        # The primitive the op was lowered from (the location's), else the op refused.
        node=primitive or quoted_op,
        hints=[f"{quoted_op} refused: {quoted['why'][:200]}"] if quoted else [],
    )
    failure.fallback = True
    yield failure


def _pallas_lowering(log: Log, m: re.Match[str]) -> str | None:
    """The kernel language ("mosaic", "mosaic_gpu", "triton") whose Pallas lowering the
    traceback that ends in the verifier's error ran, if any."""
    start = log.line_start(m.start())
    for frame in log.traceback_before(start):
        found = _RE.pallas_lowering.search(frame.file)
        if found is not None:
            return found["lang"]
    return None


def _pallas(log: Log, m: re.Match[str], lang: str, prim: str, what: str) -> Failure:
    """A Pallas kernel whose lowered module the kernel language's verifier refused:
    Pallas's bug in lowering the op the location names."""
    language = {"triton": "Triton", "mosaic_gpu": "Mosaic GPU"}.get(lang, "Mosaic")
    said = _TEXT.pallas.format(prim=prim or "an op", language=language, what=what)
    platform = Platform.TPU if lang == "mosaic" else Platform.GPU
    return _PALLAS.failure(
        log,
        m.start(),
        op=prim or _STAGE,
        fixes=[(AdviceKind.INSTALL, said), (AdviceKind.REPORT_BUG, _TEXT.pallas_report)],
        device=str(platform),
        platform=platform,
    )


_KIND = Kind(Family.XLA_CRASH, Reason.COMPILE_ERROR, own_line)
_PALLAS = Kind(Family.PALLAS, Reason.COMPILE_ERROR, own_line)
_SHARDY = Kind(Family.SHARDING, Reason.COMPILE_ERROR, own_line)
RECOGNISER = Recogniser(
    Family.XLA_CRASH, _RE.opening, _mlir_verifier, generic_ops=frozenset({_STAGE})
)
