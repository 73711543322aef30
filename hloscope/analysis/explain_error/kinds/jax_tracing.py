"""JAX tracing errors: ConcretizationTypeError, tracer conversions, non-static shapes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind
from ..catalogue import words_of
from ..forms import Form, alternation, form_of
from ..log import TRACEBACK_HEADER, Log, class_before
from ..recogniser import Recogniser
from ..record import Failure, Family, FunctionRef
from ..user_line import FROM_LINE, best_source, caller_of_framework, is_users, user_source

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

# ---- JAX tracing errors -------------------------------------------------------------------------

# The message forms of jax 0.10.2 (diagnostics notes, table A3.1): the class each one is
# raised as, and what it means.
_TRACING_FORMS: tuple[Form, ...] = (
    Form(
        "bool_conversion",
        r"Attempted boolean conversion of traced array",
        "TracerBoolConversionError",
        Reason.TRACING,
        ("TracerBoolConversionError",),
        "Python control flow (if/while/and/or) on a traced value",
    ),
    Form(
        "integer_conversion",
        r"The __index__(?:\(\))? method was called on\s+(?:traced array|the JAX Tracer object)",
        "TracerIntegerConversionError",
        Reason.TRACING,
        ("TracerIntegerConversionError",),
        "a traced value used as a Python int (range, indexing a list)",
    ),
    Form(
        "array_conversion",
        r"The numpy\.ndarray conversion method __array__\(\) was called on\s+"
        r"(?:traced array|the JAX Tracer object)",
        "TracerArrayConversionError",
        Reason.TRACING,
        ("TracerArrayConversionError",),
        "numpy called on a traced array",
    ),
    Form(
        "boolean_index",
        r"Array boolean indices must be concrete",
        "NonConcreteBooleanIndexError",
        Reason.TRACING,
        ("NonConcreteBooleanIndexError",),
        "boolean-mask indexing: the result's size depends on the data",
    ),
    Form(
        "concretization",
        r"Abstract\s+tracer\s+value\s+encountered\s+where\s+(?:a\s+)?concrete\s+value\s+is\s+"
        r"expected",
        "ConcretizationTypeError",
        Reason.TRACING,
        ("ConcretizationTypeError",),
        "a traced value where a concrete (static) one is needed",
    ),
    Form(
        "invalid_shape",
        r"Shapes must be 1D sequences of concrete values of integer type",
        "TypeError",
        Reason.TRACING,
        ("TypeError",),
        "a shape built from a traced value",
    ),
    Form(
        "static_slice",
        r"Slice entries must be static integers",
        "IndexError",
        Reason.TRACING,
        ("IndexError",),
        "a slice bound that is a traced value",
    ),
    Form(
        "unhashable_tracer",
        # "unhashable type: 'DynamicJaxprTracer'"; jax 0.4.30's FutureWarning names the class.
        r"unhashable type: (?:<class )?'[\w.]*Tracer'",
        "TypeError",
        Reason.TRACING,
        ("TypeError",),
        "a traced value used where Python hashes it (a dict key, a set, a static argument)",
    ),
    Form(
        "unexpected_tracer",
        r"Encountered an unexpected tracer",
        "UnexpectedTracerError",
        Reason.TRACING,
        ("UnexpectedTracerError",),
        "a traced value leaked out of the function that made it (a side effect)",
    ),
    Form(
        # The same error where only its explanation was pasted, its first line cut off (the
        # traceback above it, then JAX's sentences): read from JAX's own second sentence.
        "leak_explained",
        r"JAX transformations require that functions explicitly return their outputs,? and "
        r"disallow saving intermediate values to global state",
        "UnexpectedTracerError",
        Reason.TRACING,
        ("UnexpectedTracerError",),
        "a traced value leaked out of the function that made it (a side effect)",
    ),
    Form(
        # A traced value handed to code that is not JAX's (a probabilistic library's type
        # check, NumPy's ufunc dispatch, an array wrapper): the exception's message names the
        # tracer's class or repr ("value JitTracer(float32[6]) passed to a
        # DeterministicVariable", "'DynamicJaxprTracer', 'JaxArrayWrapper'"), on its line or
        # the lines of the message after it. JAX's own messages name tracers too: each of
        # their forms reads its line first, this one is a fallback.
        "foreign_tracer",
        # (A look ahead: the match ends at the message's start, so JAX's own form on the line
        # is still read by the scan.)
        r"Error: (?=(?:[^\n]|\n(?!\n|\s*File )){0,800}?\b(?:Jit|DynamicJaxpr|JVP|Batch"
        r"|Linearize)Tracer\b)",
        "TypeError",
        Reason.TRACING,
        ("TracerArrayConversionError",),
        "a traced value handed to code that is not JAX's, which wants a concrete array",
    ),
    Form(
        # The leak checker's words (JAX_CHECK_TRACER_LEAKS, jax.checking_leaks()), raised as a
        # plain Exception: "Leaked trace MainTrace(1,DynamicJaxprTrace). Leaked tracer(s):"
        # in older releases, "Leaked trace DynamicJaxprTrace. Leaked tracer(s):" in newer ones.
        "leaked_trace",
        r"Leaked trace (?:MainTrace\([^)\n]*\)|\w+)\. Leaked tracer\(s\)",
        "Exception",
        Reason.TRACING,
        ("UnexpectedTracerError",),
        "a traced value outlived the trace that made it (kept in a list, a global, an object)",
    ),
    Form(
        "no_tracing",
        r"re-tracing function (?P<nt_fn>\S+) at (?P<nt_file>[^\n]+?):(?P<nt_line>\d+) for "
        r"`(?P<nt_api>\w+)`, but 'no_tracing' is set",
        "RuntimeError",
        Reason.TRACING,
        ("RuntimeError",),
        "the function was traced again while jax.no_tracing(True) forbids it (a recompile)",
    ),
    # IPython's header of a traceback whose message was cut from the log (a post quoting the
    # frames only): "TracerBoolConversionError    Traceback (most recent call last)". The
    # class alone names the error; read only where no message of it follows.
    Form(
        "ipython_tracer",
        r"Tracer(?P<ip_kind>Bool|Integer|Array)ConversionError {2,}Traceback \(most recent "
        r"call last\)",
        "",
        Reason.TRACING,
        (),
        "a traced value converted to a Python value (the message is cut: IPython's header)",
    ),
    Form(
        "ipython_concrete",
        r"ConcretizationTypeError {2,}Traceback \(most recent call last\)",
        "ConcretizationTypeError",
        Reason.TRACING,
        (),
        "a concrete value needed where a traced one was given (the message is cut: IPython's "
        "header)",
    ),
)
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
}
_GENERIC_CLASSES = frozenset({"TypeError", "IndexError", "RuntimeError"})
_TRACING_CLASSES = frozenset(form.op for form in _TRACING_FORMS) | {"JAXTypeError"}
# (JAX's separator before its filtered traceback is 20 dashes on a line of its own; the 30 of
# a leak's message part its own paragraphs, the line that made the value among them.)
_TRACING_END = ("\nSee https://", "\n--------------------\n", TRACEBACK_HEADER)


# What raised the error when the message names no API: the fixes table keys tracing errors
# as `Class:trigger` (`ConcretizationTypeError:nonzero`, `TypeError:shape`).
_FORM_TRIGGERS = {"invalid_shape": "shape", "static_slice": "slice"}


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
    trigger = culprit_name.rsplit(".", 1)[-1] or _FORM_TRIGGERS.get(form.group, "")
    traced = _RE.traced_at.search(log.text, m.end(), end)
    defined_at = None
    if traced:
        defined_at = StackFrame(traced["file"], int(traced["line"]), traced["fn"])
    elif form.group == "no_tracing":
        defined_at = StackFrame(m["nt_file"], int(m["nt_line"]), m["nt_fn"])
    stack = log.traceback_before(m.start())
    user = next((f for f in stack if is_users(f)), None)
    from_lines = [
        StackFrame(found["file"], int(found["line"]), found["fn"] or "")
        for found in FROM_LINE.finditer(log.text, m.end(), end)
    ]
    source = best_source(stack, from_lines)
    advice = advise((*_trigger_keys(error_class, trigger), *form.fix_keys), Reason.TRACING)
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
    depends = _RE.depends_on.search(log.text, m.end(), end)
    if depends:
        hints.append(f"the value depends on argument {depends['arg']}")
    yield _KIND.failure(
        log,
        m.start(),
        # The function JAX names as the one that needed a concrete value (`The size argument
        # of jnp.nonzero must be statically specified`) is the op; else the error's class.
        op=culprit_name.rsplit(".", 1)[-1] or error_class,
        advice=advice,
        node=culprit_name,
        function=function,
        stack=stack,
        source=source,
        chain=[FunctionRef(function, function)] if function else [],
        defined_at=defined_at,
        error_class=error_class,
        hints=hints,
        more_advice=[(str(k), t) for k, t in [_SECOND[error_class]]]
        if error_class in _SECOND
        else [],
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
RECOGNISER = Recogniser(Family.JAX_TRACING, _TRACING, _jax_tracing)
