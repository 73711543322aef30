"""The answer of ``hloscope memory``: the peak, what is live there, the timeline, the savings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from ._labels import argument_label

__all__ = ["MemorySource", "BufferKind", "LiveBuffer", "Saving", "MemoryResult"]


class MemorySource(StrEnum):
    """Where the numbers come from (always said in the output)."""

    BUFFER_ASSIGNMENT = "buffer_assignment"  # XLA's side files in a dump: exact
    MEMORY_ANALYSIS = "memory_analysis"  # a compiled function's own buffer assignment
    SIMULATED = "simulated"  # hloscope's live-range simulation over the module text
    XLA_TPU = "xla_tpu"  # XLA:TPU's peak_memory_in_bytes of a TPU compile: what the chip reserves


class BufferKind(StrEnum):
    """What a buffer holds (of a module's memory, or of an out-of-memory message's list)."""

    #: An argument of the program ("Entry Parameter Subshape", allocation type "parameter").
    PARAMETER = "parameter"
    #: The program's result (an out-of-memory message counts it among the temporaries).
    OUTPUT = "output"
    #: A value the program makes (an op's result, a fusion's output, XLA's "HLO temp").
    TEMPORARY = "temporary"
    #: A constant baked into the program.
    CONSTANT = "constant"
    #: Other allocations an out-of-memory message names (TPU's "scoped", "reserved", ...).
    OTHER = "other"


@dataclass(slots=True)
class LiveBuffer:
    """One buffer live at the peak: ``source`` is the user's line (innermost user frame),
    ``scope`` the op_name scope without its last component (the layer holding it)."""

    name: str
    shape: str
    bytes: int
    kind: str
    producer: str
    source: str
    scope: str


@dataclass(slots=True)
class Saving:
    """Something that would free memory: ``kind`` (donate, remat, bf16, replicated), the
    ``target`` it applies to, the ``bytes`` it frees at the peak and the ``fix`` to apply."""

    kind: str
    target: str
    bytes: int
    fix: str


@dataclass(slots=True)
class MemoryResult:
    """What ``hloscope memory`` says about one module (see ``--json`` for the layout)."""

    module: str
    source: str
    peak_bytes: int
    breakdown: dict[str, int]
    peak_at: dict[str, Any]
    live_at_peak: list[LiveBuffer]
    timeline: list[tuple[int, int]]
    savings: list[Saving] = field(default_factory=list)
    device: dict[str, Any] | None = None
    #: Notes for the reader: fallbacks taken, an unscheduled module's definition order.
    notes: list[str] = field(default_factory=list)
    #: The schedule (instruction names by index) and each live buffer's last live index:
    #: what the remat advice reads to tell activations held into the backward pass.
    schedule: list[str] = field(default_factory=list, repr=False)
    ends: dict[str, int] = field(default_factory=dict, repr=False)
    #: Other peaks of the same compile, by name (``live_range_peak_bytes``, or
    #: ``simulated_peak_bytes`` where the compile's live range was unusable,
    #: ``allocation_bytes``), each shown beside the one ``peak_bytes`` the verdict uses.
    figures: dict[str, int] = field(default_factory=dict)
    #: JAX's device kind of the compile (``"TPU v5 lite"``), when known.
    compiled_for: str | None = None
    #: Which peak the buffers of ``live_at_peak`` belong to, when not ``peak_bytes``'s.
    live_at: str | None = None
    #: The compiler's refusal of a program that does not fit (XLA:TPU's RESOURCE_EXHAUSTED),
    #: in its words; the rest of the result is what its dump shows filling the memory.
    refused: str | None = None
    #: What fills ``peak_bytes``, in named groups that sum to it (:mod:`.fill`).
    fills: list[Any] = field(default_factory=list)

    def by_source(self) -> list[dict[str, Any]]:
        """Bytes live at the peak per user source line, largest first."""
        return _grouped(self.live_at_peak, "source")

    def by_scope(self) -> list[dict[str, Any]]:
        """Bytes live at the peak per op_name scope ("which layer holds the memory"); the
        arrays of one argument (JAX names them by path: ``m[0]``, ``m[1]``) are one group."""
        return _grouped(self.live_at_peak, "scope")

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` payload: module, source, peak_bytes, breakdown, peak_at,
        live_at_peak, timeline, savings, device (``None`` without ``--device``), and the notes
        that qualify the numbers (a fallback taken, a simulation in definition order)."""
        return {
            "module": self.module,
            "source": self.source,
            "peak_bytes": self.peak_bytes,
            "breakdown": dict(self.breakdown),
            "peak_at": dict(self.peak_at),
            "live_at_peak": [asdict(b) for b in self.live_at_peak],
            "timeline": [list(p) for p in self.timeline],
            "savings": [asdict(s) for s in self.savings],
            "device": self.device,
            "notes": list(self.notes),
            **({"figures": dict(self.figures)} if self.figures else {}),
            **({"compiled_for": self.compiled_for} if self.compiled_for else {}),
            **({"does_not_fit": self.does_not_fit()} if self.refused else {}),
            **({"fills": [g.to_dict() for g in self.fills]} if self.fills else {}),
        }

    def does_not_fit(self) -> dict[str, Any] | None:
        """``{"needs_bytes", "available_bytes", "message"}`` of a refused compile: what it
        needs is the compiler's own figure (``peak_bytes`` too, when its words give one)."""
        if self.refused is None:
            return None
        return {
            "needs_bytes": self.figures.get("required_bytes"),
            "available_bytes": self.figures.get("available_bytes"),
            "message": self.refused,
        }

    def to_dataframe(self) -> Any:
        """The buffers live at the peak as a pandas DataFrame (one row per buffer)."""
        from ...dataframes import require_pandas

        pd = require_pandas()
        columns = ["name", "shape", "bytes", "kind", "producer", "source", "scope"]
        return pd.DataFrame([asdict(b) for b in self.live_at_peak], columns=columns)


def _grouped(buffers: list[LiveBuffer], key: str) -> list[dict[str, Any]]:
    totals: dict[str, list[int]] = {}
    for b in buffers:
        # An argument's arrays are one group (``params``), not one per path.
        name = _argument(b) if key == "scope" and b.kind == BufferKind.PARAMETER else None
        entry = totals.setdefault(name or getattr(b, key) or _unnamed(b, key), [0, 0])
        entry[0] += b.bytes
        entry[1] += 1
    rows = [{key: k, "bytes": v[0], "buffers": v[1]} for k, v in totals.items()]
    return sorted(rows, key=lambda r: -r["bytes"])


def _argument(buffer: LiveBuffer) -> str | None:
    return f"argument {argument_label(buffer.scope, '')}" if buffer.scope else None


def _unnamed(buffer: LiveBuffer, key: str) -> str:
    """The group of a buffer without a source line (or scope): an argument by its name in the
    function (JAX's path in its op_name: ``params`` of ``params['w']``), else by its kind and
    the compiler that made it without metadata."""
    if buffer.kind == BufferKind.PARAMETER:
        return f"argument {argument_label(buffer.scope, buffer.producer)}"
    what = "no source line" if key == "source" else "no op_name"
    return f"({PLURALS.get(buffer.kind, buffer.kind)} XLA made: {what})"


#: The kinds a module's memory breaks down into, in the plural: the breakdown's keys, and the
#: words for a group of buffers of one kind.
PLURALS: dict[str, str] = {
    BufferKind.PARAMETER: "parameters",
    BufferKind.OUTPUT: "outputs",
    BufferKind.TEMPORARY: "temporaries",
    BufferKind.CONSTANT: "constants",
}
