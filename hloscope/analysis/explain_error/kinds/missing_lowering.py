"""JAX primitives without a lowering for the platform."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import advise
from ..build import Kind, traced
from ..catalogue import words_of
from ..device import platform_of
from ..forms import Form, alternation, form_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

_RE, _TEXT = words_of(__name__)

# ---- JAX lowering, XLA status, export, Pallas ---------------------------------------------------

_LOWERING_FORMS: tuple[Form, ...] = (
    Form(
        "translation_rule",
        r"MLIR translation rule for primitive '(?P<prim>[^'\n]+)' not found for "
        r"platforms? (?P<plats>\[[^\]\n]*\]|[\w-]+)",
        "",
        Reason.NO_LOWERING,
        (),
        "the primitive has lowering rules for other platforms only",
    ),
    Form(
        "gpu_only_collective",
        r"psend is currently only implemented on GPU",
        "psend",
        Reason.NO_LOWERING,
        (),
        "the collective is implemented for GPU only",
    ),
    Form(
        "tpu_qr",
        r"QR algorithm is not supported on TPU",
        "qr",
        Reason.NO_LOWERING,
        ("qr",),
        "the requested QR algorithm has no TPU implementation",
    ),
    Form(
        "tpu_svd",
        r"The SVD algorithm parameter is not implemented on TPU",
        "svd",
        Reason.NO_LOWERING,
        ("svd",),
        "TPU's SVD takes no algorithm parameter",
    ),
    # A compiler that takes StableHLO in (a PJRT plugin's: tt-mlir, IREE) and has no
    # conversion for one of the program's ops: MLIR's dialect conversion names the op, quoted
    # either way. (Mosaic's kernel dialects are Pallas's, TF's `tf.` ops the MLIR bridge's.)
    Form(
        "stablehlo_legalize",
        r"failed to legalize operation [`'](?P<legal>(?:stablehlo|mhlo|chlo)\.[\w.]+)[`']",
        "",
        Reason.NO_LOWERING,
        (),
        "the backend's compiler has no conversion for this op of the program (a compiler "
        "that takes StableHLO in, such as a PJRT plugin's or IREE's, not XLA's)",
    ),
)
_LOWERING = alternation(_LOWERING_FORMS)


def _missing_lowering(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_LOWERING_FORMS, m)
    op = m["prim"] or m["legal"] or form.op
    device: str | None = None
    if form.group == "translation_rule":
        device = m["plats"]
        names = _RE.platform_names.findall(device)
        platform = platform_of(names[0]) if len(names) == 1 else None
    else:
        platform = Platform.TPU if form.group.startswith("tpu") else None
        device = "tpu" if platform else None
    yield _KIND.failure(
        log,
        m.start(),
        stack=log.traceback_before(m.start()),
        op=op,
        reason=form.reason,
        advice=advise((op, *form.fix_keys), form.reason),
        device=device,
        platform=platform,
        hints=[form.meaning],
    )


_KIND = Kind(Family.MISSING_LOWERING, reading=traced)
RECOGNISER = Recogniser(Family.MISSING_LOWERING, _LOWERING, _missing_lowering)
