"""Reading a log with every recogniser of the table: matches found, repeats merged, failures in
log order."""

from __future__ import annotations

from collections.abc import Iterable

from .complete import complete
from .log import Log, normalise_log
from .recogniser import Recogniser
from .record import ErrorExplanation, Failure
from .registry import RECOGNISERS

__all__ = ["explain_error"]


# Repeats of a message are recognised by this much text from its start (the op, node and
# function of a TF message; the class and the "while tracing" line of a JAX one).
_REPEAT_KEY = 600


def explain_error(text: str, recognisers: Iterable[Recogniser] = RECOGNISERS) -> ErrorExplanation:
    """Explain every TensorFlow, JAX or XLA compile error in ``text`` (see the module
    docstring); ``recognised`` is False when none is there."""
    recognisers = tuple(recognisers)
    log = Log(normalise_log(text))
    merged: dict[tuple[str, ...], list[Failure]] = {}
    for recogniser in recognisers:
        seen: dict[str, list[Failure]] = {}
        for match in recogniser.pattern.finditer(log.text):
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
    _drop_generic(failures, recognisers)
    for failure in failures:
        complete(failure, log)
    # A warning is no failure: the failures come first, the warnings after them.
    failures.sort(key=lambda f: bool(f.finding.warning))
    lines = log.text.count("\n") + (bool(log.text) and not log.text.endswith("\n"))
    return ErrorExplanation(failures, lines=lines)


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
        if function in (kept.finding.function, "") or not kept.finding.function:
            kept.absorb(failure)
            return kept
    same.append(failure)
    return failure


def _drop_generic(failures: list[Failure], recognisers: tuple[Recogniser, ...]) -> None:
    """A bare status code (``UNIMPLEMENTED: ...``, ``INVALID_ARGUMENT: ...``) or verifier
    context whose message another form explained says nothing more: drop it."""

    generic_ops = {r.family: r.generic_ops for r in recognisers}

    def generic(failure: Failure) -> bool:
        return failure.finding.op in generic_ops.get(failure.family, ())

    for failure in [f for f in failures if generic(f)]:
        others = [f for f in failures if f is not failure and f.offset >= failure.offset]
        if any(_same_message(failure.message, other.message) for other in others):
            failures.remove(failure)


def _same_message(generic: str, other: str) -> bool:
    """Whether two headlines are of one message: one holds the other's opening (a failure may
    quote its line from the line's start, with the exception class before the code)."""
    return generic.find(other[:80]) >= 0 or other.find(generic[:80]) >= 0
