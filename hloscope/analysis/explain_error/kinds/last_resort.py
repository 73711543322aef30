"""A failure read from the message's structure alone, where no recogniser knows its words.

Every other kind keys on a family's own words. A log in words none of them knows still says
what failed by its shape, and the shape's meaning is fixed by Python and by the logging of
XLA's C++ code, not by any one message:

* the exception a traceback ends with, ``Class: message`` at a line's start right after the
  traceback's frames; its class says the family where the class's meaning is narrow enough
  (:data:`_CLASSES`): an :class:`ImportError` is a package that did not import (the packages
  installed do not start together), a ``module 'x' has no attribute`` is a module of another
  release than its caller expects, a :class:`TypeError` or :class:`ValueError` raised in JAX's
  own frames is JAX refusing the call's arguments (Python's meaning of those classes: an
  argument of the wrong type, or of the right type and a wrong value), JAX's runtime error
  without a status code is XLA's refusal at run time;
* glog's fatal line (``F1106 12:00:00.000000 123 file.cc:45] message``, TensorFlow's logger's
  ``2024-01-01 ...: F file.cc:45] message``): a fatal log aborts the process, the crash of
  the C++ code that wrote it. A warning's or an error's line (``W``, ``E``) does not stop
  anything and says no family: it is not read.

A class whose meaning spans families (``RuntimeError``, ``AssertionError``, ``KeyError``, a
``TypeError`` raised in the user's own code) is not read: better no failure than a wrong
family. Each failure here is a last resort (:attr:`~.record.Failure.last_resort`): dropped
where any other recogniser read a failure in the log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind, own_line
from ..complete import status_code_in
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .xla_status import STATUS_MEANINGS

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    # Each a lookahead that consumes nothing: the words of a line it reads stay for the
    # recognisers joined before it (a fatal line's "Check failed:").
    # The exception a traceback ends with: a class (its module's path before it) at a line's
    # start, then its message.
    r"(?<![^\n])(?=(?P<lr_cls>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):"
    r"(?:[ \t]+(?P<lr_msg>[^\n]*))?(?:\n|\Z))"
    # glog's fatal line (its date with or without the year), and TensorFlow's logger's: a
    # file of C++ code and its line.
    r"|(?<![^\n])(?=(?:F\d{4}(?:\d{4})? [\d:.]+[ \t]+\d+|\d{4}-\d\d-\d\d [\d:.]+: F) "
    r"(?P<lr_file>[\w./+-]+\.(?:cc|cpp|h)):(?P<lr_line>\d+)\] (?P<lr_fatal>[^\n]+))",
)


@dataclass(frozen=True, slots=True)
class _Meaning:
    """What a class says of a failure: its family and reason, and the fix in general."""

    kind: Kind
    advice: Advice
    #: Whether the class alone says it, so an exception pasted without its traceback (the
    #: log's last line) is read too; else its frames must say where it was raised.
    alone: bool = True


_INSTALL = _Meaning(
    Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line),
    Advice(
        "a package did not import: it is missing, or built for another release of the "
        "packages around it (jax, jaxlib and its plugins, the framework). Install releases "
        "that go together (pip install -U with the versions each one asks for)",
        AdviceKind.INSTALL,
    ),
    # Pasted alone, a removed module names no importer: a library's import is a backend
    # that did not start, the user's own a call of an API gone (api_mismatch's two families).
    alone=False,
)
_CALL = _Meaning(
    Kind(Family.JAX_CALL, Reason.RUNTIME, own_line),
    Advice(
        "JAX refused an argument of the call (a TypeError: of a type it does not take; a "
        "ValueError: of a value it does not take). Check the arguments your line passes "
        "against the function's documentation",
        AdviceKind.OTHER,
    ),
    alone=False,
)
_STATUS_KIND = Kind(Family.XLA_STATUS, Reason.RUNTIME, own_line)
_RUNTIME = _Meaning(
    _STATUS_KIND,
    Advice(
        "XLA refused the program as it compiled or ran it; the message says what. Report it "
        "with the versions (jax.print_environment_info()) if it repeats",
        AdviceKind.OTHER,
    ),
)
_TRACING_KIND = Kind(Family.JAX_TRACING, Reason.TRACING, own_line)
_FATAL = _Meaning(
    Kind(Family.XLA_CRASH, Reason.COMPILE_ERROR, own_line),
    Advice(
        "the C++ code that wrote this fatal log line aborted the process: a bug in it, not an "
        "error in your program. Report it with the versions and a small program that repeats "
        "it",
        AdviceKind.REPORT_BUG,
    ),
)
# Python's import classes (ModuleNotFoundError is an ImportError).
_IMPORT_CLASSES = frozenset({"ImportError", "ModuleNotFoundError"})
# Python's classes for a bad argument: JAX's own frames raised them on the call's arguments.
_ARGUMENT_CLASSES = frozenset({"TypeError", "ValueError"})
# JAX's exception for XLA's errors (XlaRuntimeError before jax 0.4.36).
_RUNTIME_CLASSES = frozenset({"JaxRuntimeError", "XlaRuntimeError"})
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
# `module 'jax.numpy' has no attribute 'foo'`: a module lacks a name its caller expects.
_MODULE_ATTRIBUTE = re.compile(r"(?:partially initialized )?module '[\w.]+' has no attribute ")
# XLA's status as a binding without a class of its own raises it (jaxlib before
# XlaRuntimeError, PyTorch/XLA): "RuntimeError: Bad StatusOr access: INTERNAL: ...", older
# releases in words: "RuntimeError: Failed precondition: ...".
_STATUS_WRAPPER = "Bad StatusOr access: "
# A file of JAX's or jaxlib's own code as a traceback names it: the installed package, or
# JAX's sources (a user's own folder named jax is neither).
_JAX_FILE = re.compile(
    r"(?:site|dist)-packages[\\/](?:jax|jaxlib)[\\/]|(?:^|[\\/])jax[\\/]_src[\\/]"
)


def _meaning(cls: str, message: str, stack: list[StackFrame]) -> _Meaning | None:
    """What the class (and where it was raised) says, or ``None`` where it says no family."""
    if cls in _IMPORT_CLASSES:
        return _INSTALL
    if cls == "AttributeError" and _MODULE_ATTRIBUTE.match(message):
        return _INSTALL
    if cls in _TRACING_CLASSES:
        return _Meaning(_TRACING_KIND, advise((cls,), Reason.TRACING))
    if cls in _RUNTIME_CLASSES:
        return _RUNTIME
    code = _leading_code(message)
    if cls == "RuntimeError" and code in STATUS_MEANINGS:
        return _Meaning(_STATUS_KIND, Advice(f"{code}: {STATUS_MEANINGS[code]}", AdviceKind.OTHER))
    if cls in _ARGUMENT_CLASSES and stack and _JAX_FILE.search(stack[0].file):
        return _CALL
    return None


def _leading_code(message: str) -> str | None:
    """The status code ``message`` opens with (after PyTorch/XLA's wrapper), canonical."""
    message = message.removeprefix(_STATUS_WRAPPER)
    colon = message.find(": ")
    return status_code_in(message[: colon + 2]) if colon > 0 else None


def _last_resort(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["lr_fatal"]:
        meaning, op = _FATAL, m["lr_file"].rsplit("/", 1)[-1]
    else:
        stack = log.traceback_before(m.start())
        cls = m["lr_cls"].rsplit(".", 1)[-1]
        found = _meaning(cls, m["lr_msg"] or "", stack)
        if found is None or not (stack or (found.alone and _last_line(log, m.start()))):
            return  # no traceback ends here: prose, or a logger's line, not a raised class
        meaning, op = found, cls
    failure = meaning.kind.failure(log, m.start(), op=op, advice=meaning.advice)
    failure.last_resort = True
    yield failure


def _last_line(log: Log, start: int) -> bool:
    """Whether the line at ``start`` is the log's last but blank ones: an exception pasted
    alone."""
    return not log.text[log.line_end(start) :].strip()


#: Its failures are of several families; :func:`~.driver.explain_error` keeps them only where
#: no other recogniser read one.
RECOGNISER = Recogniser(Family.XLA_CRASH, _OPENING, _last_resort)
