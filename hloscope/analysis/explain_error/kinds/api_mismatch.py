"""A library and the installed JAX of releases that do not go together: the library calls an
API JAX has removed or changed.

JAX says so in its own words when a removed name is touched (its deprecation module:
``AttributeError: jax.core.JaxprEqn was removed in JAX v0.6.0. Use jax.extend.core.JaxprEqn
instead``, ``register_custom_call_target has been removed in JAX v0.6.0``); otherwise Python
does, in the same few shapes whatever the name:

* ``module 'jax' has no attribute 'tree_map'`` (a name gone from a JAX module);
* ``cannot import name 'JaxprEqn' from 'jax.core'``, ``No module named
  'jax.experimental.maps'`` (a module of JAX's gone);
* ``jit() got an unexpected keyword argument 'abstracted_axes'``, raised where a library's
  frame called JAX's public function (the innermost frames are JAX's);
* ``'ShapedArray' object has no attribute 'vma'``: one of JAX's internal classes (abstract
  values, jaxprs) without what a library expects of it -- read where a library's frame
  asked, or where the line is pasted alone (programs rarely hold these classes), never
  where the program's own frame did (its own slip).

Where the mismatch stops an installed library's import (every frame but JAX's runs a module's
top-level code), nothing was traced or called: the packages installed do not start together
(the family of a backend that did not start). The fix is the pair of versions, not the
program: the library's release for this JAX, or the
JAX release the library was written for. A JAX that could not finish importing itself
(``partially initialized module 'jax' has no attribute 'version'``) is a broken install: the
backend never started.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _api_mismatch(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    before = log.before_on_line(m.start())
    stack = log.traceback_before(m.start())
    # An import statement failed (m is reread below).
    statement = m["noimport"] is not None
    # A module of JAX's asked for a name it lacks: (module, name).
    missing = (m["module"], m["attr"]) if m["noattr"] else None
    op: str | None = None  # the API called, where the message names one
    if m["deprecations"]:
        raised = _RE.deprecated_raised.search(log.text, m.end(), m.end() + 600)
        if raised is None or _RE.opening.search(raised["msg"]):
            return  # nothing raised here, or words of the forms below, read where they stand
        named = _RE.deprecated_name.search(raised["msg"])
        what = named["name"] if named else raised["msg"].strip()
        what = f"{what} is gone from this JAX (its deprecation module raised)"
        when = "one from before the name was removed"
        m = raised  # the failure stands at the message, its traceback the one before it
        stack = log.traceback_before(m.start())
    elif m["flag"] or m["flag_attr"]:
        name = m["flag_name"] or m["attr_flag"]
        yield _failure(log, m, name, (_TEXT.flag.format(flag=name), AdviceKind.INSTALL))
        return
    elif m["frozen"]:
        yield _failure(log, m, "unfreeze", (_TEXT.frozen, AdviceKind.INSTALL))
        return
    elif m["jax_class"]:
        caller = next((f for f in stack if not _RE.jax_file.search(f.file)), None)
        if caller is not None and not _RE.package.search(caller.file):
            return  # the program's own code asked: its own slip, not another release
        what = f"JAX's {m['jax_class']} has no attribute '{m['class_attr']}'"
        when = "the one it was written for, whose classes still have it"
    elif m["removed"]:
        named = _RE.removed_name.search(before)
        if named is None:
            return  # prose about a removal
        what = f"{named['name']} was removed in JAX {m['version']}"
        when = f"one before {m['version']}"
    elif m["noattr"]:
        if "Unable to initialize backend '" in before:
            return  # a backend JAX tried that failed so: .backend_startup reads the line
        what = f"module '{m['module']}' has no attribute '{m['attr']}'"
        if before.rstrip().endswith("partially initialized") or m["module"].startswith("jaxlib"):
            # JAX half imported, or jax asking its jaxlib for what that release lacks: the
            # pair installed does not go together.
            yield _failure(
                log, m, "import jax", (_TEXT.broken.format(what=what), AdviceKind.INSTALL)
            )
            return
        when = "an older one, where the name still exists"
    elif m["noimport"]:
        what = f"cannot import name '{m['name']}' from '{m['from']}'"
        when = "an older one, where the name still exists"
    elif m["nomodule"]:
        if not stack and not _import_above(log, m):
            return  # a module gone, pasted alone: no importer named, no release to blame
        what = f"no module named '{m['submodule']}'"
        when = "an older one, where the module still exists"
    else:
        called = _RE.called.search(before)
        if called is None:
            return
        if not _called_into_jax(log, m, stack, called["fn"]) and (
            stack or not _RE.jax_api.match(called["fn"])
        ):
            # A function of the program's own, not JAX's. (Pasted alone, without frames, a
            # JAX transformation's name is JAX's: "linearize() got an unexpected keyword
            # argument 'has_aux'".)
            return
        what = f"{called['fn']}() no longer takes '{m['kwarg']}'"
        when = "an older one that took the argument"
        # The op is the API called (jit, linearize), as a user would look it up; the keyword
        # it lacks is said in the advice.
        op = called["fn"]
    library = _caller_package(stack) or _vendored_package(stack)
    text = _TEXT.fix.format(
        what=what, library=library or "the library", pkg=library or "<library>", when=when
    )
    # An import statement that failed with no frame shown is all that ran: the import.
    if _while_importing(stack) or (statement and not stack):
        yield _IMPORT_KIND.failure(log, m.start(), op=what, advice=(text, AdviceKind.INSTALL))
        return
    failure = _failure(log, m, op or what, (text, AdviceKind.INSTALL))
    asker = next((f for f in stack if not _RE.jax_file.search(f.file)), None)
    users = [frame for frame in stack if is_users(frame)]
    if missing and library is None and asker is not None and users and asker.file == users[-1].file:
        # The script that was run asked JAX for a name it no longer has (jax.xla_computation,
        # jax.tree_map): its call is ported first, an older JAX second. (A module it imports
        # that asked, a checkout of a library's, was written for an older JAX: install.)
        own = _TEXT.own_attribute.format(module=missing[0], attr=missing[1])
        failure.more_advice = [(str(AdviceKind.INSTALL), failure.finding.suggestion)]
        failure.advice_kind, failure.finding.suggestion = str(AdviceKind.OTHER), own
    elif op and library is None and any(is_users(frame) for frame in stack):
        # The program's own line passed the keyword this JAX no longer takes (a renamed
        # argument: shard_map's check_rep is check_vma): the call is changed first.
        own = _TEXT.own_keyword.format(fn=op, kwarg=m["kwarg"])
        failure.more_advice = [(str(AdviceKind.INSTALL), failure.finding.suggestion)]
        failure.advice_kind, failure.finding.suggestion = str(AdviceKind.OTHER), own
    yield failure


def _import_above(log: Log, m: re.Match[str]) -> bool:
    """Whether the line above a module not found is the statement that imported it (``import
    jax.linear_util as lu``), pasted without its traceback: the code that asked is shown."""
    start = log.line_start(m.start())
    above = log.text[log.previous_line_start(start) : start]
    statement = _RE.import_statement.search(above)
    return statement is not None and m["submodule"].startswith(statement["module"])


def _while_importing(stack: list[StackFrame]) -> bool:
    """Whether the mismatch stopped an installed library's import: every frame but JAX's runs
    a module's top-level code (``in <module>``), one of them an installed package's. Nothing
    was traced or called: the packages installed do not import together."""
    outside = [
        frame
        for frame in stack
        if not _RE.jax_file.search(frame.file) and not _RE.import_machinery.search(frame.file)
    ]
    installed = (
        bool(outside)
        and all(_module_level(frame) for frame in outside)
        and any(_RE.package.search(frame.file) for frame in outside)
    )
    return installed or _vendored_package(outside) is not None


def _module_level(frame: StackFrame) -> bool:
    """Whether a frame runs a module's top-level code: Python's ``in <module>``, or a frame of
    IPython's tracebacks with no function named (``Cell In[1], line 7``, ``File
    .../blackjax/__init__.py:6``: IPython names the function of every other frame), or its
    older name for a cell's own code (``<ipython-input-2-f5b2> in <cell line: 2>()``)."""
    return frame.function.startswith(("<module>", "<cell line:")) or not frame.function


def _vendored_package(stack: list[StackFrame]) -> str | None:
    """The package a program carries a copy of (``app/whisper_jax/__init__.py``, outside
    site-packages) whose import stopped: every frame outside JAX runs a module's top-level
    code, one of them the package's ``__init__.py``, imported by a module outside it. Its
    code is a library's, met at import as an installed one's would be."""
    outside = [frame for frame in stack if not _RE.jax_file.search(frame.file)]
    if len(outside) < 2 or not all(_module_level(f) for f in outside):
        return None
    for i, frame in enumerate(outside[:-1]):
        init = _RE.package_init.search(frame.file)
        if init and not _RE.package.search(frame.file):
            folder = frame.file[: init.start("pkg")]
            if not any(f.file.startswith(folder + init["pkg"]) for f in outside[i + 1 :]):
                return init["pkg"]  # imported from outside the package: the app's copy
    return None


def _called_into_jax(log: Log, m: re.Match[str], stack: list[StackFrame], fn: str) -> bool:
    """Whether the refused call was into JAX: raised inside JAX's frames (its API boundary
    re-raises), or the innermost frame's printed line calls ``jax.<...>.fn(`` itself."""
    if not stack:
        return False
    if _RE.jax_file.search(stack[0].file):
        return True
    last = log.text.rfind('File "', 0, m.start())
    call = re.compile(rf"\b(?:jax|jnp|lax)\.(?:\w+\.)*{re.escape(fn)}\(")
    return last >= 0 and call.search(log.text, last, m.start()) is not None


def _caller_package(stack: list[StackFrame]) -> str | None:
    """The installed package (not JAX) whose frame called into JAX last (``stack`` is
    innermost first)."""
    for frame in stack:
        if _RE.jax_file.search(frame.file):
            continue
        found = _RE.package.search(frame.file)
        return found["pkg"] if found else None
    return None


def _failure(log: Log, m: re.Match[str], op: str, advice: tuple[str, str]) -> Failure:
    kind = _BROKEN_KIND if op == "import jax" else _KIND
    return kind.failure(log, m.start(), op=op, advice=advice)


_KIND = Kind(Family.JAX_CALL, Reason.RUNTIME, jax_message)
# A JAX that could not import itself: the backend never started.
_BROKEN_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, jax_message)
# A library that could not import against this JAX: nothing ran, the packages do not fit.
# A call refused like any other, the backend untouched (JAX's own import is _BROKEN_KIND's).
_IMPORT_KIND = Kind(Family.JAX_CALL, Reason.RUNTIME, jax_message)
RECOGNISER = Recogniser(Family.JAX_CALL, _RE.opening, _api_mismatch)
