"""``hloscope memory`` for a person: the peak, its breakdown, a sparkline, what is live."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..units import format_bytes
from .sources import short_source, shorten_source
from .terminal import printable, shorten_middle

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.memory import MemoryResult

__all__ = ["render_memory", "render_device", "sparkline", "without_folders"]

_BARS = "▁▂▃▄▅▆▇█"
#: Buffers and groups listed before "... N more".
TOP = 10


def sparkline(timeline: list[tuple[int, int]], peak_index: int, width: int = 60) -> str:
    """Live bytes over the schedule in ``width`` characters, ``^`` under the peak's column."""
    if not timeline:
        return ""
    end = timeline[-1][0] + 1
    values = [0] * end
    for (t, b), nxt in zip(timeline, [*timeline[1:], (end, 0)]):
        for k in range(t, nxt[0]):
            values[k] = b
    cols = min(width, end)
    buckets = [
        max(values[c * end // cols : max((c + 1) * end // cols, c * end // cols + 1)])
        for c in range(cols)
    ]
    top = max(buckets) or 1
    line = "".join(_BARS[min(len(_BARS) - 1, b * len(_BARS) // (top + 1))] for b in buckets)
    mark = min(cols - 1, peak_index * cols // end)
    return line + "\n" + " " * mark + "^ peak"


def render_memory(result: MemoryResult, width: int = 80) -> str:
    """The text of ``hloscope memory`` for one module, ``width`` columns wide: prose wraps,
    and a row's names and source lines are shortened in the middle to fit (``--json`` keeps
    them whole)."""
    head = f"module {printable(result.module)}   source: {result.source}"
    if result.compiled_for:
        head += f"   compiled for: {printable(result.compiled_for)}"
    lines = _wrapped([head], width, "")
    at = result.peak_at
    refused = result.refused is not None
    lines += _wrapped([_peak_line(result)], width, "")
    if refused and result.device is None:
        lines += _wrapped([_does_not_fit(result)], width, "")
    if not refused:  # a refused compile is said with one figure: what XLA:TPU needs
        lines += _wrapped([_figures(result)] if _figures(result) else [], width, "  ")
    if result.device is not None:
        lines += [
            row for line in render_device(result.device) for row in _wrapped([line], width, "")
        ]
    if result.fills:
        lines += _fills(result, width)
    else:
        lines += _wrapped(
            [", ".join(f"{k} {format_bytes(v)}" for k, v in result.breakdown.items())],
            width,
            "  ",
        )
    # Notes after the peak they speak of, never before it.
    lines += _wrapped([str(note) for note in result.notes], width, "  ")
    spark = sparkline(result.timeline, at["index"], width=max(10, min(60, width - 2)))
    lines += ["", spark, "", *_wrapped([_live_title(result)], width, "")]
    lines += _live_rows(result, width)
    lines += _savings(result, width)
    return "\n".join(lines) + "\n"


def _live_rows(result: MemoryResult, width: int) -> list[str]:
    """The buffers live at the peak, then their bytes by source line and by scope."""
    lines: list[str] = []
    for b in result.live_at_peak[:TOP]:
        shape = _shown_shape(str(b.shape))
        # An array's shape is kept whole; a tuple's (a pointer table) may be cut in the middle.
        floor = len(shape) if not shape.startswith("(") else _FIELD_FLOOR
        fields = [_Field(b.name, floor=12), _Field(shape, floor=floor)]
        if b.source:
            fields.append(_Field(b.source, shorten_source))
        lines.append(_fitted(f"  {format_bytes(b.bytes):>10}  {b.kind:<9} ", fields, width))
    if len(result.live_at_peak) > TOP:
        lines.append(f"  ... {len(result.live_at_peak) - TOP} more")
    for title, rows, key in (
        ("by source line:", result.by_source(), "source"),
        ("by scope:", result.by_scope(), "scope"),
    ):
        lines.append(title)
        for row in rows[:TOP]:
            prefix = f"  {format_bytes(row['bytes']):>10}  "
            count = f" ({row['buffers']})"
            cut = shorten_source if key == "source" else shorten_middle
            # Files by name, as every other list of this output gives them (the full path is
            # in --json).
            text = short_source(str(row[key])) if key == "source" else str(row[key])
            label = _fitted("", [_Field(text, cut)], width - len(prefix) - len(count))
            lines.append(f"{prefix}{label}{count}")
    return lines


def _peak_line(result: MemoryResult) -> str:
    """The figure: XLA:TPU's needs for a refused compile, else the peak and where it is."""
    if result.refused is not None and "required_bytes" in result.figures:
        return (
            f"needs {_gib(result.peak_bytes)} ({result.peak_bytes} bytes), XLA:TPU's figure: "
            "it refused the compile for want of memory"
        )
    at = result.peak_at
    kernel = f", kernel {printable(at['kernel'])}" if at.get("kernel") else ""
    where = f"at schedule index {at['index']} ({printable(at['instruction'])}{kernel})"
    if result.live_at is not None:
        where = "(XLA:TPU's peak_memory_in_bytes)"
    return f"peak {format_bytes(result.peak_bytes)} ({result.peak_bytes} bytes) {where}"


def _gib(n: int) -> str:
    """Bytes as XLA:TPU says them in its refusals, two decimals (``16.81 GiB``)."""
    return f"{n / (1 << 30):.2f} GiB" if n >= 1 << 30 else format_bytes(n)


def _live_title(result: MemoryResult) -> str:
    if result.refused is not None:
        return (
            f"the buffers XLA:TPU had assigned, at their largest moment (schedule index "
            f"{result.peak_at['index']}):"
        )
    if result.live_at is None:
        return "live at the peak:"
    live_peak = result.figures.get(result.live_at, 0)
    return (
        f"live at {_LIVE_AT.get(result.live_at, 'that peak')} ({format_bytes(live_peak)}, "
        f"schedule index {result.peak_at['index']}):"
    )


#: Rows of each group of "what fills it" before "... N more".
FILL_TOP = 5


def _fills(result: MemoryResult, width: int) -> list[str]:
    """What fills the figure: each group with its total, then its largest named rows."""
    total = sum(g.bytes for g in result.fills)
    figure = _gib(total) if result.refused is not None else format_bytes(total)
    lines = [f"what fills it ({figure}):"]
    for group in result.fills:
        lines += _wrapped([f"{format_bytes(group.bytes):>10}  {group.title}"], width, "  ")
        rows = group.rows if len(group.rows) > 1 or group.rows[0].label != group.title else []
        if len(rows) == 1 and rows[0].bytes == group.bytes and not rows[0].buffers:
            # One row saying what the whole group is (XLA:TPU's reservation): said whole.
            lines += _wrapped([f"({without_folders(rows[0].label)})"], width, " " * 14, " " * 15)
            continue
        for row in rows[:FILL_TOP]:
            prefix = f"    {format_bytes(row.bytes):>10}  "
            count = f" ({row.buffers})" if row.buffers > 1 else ""
            text = without_folders(row.label)
            label = _fitted("", [_Field(text, shorten_source)], width - len(prefix) - len(count))
            lines.append(f"{prefix}{label}{count}")
        if len(rows) > FILL_TOP:
            rest = sum(r.bytes for r in rows[FILL_TOP:])
            lines.append(f"    {format_bytes(rest):>10}  {len(rows) - FILL_TOP} more")
    return lines


def _savings(result: MemoryResult, width: int) -> list[str]:
    """What would free memory: one line per action, its total, and with ``--device`` the peak
    after it and whether that is under the limit."""
    if not result.savings:
        return []
    lines = ["what would free memory (each an action, with what it frees at the peak):"]
    after = (result.device or {}).get("savings") or []
    for i, s in enumerate(result.savings[:TOP]):
        prefix = f"  {'-' + format_bytes(s.bytes):>10}  "
        outcome = _after(result.device, after[i]) if i < len(after) else ""
        # Wrapped whole, never cut (the target names what to change), its files without their
        # folders (--json keeps them).
        said = without_folders(f"{s.kind}: {s.target}")
        lines += _wrapped([f"{said}: {s.fix}{outcome}"], width, prefix, " " * len(prefix))
    if len(result.savings) > TOP:
        lines.append(f"  ... {len(result.savings) - TOP} more (--json lists them all)")
    return lines


# A file in a saving's words: `/long/path/model.py` of `.../model.py:12 (f)`.
_FILE = re.compile(r"(?:[^\s:()]*/)+[^\s/:()]+\.py\b")


def without_folders(text: str) -> str:
    """Every file named in ``text`` without its folders: ``copy XLA made from
    /long/path/model.py:12 (f)`` -> ``copy XLA made from model.py:12 (f)``."""
    return _FILE.sub(lambda m: m.group(0).rsplit("/", 1)[-1], text)


def _after(device: dict[str, Any] | None, saving: dict[str, Any]) -> str:
    """``; peak 7.0 GiB after it, under your 80% limit`` (or still over it)."""
    if device is None:
        return ""
    if saving.get("peak_after_bytes") is None:
        return " (at most: recomputing takes some of it back)"
    peak = format_bytes(saving["peak_after_bytes"])
    limit = f"your {device['limit'] * 100:g}% limit"
    words = {
        "fits": f"under {limit}",
        "fits_above_limit": f"still above {limit}",
        "does_not_fit": "still does not fit",
    }[saving["verdict_after"]]
    return f"; peak about {peak} after it, {words}"


# An array's layout in braces after its dimensions (TPU layouts carry tiles and memory spaces:
# `bf16[16,64]{1,0:T(8,128)(2,1)S(1)}`): long, and said by --json; the text keeps the space.
_LAYOUT = re.compile(r"\{[^{}]*:[^{}]*\}")
_SPACES = {"1": "VMEM", "2": "SMEM"}


def _shown_shape(shape: str) -> str:
    """``bf16[16,64]{1,0:T(8,128)S(1)}`` -> ``bf16[16,64] (VMEM)``: the dimensions, and the
    on-chip memory a TPU buffer lives in (none: HBM)."""
    spaces = set(re.findall(r"S\((\d+)\)", shape))
    short = _LAYOUT.sub("", shape)
    named = sorted(_SPACES.get(space, f"S({space})") for space in spaces)
    return short + (f" ({', '.join(named)})" if named else "")


#: How each named figure of a result is said.
_FIGURE_NAMES = {
    "peak_memory_in_bytes": "XLA:TPU's peak_memory_in_bytes",
    "live_range_peak_bytes": "live range's peak",
    "simulated_peak_bytes": "hloscope's simulated peak",
    "allocation_bytes": "memory-usage report's allocation",
}

#: Which peak the buffers listed are live at.
_LIVE_AT = {
    "live_range_peak_bytes": "the live range's peak",
    "simulated_peak_bytes": "hloscope's simulated peak",
}


def _does_not_fit(result: MemoryResult) -> str:
    """``does NOT fit: XLA:TPU needs 16.81 GiB of the 15.75 GiB it can use`` for a program
    the compiler refused: its one figure, against the memory it said it has."""
    need = result.figures.get("required_bytes")
    have = result.figures.get("available_bytes")
    if need is None or have is None:
        return "does NOT fit: the compiler refused it (its words are below)"
    return (
        f"does NOT fit: XLA:TPU needs {_gib(need)} of the {_gib(have)} it can use "
        f"({need / max(have, 1):.2f}x); it refused the compile"
    )


def _figures(result: MemoryResult) -> str:
    """The other peaks of the same compile, each named: ``live range's peak 864.2 MiB; ...``."""
    return "; ".join(
        f"{_FIGURE_NAMES.get(name, name)} {format_bytes(value)}"
        for name, value in result.figures.items()
        if name in _FIGURE_NAMES and name != "peak_memory_in_bytes"
    )


# A field is not cut below this many characters: "…_train.py:51" still says which file and line.
_FIELD_FLOOR = 16


@dataclass(frozen=True, slots=True)
class _Field:
    """One shrinkable part of a row: its text, how it is cut, and how far."""

    text: str
    cut: Callable[[str, int], str] = shorten_middle
    floor: int = _FIELD_FLOOR


def _fitted(prefix: str, fields: list[_Field], width: int) -> str:
    """``prefix`` and ``fields`` (two spaces apart) in ``width`` columns: the widest field is
    cut first, none below its floor (so a very narrow terminal gets a longer line rather than
    fields that say nothing)."""
    texts = [printable(f.text) for f in fields]
    excess = len(prefix) + sum(map(len, texts)) + 2 * (len(texts) - 1) - width
    while excess > 0:
        cuttable = [i for i, t in enumerate(texts) if len(t) > fields[i].floor]
        if not cuttable:
            break
        widest = max(cuttable, key=lambda i: len(texts[i]))
        keep = max(fields[widest].floor, len(texts[widest]) - excess)
        excess -= len(texts[widest]) - keep
        texts[widest] = fields[widest].cut(texts[widest], keep)
    return prefix + "  ".join(texts)


def _wrapped(paragraphs: list[str], width: int, indent: str, more: str | None = None) -> list[str]:
    """Each paragraph wrapped at ``width`` (at spaces; a word longer than the line stays
    whole), its first line at ``indent`` and the rest at ``more`` (two more spaces in)."""
    out: list[str] = []
    for text in paragraphs:
        out += textwrap.wrap(
            printable(text),
            width=max(width, 20),
            initial_indent=indent,
            subsequent_indent=indent + "  " if more is None else more,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [indent]
    return out


def render_device(device: dict[str, Any]) -> list[str]:
    """The verdict of ``--device``: one line in the words of its verdict (``fits``, ``fits,
    above your 80% limit``, ``does NOT fit``), the caveat of an estimate, then on a TPU the
    padded peak and the arrays padding inflates (``device`` is the ``device`` object of
    ``--json``)."""
    lines = [_verdict_line(device)]
    if device.get("estimate"):
        lines.append(f"  {device['estimate']}")
    if "padded_peak_bytes" in device:
        peak, logical = device["peak_bytes"], device["logical_peak_bytes"]
        lines.append(
            f"  TPU tiles: logical peak {format_bytes(logical)}, padded "
            f"{format_bytes(peak)} (+{format_bytes(peak - logical)} of padding)"
        )
        inflated = device["inflated"]
        if inflated:
            lines.append(f"  padding grows {len(inflated)} array(s) live at the peak by over 25%:")
        for a in inflated[:TOP]:
            lines.append(
                f"  {format_bytes(a['padded_bytes']):>10}  {a['name']} {a['shape']}: "
                f"{format_bytes(a['logical_bytes'])} of data, "
                f"{a['padded_bytes'] / max(a['logical_bytes'], 1):.1f}x"
            )
        if len(inflated) > TOP:
            lines.append(f"  ... {len(inflated) - TOP} more")
    return lines


def _verdict_line(device: dict[str, Any]) -> str:
    """The verdict in its own words: a margin is a warning, never a refusal's words."""
    memory, peak = device["memory_bytes"], device["peak_bytes"]
    name = device["name"]
    limit = f"{device['limit'] * 100:g}%"
    what = "padded peak" if "padded_peak_bytes" in device else "peak"
    estimate = " (an estimate)" if device.get("estimate") else ""
    verdict = device.get("verdict", "fits" if device.get("fits") else "does_not_fit")
    if device.get("does_not_compile"):
        have = device.get("available_bytes")
        if have:
            return (
                f"does NOT fit on {name}: XLA:TPU needs {_gib(peak)} of the {_gib(have)} it "
                f"can use ({peak / max(have, 1):.2f}x); it refused the compile"
            )
        return f"does NOT fit on {name}: XLA:TPU refused the compile (its words are below)"
    share = f"{what} {format_bytes(peak)} = {peak / memory:.0%} of memory"
    if verdict == "fits":
        room = format_bytes(device["headroom_bytes"])
        return (
            f"fits{estimate} on {name} ({format_bytes(memory)}): {share}, headroom {room} "
            f"under the {limit} limit"
        )
    if verdict == "fits_above_limit":
        over = format_bytes(-device["headroom_bytes"])
        compiled = "; XLA:TPU compiled it" if device.get("peak_is") else ""
        return (
            f"fits{estimate} on {name} ({format_bytes(memory)}), above your {limit} limit: "
            f"{share}, {over} over the limit (a warning{compiled})"
        )
    return (
        f"does NOT fit{estimate} on {name} ({format_bytes(memory)}): {share}, "
        f"{format_bytes(peak - memory)} more than the whole memory"
    )
