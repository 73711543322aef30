"""Watching compiles live in a block or a decorated function (:func:`watch_compiles`): the
watcher hooks the running frameworks, and :mod:`hloscope.analysis.recompiles` builds the ledger
of its records."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from ..analysis.recompiles import Ledger, build_ledger
from ..capture.compile_watch import CompileRecord, CompileWatcher

_F = TypeVar("_F", bound=Callable[..., Any])


class CompileWatch(contextlib.ContextDecorator):
    """What :func:`watch_compiles` returns: a context manager and a decorator::

        with hloscope.watch_compiles() as w:
            train(data)
        w.report().to_dataframe()

    As a decorator, every call of the decorated function is watched, and the function gets a
    ``watch`` attribute holding this object. Records accumulate over every block or call.
    """

    def __init__(self, *, jax: bool = True, tensorflow: bool = True) -> None:
        self._watcher = CompileWatcher(jax=jax, tensorflow=tensorflow)

    @property
    def records(self) -> list[CompileRecord]:
        """Every compile seen so far, as the watcher recorded it."""
        return list(self._watcher.records)

    def __enter__(self) -> CompileWatch:
        self._watcher.start()
        return self

    def __exit__(self, *exc_info: object) -> Literal[False]:
        self._watcher.stop()
        return False

    def __call__(self, function: _F) -> _F:
        wrapper = super().__call__(function)
        wrapper.watch = self  # type: ignore[attr-defined]
        return wrapper

    def report(self) -> Ledger:
        """The :class:`Ledger` of everything seen so far."""
        return build_ledger(self._watcher.records, source="watch")


def watch_compiles(*, jax: bool = True, tensorflow: bool = True) -> CompileWatch:
    """Watch every JAX compile and ``tf.function`` trace in a block or a decorated function.

    Uses only JAX's public hooks and logging records (see
    :mod:`hloscope.capture.compile_watch`): every logger, level, handler and config flag it
    touches is back as it was when the block ends, also when it raised, and nothing is printed.
    ``w.report()`` is the :class:`Ledger`. TensorFlow's XLA-level compiles (per shape under
    ``jit_compile=True``, per value of a compile-time-constant argument) show only in TF's C++
    log: :func:`recompiles_of_script` runs a script with it on.
    """
    return CompileWatch(jax=jax, tensorflow=tensorflow)
