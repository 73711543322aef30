"""The text of ``hloscope collectives``: one row per collective, then the totals.

Each row: the kind (``async`` marked), bytes per device, group size times number of groups,
the mesh axes the groups span, executions per call, the estimate on ``--device`` when one was
given, and the source line; a collective inside a loop or branch says where under its row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import format_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.collectives import CollectivesResult

__all__ = ["render_collectives", "format_seconds"]


def format_seconds(s: float | None) -> str:
    """0.0000123 -> '12.3 us'; None -> '-'."""
    if s is None:
        return "-"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if s >= scale:
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
        return "\n".join(lines) + "\n"
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
                format_seconds(c.estimate_s),
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
    return "\n".join(lines) + "\n"
