"""How long one compile took, stage by stage, as JAX itself measures it.

JAX reports three durations per compile through ``jax.monitoring`` (jax 0.4.x to 0.10):
tracing the function to a jaxpr, lowering the jaxpr to a StableHLO module, and the backend's
compile (XLA: its HLO passes, then code generation). :class:`CompileClock` listens to them while
one capture runs and keeps, with each, the wall-clock time it ended (``time.time()``), so that
the HLO passes XLA dumps with their own timestamps (``--xla_dump_module_metadata``) can be placed
inside the backend compile. The wall time around the whole call is kept too: what JAX did not
report (its own bookkeeping between stages, hloscope reading the dump) is that minus the stages.

Only a process that already imported jax listens (a TensorFlow capture never imports it).
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Self

from ..after_import import after_import

__all__ = [
    "CompileEvent",
    "CompileClock",
    "JaxStage",
    "JAX_EVENTS",
    "ScriptCompileTimes",
    "SCRIPT_COMPILE_TIMES",
]


class JaxStage(StrEnum):
    """The stages JAX times, named as hloscope reports them."""

    TRACE = "trace_s"
    LOWER = "lower_s"
    BACKEND = "backend_compile_s"


#: jax.monitoring's event names and the stage each measures.
JAX_EVENTS: dict[str, JaxStage] = {
    "/jax/core/compile/jaxpr_trace_duration": JaxStage.TRACE,
    "/jax/core/compile/jaxpr_to_mlir_module_duration": JaxStage.LOWER,
    "/jax/core/compile/backend_compile_duration": JaxStage.BACKEND,
}


@dataclass(frozen=True, slots=True)
class CompileEvent:
    """One duration JAX reported: its stage, the function it names, how long, when it ended."""

    stage: JaxStage
    function: str
    seconds: float
    ended_at: float  # time.time()

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": str(self.stage),
            "function": self.function,
            "seconds": self.seconds,
            "ended_at": self.ended_at,
        }


@dataclass(slots=True)
class CompileClock:
    """A context manager around one trace, lower and compile::

    with CompileClock() as clock:
        capture = backend.capture(fn, args, kwargs)
    clock.to_dict()  # {"wall_s": ..., "started_at": ..., "events": [...]}
    """

    events: list[CompileEvent] = field(default_factory=list)
    started_at: float = 0.0
    wall_s: float | None = None
    _perf_start: float = 0.0
    _listener: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> Self:
        monitoring = _jax_monitoring()
        if monitoring is not None:
            self._listener = self._heard
            monitoring.register_event_duration_secs_listener(self._listener)
        self.started_at = time.time()
        self._perf_start = time.perf_counter()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.wall_s = time.perf_counter() - self._perf_start
        if self._listener is not None:
            monitoring = _jax_monitoring()
            unregister = getattr(monitoring, "unregister_event_duration_listener", None)
            if unregister is not None:
                unregister(self._listener)
            self._listener = None

    def _heard(self, event: str, seconds: float, **tags: Any) -> None:
        if self.wall_s is None:  # not after the call
            _keep(self.events, self._lock, event, seconds, tags)

    def to_dict(self) -> dict[str, Any]:
        """What a capture keeps (``Capture.compile_time``)."""
        return {
            "started_at": self.started_at,
            "wall_s": self.wall_s,
            "events": [e.to_dict() for e in self.events],
        }


def _jax_monitoring() -> Any:
    """``jax.monitoring`` when jax is already imported here, else ``None`` (never imports it)."""
    if "jax" not in sys.modules:
        return None
    try:
        from jax import monitoring
    except ImportError:  # pragma: no cover - a jax without monitoring
        return None
    return monitoring


# ---- a whole script's compiles (``hloscope capture SCRIPT.py``) --------------------------------

#: What a script capture writes beside its dump: every compile's stage durations, in order.
SCRIPT_COMPILE_TIMES = "compile_time.json"
_MONITORING = "jax._src.monitoring"


class ScriptCompileTimes:
    """Every duration JAX reports while a script runs, written to ``folder/compile_time.json``
    when it ends (also when it raised)::

        with ScriptCompileTimes(out_dir):
            runpy.run_path(script, run_name="__main__")

    The script may set up jax through its environment before importing it, so jax is not
    imported here: the listener is registered the moment the script's own import of jax loads
    ``jax._src.monitoring`` (at once when jax is already imported).
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.events: list[CompileEvent] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        after_import(_MONITORING, self._register)
        return self

    def __exit__(self, *exc_info: object) -> None:
        import json
        import os

        with self._lock:
            events = [e.to_dict() for e in self.events]
        path = os.path.join(self.folder, SCRIPT_COMPILE_TIMES)
        try:
            with open(f"{path}.tmp", "w") as out:
                json.dump({"events": events}, out)
            os.replace(f"{path}.tmp", path)
        except OSError:  # the capture stands without its times
            pass

    def _register(self, monitoring: Any) -> None:
        monitoring.register_event_duration_secs_listener(self._heard)

    def _heard(self, event: str, seconds: float, **tags: Any) -> None:
        _keep(self.events, self._lock, event, seconds, tags)


def _keep(
    events: list[CompileEvent],
    lock: threading.Lock,
    event: str,
    seconds: float,
    tags: dict[str, Any],
) -> None:
    """Append one of jax.monitoring's durations to ``events`` when it is a compile stage (a
    listener hears every duration JAX reports), stamped with the time it ended."""
    stage = JAX_EVENTS.get(event)
    if stage is not None:
        name = str(tags.get("fun_name", ""))
        with lock:
            events.append(CompileEvent(stage, name, float(seconds), time.time()))
