"""The kind rows of explain-error's recognisers (analysis/explain_error/build.Kind): what a
kind declares once (family, usual reason, how its messages stand in a log) and what each
reading fills in of a failure the handler left unsaid."""

from __future__ import annotations

import pytest

from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.explain_error.build import Kind, jax_message, log_line, own_line, traced
from hloscope.analysis.explain_error.log import Log, normalise_log
from hloscope.analysis.explain_error.record import Family
from hloscope.analysis.unsupported.findings import Reason

_JAX_LOG = """\
Traceback (most recent call last):
  File "/home/me/train.py", line 12, in <module>
    step(x)
  File "/home/me/train.py", line 8, in step
    return jnp.dot(a, b)
TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).
"""

# A logger's line printed before the traceback of the exception it reports.
_RUNTIME_LOG = """\
E1206 10:00:00.000000 123 pjrt.cc:55] UNAVAILABLE: Barrier timed out. Id: init
Traceback (most recent call last):
  File "/home/me/run.py", line 3, in <module>
    jax.distributed.initialize()
RuntimeError: UNAVAILABLE: Barrier timed out
"""


def _log(text: str) -> Log:
    return Log(normalise_log(text))


def test_a_kind_gives_every_failure_its_family_and_usual_reason() -> None:
    log = _log(_JAX_LOG)
    start = log.text.index("dot_general")
    kind = Kind(Family.JAX_SHAPE, Reason.TRACING)
    failure = kind.failure(log, start, op="dot_general", advice=("fix it", "fix_shapes"))
    assert failure.family is Family.JAX_SHAPE
    assert failure.finding.reason is Reason.TRACING
    assert failure.finding.op == "dot_general"
    assert failure.advice_kind == "fix_shapes"
    # As given: the headline from the match on, no traceback the handler did not give.
    assert failure.message.startswith("dot_general requires")
    assert failure.stack == []


def test_a_handler_may_name_another_reason_and_a_kind_without_one_needs_it() -> None:
    log = _log(_JAX_LOG)
    start = log.text.index("dot_general")
    kind = Kind(Family.XLA_CRASH)
    other = kind.failure(log, start, op="x", advice=("a", "b"), reason=Reason.RUNTIME)
    assert other.finding.reason is Reason.RUNTIME
    with pytest.raises(ValueError, match="needs a reason"):
        kind.failure(log, start, op="x", advice=("a", "b"))


def test_jax_message_reads_the_whole_line_and_the_traceback_before_it() -> None:
    log = _log(_JAX_LOG)
    start = log.text.index("dot_general")
    failure = Kind(Family.JAX_SHAPE, Reason.TRACING, jax_message).failure(
        log, start, op="dot_general", advice=("a", "b")
    )
    assert failure.message.startswith("TypeError: dot_general requires")
    assert failure.error_class == "TypeError"
    assert [frame.line for frame in failure.stack] == [8, 12]  # innermost first
    assert failure.finding.source == "/home/me/train.py:8"
    assert failure.finding.function == "step"


def test_traced_keeps_the_handlers_stack_and_names_its_function() -> None:
    log = _log(_JAX_LOG)
    start = log.text.index("dot_general")
    stack = log.traceback_before(start)[:1]  # the handler's choice: the inner frame only
    failure = Kind(Family.PALLAS, Reason.NO_LOWERING, traced).failure(
        log, start, op="pallas_call", advice=("a", "b"), stack=stack
    )
    assert [frame.line for frame in failure.stack] == [8]
    assert failure.finding.function == "step"
    assert failure.message.startswith("dot_general")  # the headline from the match
    # Without the reading, no function is worked out from the same stack.
    plain = Kind(Family.PALLAS, Reason.NO_LOWERING).failure(
        log, start, op="pallas_call", advice=("a", "b"), stack=stack
    )
    assert plain.finding.function == ""


def test_log_line_reads_the_status_and_a_traceback_printed_after_the_line() -> None:
    log = _log(_RUNTIME_LOG)
    start = log.text.index("Barrier timed out")
    kind = Kind(Family.DISTRIBUTED, Reason.RUNTIME, log_line)
    failure = kind.failure(log, start, op="barrier init", advice=("a", "b"))
    assert failure.message.startswith("E1206 10:00:00")
    assert failure.status == "UNAVAILABLE"
    assert [frame.line for frame in failure.stack] == [3]
    # A status the handler read itself stands.
    given = kind.failure(log, start, op="barrier init", advice=("a", "b"), status="ABORTED")
    assert given.status == "ABORTED"


def test_own_line_reads_the_whole_line_and_only_a_traceback_before_it() -> None:
    kind = Kind(Family.XLA_CRASH, Reason.RUNTIME, own_line)
    log = _log(_RUNTIME_LOG)
    start = log.text.index("Barrier timed out")
    after = kind.failure(log, start, op="x", advice=("a", "b"))
    assert after.message.startswith("E1206 10:00:00")
    assert after.stack == []  # the traceback printed after the line is not this line's
    assert after.status is None and after.finding.function == ""
    log = _log(_JAX_LOG)
    start = log.text.index("dot_general")
    before = kind.failure(log, start, op="x", advice=("a", "b"))
    assert before.message.startswith("TypeError: dot_general")
    assert [frame.line for frame in before.stack] == [8, 12]
    assert before.finding.function == ""  # not traced: no function worked out


def test_fixes_best_first_make_the_advice_and_the_further_advice() -> None:
    log = _log(_JAX_LOG)
    start = log.text.index("dot_general")
    kind = Kind(Family.JAX_SHAPE, Reason.TRACING, jax_message)
    fixes = [(AdviceKind.FIX_SHAPES, "make the shapes agree"), (AdviceKind.OTHER, "or reshape b")]
    failure = kind.failure(log, start, op="dot_general", fixes=fixes)
    assert failure.advice_kind == AdviceKind.FIX_SHAPES
    assert failure.more_advice == [(str(AdviceKind.OTHER), "or reshape b")]
    with pytest.raises(ValueError, match="needs advice or fixes"):
        kind.failure(log, start, op="dot_general")
