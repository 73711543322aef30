"""The text of ``hloscope collectives``: one row per collective, then the totals.

Each row: the kind (``async`` marked), bytes per device, group size times number of groups,
the mesh axes the groups span, executions per call, the estimate on ``--device`` when one was
given, and the source line; a collective inside a loop or branch says where under its row.

On a module of more than one device, the sharding section follows: each entry parameter and
output with its global and per-device shape and its sharding in words; the large arrays held
whole on every device, with what sharding them saves; and each resharding collective as the
line whose output's sharding costs it (its producer) and the line that uses it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from ..units import format_bytes
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.collectives import ArraySharding, Collective, CollectivesResult, Endpoint

__all__ = ["render_collectives", "render_sharding", "format_seconds"]

WIDTH = 80
#: Resharding collectives listed in the text (the costliest); the JSON has them all.
MAX_RESHARDING = 20


def format_seconds(s: float | None) -> str:
    """0.0000123 -> '12.3 us'; None -> '-'. A value that rounds to 1000 of a unit is written
    in the next one (0.0009999 -> '1.0 ms', never '1000.0 us')."""
    if s is None:
        return "-"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if s / scale >= 0.99995:  # 999.95 of the unit below prints as 1000.0 there
            return f"{s / scale:.1f} {unit}"
    return f"{s / 1e-9:.1f} ns"


def render_collectives(result: CollectivesResult) -> str:
    mesh = result.mesh
    mesh_text = (
        " x ".join(f"{n}={s}" for n, s in zip(mesh.names, mesh.shape)) if mesh else "not named"
    )
    lines = [f"module {result.module}: {result.devices} devices, mesh {mesh_text}"]
    if result.device is not None:
        d = result.device
        lines.append(
            f"device {d['name']}: {d['topology']}, "
            f"{d['ring_bytes_per_s'] / 1e9:.0f} GB/s per device into a ring"
        )
    if not result.collectives:
        lines.append("no collectives")
        return _joined(lines) + render_sharding(result)
    header = ("kind", "bytes", "groups", "axes", "runs", "estimate", "source")
    rows = [header]
    for c in result.collectives:
        rows.append(
            (
                c.kind.value + (" (async)" if c.is_async else ""),
                format_bytes(c.bytes),
                f"{c.group_size}x{c.num_groups}",
                ",".join(c.mesh_axes) if c.mesh_axes else "-",
                str(c.executions),
                _estimate_cell(c, priced=result.device is not None),
                c.source or c.op_name or c.name,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    wheres = ["", *(c.where for c in result.collectives)]
    for r, where in zip(rows, wheres):
        cells = [cell.ljust(w) for cell, w in zip(r, widths)]
        lines.append("  ".join([*cells, r[-1]]).rstrip())
        if where:
            lines.append("    in " + where)
    lines.append(
        f"total: {len(result.collectives)} collectives, {format_bytes(result.total_bytes)} "
        f"per device, {format_bytes(result.executed_bytes)} executed per call"
    )
    if result.device is not None:
        lines.append(
            f"communication: {format_seconds(result.estimate_s)} estimated, "
            f"{format_seconds(result.exposed_s)} exposed"
        )
    return _joined(lines) + render_sharding(result)


def render_sharding(result: CollectivesResult) -> str:
    """The sharding section (empty on one device): arrays, replicated large ones, reshardings."""
    if result.devices <= 1 or not (result.parameters or result.outputs):
        return ""
    mesh = result.mesh
    named = " x ".join(f"{n}={s}" for n, s in zip(mesh.names, mesh.shape)) if mesh else ""
    lines = ["sharding" + (f" (mesh {named})" if named else "") + ":"]
    lines.extend(_array_rows([*result.parameters, *result.outputs]))
    if result.replicated_large:
        lines.append("replicated and large (the same copy on every device):")
    for r in result.replicated_large:
        label = _array_name(r.name, r.op_name, r.role.value)
        text = (
            f"{label} {r.shape}: {_bytes(r.bytes)} on each of "
            f"{r.devices} devices; sharded {r.devices} ways it would save "
            f"{_bytes(r.saving_bytes)} per device"
        )
        if r.all_reduce_bytes is not None:
            text += (
                f", and its gradient's all-reduce ({_bytes(r.all_reduce_bytes)} per "
                f"device) could be a reduce-scatter ({_bytes(r.reduce_scatter_bytes)})"
            )
        lines.extend(_wrapped(text))
    resharding = result.resharding
    if resharding:
        lines.append("resharding (collectives the partitioner inserted between shardings):")
    # The costliest first (bytes per call), and only so many: --json lists every one.
    shown = sorted(resharding, key=lambda c: -c.executed_bytes)[:MAX_RESHARDING]
    for c in shown:
        trace = result.traces[c.name]
        runs = "per call" if c.executions == 1 else f"x{c.executions} per call"
        what = "it" if trace.producer and trace.producer.opcode == "parameter" else "its output"
        text = (
            f"{_side(trace.producer)}: resharding {what} costs {_article(c.kind.value)} "
            f"{c.kind.value} of {_bytes(c.bytes)} per device, {runs}"
        )
        if trace.consumers:
            text += "; used by " + ", ".join(_side(e) for e in trace.consumers)
        lines.extend(_wrapped(text))
    if len(resharding) > len(shown):
        left = sorted(resharding, key=lambda c: -c.executed_bytes)[len(shown) :]
        moved = format_bytes(sum(c.executed_bytes for c in left))
        lines.append(f"  ... {len(left)} more ({moved} per device per call; --json lists all)")
    return _joined(lines)


def _joined(lines: list[str]) -> str:
    """The lines as text, each safe for a terminal (names and paths come from the dump)."""
    return "".join(printable(line) + "\n" for line in lines)


def _label(name: str, op_name: str) -> str:
    """A parameter by JAX's argument name (its op_name) when it has one."""
    return op_name if op_name and "/" not in op_name else name


def _array_name(name: str, op_name: str, role: str) -> str:
    """A parameter by its argument name; an output in parentheses (a user may name an
    argument ``output``)."""
    return _label(name, op_name) if role == "parameter" else f"({name})"


def _side(end: Endpoint | None) -> str:
    if end is None:
        return "?"
    if end.opcode == "parameter":
        return f"parameter {end.op_name or end.name}"
    if end.output:
        return "the output"
    op = end.op_name.rsplit("/", 1)[-1] if end.op_name else end.opcode
    return f"{op} at {end.source}" if end.source else op


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


_NBSP = "\u00a0"  # holds a number to its unit while wrapping (textwrap breaks ASCII spaces)


def _bytes(n: int | None) -> str:
    return format_bytes(n).replace(" ", _NBSP)


def _wrapped(text: str, indent: str = "  ") -> list[str]:
    lines = textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [line.replace(_NBSP, " ") for line in lines]


def _pack(text: str, room: int) -> list[str]:
    """``text`` in lines of at most ``room``, broken after its commas (one clause, "replicated
    x2 over model", stays on one line) and only inside a clause longer than the room."""
    lines: list[str] = []
    for clause in text.split(", "):
        joined = f"{lines[-1]}, {clause}" if lines else clause
        if lines and len(joined) <= room:
            lines[-1] = joined
        else:
            if lines:
                lines[-1] += ","
            lines.extend(
                textwrap.wrap(clause, room, break_long_words=False, break_on_hyphens=False) or [""]
            )
    return lines or [""]


def _array_rows(arrays: list[ArraySharding]) -> list[str]:
    """One row per array: name, global shape, per-device shape and bytes, then the words
    (wrapped under themselves, or on the next line when the columns leave too little room)."""
    rows = [["array", "global", "per device", "bytes"]]
    for a in arrays:
        name = _array_name(a.name, a.op_name, a.role.value)
        # Escaped before measuring, so an escaped name keeps its column straight.
        cells = [name, a.shape, a.per_device_shape, format_bytes(a.per_device_bytes)]
        rows.append([printable(cell) for cell in cells])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    words = ["sharding", *(a.mesh_text for a in arrays)]
    out = []
    for r, text in zip(rows, words):
        padded = [r[0].ljust(widths[0]), r[1].ljust(widths[1]), r[2].ljust(widths[2])]
        head = "  " + "  ".join([*padded, r[3].rjust(widths[3])]) + "  "
        room = WIDTH - len(head)
        if room >= 24:
            parts = _pack(text, room)
            out.append((head + parts[0]).rstrip())
            out.extend(" " * len(head) + p for p in parts[1:])
        else:
            out.append(head.rstrip())
            out.extend(_wrapped(text, "      "))
    return out


def _estimate_cell(c: Collective, *, priced: bool) -> str:
    """The estimate column: a send whose recv carries the transfer (priced at 0 on the recv's
    behalf; no transfer takes no time otherwise) says so instead of showing 0 seconds."""
    if priced and c.kind.value == "send" and c.estimate_s == 0.0:
        return "on recv"
    return format_seconds(c.estimate_s)
