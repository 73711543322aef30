"""The kernel diff in words: a sentence per change, regression lines, and the JSON with both.

:func:`hloscope.analysis.diff.diff` finds what changed and leaves it as data
(:class:`~hloscope.analysis.diff.KernelChange`, :class:`~hloscope.analysis.diff.Regression`).
This module says it the way a person would:

* :func:`describe` -- ``kernel fusion.3 (dot+add+tanh, model.py:12-13) split into 2 kernels:
  ...; +48.0 KiB through memory (96.0 KiB -> 144.0 KiB); now written to memory and read back:
  f32[32,128] fusion.4 -> fusion.5``. The clauses are joined with ``"; "`` so that a renderer
  can put each on its own line;
* :func:`regression_lines` -- ``bytes: 96.0 KiB -> 144.0 KiB (+50.0%, threshold 0%)``;
* :func:`diff_to_dict` -- :meth:`~hloscope.analysis.diff.KernelDiff.to_dict` with each
  change's sentence as ``message`` (what ``hloscope diff --json`` prints);
* :func:`peak_text` -- ``peak memory: 61.9 MiB -> 10.2 MiB (-51.7 MiB, -83.5%)``, and
  :func:`peak_buffer_text`, one buffer that left or joined the peak with its source line
  (:class:`~hloscope.analysis.memory_diff.MemoryDiff`'s words);
* :func:`communication_lines` -- ``all-reduce: 1 -> 2, 8.0 KiB -> 1.0 KiB per device
  (-7.0 KiB), ...``: the collectives of two shardings compared per kind
  (:class:`~hloscope.analysis.diff.CommunicationDiff`'s words), and the step on ``--device``;
* small helpers other renderers share: :func:`kernel_label`, :func:`pair_where` (where a
  kernel and its counterpart came from, both sides), :func:`source_lines_text`
  (``model.py:12-13``), :func:`short_source` (the file name without its folders), :func:`signed`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..analysis.diff import (
    ChangeStatus,
    KernelChange,
    KernelDiff,
    MemoryEdge,
    Regression,
    parse_where,
    without_layout,
    without_outer_jit,
)
from ..analysis.fusions import Kernel
from ..analysis.memory import LiveBuffer
from ..analysis.memory_diff import PEAK_METRIC, MemoryDiff
from ..units import format_bytes, format_count
from .collectives_text import format_seconds
from .step_text import format_share
from .terminal import printable

__all__ = [
    "describe",
    "diff_to_dict",
    "peak_text",
    "peak_buffer_text",
    "regression_lines",
    "replaced_lines_text",
    "regression_text",
    "kernel_label",
    "kernel_where",
    "op_name_scope",
    "pair_where",
    "short_signature",
    "source_lines_text",
    "short_source",
    "signed",
]

_INSTALLED = ("site-packages/", "dist-packages/")
# How many opcodes of a kernel's signature a sentence names before "+…".
_SIGNATURE_SHOWN = 4
# How many kernels, edges and shape changes a sentence names before "and N more".
_KERNELS_SHOWN = 4
_EDGES_SHOWN = 3
_SHAPES_SHOWN = 3


# ------------------------------------------------------------------------------------------
# Small pieces
# ------------------------------------------------------------------------------------------


def signed(n: float, fmt: Callable[[float], str]) -> str:
    """``fmt(n)`` with a ``+`` in front of a positive number (negatives carry their ``-``)."""
    return ("+" if n > 0 else "") + fmt(n)


def source_lines_text(sources: Sequence[tuple[str, int]] | Sequence[str], limit: int = 4) -> str:
    """``[("dir/model.py:12 (f)", 3), ("dir/model.py:13 (f)", 1)]`` -> ``model.py:12-13``.

    At most two files are named (``+N files`` after them) and ``limit`` line ranges each.
    """
    by_file: dict[str, list[int]] = {}
    for item in sources:
        where = item[0] if isinstance(item, tuple) else item
        parsed = parse_where(where)
        if parsed is None:
            continue
        by_file.setdefault(Path(parsed[0]).name, []).append(parsed[1])
    parts = []
    for name, lines in list(by_file.items())[:2]:
        parts.append(f"{name}:{_ranges(sorted(set(lines)), limit)}")
    more = len(by_file) - 2
    return ", ".join(parts) + (f" +{more} files" if more > 0 else "")


def _ranges(lines: list[int], limit: int) -> str:
    """``[3, 4, 5, 9]`` -> ``3-5,9`` (at most ``limit`` ranges, then ``,…``)."""
    spans: list[tuple[int, int]] = []
    for n in lines:
        if spans and n == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], n)
        else:
            spans.append((n, n))
    text = ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans[:limit])
    return text + (",…" if len(spans) > limit else "")


def short_source(where: str) -> str:
    """``/long/path/model.py:12 (f)`` -> ``model.py:12 (f)``."""
    parsed = parse_where(where)
    if parsed is None:
        return where
    file, line, function = parsed
    fn = f" ({function})" if function else ""
    return f"{Path(file).name}:{line}{fn}"


def short_signature(signature: str, limit: int = _SIGNATURE_SHOWN) -> str:
    """``multiply+add+exp+tanh+log`` -> ``multiply+add+exp+tanh+…`` (the first ``limit`` ops,
    the most frequent ones)."""
    ops = signature.split("+")
    return "+".join(ops[:limit]) + "+…" if len(ops) > limit else signature


def _is_installed(where: str) -> bool:
    return any(p in where for p in _INSTALLED)


def kernel_where(k: Kernel) -> str:
    """Where a kernel came from, for a sentence: ``model.py:12-13 (f)`` (the function when its
    lines are all in one), or for TensorFlow (which records only its own ``ops.py`` line) and
    for a kernel with no user line, the scope its ``op_name`` names (:func:`op_name_scope`);
    ``""`` if unknown."""
    if k.sources and not all(_is_installed(s) for s, _ in k.sources):
        parsed = [p for s, _ in k.sources if (p := parse_where(s)) is not None]
        lines = source_lines_text(k.sources)
        functions = {(file, function) for file, _, function in parsed}
        if len(functions) == 1 and (function := functions.pop()[1]):
            return f"{lines} ({function})"
        return lines
    return op_name_scope(k.op_name) or source_lines_text(k.sources)


def op_name_scope(op_name: str) -> str:
    """``jit(step)/jvp()/reshape;jit(step)/jvp()/reshape`` -> ``jvp()/reshape``: an op_name
    without JAX's outer ``jit(f)/``; XLA joins the names of the instructions it merged with
    ``;``, and each different one is said once (``, `` between them)."""
    names = (without_outer_jit(name.strip()) for name in op_name.split(";"))
    return ", ".join(dict.fromkeys(name for name in names if name))


def pair_where(a: Kernel, b: Kernel) -> str:
    """Where a kernel of A and its counterpart in B came from: ``model.py:59 -> model.py:63``,
    or one ``model.py:63`` when both say the same (``?`` stands for a side that does not know).

    Both, because a pair is only as good as the matching that made it: a reader who sees
    block 1's line paired with block 0's can tell, and one who sees a single line cannot."""
    where_a, where_b = kernel_where(a), kernel_where(b)
    if where_a == where_b:
        return where_a
    return f"{where_a or '?'} -> {where_b or '?'}"


def kernel_label(k: Kernel) -> str:
    """``fusion.3 (dot+add+tanh, model.py:12)``: the kernel, what it does, where from."""
    if k.is_fusion:
        what = short_signature(k.signature)
    else:
        what = f"{k.opcode} {k.backend_kind}" if k.backend_kind else k.opcode
    where = kernel_where(k)
    return f"{k.name} ({what}, {where})" if where else f"{k.name} ({what})"


def _labels(kernels: Sequence[Kernel], limit: int = _KERNELS_SHOWN) -> str:
    shown = ", ".join(kernel_label(k) for k in kernels[:limit])
    return shown + (f" and {len(kernels) - limit} more" if len(kernels) > limit else "")


def _bytes_phrase(change: KernelChange) -> str:
    delta = change.bytes_b - change.bytes_a
    if delta == 0:
        return f"same bytes through memory ({format_bytes(change.bytes_a)})"
    before, after = format_bytes(change.bytes_a), format_bytes(change.bytes_b)
    return f"{signed(delta, format_bytes)} through memory ({before} -> {after})"


def _flops_phrase(change: KernelChange) -> str:
    delta = change.flops_b - change.flops_a
    t_delta = change.transcendentals_b - change.transcendentals_a
    parts = []
    if delta:
        before, after = format_count(change.flops_a), format_count(change.flops_b)
        parts.append(f"FLOPs {before} -> {after} ({signed(delta, format_count)})")
    if t_delta:
        parts.append(f"transcendentals {signed(t_delta, format_count)}")
    return "; ".join(parts)


def _edges_phrase(edges: list[MemoryEdge], verb: str) -> str:
    shown = [f"{e.shape} {e.producer} -> {e.consumer}" for e in edges[:_EDGES_SHOWN]]
    more = f" and {len(edges) - _EDGES_SHOWN} more" if len(edges) > _EDGES_SHOWN else ""
    return f"{verb}: " + ", ".join(shown) + more if shown else ""


def _op_counts(sign: str, ops: dict[str, int]) -> str:
    """``{"abs": 1, "add": 2}`` -> ``ops +abs +addx2``."""
    return f"ops {sign}" + f" {sign}".join(op + (f"x{n}" if n > 1 else "") for op, n in ops.items())


# ------------------------------------------------------------------------------------------
# One sentence per change
# ------------------------------------------------------------------------------------------


def describe(change: KernelChange) -> str:
    """One sentence (or a few clauses joined by ``"; "``) that says what happened to a group
    of kernels."""
    describe_status = _DESCRIBERS.get(change.status, _describe_unchanged)
    parts = describe_status(change)
    moving = (ChangeStatus.ADDED, ChangeStatus.REMOVED, ChangeStatus.UNCHANGED)
    flops = _flops_phrase(change) if change.status not in moving else ""
    return "; ".join(
        p for p in [*parts, flops, _unrelated_phrase(change), _lines_phrase(change)] if p
    )


def _unrelated_phrase(change: KernelChange) -> str:
    """``unrelated computations: attention -> normalization (only op names and lines join
    them)``, for a group whose kernels compute nothing alike."""
    if not change.unrelated:
        return ""
    a = " + ".join(dict.fromkeys(change.computes_a))
    b = " + ".join(dict.fromkeys(change.computes_b))
    return f"unrelated computations: {a} -> {b} (only op names and lines join them)"


def _lines_phrase(change: KernelChange) -> str:
    """``lines attention_a.py:17-21 became attention_b.py:16``: the code this group's
    kernels came from that one side only has (replaced, not moved)."""
    a, b = change.replaced_a, change.replaced_b
    if not a or not b or change.status is ChangeStatus.UNCHANGED:  # unchanged: a -> b says it
        return ""
    return f"lines {source_lines_text(a)} became {source_lines_text(b)}"


def _split_head(a: list[Kernel], b: list[Kernel]) -> str:
    return f"kernel {kernel_label(a[0])} split into {len(b)} kernels: {_labels(b)}"


def _merged_head(a: list[Kernel], b: list[Kernel]) -> str:
    return f"{len(a)} kernels {_labels(a)} merged into {kernel_label(b[0])}"


def _regrouped_head(a: list[Kernel], b: list[Kernel]) -> str:
    return f"ops of {len(a)} kernels ({_labels(a)}) regrouped into {len(b)} kernels ({_labels(b)})"


# Changes that move kernel boundaries: their first sentence, and what happened to the arrays
# that passed between the kernels involved.
_REGROUPINGS: dict[ChangeStatus, tuple[Callable[[list[Kernel], list[Kernel]], str], str]] = {
    ChangeStatus.SPLIT: (_split_head, "now written to memory and read back"),
    ChangeStatus.MERGED: (_merged_head, "no longer through memory"),
    ChangeStatus.REGROUPED: (_regrouped_head, "between the new kernels"),
}


def _describe_regrouping(change: KernelChange) -> list[str]:
    head, edges = _REGROUPINGS[change.status]
    return [
        head(change.a, change.b),
        _bytes_phrase(change),
        _edges_phrase(change.through_memory, edges),
    ]


def _describe_added(change: KernelChange) -> list[str]:
    k = change.b[0]
    moved, flops = format_bytes(k.cost.bytes_accessed), format_count(k.cost.flops)
    return [f"new kernel {kernel_label(k)}: {moved} through memory, {flops} FLOPs"]


def _describe_removed(change: KernelChange) -> list[str]:
    k = change.a[0]
    moved, flops = format_bytes(k.cost.bytes_accessed), format_count(k.cost.flops)
    return [f"kernel {kernel_label(k)} is gone: {moved} less through memory, {flops} FLOPs fewer"]


def _describe_changed(change: KernelChange) -> list[str]:
    a, b = change.a[0], change.b[0]
    name = a.name if a.name == b.name else f"{a.name} -> {b.name}"
    what = []
    if change.ops_added:
        what.append(_op_counts("+", change.ops_added))
    if change.ops_removed:
        what.append(_op_counts("-", change.ops_removed))
    shapes = change.shape_changes
    if shapes:
        shown = ", ".join(f"{sa} -> {sb}" for sa, sb, _ in shapes[:_SHAPES_SHOWN])
        hidden = len(shapes) - _SHAPES_SHOWN
        what.append(f"shapes {shown}" + (f" (+{hidden} more)" if hidden > 0 else ""))
    out_a, out_b = without_layout(a.shape), without_layout(b.shape)
    # The kernel's own output shape, unless a shape change above already says it.
    if out_a != out_b and not any(sa == out_a and sb == out_b for sa, sb, _ in shapes):
        what.append(f"output {out_a} -> {out_b}")
    where = pair_where(a, b)
    head = f"kernel {name} ({short_signature(b.signature)}{', ' + where if where else ''}) changed"
    return [head + (": " + "; ".join(what) if what else ""), _bytes_phrase(change)]


def _describe_unchanged(change: KernelChange) -> list[str]:
    k, j = change.a[0], change.b[0]
    details = [] if k.name == j.name else [f"now named {j.name}"]
    where = pair_where(k, j)
    details += [where] if where else []
    return [f"kernel {k.name}" + (f" ({', '.join(details)})" if details else "") + " unchanged"]


_DESCRIBERS: dict[ChangeStatus, Callable[[KernelChange], list[str]]] = {
    ChangeStatus.SPLIT: _describe_regrouping,
    ChangeStatus.MERGED: _describe_regrouping,
    ChangeStatus.REGROUPED: _describe_regrouping,
    ChangeStatus.ADDED: _describe_added,
    ChangeStatus.REMOVED: _describe_removed,
    ChangeStatus.CHANGED: _describe_changed,
    ChangeStatus.UNCHANGED: _describe_unchanged,
}


def replaced_lines_text(a: Sequence[str], b: Sequence[str]) -> str:
    """``attention_a.py:17-21 (attention) -> attention_b.py:16 (attention)``: lines only A
    has and the lines only B has that took their place."""
    return f"{_lines_with_function(a)} -> {_lines_with_function(b)}"


def _lines_with_function(lines: Sequence[str]) -> str:
    if not lines:
        return ""
    parsed = [p for w in lines if (p := parse_where(w)) is not None]
    functions = list(dict.fromkeys(f for _, _, f in parsed if f))
    text = source_lines_text(list(lines))
    if len(functions) == 1:
        return f"{text} ({functions[0]})"
    if functions:
        return f"{text} ({', '.join(functions[:3])}{', …' if len(functions) > 3 else ''})"
    return text


# ------------------------------------------------------------------------------------------
# Regressions and JSON
# ------------------------------------------------------------------------------------------


def regression_text(r: Regression) -> str:
    """``bytes: 96.0 KiB -> 144.0 KiB (+50.0%, threshold 0%)``."""
    grew = f"+{r.percent:.1f}%" if r.a else "from 0"
    fmt: Callable[[int], str] = format_bytes if r.metric in ("bytes", PEAK_METRIC) else str
    return f"{r.metric}: {fmt(r.a)} -> {fmt(r.b)} ({grew}, threshold {r.threshold:g}%)"


def regression_lines(
    result: KernelDiff,
    metrics: Iterable[str] = ("kernels", "bytes", "flops"),
    threshold: float = 0.0,
) -> list[str]:
    """One line per metric on which B is worse than A by more than ``threshold`` percent
    (:meth:`KernelDiff.regressions <hloscope.analysis.diff.KernelDiff.regressions>`, worded)."""
    return [regression_text(r) for r in result.regressions(metrics, threshold)]


def diff_to_dict(result: KernelDiff) -> dict[str, Any]:
    """:meth:`KernelDiff.to_dict <hloscope.analysis.diff.KernelDiff.to_dict>` with each change's
    :func:`describe` sentence as its ``message`` (the JSON ``hloscope diff --json`` prints)."""
    data = result.to_dict()
    for change, entry in zip(result.changes, data["changes"]):
        entry["message"] = describe(change)
    return data


# ------------------------------------------------------------------------------------------
# Memory
# ------------------------------------------------------------------------------------------


def peak_text(result: MemoryDiff) -> str:
    """``peak memory: 61.9 MiB -> 10.2 MiB (-51.7 MiB, -83.5%)``, or ``... (=)`` unchanged."""
    a, b = result.a.peak_bytes, result.b.peak_bytes
    head = f"peak memory: {format_bytes(a)} -> {format_bytes(b)}"
    if a == b:
        return head + " (=)"
    percent = result.percent
    share = f", {percent:+.1f}%" if percent is not None else ""
    return f"{head} ({signed(b - a, format_bytes)}{share})"


def peak_buffer_text(buffer: LiveBuffer) -> str:
    """``24.0 MiB f32[6,8,128,256] temporary fusion.2, model.py:27 (loss)``: one buffer that
    left or joined the peak, its shape without layout and the user's line that made it."""
    where = f", {short_source(buffer.source)}" if buffer.source else ""
    shape = without_layout(buffer.shape)
    return f"{format_bytes(buffer.bytes)} {shape} {buffer.kind} {buffer.producer}{where}"


# ------------------------------------------------------------------------------------------
# Communication
# ------------------------------------------------------------------------------------------

COMMUNICATION_WIDTH = 80


def _signed_seconds(s: float) -> str:
    return ("+" if s > 0 else "-" if s < 0 else "") + format_seconds(abs(s))


def _a_to_b(a: float | None, b: float | None, fmt: Callable[[float], str]) -> str:
    """``8.0 KiB -> 1.0 KiB (-7.0 KiB)``, ``(=)`` when equal."""
    if a is None or b is None:
        return "-"
    head = f"{fmt(a)} -> {fmt(b)}"
    if a == b:
        return head + " (=)"
    change = _signed_seconds(b - a) if fmt is not format_bytes else signed(b - a, format_bytes)
    return f"{head} ({change})"


def _kind_text(label: str, a: dict[str, Any], b: dict[str, Any], exposed: str | None) -> str:
    text = (
        f"{label}: {a['count']} -> {b['count']}, "
        f"{_a_to_b(a['bytes'], b['bytes'], format_bytes)} per device"
    )
    if (a["executed_bytes"], b["executed_bytes"]) != (a["bytes"], b["bytes"]):
        text += f", per call {_a_to_b(a['executed_bytes'], b['executed_bytes'], format_bytes)}"
    if exposed is not None:
        text += f"; {exposed} {_a_to_b(a['exposed_s'], b['exposed_s'], format_seconds)}"
    return text


def communication_lines(
    communication: dict[str, Any], steps: tuple[Any, Any] | None = None
) -> list[str]:
    """The words of :meth:`~hloscope.analysis.diff.CommunicationDiff.to_dict`: a total line,
    one per kind, then with ``steps`` (A's and B's step estimate dicts, see
    :meth:`hloscope.analysis.step_estimate.StepEstimate.to_dict`) the step on the device. Each
    line fits :data:`COMMUNICATION_WIDTH` columns (a long one folds, indented)."""
    device = communication["device"]
    devices = communication["devices"]
    head = "collectives"
    if devices["a"] != devices["b"]:
        head += f" ({devices['a']} -> {devices['b']} devices)"
    exposed = f"exposed on {printable(device)}" if device else None
    texts = [_kind_text(head, communication["a"], communication["b"], exposed)]
    if communication["no_change"]:
        texts[0] += " (no change)"
    texts += [
        "  " + _kind_text(printable(k["kind"]), k["a"], k["b"], "exposed" if device else None)
        for k in communication["kinds"]
    ]
    if steps is not None and steps[0] is not None and steps[1] is not None:
        a, b = steps
        texts.append(
            f"step on {printable(a['device'])}: "
            f"{_a_to_b(a['total_s'], b['total_s'], format_seconds)}; compute "
            f"{format_share(a['split']['compute'])} -> {format_share(b['split']['compute'])}, "
            f"exposed communication {format_share(a['split']['exposed'])} -> "
            f"{format_share(b['split']['exposed'])}"
        )
    lines: list[str] = []
    for text in texts:
        indent = " " * (len(text) - len(text.lstrip()))
        lines += textwrap.wrap(
            text,
            COMMUNICATION_WIDTH,
            subsequent_indent=indent + "    ",
            break_on_hyphens=False,
            break_long_words=False,
        )
    return lines
