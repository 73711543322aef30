"""``hloscope try`` for a person: the variants ranked best first, each compiled or refused (in
XLA:TPU's words), whether it fits, its peak per device, FLOPs, HBM and collective bytes and
step estimate; "no effect" where its module equals the one without that setting; the ones
that cannot apply with why; then the code change that gives the best."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from ..hlo.partition_spec import sharding_words
from ..units import format_bytes, format_count, format_duration

__all__ = ["proof_words", "render_try", "warning_words"]

_COLUMNS = (("fits", 5), ("peak/dev", 10), ("FLOPs", 8), ("HBM", 9), ("coll.", 9), ("step", 9))


def _cell(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "bytes":
        return format_bytes(value)
    if kind == "count":
        return format_count(value)
    return format_duration(value)


def _fits(row: Mapping[str, Any]) -> str:
    if not row["applicable"]:
        return "n/a"
    if row["fits"] is None:
        return "?"
    return "yes" if row["fits"] else "no"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render_try(result: Mapping[str, Any], echo: Callable[[str], object], width: int = 80) -> None:
    """Write ``result`` (:meth:`~hloscope.analysis.variants.TryResult.to_dict`)."""
    width = max(width, 60)
    rows = {r["name"]: r for r in [result["baseline"], *result["variants"]]}
    memory = result.get("memory_bytes")
    head = f"{result['target']} on {result['device']}"
    if memory:
        head += f" ({format_bytes(memory)} HBM per chip)"
    head += f", ranked by {result['goal']}"
    echo(textwrap.fill(head, width, break_on_hyphens=False, break_long_words=False))
    numbers = sum(w + 1 for _, w in _COLUMNS)
    name_width = max(12, width - numbers - 3)
    echo(f"   {'variant':<{name_width}}" + "".join(f" {h:>{w}}" for h, w in _COLUMNS))
    for index, name in enumerate(result["ranking"], 1):
        row = rows[name]
        cells = [
            _fits(row),
            _cell(row["peak_bytes"], "bytes"),
            _cell(row["flops"], "count"),
            _cell(row["hbm_bytes"], "bytes"),
            _cell(row["collective_bytes"], "bytes"),
            _cell(row["step_s"], "time"),
        ]
        mark = "*" if name == result.get("winner") else " "
        label = _cut(name, name_width)
        echo(
            f"{mark}{index:<2}{label:<{name_width}}"
            + "".join(f" {c:>{w}}" for c, (_, w) in zip(cells, _COLUMNS, strict=True))
        )
    _details(result, rows, echo, width)
    change = result.get("change") or []
    if change:
        echo("")
        echo(_cut(f"the change for the best ({result['winner']}):", width))
        for line in change:
            # Code is wrapped, never cut: every character of it is needed.
            echo(
                textwrap.fill(
                    line,
                    width,
                    initial_indent="  ",
                    subsequent_indent="      ",
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
    for note in result.get("notes") or []:
        echo(
            textwrap.fill(
                note,
                width,
                initial_indent="note: ",
                subsequent_indent="  ",
                break_on_hyphens=False,
                break_long_words=False,
            )
        )


def _details(
    result: Mapping[str, Any],
    rows: Mapping[str, Mapping[str, Any]],
    echo: Callable[[str], object],
    width: int,
) -> None:
    """One line for each variant with something to say: no effect, refused, cannot apply,
    what its compile logged."""
    said = False
    for name in result["ranking"]:
        row = rows[name]
        lines = []
        if row["no_effect"]:
            lines.append(
                f"no effect: its {row['no_effect_of']} left the optimized module as in "
                f"{row['same_as']}"
            )
        elif row.get("effect"):
            lines.append(
                f"its {row['effect_of']} changed the module of {row['compared_to']}: "
                f"{row['effect']}"
            )
        if not row["applicable"]:
            lines.append(f"cannot apply: {row['error']}")
        elif not row["compiled"] and row["error"]:
            lines.append(f"refused: {row['error']}")
        warned = row.get("sharding_warnings") or []
        lines += [f"{warning_words(w)}{_avoided(w, result, rows)}" for w in warned]
        others = [line for line in row.get("log") or [] if not _read_as_warning(line)]
        lines += [f"log: {line}" for line in others][:3]
        if not lines:
            continue
        if not said:
            echo("")
            said = True
        for line in lines:
            echo(
                textwrap.fill(
                    line,
                    width,
                    initial_indent=f"{name}: ",
                    subsequent_indent="    ",
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )


#: What avoids each collective in a loop body: the array it gathers, or the partial sums it
#: adds, made outside the loop or not needed at all.
_LOOP_FIX = {
    "all-gather": "shard it so the loop needs no gather, or gather once outside it",
    "all-reduce": (
        "keep the contracted dimension whole on each device, so no trip leaves partial "
        "sums to add, or add them once outside the loop"
    ),
    "reduce-scatter": (
        "keep the contracted dimension whole on each device, or reduce once outside the loop"
    ),
}


#: The log's words that :func:`warning_words` says in its own.
_SAID_AS_WARNINGS = ("Involuntary", "GSPMD sharding propagation", "Module has GSPMD attrs")


def _read_as_warning(line: str) -> bool:
    """Whether ``line`` of the log is said as a sharding warning already."""
    return any(words in line for words in _SAID_AS_WARNINGS)


def warning_words(warning: Mapping[str, Any]) -> str:
    """One warning of :func:`~hloscope.analysis.variants.sharding_warnings` in words: what,
    where, and the change that avoids it."""
    kind = warning.get("kind", "involuntary_remat")
    times = f" ({warning['count']} times)" if warning["count"] > 1 else ""
    if kind == "replicated_large":
        return (
            f"replicated on every device: {warning['where']}, {warning['shape']}, "
            f"{format_bytes(warning['bytes'])} per device; shard it: {warning['to']}"
        )
    if kind == "all_gather_in_loop":
        runs = warning.get("executions")
        total = f" x{runs} = {format_bytes(warning['bytes'] * runs)}" if runs else ""
        loop = f", the loop written at {warning['loop']}" if warning.get("loop") else ""
        return (
            f"{warning['op']} in a loop body at {warning['where']}{times}{loop}: "
            f"{format_bytes(warning['bytes'])} per iteration{total} ({warning['from']}); "
            f"{_LOOP_FIX.get(warning['op'], _LOOP_FIX['all-gather'])}"
        )
    if kind == "gspmd_fallback":
        return (
            f"Shardy turned off for the whole program{times}: the exported module at "
            f"{warning['where']} carries GSPMD's shardings (jax.export'ed with Shardy off); "
            f"{warning['to']}"
        )
    if kind == "gspmd_propagation":
        return (
            f"sharding propagated by GSPMD{times}, which XLA is to deprecate: use {warning['to']}"
        )
    src, dst = _spec_words(warning, "from"), _spec_words(warning, "to")
    return (
        f"involuntary full rematerialization at {warning['where']}{times}: XLA "
        f"replicates it to go from {src} to {dst}; "
        f"{_remat_fix(warning['from'], warning['to'], dst)}"
    )


def _spec_words(warning: Mapping[str, Any], key: str) -> str:
    """The warning's sharding ``key`` (``from``, ``to``: XLA's notation) as the spec a JAX
    user writes on the mesh it names (``spec_mesh``), else XLA's notation, saying why."""
    mesh = tuple((warning.get("spec_mesh") or {}).items())
    return sharding_words(warning[key], mesh)


def _remat_fix(src: str, dst: str, needed: str) -> str:
    """What avoids one involuntary rematerialization: the sharding it is needed in
    (``needed``: ``dst`` in a user's words), given where it is made; around an op held on
    one device (a host callback's ``{maximal device=0}``), the array whole on every device,
    which reaches that device and leaves it without a reshard."""
    if "maximal" in dst:
        return "give it P() (whole on every device) before the op that needs it on one device"
    if "maximal" in src:
        return "keep the one-device op's result P() (whole on every device) after it"
    return f"give it {needed} where it is made"


def proof_words(warning: Mapping[str, Any]) -> str:
    """`` (none in VARIANT)``: the warning's ``proven_by``, the best variant without it."""
    name = warning.get("proven_by")
    return f" (none in {name})" if name else " (none of the variants removes it)"


def _avoided(
    warning: Mapping[str, Any],
    result: Mapping[str, Any],
    rows: Mapping[str, Mapping[str, Any]],
) -> str:
    """`` (none in VARIANT)``: the best-ranked compiled variant without that warning."""
    if "proven_by" in warning:
        return proof_words(warning)
    for name in result["ranking"]:
        row = rows[name]
        places = {w["where"] for w in row.get("sharding_warnings") or []}
        if row["compiled"] and warning["where"] not in places:
            return f" (none in {name})"
    return ""
