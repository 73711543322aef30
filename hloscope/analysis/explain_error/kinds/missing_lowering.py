"""JAX primitives without a lowering for the platform."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind, traced
from ..catalogue import forms_of, words_of
from ..device import platform_of
from ..forms import alternation, form_of
from ..log import Log
from ..named_op import op_called, op_on_line
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users

_RE, _TEXT = words_of(__name__)

# ---- JAX lowering, XLA status, export, Pallas ---------------------------------------------------

_LOWERING_FORMS = forms_of(__name__)
_LOWERING = alternation(_LOWERING_FORMS)


def _refused_because(log: Log, m: re.Match[str]) -> str | None:
    """What MLIR's conversion said on the line before "failed to legalize", at the same
    location (``loc("x"): error: expected CustomCallOp with a sharding attribute``): the
    pattern for the op ran and refused it, so the op has a lowering; ``None`` without one."""
    lead = log.before_on_line(m.start())
    start = log.line_start(m.start())
    if not lead.endswith("error: ") or start == 0:
        return None
    before = log.text[log.previous_line_start(start) : start - 1]
    if not before.startswith(lead) or "failed to legalize" in before:
        return None
    return before[len(lead) :].strip() or None


def _platform_named(m: re.Match[str], group: str) -> tuple[str | None, Platform | None]:
    """The device and platform the message names: the translation rule's one platform, the
    first an option is refused on ("not supported on CPU and GPU"), or the TPU's forms'."""
    if group == "translation_rule":
        names = _RE.platform_names.findall(m["plats"])
        return m["plats"], platform_of(names[0]) if len(names) == 1 else None
    if group == "option_on_platform" and m["oop_only"]:
        return None, None  # the platform it needs, not the one it ran on
    if group == "option_on_platform":
        return m["oop_platform"].lower(), platform_of(m["oop_platform"].lower())
    if group == "precision_on_platform":
        return m["pop_platform"].lower(), platform_of(m["pop_platform"].lower())
    platform = Platform.TPU if group.startswith("tpu") else None
    return ("tpu" if platform else None), platform


def _missing_lowering(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_LOWERING_FORMS, m)
    op = m["prim"] or m["legal"] or m["tnl_op"] or m["pop_op"] or form.op
    why = _refused_because(log, m) if m["legal"] else None
    if why is not None:
        yield _REFUSED.failure(
            log,
            m.start(),
            stack=log.traceback_before(m.start()),
            op=op,
            reason=Reason.COMPILE_ERROR,
            advice=(_TEXT.refused.format(op=op, why=why), AdviceKind.OTHER),
            hints=[why],
        )
        return
    device, platform = _platform_named(m, form.group)
    if form.group == "option_on_platform":
        # The call the program made (jnp.linalg.eigh), in JAX's frames or on the user's line.
        stack = log.traceback_before(m.start())
        op = op_called(stack, is_users) or op_on_line(log.innermost_code(m.start())) or op
    advice = advise((op, *form.fix_keys), form.reason)
    more: list[tuple[str, str]] = []
    if form.group == "torch_not_lowered":
        advice, more = _torch_fallback(m)
    dtype = None
    if form.group == "precision_on_platform":
        advice, more, dtype = _precision(m, op)
    kind = _KIND
    if (
        form.group == "translation_rule"
        and _RE.kernel_primitive.match(op)
        and _RE.accelerator.match(device or "")
    ):
        # A Pallas kernel on the platform it is written for: the build lacks its backend.
        kind = _PALLAS
        advice = Advice(_TEXT.pallas_backend.format(platform=device), AdviceKind.INSTALL)
    yield kind.failure(
        log,
        m.start(),
        stack=log.traceback_before(m.start()),
        op=op,
        reason=form.reason,
        advice=advice,
        device=device,
        platform=platform,
        hints=[form.meaning],
        more_advice=more,
        dtype=dtype,
    )


def _precision(m: re.Match[str], op: str) -> tuple[Advice, list[tuple[str, str]], str | None]:
    """A dot's precision the platform's lowering lacks: leave it at its default first; the
    algorithm's name says its operands' types (F16_F16_F32, TF32_TF32_F32), and data kept in
    such a type is cast to one the platform's dots take, second."""
    said = _TEXT.precision.format(op=op, what=m["pop_what"], platform=m["pop_platform"])
    named = dict.fromkeys(t.lower() for t in m["pop_what"].split("_")[:2] if t != "ANY")
    more = [(str(AdviceKind.CAST_DTYPE), _TEXT.precision_cast)]
    return Advice(said, AdviceKind.OTHER), more, ",".join(named) or None


def _torch_fallback(m: re.Match[str]) -> tuple[Advice, list[tuple[str, str]]]:
    """PyTorch/XLA's ops with no lowering, run on the CPU: harmless to the results; replacing
    the op is the fix where the step is slow."""
    ops = [m["tnl_op"], *(o.strip() for o in m["tnl_more"].split(",") if o.strip())]
    named = ", ".join(ops)
    text = _TEXT.torch_fallback.format(ops=named, them="them" if len(ops) > 1 else "it")
    return Advice(text, AdviceKind.HARMLESS), [(str(AdviceKind.REPLACE_OP), text)]


_KIND = Kind(Family.MISSING_LOWERING, reading=traced)
_PALLAS = Kind(Family.PALLAS, reading=traced)
# A conversion that ran for the op and refused it: the compiler's pass failed, not a lowering
# that is missing.
_REFUSED = Kind(Family.XLA_STATUS, reading=traced)
RECOGNISER = Recogniser(Family.MISSING_LOWERING, _LOWERING, _missing_lowering)
