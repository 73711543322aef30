"""Guards for tests and CI: fail when code compiles more often than it should::

    from hloscope.testing import assert_max_compiles

    with assert_max_compiles(1, function=step):  # one compile of `step`, however many calls
        for batch in batches:
            step(params, batch)

    @assert_max_compiles(2)  # as a decorator: per call
    def test_training_loop(): ...

The block runs under :func:`hloscope.watch_compiles`; when it ends without an exception and
the code compiled more than ``n`` times, an ``AssertionError`` carries the whole ledger (which
function compiled, how often, what changed each time, and the fix). Without ``function``, every
compile of the user's functions counts; JAX's own op-by-op compiles outside jit
(``jnp.ones(...)``, ...) count only with ``include_internal=True``, since which of them happen
depends on what ran before (their cache is process-wide). An exception from the block passes
through unchanged.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar, Literal

from .analysis.recompiles import Ledger, ledger_name
from .drivers.compile_watch import CompileWatch, watch_compiles
from .errors import ExitStatus, HloscopeError

__all__ = ["assert_max_compiles", "CompileLimitExceeded"]


class CompileLimitExceeded(HloscopeError, AssertionError):
    """More compiles than :func:`assert_max_compiles` allowed; ``ledger`` has them all.

    An ``AssertionError`` (test runners report it as a failure, not an error) and an
    :class:`~hloscope.errors.HloscopeError` with the exit status of a failed check (3)."""

    exit_code: ClassVar[int] = ExitStatus.CHECK_FAILED

    def __init__(self, message: str, ledger: Ledger | None = None) -> None:
        super().__init__(message)
        self.ledger = ledger


class assert_max_compiles(contextlib.ContextDecorator):  # noqa: N801 - reads as a function
    """Fail when the block (or each call of the decorated function) compiles more than ``n``
    times; ``function`` (a name, or the jitted / ``tf.function`` object) counts only its own
    compiles. ``watch`` is the :class:`~hloscope.drivers.compile_watch.CompileWatch` of the
    last block (``.report()`` for the ledger)."""

    def __init__(self, n: int, function: Any = None, *, include_internal: bool = False) -> None:
        if n < 0:
            raise ValueError(f"assert_max_compiles: n must be 0 or more, got {n}")
        self.n = n
        self.function = function
        self.include_internal = include_internal
        self.watch: CompileWatch | None = None

    def _recreate_cm(self) -> assert_max_compiles:
        # A decorated function may be called again, or from several threads: a fresh guard.
        return assert_max_compiles(self.n, self.function, include_internal=self.include_internal)

    def __enter__(self) -> assert_max_compiles:
        self.watch = watch_compiles()
        self.watch.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        watch = self.watch
        assert watch is not None
        watch.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return False
        ledger = watch.report()
        count = ledger.count(self.function, include_internal=self.include_internal)
        if count > self.n:
            raise CompileLimitExceeded(self._message(count, ledger), ledger)
        return False

    def _message(self, count: int, ledger: Ledger) -> str:
        from .render.recompiles_text import ledger_text

        what = f" of {ledger_name(self.function)}" if self.function is not None else ""
        head = f"{count} compiles{what}, at most {self.n} allowed"
        return f"{head}\n\n{ledger_text(ledger)}"
