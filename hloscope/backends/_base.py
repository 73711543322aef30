"""The seam every backend fits: lower a function, compile it, hand back what XLA made.

Shaped like jax's own stages (``jax.stages.Lowered``, ``jax.stages.Compiled``): a
:class:`Backend` lowers a function with example arguments into a :class:`Lowered`, whose
:meth:`Lowered.compile` gives a :class:`Compiled`: the optimized module's text, XLA's memory
and cost analyses, the dump's reports, per-pass snapshots when asked, what compiled it
(:attr:`Compiled.compiled_for`: JAX's device kind, ``"TPU v5 lite"``), and something runnable
when the backend can run what it compiled (:attr:`Compiled.executable`; ``None`` for a compile
for a chip this machine does not have).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .record import Capture

__all__ = ["BackendName", "Backend", "Lowered", "Compiled", "does_not_fit", "LOCAL_XLA"]

#: How a compile by this machine's own XLA is worded (what "compiled ... by" says).
LOCAL_XLA = "this machine's XLA"


class BackendName(StrEnum):
    """The labels of the backends hloscope ships (a registered backend brings its own)."""

    LOCAL_JAX = "jax"  # the JAX installed here, for the devices it sees
    TENSORFLOW = "tensorflow"  # tf.function(jit_compile=True) and Keras models
    XLA_TPU = "xla-tpu"  # XLA:TPU through libtpu, for a TPU topology, on any machine


@dataclass(slots=True)
class Compiled:
    """What a backend's compile gives: the :class:`~hloscope.backends.record.Capture` of
    every stage (optimized HLO, reports, ``memory``/``cost`` analyses, passes), the device kind
    it was compiled for (``None``: an estimate made for another device than the one asked
    for), and an ``executable`` when this machine can run it: called with the arguments the
    function was lowered with, it runs the compiled program and returns its outputs without
    waiting for them (``None`` for a compile for a chip this machine does not have)."""

    capture: Capture
    compiled_for: str | None
    executable: Callable[..., Any] | None = None

    def as_text(self) -> str:
        """The optimized module, as ``jax.stages.Compiled.as_text()``."""
        return self.capture.text("optimized_hlo")

    def memory_analysis(self) -> dict[str, int] | None:
        return self.capture.memory

    def cost_analysis(self) -> dict[str, float] | None:
        return self.capture.cost

    @property
    def runnable(self) -> bool:
        return self.executable is not None


@dataclass(slots=True)
class Lowered:
    """A function lowered by a backend, ready to compile (``passes``: a regular expression of
    XLA pass names whose snapshots the compile keeps)."""

    backend: Backend
    stages: dict[str, str]
    _compile: Callable[[str | None], Compiled] = field(repr=False)

    def compile(self, passes: str | None = None) -> Compiled:
        return self._compile(passes)


class Backend(ABC):
    """One way to turn a function into XLA's optimized module (see the module doc).

    ``name`` is the backend's label (recorded in every capture it makes, part of the cache
    key); ``words`` how people call its compiler ("compiled for ... by XLA:TPU")."""

    name: str
    words: str = LOCAL_XLA

    def unavailable(self) -> str | None:
        """``None`` when this backend can compile here, else one line saying why not and
        naming the fix (an extra to install)."""
        return None

    def child_environment(self, environment: Mapping[str, str]) -> dict[str, str]:
        """The environment a capture child needs for this backend, from ``environment``
        (variables that must be set before the framework loads)."""
        return dict(environment)

    @abstractmethod
    def lower(self, fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Lowered:
        """Trace and lower ``fn(*args, **kwargs)`` (example inputs: only shapes, dtypes and
        shardings matter)."""

    def capture(
        self,
        fn: Any,
        args: Sequence[Any],
        kwargs: Mapping[str, Any],
        passes: str | None = None,
    ) -> Capture:
        """Lower and compile in one step; the capture records what compiled it."""
        compiled = self.lower(fn, args, kwargs).compile(passes)
        compiled.capture.compiled_for = compiled.compiled_for
        return compiled.capture


def does_not_fit(error: BaseException) -> bool:
    """Whether XLA:TPU refused the program for want of memory (its words: ``RESOURCE_EXHAUSTED:
    Ran out of memory ... exceeds available HBM``): an answer, not a failure."""
    text = str(error)
    return "RESOURCE_EXHAUSTED" in text and ("HBM" in text or "memory" in text)
