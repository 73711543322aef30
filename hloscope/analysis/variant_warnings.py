"""Sharding warnings of one variant's compile, each placed and with what avoids it.

Three kinds (:class:`WarningKind`), one entry per place (``where``: the user's source line
from the op's metadata, an argument by its name, else the op's name):

* **involuntary_remat**: the SPMD partitioner's "Involuntary full rematerialization" log
  lines: the sharding the value had (``from``) and the one it was needed in (``to``);
* **replicated_large**: a large array held whole on every device of a multi-device slice
  (:func:`~hloscope.analysis.collectives.collectives_of`'s ``replicated_large``): its
  ``bytes`` per device, and ``to``, the spec that avoids it (its largest dimension split over
  the largest mesh axis that divides it);
* **all_gather_in_loop**: an all-gather (or all-reduce, reduce-scatter: ``op``) in a while
  body: its ``bytes`` per iteration and per device, and ``executions``, the product of the
  loops' trip counts (``None`` where one is not known).

:func:`proven_by` names, for each warning, the best-ranked compiled variant whose module no
longer has it: the variant that proves the fix.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..hlo.model import Module
from .collectives import CollectiveKind, collectives_of

__all__ = ["WarningKind", "log_warnings", "module_warnings", "proven_by", "spec_avoiding"]


class WarningKind(StrEnum):
    INVOLUNTARY_REMAT = "involuntary_remat"
    REPLICATED_LARGE = "replicated_large"
    ALL_GATHER_IN_LOOP = "all_gather_in_loop"


#: The collectives that move a whole array each trip when left in a loop body.
_LOOPED = frozenset(
    {CollectiveKind.ALL_GATHER, CollectiveKind.ALL_REDUCE, CollectiveKind.REDUCE_SCATTER}
)

_INVOLUNTARY = re.compile(
    r"Involuntary full rematerialization.*?go from sharding (?P<src>\{.*?\}) to "
    r"(?P<dst>\{.*?\})(?: efficiently)? (?:for|without doing a full rematerialization of the "
    r"tensor for) HLO operation:? (?P<op>%[\w.-]+) = (?P<rest>.*)"
)
_DIMS = re.compile(r"\[([\d,\s]*)\]")


def log_warnings(log: Sequence[str]) -> list[dict[str, Any]]:
    """The partitioner's "Involuntary full rematerialization" lines, one per place, with how
    many times the log said it (``count``)."""
    places: dict[str, dict[str, Any]] = {}
    for line in log:
        found = _INVOLUNTARY.search(line)
        if found is None:
            continue
        where = _where(found.group("op"), found.group("rest"))
        place = places.setdefault(
            where,
            {
                "kind": WarningKind.INVOLUNTARY_REMAT.value,
                "where": where,
                "from": found.group("src"),
                "to": found.group("dst"),
                "count": 0,
            },
        )
        place["count"] += 1
    return list(places.values())


def _where(op: str, rest: str) -> str:
    source = re.search(r'source_file="([^"]+)" source_line=(\d+)', rest)
    if source is not None:
        return f"{source.group(1)}:{source.group(2)}"
    name = re.search(r'op_name="([^"]+)"', rest)
    if " parameter(" in rest and name is not None:
        return f"argument {name.group(1)}"
    return name.group(1) if name is not None else op


def module_warnings(module: Module, mesh: Mapping[str, int] | None) -> list[dict[str, Any]]:
    """The replicated large arrays and the collectives in loop bodies of ``module`` (an
    optimized SPMD module); ``mesh`` names the axes for the spec that avoids the first."""
    found = collectives_of(module)
    axes = dict(mesh) if mesh else _named(found.mesh)
    out: list[dict[str, Any]] = []
    for array in found.replicated_large:
        name = array.op_name or array.name
        where = f"argument {name}" if array.role.value == "parameter" else f"output {name}"
        out.append(
            {
                "kind": WarningKind.REPLICATED_LARGE.value,
                "where": where,
                "from": "replicated",
                "to": spec_avoiding(array.shape, axes, array.devices),
                "count": 1,
                "shape": array.shape,
                "bytes": array.bytes,
                "devices": array.devices,
            }
        )
    places: dict[tuple[str, str], dict[str, Any]] = {}
    for c in found.collectives:
        if c.kind not in _LOOPED or " body x" not in c.where:
            continue
        where = c.source or c.op_name or c.name
        known = " x?" not in c.where
        place = places.setdefault(
            (c.kind.value, where),
            {
                "kind": WarningKind.ALL_GATHER_IN_LOOP.value,
                "op": c.kind.value,
                "where": where,
                "from": c.where,
                "to": "outside the loop",
                "count": 0,
                "bytes": 0,
                "executions": c.executions if known else None,
            },
        )
        place["count"] += 1
        place["bytes"] += c.bytes
    out += list(places.values())
    return out


def _named(mesh: Any) -> dict[str, int]:
    if mesh is None:
        return {}
    return dict(zip(mesh.names, mesh.shape, strict=True))


def spec_avoiding(shape: str, axes: Mapping[str, int], devices: int) -> str:
    """``P(None, 'data')``: the largest dimension of ``shape`` (HLO text) split over the
    largest mesh axis that divides it; over all ``devices`` when no axis is named."""
    found = _DIMS.search(shape)
    dims = [int(d) for d in found.group(1).split(",") if d.strip()] if found else []
    choices = axes.items() if axes else [("devices", devices)]
    for k in sorted(range(len(dims)), key=lambda k: -dims[k]):
        for axis, size in sorted(choices, key=lambda a: -a[1]):
            if size > 1 and dims[k] % size == 0:
                spec = ["None"] * len(dims)
                spec[k] = repr(axis)
                return f"P({', '.join(spec)})"
    return "no mesh axis divides its dimensions"


@functools.lru_cache(maxsize=32)
def read_module_warnings(path: str, mesh: tuple[tuple[str, int], ...]) -> tuple[dict, ...]:
    """:func:`module_warnings` of the module kept at ``path`` (a variant's cache entry, never
    rewritten: read once); ``()`` where it cannot be read."""
    from ..hlo.parser import parse

    try:
        text = Path(path).read_text()
    except OSError:
        return ()
    return tuple(module_warnings(parse(text), dict(mesh)))


def proven_by(
    warning: Mapping[str, Any], ranked: Sequence[Mapping[str, Any]], own: str
) -> str | None:
    """The first of ``ranked`` (variants' dicts, best first) other than ``own`` that compiled
    and whose warnings lack ``warning``'s kind at its place; a variant without its module
    read cannot say for the kinds read from the module."""
    from_log = warning.get("kind", WarningKind.INVOLUNTARY_REMAT) == WarningKind.INVOLUNTARY_REMAT
    for row in ranked:
        if row["name"] == own or not row.get("compiled"):
            continue
        if not from_log and not row.get("module_file"):
            continue
        places = {
            (w.get("kind", WarningKind.INVOLUNTARY_REMAT.value), w["where"])
            for w in row.get("sharding_warnings") or []
        }
        if (warning.get("kind", WarningKind.INVOLUNTARY_REMAT.value), warning["where"]) not in (
            places
        ):
            return str(row["name"])
    return None
