"""JAX tracing errors: ConcretizationTypeError, tracer conversions, non-static shapes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind
from ..catalogue import forms_of, words_of
from ..forms import Form, alternation, form_of
from ..log import TRACEBACK_HEADER, Log, class_before
from ..named_op import TRANSFORMS, op_called, op_on_line
from ..recogniser import Recogniser
from ..record import Failure, Family, FunctionRef
from ..user_line import (
    FROM_LINE,
    best_source,
    caller_of_framework,
    frame_source,
    is_users,
    user_source,
)

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

# ---- JAX tracing errors -------------------------------------------------------------------------

# The message forms of jax 0.10.2 (diagnostics notes, table A3.1), in jax_tracing.toml: the
# class each one is raised as, and what it means.
_TRACING_FORMS = forms_of(__name__)
_TRACING = alternation(_TRACING_FORMS)
_HEADERS = ("ipython_tracer", "ipython_concrete")
_LEAKS = ("unexpected_tracer", "leaked_trace", "leak_explained")
# Errors raised where NumPy or Python converted a tracer: the line to fix is the one that called.
_CONVERSIONS = frozenset({"array_conversion", "integer_conversion"})
# The second fix JAX's documentation gives for an error, after the first.
_SECOND = {
    "TracerBoolConversionError": (AdviceKind.STATIC_ARGS, _TEXT.static_setting),
    "ConcretizationTypeError": (AdviceKind.LAX_CONTROL_FLOW, _TEXT.lax_control_flow),
    "TracerIntegerConversionError": (AdviceKind.JNP_NOT_NP, _TEXT.jnp_index),
    # (A traced value NumPy converted may be a setting, a size or count, not data: jax#3654's
    # one_hot num_classes.)
    "TracerArrayConversionError": (AdviceKind.STATIC_ARGS, _TEXT.static_setting),
}
_GENERIC_CLASSES = frozenset({"TypeError", "IndexError", "RuntimeError"})
_TRACING_CLASSES = frozenset(form.op for form in _TRACING_FORMS) | {"JAXTypeError"}
# (JAX's separator before its filtered traceback is 20 dashes on a line of its own; the 30 of
# a leak's message part its own paragraphs, the line that made the value among them.)
_TRACING_END = ("\nSee https://", "\n--------------------\n", TRACEBACK_HEADER)


# What raised the error when the message names no API: the fixes table keys tracing errors
# as `Class:trigger` (`ConcretizationTypeError:nonzero`, `TypeError:shape`).
_FORM_TRIGGERS = {"invalid_shape": "shape", "static_slice": "slice", "static_slice_old": "slice"}


# The conversions JAX names ("The problem arose with the `float` function").
_CONVERSIONS_NAMED = frozenset({"float", "int", "complex", "bool", "index"})


# A pytree's leaf in JAX's path of an argument ("opt_state[1].count", "params['w']").
_LEAF = re.compile(r"[\[.]")


def _host_call(log: Log, user: StackFrame | None, culprit: str) -> Advice | None:
    """The fix where the user's line hands the traced value to the host: Python's math (or
    NumPy) converting it to a float (jax.numpy's function of the same name traces), or a
    print, a log line or an f-string's format of it inside the traced function (jax.debug.
    print prints it as the program runs; a print around the whole call at a script's top
    level prints no traced value); ``None`` where the line does neither."""
    code = (frame_source(log, user) or "") if user else ""
    host = _RE.host_math.search(code)
    if host and culprit in _CONVERSIONS_NAMED and _RE.branch.match(code):
        # Python's math deciding a Python `if` (if math.isnan(loss): ...): both the math and
        # the branch must trace -- jnp's function, chosen by jnp.where or lax.cond.
        return Advice(_TEXT.host_branch.format(call=host[0]), AdviceKind.LAX_CONTROL_FLOW)
    if host and culprit in _CONVERSIONS_NAMED:
        return Advice(_TEXT.host_math.format(call=host[0]), AdviceKind.JNP_NOT_NP)
    if user and user.function != "<module>" and _RE.host_print.search(code):
        return Advice(_TEXT.host_print, AdviceKind.OTHER)
    return None


def _api_on(log: Log, user: StackFrame | None) -> str | None:
    """The function of JAX's API (not a transformation) the user's line calls, if any."""
    called = op_on_line(frame_source(log, user) or "") if user else None
    return None if called in TRANSFORMS else called


def _trigger_keys(error_class: str, trigger: str) -> tuple[str, ...]:
    """The fixes keys of a tracing error, most specific first."""
    return (f"{error_class}:{trigger}", error_class) if trigger else (error_class,)


def _tracing_region(log: Log, pos: int) -> int:
    end = min(len(log.text), pos + 4096)
    for stop in _TRACING_END:
        found = log.text.find(stop, pos, end)
        if found >= 0:
            end = found
    return end


_LEAK_HEADLINE = "Encountered an unexpected tracer"


def _not_its_own(log: Log, m: re.Match[str], form: Form) -> bool:
    """Whether a form read from the middle of a message is not one of its own: a foreign
    tracer's that is no exception's line, a leak's explanation after its own first line."""
    if form.group == "foreign_tracer":
        if _RE.structure.match(log.text, m.end()):
            return True  # a pytree's structure refused, the tracer only the leaf it got
        return _RE.foreign_class.match(log.before_on_line(m.start())) is None
    if form.group == "leak_explained":
        return log.text.find(_LEAK_HEADLINE, max(0, m.start() - 4096), m.start()) >= 0
    return False


def _jax_tracing(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_TRACING_FORMS, m)
    if _not_its_own(log, m, form):
        return
    if form.group in _HEADERS:
        yield from _header_only(log, m, form)
        return
    named = class_before(log, m.start())
    # The form names the error more precisely than a generic class JAX raised it as
    # (`IndexError: Array boolean indices must be concrete` is a boolean mask).
    if form.op in _GENERIC_CLASSES:
        error_class = named if named in _TRACING_CLASSES else form.op
    else:
        error_class = form.op
    end = _tracing_region(log, m.end())
    culprit = _RE.culprit.search(log.text, m.end(), end)
    culprit_name = next((g for g in culprit.groups() if g), "") if culprit else ""
    stack = log.traceback_before(m.start())
    if form.group == "while_reverse":
        culprit_name = "while_loop"
    trigger = culprit_name.rsplit(".", 1)[-1] or _FORM_TRIGGERS.get(form.group, "")
    # (Where no line names the API, the one the program called that raised inside it:
    # jnp.extract converting its mask's any() to a bool.)
    trigger = trigger or op_called(stack, is_users) or ""
    traced = _RE.traced_at.search(log.text, m.end(), end)
    defined_at = None
    if traced:
        defined_at = StackFrame(traced["file"], int(traced["line"]), traced["fn"])
    elif form.group == "no_tracing":
        defined_at = StackFrame(m["nt_file"], int(m["nt_line"]), m["nt_fn"])
    user = next((f for f in stack if is_users(f)), None)
    from_lines = [
        StackFrame(found["file"], int(found["line"]), found["fn"] or "")
        for found in FROM_LINE.finditer(log.text, m.end(), end)
    ]
    source = best_source(stack, from_lines)
    advice = advise((*_trigger_keys(error_class, trigger), *form.fix_keys), Reason.TRACING)
    second = _second(error_class)
    if form.group == "while_reverse":
        advice = Advice(_TEXT.while_reverse, AdviceKind.LAX_CONTROL_FLOW)
        second = [(str(AdviceKind.STATIC_ARGS), _TEXT.while_static)]
    if form.group == "foreign_tracer" and culprit and culprit["f"]:
        # A library's own call refused the tracer (Awkward Array names the call): its
        # release, not the program's shapes.
        advice = Advice(_TEXT.library_tracer.format(call=culprit_name), AdviceKind.INSTALL)
        second = [(str(AdviceKind.OTHER), _TEXT.library_tracer_other)]
    said = frame_source(log, user) if user and error_class == "TracerBoolConversionError" else None
    if said and _RE.builtin_compare.search(said):
        # Python's max/min compare a traced value with `>`: jnp.maximum/jnp.minimum trace.
        second = [(str(advice.kind), advice.text)]
        advice = Advice(_TEXT.builtin_compare, AdviceKind.JNP_NOT_NP)
    host = _host_call(log, user, culprit_name)
    if host is not None:
        advice, second = host, [(str(advice.kind), advice.text)]
    depends = _RE.depends_on.search(log.text, m.end(), end)
    if (
        host is None
        and depends
        and culprit_name in _CONVERSIONS_NAMED
        and _LEAF.search(depends["arg"])
    ):
        # A leaf of a state (``opt_state[1].count``) is no argument static_argnums can
        # name: the conversion is what to replace.
        said = _TEXT.leaf_conversion.format(conversion=culprit_name, arg=depends["arg"])
        advice, second = Advice(said, AdviceKind.JNP_NOT_NP), [(str(advice.kind), advice.text)]
    if form.group.startswith("filter_spec"):  # Equinox's: keep the spec out of the trace
        advice, second = Advice(_TEXT.filter_spec, AdviceKind.STATIC_ARGS), []
    if form.group == "no_tracing":  # the trace was a retrace: why the cache missed is the question
        advice = Advice(_TEXT.retraced.format(fn=m["nt_fn"]), AdviceKind.SEE_RECOMPILES)
    if form.group in _LEAKS:
        # JAX's words: transformed functions must return their outputs, not save them to
        # global state. The line that made (and kept) the leaked value is the one to change;
        # the traceback's is only where it was used later, which the advice names too.
        made, used = user_source(from_lines), user_source(stack)
        source = made or source
        if made and used and made != used:
            advice = Advice(
                advice.text + _TEXT.leak_lines.format(made=made, used=used), advice.kind
            )
    if form.group in _CONVERSIONS and stack:
        source = caller_of_framework(stack) or source
    if source is None and defined_at is not None:
        source = f"{defined_at.file}:{defined_at.line}"
    function = defined_at.function if defined_at else (user.function if user else "")
    hints = [form.meaning]
    if depends:
        hints.append(f"the value depends on argument {depends['arg']}")
    # jax.no_tracing's refusal is a function traced again: the recompile family's.
    kind = _RETRACE_KIND if form.group == "no_tracing" else _KIND
    yield kind.failure(
        log,
        m.start(),
        # The function JAX names as the one that needed a concrete value (`The size argument
        # of jnp.nonzero must be statically specified`) is the op; else the error's class.
        # (Where none is named, the call of JAX's API on the user's line that raised inside:
        # jnp.extract converting its mask's any() to a bool; an operator names none.)
        op=culprit_name.rsplit(".", 1)[-1] or _api_on(log, user) or error_class,
        advice=advice,
        node=culprit_name,
        function=function,
        stack=stack,
        source=source,
        chain=[FunctionRef(function, function)] if function else [],
        defined_at=defined_at,
        error_class=error_class,
        hints=hints,
        more_advice=second,
        fallback=form.group == "foreign_tracer",
    )


def _header_only(log: Log, m: re.Match[str], form: Form) -> Iterator[Failure]:
    """An IPython traceback whose message was cut: the class from its header, the frames
    below it; nothing where the message follows (read from its own words)."""
    end = log.region_end(m.end())
    if any(
        form_of(_TRACING_FORMS, later).group not in _HEADERS
        for later in _TRACING.finditer(log.text, m.end(), end)
    ):
        return
    error_class = f"Tracer{m['ip_kind']}ConversionError" if m["ip_kind"] else form.op
    stack = log.traceback_before(end)
    yield _KIND.failure(
        log,
        m.start(),
        op=error_class,
        advice=advise(_trigger_keys(error_class, ""), Reason.TRACING),
        stack=stack,
        error_class=error_class,
        hints=[form.meaning],
        more_advice=_second(error_class),
    )


def _second(error_class: str) -> list[tuple[str, str]]:
    """The second fix for ``error_class``, as ``Failure.more_advice`` holds it."""
    second = _SECOND.get(error_class)
    return [(str(second[0]), second[1])] if second else []


_KIND = Kind(Family.JAX_TRACING, Reason.TRACING)
_RETRACE_KIND = Kind(Family.RECOMPILE, Reason.TRACING)
RECOGNISER = Recogniser(Family.JAX_TRACING, _TRACING, _jax_tracing)
