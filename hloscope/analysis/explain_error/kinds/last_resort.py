"""A failure read from the message's structure alone, where no recogniser knows its words.

Every other kind keys on a family's own words. A log in words none of them knows still says
what failed by its shape, and the shape's meaning is fixed by Python and by the logging of
XLA's C++ code, not by any one message:

* the exception a traceback ends with, ``Class: message`` (or the class alone, raised without a
  message) at a line's start right after the traceback's frames, or the class IPython's header
  names before them (``Class   Traceback (most recent call last)``); its class says the family
  where the class's meaning is narrow enough: an :class:`ImportError` (or ``module 'x' has no
  attribute``) at import is a package that did not import, missing or of another release than
  the packages around it (they do not start together), as is an object lacking a name where
  an installed package's import asked for it (import-time code runs on no data of the
  program's: the object is another package's, of another release; the importer a library
  calling what the installed one lacks, or JAX's own import a backend that did not start);
  jax.errors' tracing classes are a traced
  value used where a concrete one is needed (their meaning on JAX's errors page), read also
  where the line is pasted alone; any other class whose own name says a family
  (:mod:`..class_words`: shape, tracing, sharding, memory), that family;
* the module that raised it, where the class says no family: a traceback's innermost frame is
  where the exception was raised, and the source layout of JAX and its plugins is stable across
  releases and wordings (:mod:`..raised_in`'s table, written from JAX's and Orbax's sources):
  raised in Pallas's lowering or the TPU custom call, a Pallas kernel's; in the sharding modules
  (or jit's sharding checks, or Orbax's rebuilding of a checkpoint's shardings), a sharding's;
  in ``jax/_src/export/`` or jax2tf, an export's; in the backends' start-up (xla_bridge,
  plugins, jaxlib's version check), a backend that did not start; in
  ``jax/_src/distributed.py``, the multi-host family; in a lax shape rule, a shape error; the
  advice is the family's usual first fix (as the words reader gives it), the message's own being
  unknown; where the words reader is sure of the message (:mod:`..family_words`) it gives way to
  that reader, which reads the op the message names. A frame of the user's own file or of a
  library that only calls JAX (Flax's, netket's) says nothing, nor does a traceback JAX
  filtered. Measured (round 14b) reading every unsealed corpus log with the module alone: 22
  answers, 22 right (Pallas 4, sharding 3, backend start-up 14, multi-host 1; export and shape
  rules none), and on the labelled family logs 2 of 2; on the 134 logs each blind part's code
  answered nothing for at first sight, 4 answers, 4 right; on the logs today's table reads no
  failure in (30 at the round's start, 15 after its other rules), none: those are pasted without
  their tracebacks. Left out after reading the source and the tests: core's
  ``canonicalize_shape`` (it refuses a traced shape and a shape that is no shape alike),
  ``jax/experimental/pallas/`` (its ops are kernels written with Pallas, checking their
  arguments in any family's terms), xla_bridge's look-up of a platform a call named (the name
  may be the call's own mistake);
* a value given where JAX takes a function, raised in JAX's code or in a traceback JAX
  filtered: Python calling it ("'str' object is not callable": a checkpoint policy named by a
  string, an index map given as a tuple) or JAX's own check ("lax.scan: f argument should be
  a callable"): the call's argument (jax_call), or the family of the module that raised it
  (Pallas's spec); the fix is the function itself. The same words raised in the program's own
  code, JAX not in its traceback, say no family;
* glog's fatal line (``F1106 12:00:00.000000 123 file.cc:45] message``, TensorFlow's logger's
  ``2024-01-01 ...: F file.cc:45] message``): a fatal log aborts the process, the crash of
  the C++ code that wrote it. A warning's or an error's line (``W``, ``E``) does not stop
  anything and says no family: it is not read.

A class whose meaning spans families is not read: better no failure than a wrong family.
Measured on the corpus's logs (issue 35), three rows first written from the classes'
meanings gave other families than the logs' truths more often than theirs, and were removed:
JAX's runtime error as an XLA status (right on 5 of the 52 logs it read: the cause, a backend
that did not start, memory, a crash, is in the message's words, not its class), a status code
raised as ``RuntimeError`` (3 of 9), a ``TypeError`` or ``ValueError`` raised in JAX's own
frames as the call's arguments (1 of 4: a plugin's registration, a sharding; such errors
are read now only by the module that raised them, above).

Each failure here is a last resort (:attr:`~.record.Failure.last_resort`): dropped where any
other recogniser read a failure in the log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind, own_line
from ..catalogue import words_of
from ..class_words import family_of_class
from ..family_words import FIX_WORDS, REASONS, message_at, read_family, table
from ..log import Log
from ..message_fixes import (
    names_array_extent,
    names_symbolic_dimension,
    pointed_fixes,
    structural_fixes,
)
from ..named_op import TRANSFORMS, api_calls, op_called, op_on_line
from ..raised_in import in_kernel_trace, origin_of
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


@dataclass(frozen=True, slots=True)
class _Meaning:
    """What a class says of a failure: its family and reason, and the fix in general."""

    kind: Kind
    advice: Advice
    #: The fixes after ``advice``, each ``(kind, text)``.
    more: tuple[tuple[str, str], ...] = ()
    #: Whether the class alone says it, so an exception pasted without its traceback (the
    #: log's last line) is read too; else its frames must say where it was raised.
    alone: bool = True


_INSTALL = _Meaning(
    Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line),
    Advice(_TEXT.install, AdviceKind.INSTALL),
    # Pasted alone, a removed module names no importer: a library's import is a backend
    # that did not start, the user's own a call of an API gone (api_mismatch's two families).
    alone=False,
)
# A module's name asked for by a function as the program ran, not by an import: code written
# for another release of the package calling an API this one does not have (the family of a
# library calling an API JAX no longer has, api_mismatch's, whatever the package).
_GONE_API = _Meaning(
    Kind(Family.JAX_CALL, Reason.RUNTIME, own_line),
    Advice(_TEXT.gone_api, AdviceKind.INSTALL),
    alone=False,
)
# A seed or data jax.random could not convert to its integers.
_RANDOM_ARGUMENT = _Meaning(
    Kind(Family.JAX_CALL, Reason.RUNTIME, own_line),
    Advice(_TEXT.random_argument, AdviceKind.PRNG_KEY),
)
_TRACING_KIND = Kind(Family.JAX_TRACING, Reason.TRACING, own_line)
_CALL_KIND = Kind(Family.JAX_CALL, REASONS[Family.JAX_CALL], own_line)
_FATAL = _Meaning(
    Kind(Family.XLA_CRASH, Reason.RUNTIME, own_line),
    Advice(_TEXT.fatal, AdviceKind.REPORT_BUG),
)
# Python's import classes (ModuleNotFoundError is an ImportError).
_IMPORT_CLASSES = frozenset({"ImportError", "ModuleNotFoundError"})
# jax.errors' classes of a traced value used where a concrete one is needed (jax 0.10.2).
_TRACING_CLASSES = frozenset(
    {
        "ConcretizationTypeError",
        "NonConcreteBooleanIndexError",
        "TracerArrayConversionError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
        "UnexpectedTracerError",
    }
)


def _meaning(cls: str, message: str) -> _Meaning | None:
    """What the class says, or ``None`` where it says no family (``message``: the exception's,
    with the lines it runs on to)."""
    if cls in _IMPORT_CLASSES:
        return _INSTALL
    if cls == "AttributeError" and _RE.module_attribute.match(message):
        return _INSTALL
    numpy_asked = _RE.numpy_asked.match(message) if cls == "AttributeError" else None
    if numpy_asked:
        said = _TEXT.numpy_asked.format(attr=numpy_asked["attr"])
        return _Meaning(_CALL_KIND, Advice(said, AdviceKind.JNP_NOT_NP))
    if cls in _TRACING_CLASSES:
        return _Meaning(_TRACING_KIND, advise((cls,), Reason.TRACING))
    family = family_of_class(cls)
    return None if family is None else _usual(family, message)


def _last_resort(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    error_class = None  # where the op is not the class itself
    if m["lr_fatal"]:
        meaning, op = _FATAL, m["lr_file"].rsplit("/", 1)[-1]
    elif m["lr_ipy"]:
        # IPython names the class before its frames: a meaning the class says alone.
        cls = m["lr_ipy"].rsplit(".", 1)[-1]
        found = _meaning(cls, "")
        if found is None or not found.alone:
            return
        meaning, op = found, cls
    else:
        stack = log.traceback_before(m.start())
        cls = m["lr_cls"].rsplit(".", 1)[-1]
        message = message_at(log.text, log.line_start(m.start()))
        filtered = _filtered(log, m.start())
        called = _call_on_line(log, m.start(), stack) if filtered else None
        # (Python refusing a JAX function's signature names the call, whatever else the line
        # calls: jnp.ones(16) passed to the function shard_map returned.)
        called = _api_refused_by_signature(log, m.start(), stack, message) or called
        # (The exceptions it caused say the same failure in their words too: a kernel
        # wrapper's KeyError of a dtype, then "Unsupported dtype float16".)
        chained = "\n".join([message, *log.caused_messages(m.start())])
        found = _meaning(cls, m["lr_msg"] or "") or _raised_in(
            log, stack, chained, called, filtered
        )
        if found is _INSTALL and cls == "AttributeError" and _called_at_run_time(stack):
            found = _GONE_API
        if (
            found is None
            and cls == "AttributeError"
            and _RE.object_attribute.match(m["lr_msg"] or "")
        ):
            found = _imported_against(stack)
        if found is None or not (stack or (found.alone and _last_line(log, m.start()))):
            return  # no traceback ends here: prose, or a logger's line, not a raised class
        # (A cause's op may stand on the line of the exception it caused: read there too.)
        caused = bool(log.outer_frames(m.start()))
        meaning, op = found, _op_of(log, m.start(), stack, message, called, cls, caused)
        error_class = None if op == cls else cls
    failure = meaning.kind.failure(
        log,
        m.start(),
        op=op,
        advice=meaning.advice,
        more_advice=list(meaning.more),
        error_class=error_class,
    )
    failure.last_resort = True
    yield failure


def _op_of(
    log: Log,
    start: int,
    stack: list[StackFrame],
    message: str,
    called: str | None,
    cls: str,
    caused: bool,
) -> str:
    """The op of a failure read by its structure: the call of JAX's the program made (jnp.pad
    under the user's line, above the helper that raised), else, where the exception
    ``caused`` another, the API the program's innermost line in the chain calls (the line a
    kernel wrapper's refusal went up to), else the class."""
    # (Not a transformation the line calls: the op failed inside it, and the message may name
    # that op, which completing the failure reads. Nor the call around a value called that is
    # no function: the value failed; JAX's own check of one names the API it was given to.)
    not_callable = _RE.not_callable.match(message)
    on_line = None if called in TRANSFORMS or not_callable else called
    given_to = not_callable["api"] if not_callable else None
    # (A message that names the API whose parameter it refused names the call.)
    owner = _RE.parameter_of.search(message)
    # (A primitive whose rule JAX lacks: "Batching rule for 'call_exported' not implemented".)
    rule = _RE.primitive_rule.search(message)
    named = given_to or (owner["api"] if owner else None) or (rule["prim"] if rule else None)
    # (A message whose subject is JAX's transformation names the call that refused.)
    found = op_called(stack, is_users) or _subject(message) or named or on_line
    return found or (_users_api(log, stack) if caused else None) or _made_by(log, start) or cls


def _made_by(log: Log, start: int) -> str | None:
    """The JAX op that JAX's trace before transformation shows being made, where the
    exception at ``start`` is part of a chain that holds one (a kernel wrapper's ``KeyError``
    of a dtype, raised as the op was lowered: "JaxStackTraceBeforeTransformation" names the
    frame that bound it, ``return lax_linalg.schur(a)``): the nearest after it within the
    chain's reach, else the nearest before."""
    after = log.text.find(_BEFORE_TRANSFORMATION, start, start + _CHAIN_REACH)
    at = (
        after
        if after >= 0
        else log.text.rfind(_BEFORE_TRANSFORMATION, max(0, start - _CHAIN_REACH), start)
    )
    if at < 0:
        return None
    made = log.traceback_before(log.line_start(at))
    found = _RE.made_op.search(log.code_of(made[0])) if made else None
    return found["op"] if found else None


def _users_api(log: Log, stack: list[StackFrame]) -> str | None:
    """The function of JAX's API the program's innermost line in ``stack`` calls
    (jax.lax.linalg.tridiagonal_solve, where a kernel wrapper refused its dtype; a kernel's
    pl.program_id), not a transformation (the op failed inside it), where the log quotes
    that line."""
    users = [frame for frame in stack if is_users(frame)]
    api = op_on_line(log.code_of(users[0])) if users else None
    return None if api in TRANSFORMS else api


def _imported_against(stack: list[StackFrame]) -> _Meaning | None:
    """What an object lacking an attribute says where an installed package's import asked for
    it: import-time code runs on no data of the program's, so the object is another package's
    of a release the importer was not written for. JAX's own import is a backend that did not
    start; any other package's, a library calling an API the installed one lacks. ``None``
    where the raise was not at an import in installed code (a program's own mistake, or a
    library's at run time, says no family)."""
    if not stack or not _RE.installed.search(stack[0].file):
        return None
    importing = [f for f in stack if f.function == "<module>" and _RE.installed.search(f.file)]
    if not importing:
        return None
    return _INSTALL if _RE.jax_package.search(stack[0].file) else _GONE_API


def _called_at_run_time(stack: list[StackFrame]) -> bool:
    """Whether the innermost frame is a function of the program's own (the program running),
    not an installed package's (its import, a plugin's start) nor a module's top level."""
    if not stack or _RE.installed.search(stack[0].file):
        return False
    return stack[0].function not in ("<module>", "")


def _raised_in(
    log: Log, stack: list[StackFrame], message: str, called: str | None, filtered: bool
) -> _Meaning | None:
    """What the module that raised the exception says (:mod:`..raised_in`), or ``None``:
    ``None`` where the words reader is sure of the message and of the module's family too
    (:mod:`..family_words`, asked where no recogniser read a failure: it reads the op the
    message names), or sure of a family where no module says one."""
    origin = origin_of(stack)
    words = read_family(log.text)
    if _RE.builtin_conversion.match(message) and any(
        _RE.random_frame.search(f.file) for f in stack
    ):
        # A builtin refusing to convert what jax.random was given as a seed or data (a run's
        # name as a string, a 128-bit uuid): the random call's argument, an int key's.
        return _RANDOM_ARGUMENT
    if origin is not None and (words is None or words[0] != origin.family):
        # The module that raised is sure of its family (a kernel wrapper of jaxlib's, Pallas's
        # own checks), whatever words it uses; where the words reader says the same family,
        # its reading (the op the message names, its confidence) is kept.
        asked = _RE.asked_attribute.match(message)
        if asked and origin.family is not Family.BACKEND_STARTUP and _jax_asked(stack):
            return _given_another_type(origin.family, message, asked)
        return _usual(origin.family, message)
    if _subject(message) in _COLLECTIVES and _ARGUMENT_CLASSES.search(message.split(":")[0]):
        # A collective's own check ("ppermute sources and destinations must be unique"):
        # its operands are a mapped axis's shards, whatever other words the log holds.
        return _usual(Family.SHARDING, message)
    if in_kernel_trace(stack, is_users):
        # Raised as Pallas traced a kernel's body, in words no reader knows (a bare assert on a
        # Ref indexed with a size read from another Ref): the kernel's, whatever its class.
        return _usual(Family.PALLAS, message)
    if _symbolic(message) and _ARGUMENT_CLASSES.search(message.split(":")[0]):
        # A symbolic dimension in a plain check's words: a shape-polymorphic export's limit,
        # whatever other family the check's words are near.
        return _usual(Family.JAX_EXPORT, message)
    if words is not None and (origin is not None or not _strayed_to_sharding(words[0], message)):
        return None
    asked = _RE.asked_attribute.match(message)
    if asked and _jax_asked(stack):
        # Where no module says a family: the call's argument was of another type.
        return _given_another_type(Family.JAX_CALL, message, asked)
    family = _pointed_family(stack, message, called, filtered)
    return None if family is None else _usual(family, message)


def _strayed_to_sharding(words: Family, message: str) -> bool:
    """Whether the words reader's ``words`` family is a sharding's for a plain check whose
    message names no mesh, sharding, device, named axis nor collective: the words of an
    array's axes ("disagrees with leading axis sizes [3]", "one unknown axis size") are near
    a sharding's in the reader's table, but a sharding's failure names what it shards."""
    if words is not Family.SHARDING or not _ARGUMENT_CLASSES.search(message.split(":")[0]):
        return False
    return _RE.sharding_words.search(message) is None


def _symbolic(message: str) -> bool:
    """Whether ``message`` shows a symbolic dimension: a builtin refusing one (``float()`` of
    a shape's '_DimExpr', "must be real number, not _DimExpr") or its expression ("rest is
    mod(width, 2)")."""
    refused = _RE.refused_type.search(message)
    if refused and _RE.symbolic_type.search(refused["type"]):
        return True
    return names_symbolic_dimension(message)


def _subject(message: str) -> str | None:
    """The JAX transformation or collective ``message`` (``Class: words``) has as its subject,
    as JAX's own checks open theirs ("pjit does not support kwargs ...", "ppermute sources and
    destinations must be unique"); ``None`` where it opens otherwise."""
    found = _RE.jax_subject.match(message.split(":", 1)[-1].strip())
    return found["api"] if found else None


# JAX's exception carrying the trace it took before transforming: the frames that made the op;
# how far from an exception of its chain it may stand.
_BEFORE_TRANSFORMATION = "JaxStackTraceBeforeTransformation:"
_CHAIN_REACH = 16 * 1024


# A plain argument check's class: what it says is in its message's words alone.
_ARGUMENT_CLASSES = re.compile(r"(?:^|\.)(?:ValueError|TypeError)$")


def _pointed_family(
    stack: list[StackFrame], message: str, called: str | None, filtered: bool
) -> Family | None:
    """The family of a plain ``ValueError`` or ``TypeError`` raised in JAX's stack's own code
    (an API checking the program's arguments) in a module :mod:`..raised_in` has no row for,
    read from the fix its message points to (:func:`~..message_fixes.pointed_fixes`): shapes
    that do not match are a shape error, arrays on other devices or an axis the mesh lacks a
    sharding's, a size that depends on values a tracing one, and a key, a type or an
    unhashable value the call's arguments; a collective's (``called``: psum_scatter,
    all_gather), whatever its fix, a sharding's. ``None`` where the message points to none.

    Raised in JAX's stack: the innermost frame is its, or JAX removed its own frames from the
    traceback and the user's innermost line ``called`` one of its functions (a ``raise`` of
    the program's own names none), or JAX removed them (``filtered``) from a traceback that
    ends in Python calling a value that is no function: JAX called what the program gave it
    in a function's place (a policy's name, an index map's tuple), the call's argument."""
    cls = message.split(":", 1)[0].strip()
    if not stack or not _ARGUMENT_CLASSES.search(cls):
        return None
    not_callable = _RE.not_callable.match(message) is not None
    in_jax = _RE.jax_stack.search(stack[0].file) or called or _subject(message)
    if not (in_jax or (filtered and not_callable)):
        return None
    if called in _COLLECTIVES:
        # A collective's operands are a mapped axis's shards: what it refuses is a sharding's.
        return Family.SHARDING
    owner = _RE.locals_owner.match(message)
    if owner is not None and _OWNING_CALLS.get(owner["owner"].lstrip("_")) is not Family.PALLAS:
        # The function a transformation returned, called otherwise than it takes (a keyword
        # its wrapper does not pass on): how it was called, not how it was made. (A kernel's
        # keyword given to pallas_call's function stays the kernel's: bind it with partial.)
        return Family.JAX_CALL
    if called in _OWNING_CALLS:
        # A kernel's, a mapping's or an export's call refused how it was made: its family's.
        return _OWNING_CALLS[called]
    if not_callable or _RE.rule_result.search(message):
        return Family.JAX_CALL
    fixes = [kind for kind in pointed_fixes(message) if kind in _FAMILY_OF_FIX]
    if fixes and fixes[0] is AdviceKind.FIX_SHAPES and not names_array_extent(message):
        # Counts that do not match ("the number of updates and states has to be the same"),
        # no array's extent: the call's arguments are of another structure.
        return Family.JAX_CALL
    if fixes:
        return _FAMILY_OF_FIX[fixes[0]]
    # No fix named, but the words of a call given an argument of the wrong kind ("only
    # accepts None, Sharding or Device ... Received invalid value", "got an unexpected keyword
    # argument"): the call's arguments.
    return Family.JAX_CALL if _RE.argument_words.search(message) else None


# jax.lax's collectives, by the names a program calls them: their operands are the shards of
# a mapped axis, so what they refuse is a sharding's.
_COLLECTIVES = frozenset(
    ("psum", "pmean", "pmax", "pmin", "psum_scatter", "all_gather", "all_to_all", "ppermute")
    + ("pshuffle", "pswapaxes", "axis_index", "pbroadcast", "ragged_all_to_all")
)


# Calls whose refusals are their family's, whatever the message says: Pallas's kernel call and
# its specs, shard_map, jax.export.
_OWNING_CALLS = {
    "pallas_call": Family.PALLAS,
    "BlockSpec": Family.PALLAS,
    # A kernel's memory spaces and parameters, as Pallas's TPU module names them.
    **dict.fromkeys(
        ("VMEM", "SMEM", "ANY", "HBM", "SemaphoreType", "CompilerParams"), Family.PALLAS
    ),
    **dict.fromkeys(("GridSpec", "PrefetchScalarGridSpec"), Family.PALLAS),
    "shard_map": Family.SHARDING,
    "export": Family.JAX_EXPORT,
}


def _filtered(log: Log, start: int) -> bool:
    """Whether JAX removed its own frames from the traceback of the exception at ``start``."""
    # JAX prints its notice beside the exception it filtered (after it today, before its
    # traceback in jax 0.2), not elsewhere in a long log.
    near = log.text[max(0, start - _NOTICE_REACH) : start + _NOTICE_REACH]
    return _RE.filtered.search(near) is not None


def _call_on_line(log: Log, start: int, stack: list[StackFrame]) -> str | None:
    """The function of JAX's API the innermost line of the traceback before ``start`` calls,
    where JAX removed its own frames from that traceback (:func:`_filtered`: the exception was
    raised inside that call); else ``None``."""
    if not stack or not is_users(stack[0]):
        return None
    return op_on_line(log.innermost_code(start))


def _api_refused_by_signature(
    log: Log, start: int, stack: list[StackFrame], message: str
) -> str | None:
    """The function of JAX's API that Python refused to call by its signature (a required
    argument missing, a keyword it does not take), where the user's innermost line calls it:
    raised before any of JAX's frames ran, so no frame of JAX's says it was JAX's call."""
    if not stack or not is_users(stack[0]):
        return None
    owner = _RE.locals_owner.match(message)
    if owner is not None and owner["owner"].lstrip("_") in TRANSFORMS | _OWNING_CALLS.keys():
        # The function a transformation returned refused the call ("_shard_map.<locals>.
        # wrapped() got an unexpected keyword argument 'batch'"): the transformation's.
        return owner["owner"].lstrip("_")
    refused = _RE.signature.match(message)
    if refused is None:
        return None
    calls = api_calls(log.innermost_code(start))
    if refused["fn"] == "__call__" and len(calls) == 1:
        # An object of JAX's called ("MemorySpace.__call__() missing ... 'dtype'" for
        # pltpu.VMEM((8, 1))): the one call of JAX's API on the line.
        return calls[0]
    return refused["fn"] if refused["fn"] in calls else None


# How far from the exception JAX's notice of the frames it removed may stand.
_NOTICE_REACH = 16 * 1024


#: The family each fix a message points to says (an argument check's, see
#: :func:`_pointed_family`); "install" says none of its own.
_FAMILY_OF_FIX: dict[AdviceKind, Family] = {
    AdviceKind.FIX_SHAPES: Family.JAX_SHAPE,
    AdviceKind.MESH_AXIS: Family.SHARDING,
    AdviceKind.RESHARD: Family.SHARDING,
    AdviceKind.SAME_DEVICES: Family.SHARDING,
    AdviceKind.FIXED_SIZE: Family.JAX_TRACING,
    AdviceKind.PRNG_KEY: Family.JAX_CALL,
    AdviceKind.HASHABLE_STATIC: Family.JAX_CALL,
    AdviceKind.REUSED_DONATION: Family.JAX_CALL,
    AdviceKind.FIND_NAN: Family.JAX_CALL,
    AdviceKind.CAST_DTYPE: Family.JAX_CALL,
}


def _usual(family: Family, message: str) -> _Meaning:
    """A failure of ``family`` with the fixes ``message``'s words point to, then the family's
    usual ones (:func:`~..message_fixes.structural_fixes`), as the words reader gives them;
    a value JAX called that is no function, the function to pass first."""
    usual = (AdviceKind(kind) for kind in table().advice[family])
    first, *more = structural_fixes(message, usual)
    advice = Advice(FIX_WORDS[first], first)
    not_callable = _RE.not_callable.match(message)
    if not_callable:
        more = [kind for kind in (first, *more) if kind is not AdviceKind.OTHER]
        said = _TEXT.not_callable.format(what=_not_a_function(not_callable))
        advice = Advice(said, AdviceKind.OTHER)
    elif _RE.rule_result.search(message):
        # A rule the program gave returned another structure: the rule to fix, not extents.
        more = [kind for kind in (first, *more) if kind is not AdviceKind.OTHER]
        del more[1:]  # (the extents its words name, at most, after it)
        advice = Advice(_TEXT.rule_result, AdviceKind.OTHER)
    return _Meaning(
        Kind(family, REASONS[family], own_line),
        advice,
        more=tuple((str(kind), FIX_WORDS[kind]) for kind in more),
    )


def _jax_asked(stack: list[StackFrame]) -> bool:
    """Whether JAX's own code raised, as the program ran (not at an import): JAX's modules are
    of one release, so a name it asks of an object and misses is the program's object's."""
    return (
        bool(stack)
        and _RE.jax_own.search(stack[0].file) is not None
        and (stack[0].function != "<module>")
    )


def _given_another_type(family: Family, message: str, asked: re.Match[str]) -> _Meaning:
    """A failure of ``family`` where JAX's own code asked an object of the program's for a
    name its own type has: the program gave another type there (its fix first; releases that
    go together after, as the family's usual fixes follow)."""
    usual = _usual(family, message)
    said = _TEXT.asked_attribute.format(type=asked["type"], attr=asked["attr"])
    fixes = ((str(usual.advice.kind), usual.advice.text), *usual.more)
    more = tuple(fix for fix in fixes if fix[0] != AdviceKind.OTHER)
    return _Meaning(usual.kind, Advice(said, AdviceKind.OTHER), more)


def _not_a_function(found: re.Match[str]) -> str:
    """What a message of :data:`not_callable`'s says was given in a function's place."""
    if found["type"]:
        return f"a '{found['type']}'"
    what = found["args"] or "the first argument"
    return f"{what} of {found['api']}" if found["api"] else what


def _last_line(log: Log, start: int) -> bool:
    """Whether the line at ``start`` is the log's last but blank ones: an exception pasted
    alone."""
    return not log.text[log.line_end(start) :].strip()


#: Its failures are of several families; :func:`~.driver.explain_error` keeps them only where
#: no other recogniser read one.
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _last_resort)
