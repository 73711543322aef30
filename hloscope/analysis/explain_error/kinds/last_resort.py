"""A failure read from the message's structure alone, where no recogniser knows its words.

Every other kind keys on a family's own words. A log in words none of them knows still says
what failed by its shape, and the shape's meaning is fixed by Python and by the logging of
XLA's C++ code, not by any one message:

* the exception a traceback ends with, ``Class: message`` at a line's start right after the
  traceback's frames, or the class IPython's header names before them (``Class   Traceback
  (most recent call last)``); its class says the family where the class's meaning is narrow enough:
  an :class:`ImportError` (or ``module 'x' has no attribute``) at import is a package that
  did not import, missing or of another release than the packages around it (they do not
  start together); jax.errors' tracing classes are a traced value used where a concrete one
  is needed (their meaning on JAX's errors page), read also where the line is pasted alone;
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
frames as the call's arguments (1 of 4: a plugin's registration, a sharding).

Each failure here is a last resort (:attr:`~.record.Failure.last_resort`): dropped where any
other recogniser read a failure in the log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind, own_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


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
    Advice(_TEXT.install, AdviceKind.INSTALL),
    # Pasted alone, a removed module names no importer: a library's import is a backend
    # that did not start, the user's own a call of an API gone (api_mismatch's two families).
    alone=False,
)
_TRACING_KIND = Kind(Family.JAX_TRACING, Reason.TRACING, own_line)
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
    """What the class says, or ``None`` where it says no family."""
    if cls in _IMPORT_CLASSES:
        return _INSTALL
    if cls == "AttributeError" and _RE.module_attribute.match(message):
        return _INSTALL
    if cls in _TRACING_CLASSES:
        return _Meaning(_TRACING_KIND, advise((cls,), Reason.TRACING))
    return None


def _last_resort(log: Log, m: re.Match[str]) -> Iterator[Failure]:
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
        found = _meaning(cls, m["lr_msg"] or "")
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
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _last_resort)
