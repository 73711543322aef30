"""Reading a log with every recogniser of the table: matches found, repeats merged, failures in
log order."""

from __future__ import annotations

from collections.abc import Iterable

from .advice import AdviceKind
from .complete import complete
from .family_words import message_lines, words_failure
from .functions import paragraph_end
from .literal_gate import narrowed
from .log import Log, normalise_log, unflatten_tracebacks
from .message_fixes import names_symbolic_dimension
from .pointed_next import offer_pointed
from .raised_in import in_kernel_trace, origin_of
from .recogniser import Recogniser
from .record import ErrorExplanation, Failure, Family, UnreadError
from .registry import RECOGNISERS
from .severity import is_warning_at
from .unread import unread_error
from .user_line import is_users

__all__ = ["explain_error"]


_HARMLESS = str(AdviceKind.HARMLESS)
# Repeats of a message are recognised by this much text from its start (the op, node and
# function of a TF message; the class and the "while tracing" line of a JAX one).
_REPEAT_KEY = 600


def explain_error(text: str, recognisers: Iterable[Recogniser] = RECOGNISERS) -> ErrorExplanation:
    """Explain every TensorFlow, JAX or XLA compile error in ``text`` (see the module
    docstring); ``recognised`` is False when none is there."""
    # The words are read (:mod:`.family_words`) only after the whole table found nothing.
    whole_table = recognisers is RECOGNISERS
    recognisers = tuple(recognisers)
    log = Log(unflatten_tracebacks(normalise_log(text)))
    merged: dict[tuple[str, ...], list[Failure]] = {}
    for recogniser in recognisers:
        # Without the branches whose text the log lacks: the same matches, scanned faster.
        pattern = narrowed(recogniser.pattern, log.text)
        if pattern is None:
            continue  # it cannot match: no text all its matches hold is in the log
        seen: dict[str, list[Failure]] = {}
        for match in pattern.finditer(log.text):
            if log.in_source_line(match.start()) or log.in_test_summary(match.start()):
                continue
            key = log.text[match.start() : match.start() + _REPEAT_KEY]
            if key in seen:  # the same message again: count it, do not read it again
                for failure in seen[key]:
                    failure.occurrences += 1
                continue
            found = [_placed(f, match.start()) for f in recogniser.handler(log, match)]
            seen[key] = [_merge(merged, failure) for failure in found]
    failures = sorted((f for kept in merged.values() for f in kept), key=lambda f: f.offset)
    _drop_generic(failures, recognisers, log)
    if any(not f.last_resort and _stops(f, log) for f in failures):
        # A reading from structure alone says less than any recogniser of the family's words,
        # a fallback's included: dropped first, so that it takes no fallback's line. Not for
        # a warning's reading: a TPU host's start-up notes are not why a program stopped.
        failures[:] = [f for f in failures if not f.last_resort]
    _drop_fallbacks(failures, log)
    _read_again(failures, log)
    if whole_table and not any(_stops(f, log) for f in failures):
        # No recogniser knew the message: the family its words say, where the table is sure
        # (after warnings only where the error they read comes after every one of them).
        read = words_failure(log)
        if read is not None and (not failures or _words_line(log) > _last_line_read(failures, log)):
            failures.append(read)
    for failure in failures:
        complete(failure, log)
        offer_pointed(failure, log.text)
    # A warning is no failure, nor is what the advice calls harmless (a backend JAX probed
    # for and did not find, a registration refused): the failures come first, then the
    # warnings that ask for a change (a donation XLA could not use), the harmless ones last
    # (a TPU host's start-up notes print above every program's output).
    failures.sort(key=lambda f: (f.advice_kind == _HARMLESS, bool(f.finding.warning)))
    lines = log.text.count("\n") + (bool(log.text) and not log.text.endswith("\n"))
    # Nothing read, or only warnings, but the log ends in an error: what its structure
    # shows, not a bare "no" (nor the warnings alone: a donation XLA could not use, printed
    # before the exception that stopped the program, is not why it stopped).
    unread = _unread_after(failures, log) if whole_table else None
    return ErrorExplanation(failures, lines=lines, unread=unread)


def _unread_after(failures: list[Failure], log: Log) -> UnreadError | None:
    """What the error the log ends with shows, where no failure was read or every one read is
    a warning before it; else ``None``."""
    if any(_stops(f, log) for f in failures):
        return None
    unread = unread_error(log)
    if unread is None or not failures:
        return unread
    # Only an error after every warning: one before them, or the warning's own line, is not
    # what the log ends with.
    return unread if unread.offset > _last_line_read(failures, log) else None


def _words_line(log: Log) -> int:
    """Where the error line the words reader reads starts (the log's last)."""
    lines = message_lines(log.text)
    return lines[-1].offset if lines else -1


def _last_line_read(failures: list[Failure], log: Log) -> int:
    """Where the last line a failure of ``failures`` was read on ends."""
    return log.line_end(max(max([f.offset, *f.repeats_at]) for f in failures))


def _stops(failure: Failure, log: Log) -> bool:
    """Whether ``failure`` is one that stops a program: not a warning (as its recogniser or
    its line says, before :func:`~.complete.complete` has marked it), nor what the advice
    calls harmless."""
    if failure.finding.warning or failure.advice_kind == _HARMLESS:
        return False
    return failure.finding.warning is not None or not is_warning_at(log.text, failure.offset)


def _placed(failure: Failure, offset: int) -> Failure:
    failure.offset = offset
    return failure


def _merge(merged: dict[tuple[str, ...], list[Failure]], failure: Failure) -> Failure:
    """Add ``failure``, or fold it into the one it repeats; return the one kept. A repeat
    that names no function is the same failure as one that does (JAX prints a lowering error
    twice: after the stack that made the op, where nothing names the function, and after the
    call's traceback)."""
    function = failure.finding.function
    same = merged.setdefault(failure.identity_without_function, [])
    for kept in same:
        if kept.fallback != failure.fallback:
            continue  # a fallback's reading is no repeat of a precise one: it gives way later
        if function in (kept.finding.function, "") or not kept.finding.function:
            kept.absorb(failure)
            return kept
    same.append(failure)
    return failure


def _drop_generic(failures: list[Failure], recognisers: tuple[Recogniser, ...], log: Log) -> None:
    """A bare status code (``UNIMPLEMENTED: ...``, ``INVALID_ARGUMENT: ...``) or verifier
    context whose message another form explained says nothing more: drop it -- the same
    headline, or a message that goes on to the lines another family read."""

    # Any recogniser's: a reader may file a bare code under another family (XLA's INTERNAL
    # as a crash, a timeout as a multi-host failure), and it says no more there.
    generic_ops = frozenset().union(*(r.generic_ops for r in recognisers))

    def generic(failure: Failure) -> bool:
        return failure.finding.op in generic_ops

    for failure in [f for f in failures if generic(f)]:
        others = [
            f
            for f in failures
            if f is not failure and max([f.offset, *f.repeats_at]) >= failure.offset
        ]
        said = any(_same_message(failure.message, other.message) for other in others)
        if said or any(_continues(log, failure, o) for o in others if not generic(o)):
            failures.remove(failure)


# JAX's class for the trace it took before transforming: the frames that made the op.
_BEFORE_TRANSFORMATION = "JaxStackTraceBeforeTransformation"


def _owned_by_raiser(failure: Failure, log: Log) -> None:
    """The family of the module that raised ``failure``'s exception (:mod:`.raised_in`: a
    Pallas helper, a sharding module), where its words were read as another's: pl.when's own
    check of its condition is a kernel's failure whatever words it shares with lax.cond's.
    Measured on every labelled log the table reads: the module and the words disagreed once,
    and the module was right. A call's failure raised as Pallas traced a kernel's body is the
    kernel's."""
    if failure.last_resort:
        return  # read by its module already
    stack = log.traceback_before(failure.offset)
    in_kernel = in_kernel_trace(stack, is_users)
    if _BEFORE_TRANSFORMATION in log.text[log.line_start(failure.offset) : failure.offset]:
        # That traceback is where the op was made (a callback's bind), not where it was
        # raised: it says only whether a kernel's body made it.
        if in_kernel and failure.family in _KERNELS_CALLS:
            failure.family = Family.PALLAS
        return
    origin = origin_of(stack)
    if origin is not None and origin.family is not failure.family:
        failure.family = origin.family
    elif in_kernel and failure.family in _KERNELS_CALLS:
        # How a JAX function was called, or an op with no lowering, inside a kernel's body
        # Pallas traced (jnp.max of a Ref, a callback): the kernel's. (A shape or tracing
        # error there keeps its family, as the labelled logs have them: 4 of 4 and 3 of 3.)
        failure.family = Family.PALLAS


# The families a kernel's body takes as its own (see :func:`_owned_by_raiser`).
_KERNELS_CALLS = frozenset({Family.JAX_CALL, Family.MISSING_LOWERING})


def _read_again(failures: list[Failure], log: Log) -> None:
    """What the log says of each failure beyond its words: which one the program stopped
    for, the family of the module that raised it, a symbolic dimension it shows."""
    _handled_after(failures, log)
    for failure in failures:
        _owned_by_raiser(failure, log)
        _symbolic_export(failure)


def _symbolic_export(failure: Failure) -> None:
    """A shape or call failure whose message shows a symbolic dimension (jnp.split's "rest is
    mod(b, 2)") is a shape-polymorphic export's limit: the export's family (on the labelled
    logs, 2 of 2)."""
    if failure.family in (Family.JAX_SHAPE, Family.JAX_CALL) and names_symbolic_dimension(
        failure.message
    ):
        failure.family = Family.JAX_EXPORT


def _handled_after(failures: list[Failure], log: Log) -> None:
    """A failure whose exception was being handled when a later one was raised (Python's
    "During handling of the above exception" between them) comes after the failures read
    after it: the program stopped for the one that propagated (numpy's clip failing on JAX's
    array, then numpy's fallback refusing the traced value it converted)."""
    handled = [
        f
        for f in failures
        if log.handled(f.offset)
        and any(o.offset > f.offset for o in failures if o is not f)
        or _restated(f, failures, log)
    ]
    failures[:] = [f for f in failures if f not in handled] + handled


def _restated(cause: Failure, failures: list[Failure], log: Log) -> bool:
    """Whether ``cause`` is a sharding rule's internal check (a duplicate spec) that JAX
    restated at the program's op (a ShardingTypeError naming mul and its operands, caused by
    it): the restatement is what the program did. Only sharding's: a lowering's or a kernel
    wrapper's first words name the option refused, which the exception it caused loses (on
    the labelled logs: sharding 4 right, 0 wrong; the others 0 right, 4 wrong)."""
    if cause.family is not Family.SHARDING or cause.last_resort:
        return False
    if not log.caused_another(cause.offset):
        return False
    return any(
        o.offset > cause.offset and o.family is cause.family and not o.last_resort
        for o in failures
        if o is not cause
    )


def _drop_fallbacks(failures: list[Failure], log: Log) -> None:
    """A fallback failure (:attr:`Failure.fallback`) on a line where another was read gives
    way to it."""

    def line_of(offset: int) -> int:
        return log.text.rfind("\n", 0, offset)

    read = {line_of(at) for f in failures if not f.fallback for at in (f.offset, *f.repeats_at)}
    failures[:] = [f for f in failures if not f.fallback or line_of(f.offset) not in read]


# How far a message's lines may run on after its status code (XLA:TPU puts the code on one
# line and the message on the next: "RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom:").
_CONTINUATION = 2048


def _continues(log: Log, generic: Failure, other: Failure) -> bool:
    """Whether ``other`` starts in the rest of ``generic``'s message: its paragraph (to the
    next blank line), at most :data:`_CONTINUATION` characters on."""
    end = min(paragraph_end(log, generic.offset), generic.offset + _CONTINUATION)
    return any(generic.offset < at < end for at in (other.offset, *other.repeats_at))


def _same_message(generic: str, other: str) -> bool:
    """Whether two headlines are of one message: one holds the other's opening (a failure may
    quote its line from the line's start, with the exception class before the code)."""
    return generic.find(other[:80]) >= 0 or other.find(generic[:80]) >= 0
