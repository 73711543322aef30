"""Peak memory of two compilations compared: how much the peak moved and what left or joined it.

``hloscope diff A B`` says which kernels XLA made differently; this module says what that did
to memory. :func:`memory_diff` takes the :class:`~hloscope.analysis.memory.MemoryResult` of A
(before) and of B (after) and returns a :class:`MemoryDiff`: the peak of each and the change,
the buffers live at A's peak with no counterpart at B's (they *left* the peak: with
``jax.checkpoint`` on a block, the activations it no longer holds for the backward pass) and
those that *joined* it, and the bytes live at either peak per source line and per op_name scope.

Buffer names are no help across two compilations (XLA numbers them as it builds them), so a
buffer is matched by what it holds: its kind, its shape without layout, the user's source line
that produced it and its scope as :func:`~hloscope.analysis.diff.provenance_name` normalizes it
(the outer ``jit(f)/`` and what ``jax.checkpoint`` adds dropped). Buffers with equal keys are
paired one to one; the rest left or joined.

Source lines are compared through the line of B each line of A became
(:func:`~hloscope.analysis.diff.pair_lines`: one to one, by function, code text and op names),
so that a refactor that moves a function does not make every buffer leave the peak and come
back under another line number: the kernel diff's pairing (:attr:`KernelDiff.line_pairs
<hloscope.analysis.diff.KernelDiff.line_pairs>`) when given, else one made from the buffers'
own lines and scopes.

The memory result of a module already parsed from a target, with XLA's side files where the
dump has them, is :func:`hloscope.drivers.memory.memory_of_side` (it opens the target).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .diff import Regression, pair_lines, provenance_name, source_lines, without_layout
from .memory import LiveBuffer, MemoryResult

__all__ = ["MemoryDiff", "PeakShare", "memory_diff", "PEAK_METRIC"]

#: The ``--fail-on`` metric that compares the peaks.
PEAK_METRIC = "peak"

_UNKNOWN = "(unknown)"


@dataclass(frozen=True, slots=True)
class PeakShare:
    """The bytes one source line (or one scope) holds at A's peak and at B's. For a source
    line, ``key`` is B's line (A's for a line B no longer has) and ``key_a`` the line of A it
    continues ("" for a line only B has)."""

    key: str
    a: int
    b: int
    key_a: str = ""

    @property
    def delta(self) -> int:
        return self.b - self.a


@dataclass(slots=True)
class MemoryDiff:
    """Two memory results compared (see the module docstring for how buffers are matched).

    ``left`` are buffers of A's peak with no counterpart at B's, ``joined`` the converse,
    each largest first; ``by_source`` and ``by_scope`` the bytes at either peak per source line
    and per normalized scope, the largest change first (unchanged ones left out).
    """

    a: MemoryResult
    b: MemoryResult
    left: list[LiveBuffer] = field(default_factory=list)
    joined: list[LiveBuffer] = field(default_factory=list)
    by_source: list[PeakShare] = field(default_factory=list)
    by_scope: list[PeakShare] = field(default_factory=list)

    @property
    def delta_bytes(self) -> int:
        """B's peak minus A's: negative when B needs less memory."""
        return self.b.peak_bytes - self.a.peak_bytes

    @property
    def percent(self) -> float | None:
        """The change in percent of A's peak (``None`` when A's peak is 0)."""
        return 100.0 * self.delta_bytes / self.a.peak_bytes if self.a.peak_bytes else None

    def regression(self, threshold: float = 0.0) -> Regression | None:
        """A :class:`~hloscope.analysis.diff.Regression` on :data:`PEAK_METRIC` when B's peak
        is larger than A's by more than ``threshold`` percent, else ``None``."""
        found = Regression(PEAK_METRIC, self.a.peak_bytes, self.b.peak_bytes, threshold)
        return found if found.b > found.a and found.percent > threshold else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types: what ``hloscope diff --json`` prints under ``"memory"``."""
        percent = self.percent
        return {
            "a": _side_dict(self.a),
            "b": _side_dict(self.b),
            "delta_bytes": self.delta_bytes,
            "percent": round(percent, 3) if percent is not None else None,
            "left_peak": [asdict(b) for b in self.left],
            "joined_peak": [asdict(b) for b in self.joined],
            "by_source": [_share_dict(s, "source") for s in self.by_source],
            "by_scope": [_share_dict(s, "scope") for s in self.by_scope],
        }


def _side_dict(result: MemoryResult) -> dict[str, Any]:
    return {
        "module": result.module,
        "source": result.source,
        "peak_bytes": result.peak_bytes,
        "peak_at": dict(result.peak_at),
        "breakdown": dict(result.breakdown),
    }


def _share_dict(share: PeakShare, key: str) -> dict[str, Any]:
    out = {key: share.key, "a": share.a, "b": share.b, "delta": share.delta}
    if key == "source":
        out["source_a"] = share.key_a
    return out


def buffer_key(buffer: LiveBuffer, source: str | None = None) -> tuple[str, str, str, str]:
    """What a buffer holds, as a key two compilations share: kind, shape without layout,
    source line (``source``: the line of B that A's line became) and normalized scope."""
    return (
        buffer.kind,
        without_layout(buffer.shape),
        buffer.source if source is None else source,
        provenance_name(buffer.scope),
    )


def memory_diff(
    a: MemoryResult, b: MemoryResult, lines: Mapping[str, str] | None = None
) -> MemoryDiff:
    """Compare the memory of A (before) and B (after). ``lines`` maps a source line of A to
    the line of B it became (the kernel diff's :attr:`line_pairs
    <hloscope.analysis.diff.KernelDiff.line_pairs>`); without it the buffers' own lines are
    paired."""
    to_b = dict(lines) if lines is not None else buffer_line_pairs(a, b)

    def moved(buffer: LiveBuffer) -> str:
        return to_b.get(buffer.source, buffer.source)

    pending: dict[tuple[str, str, str, str], list[LiveBuffer]] = defaultdict(list)
    for buffer in b.live_at_peak:
        pending[buffer_key(buffer)].append(buffer)
    left = []
    for buffer in a.live_at_peak:
        partners = pending.get(buffer_key(buffer, moved(buffer)))
        if partners:
            partners.pop(0)
        else:
            left.append(buffer)
    joined = [buffer for buffers in pending.values() for buffer in buffers]
    return MemoryDiff(
        a,
        b,
        left=_largest_first(left),
        joined=_largest_first(joined),
        by_source=_source_shares(a, b, to_b),
        by_scope=_shares(a, b, lambda x: provenance_name(x.scope)),
    )


def buffer_line_pairs(a: MemoryResult, b: MemoryResult) -> dict[str, str]:
    """The source lines of A's peak buffers paired with those of B's
    (:func:`~hloscope.analysis.diff.pair_lines`, the buffers' scopes as the op names)."""
    return pair_lines(source_lines(_scopes_by_line(a)), source_lines(_scopes_by_line(b)))


def _scopes_by_line(result: MemoryResult) -> dict[str, set[str]]:
    scopes: dict[str, set[str]] = {}
    for buffer in result.live_at_peak:
        if buffer.source:
            scope = provenance_name(buffer.scope)
            scopes.setdefault(buffer.source, set()).update((scope,) if scope else ())
    return scopes


def _source_shares(a: MemoryResult, b: MemoryResult, to_b: Mapping[str, str]) -> list[PeakShare]:
    """:func:`_shares` per source line, A's lines counted under the line of B they became."""
    shares = _shares(a, b, lambda x: to_b.get(x.source, x.source))
    from_a = {line_b: line_a for line_a, line_b in to_b.items()}
    continued = {s.key for s in shares if s.a}
    return [
        PeakShare(s.key, s.a, s.b, from_a.get(s.key, s.key if s.key in continued else ""))
        for s in shares
    ]


def _largest_first(buffers: list[LiveBuffer]) -> list[LiveBuffer]:
    return sorted(buffers, key=lambda x: -x.bytes)  # stable: schedule order among equals


def _shares(a: MemoryResult, b: MemoryResult, key: Any) -> list[PeakShare]:
    """Bytes at each peak per ``key(buffer)``, the largest change first, unchanged left out."""
    totals_a: Counter[str] = Counter()
    totals_b: Counter[str] = Counter()
    for buffer in a.live_at_peak:
        totals_a[key(buffer) or _UNKNOWN] += buffer.bytes
    for buffer in b.live_at_peak:
        totals_b[key(buffer) or _UNKNOWN] += buffer.bytes
    keys = list(dict.fromkeys([*totals_a, *totals_b]))
    shares = [PeakShare(k, totals_a[k], totals_b[k]) for k in keys]
    return sorted((s for s in shares if s.delta), key=lambda s: -abs(s.delta))
