"""``jax.export`` refusals."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind, advise
from ..build import UNSET, Kind
from ..catalogue import forms_of, words_of
from ..device import platform_of
from ..forms import alternation, form_of
from ..functions import jax_function, paragraph_end
from ..log import WINDOW, Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_EXPORT_FORMS = forms_of(__name__)
_EXPORT = alternation(_EXPORT_FORMS)


def _export_targets(log: Log, pos: int) -> list[tuple[str, list[StackFrame]]]:
    """The ``Examples are:`` lines of a custom-call refusal: each target, with the source
    locations its ``loc(...)`` names (innermost first)."""
    end = log.text.find("\n\n", pos, pos + WINDOW)
    end = pos + WINDOW if end < 0 else end
    found: list[tuple[str, list[StackFrame]]] = []
    for target in _RE.custom_call_target.finditer(log.text, pos, end):
        line_end = min(log.line_end(target.end()), end)
        locs = _RE.mlir_loc.findall(log.text, target.end(), line_end)
        found.append((target["target"], [StackFrame(f, int(n)) for f, n in locs]))
    return found


# How far after "Failed to serialize StableHLO" its MLIR detail may lie.
_DETAIL_WINDOW = 8192


def _serialize_detail(log: Log, pos: int) -> tuple[str, str | None, StackFrame | None]:
    """What the MLIR detail of a serialization failure names: the error, the custom call
    target (when a custom call is what failed) and the user's file:line."""
    end = min(len(log.text), pos + _DETAIL_WINDOW)
    found = _RE.mlir_error.search(log.text, pos, end)
    if found is None:
        return "", None, None
    where = None
    if found["file"] or found["lfile"]:
        where = StackFrame(found["file"] or found["lfile"], int(found["line"] or found["lline"]))
    target = _RE.target.search(log.text, found.start(), end)
    name = next((g for g in target.groups() if g), None) if target else None
    return found["error"].strip(), name, where


def _serialize_advice(error: str, target: str | None) -> list[tuple[AdviceKind, str]]:
    """The fixes for a serialization failure, best first: a custom call the serializer cannot
    convert is first a version mismatch (jax, jaxlib and a PJRT plugin from different
    releases); a custom call jax.export refuses is allowed with ``disabled_checks``."""
    versions = (AdviceKind.INSTALL, _TEXT.versions)
    if target is None:
        return [versions]
    allow = (AdviceKind.DISABLE_CHECK, _TEXT.allow.format(target=target))
    replace = (AdviceKind.REPLACE_OP, _TEXT.replace.format(target=target))
    if _RE.legalize.search(error):
        return [versions, allow, replace]
    return [allow, replace, versions]


def _serialize(log: Log, m: re.Match[str], stack: list[StackFrame]) -> Failure:
    error, target, where = _serialize_detail(log, m.end())
    legalize = _RE.legalize.search(error)
    op = target or (legalize["op"] if legalize else "StableHLO serialization")
    frames = _joined([where], stack) if where else stack
    (kind, text), *rest = _serialize_advice(error, target)
    hints = [f"MLIR: {error}"] if error else []
    return _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(text, kind),
        function=jax_function(log, m.start(), paragraph_end(log, m.start()), stack),
        stack=frames,
        source=f"{where.file}:{where.line}" if where else UNSET,
        hints=[*hints, *(fix for _, fix in rest)],
        more_advice=[(str(k), t) for k, t in rest],
    )


def _version(log: Log, m: re.Match[str], stack: list[StackFrame]) -> Failure:
    """A serialized module's version that the consumer does not read: the versions to
    install, both named."""
    if m["mv_from"]:
        named = re.search(r"(?P<op>\w+) $", log.before_on_line(m.start()))
        op = named["op"] if named else f"{m['mv_from']}'s reader"  # the op that read it
        text = _TEXT.module_version.format(
            op=op, most=m["mv_max"], need=m["mv_need"], consumer=m["mv_from"]
        )
    elif m["ov_need"]:
        named = re.search(r"(?P<op>\w+)$", log.before_on_line(m.start()))
        op = named["op"] if named else "the op"  # "XlaCallModule" of "XlaCallModuleOp"
        if m["ov_old"]:
            text = _TEXT.module_too_old.format(op=op, least=m["ov_min"], need=m["ov_need"])
        else:
            text = _TEXT.module_version.format(
                op=op, most=m["ov_max"], need=m["ov_need"], consumer="TensorFlow"
            )
    elif m["cm_arg"]:
        op = "XlaCallModule"
        text = _TEXT.call_module_argument.format(arg=m["cm_arg"])
    else:
        op = "jax.export"
        text = _TEXT.convention_version.format(range=m["cv_range"], need=m["cv_need"])
    return _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(text, AdviceKind.INSTALL),
        function=jax_function(log, m.start(), paragraph_end(log, m.start()), stack),
        stack=stack,
    )


def _platform_list(text: str) -> str:
    """``"('tpu', 'cuda')"`` -> ``"tpu, cuda"``."""
    return ", ".join(re.findall(r"[A-Za-z]\w*", text)) or text


def _joined(inner: list[StackFrame], outer: list[StackFrame]) -> list[StackFrame]:
    """``inner`` then the frames of ``outer`` at other lines (a ``loc(...)`` and the
    traceback often name the same line)."""
    known = {(frame.file, frame.line) for frame in inner}
    return inner + [frame for frame in outer if (frame.file, frame.line) not in known]


def _custom_call_fixes(target: str) -> list[tuple[AdviceKind, str]]:
    """A named custom call jax.export refuses: allow it where it will be registered (often
    the only way: ``eig`` on GPU, a library's kernel have no stable replacement), or replace
    it with jnp/lax ops."""
    return [
        (AdviceKind.DISABLE_CHECK, _TEXT.allow.format(target=target)),
        (AdviceKind.REPLACE_OP, _TEXT.replace.format(target=target)),
    ]


def _no_xla_fixes(op: str) -> list[tuple[AdviceKind, str]]:
    """A primitive jax2tf cannot convert without XLA ops: a newer jax converts more of them
    (what ended most such threads), else convert with XLA ops or rewrite the op."""
    return [
        (AdviceKind.INSTALL, _TEXT.no_xla_upgrade.format(op=op)),
        (AdviceKind.OTHER, _TEXT.no_xla_enable.format(op=op)),
    ]


#: Offenders jax.export can never hold: the fix is to take them out of the exported function
#: (compute with jnp, or call them around the exported call), a kind of fix the table's
#: generic "export" reason does not say.
_TAKEN_OUT = frozenset({"host_callback"})


def _jax_export(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_EXPORT_FORMS, m)
    stack = log.traceback_before(m.start())
    if form.group == "serialize":
        yield _serialize(log, m, stack)
        return
    if form.group in ("module_version", "op_version", "convention_version", "call_module_argument"):
        yield _version(log, m, stack)
        return
    device = platform = None
    offenders: list[tuple[str, list[StackFrame]]] = [(form.op, stack)]
    if form.group == "custom_call":
        offenders = [(t, _joined(s, stack)) for t, s in _export_targets(log, m.end())] or offenders
    elif form.group == "platform_mismatch":
        offenders = [(m["pm_fn"], stack)]
        used, exported = _platform_list(m["pm_on"]), _platform_list(m["pm_for"])
        device = f"{used} (exported for {exported})"
        platform = platform_of(m["pm_on"])
    elif form.group == "no_xla":
        offenders = [(m["nx_op"], stack)]
    elif form.group == "poly_op":
        offenders = [(m["po_op"].lower(), stack)]  # "for FFT with ...": fft
    elif form.group == "dim_as_int":
        offenders = [(_api_function(stack) or form.op, stack)]
    elif form.group == "backend_mismatch":
        device = f"{m['bm_platform']} (backend {m['bm_backend']})"
        platform = platform_of(m["bm_platform"])
    function = jax_function(log, m.start(), paragraph_end(log, m.start()), stack)
    advice = advise(form.fix_keys, form.reason)
    if form.group in ("symbolic_syntax", "polyshape", "polyshape_count"):
        said = (m["ss_said"] or m["ps_said"] or "one per positional argument").strip()
        advice = Advice(_TEXT.symbolic_spec.format(said=said), AdviceKind.OTHER)
    if form.group == "dim_as_int":
        where = f"jnp/lax's {offenders[0][0]}" if offenders[0][0] != form.op else "the code"
        advice = Advice(_TEXT.dim_as_int.format(where=where), AdviceKind.OTHER)
    elif form.group == "call_module_deserialize":
        advice = Advice(_TEXT.call_module_deserialize, AdviceKind.INSTALL)
    elif form.group.startswith("pytree_keys"):
        advice = Advice(_TEXT.pytree_keys, AdviceKind.OTHER)
    elif form.group.startswith("dim_"):  # the shared table has no row for symbolic shapes
        advice = Advice(_TEXT.dimension_variables, AdviceKind.OTHER)
    if form.op in _TAKEN_OUT and advice.kind is AdviceKind.OTHER:
        advice = Advice(advice.text, AdviceKind.REPLACE_OP)
    for op, frames in offenders:
        fixes = _custom_call_fixes(op) if form.group == "custom_call" and op != form.op else ()
        if form.group == "no_xla":
            fixes = _no_xla_fixes(op)
        yield _KIND.failure(
            log,
            m.start(),
            op=op,
            reason=form.reason,
            advice=advice,
            fixes=fixes,
            function=function,
            stack=frames,
            device=device,
            platform=platform,
            hints=[form.meaning],
        )


def _api_function(stack: list[StackFrame]) -> str | None:
    """The innermost public function of JAX's API modules in the traceback (jnp.searchsorted
    calling len() on a symbolic size), where one raised; ``None`` where the code was the
    program's own."""
    for frame in stack:
        if _RE.api_frame.search(frame.file) and not frame.function.startswith("_"):
            return frame.function
    return None


_KIND = Kind(Family.JAX_EXPORT, Reason.EXPORT)
RECOGNISER = Recogniser(Family.JAX_EXPORT, _EXPORT, _jax_export)
