"""Sharding warnings of one variant's compile, each placed and with what avoids it.

The kinds (:class:`WarningKind`), one entry per place (``where``: the user's source line
from the op's metadata, an argument by its name, else the op's name):

* **involuntary_remat**: the SPMD partitioner's "Involuntary full rematerialization" log
  lines: the sharding the value had (``from``) and the one it was needed in (``to``), in
  XLA's notation, and beside them as the ``PartitionSpec`` a JAX user writes (``from_spec``,
  ``to_spec``: ``P(None, 'x', None)``; ``None`` where no spec over the mesh gives it, see
  :mod:`~hloscope.hlo.partition_spec`) on ``spec_mesh``, the mesh they name (the variant's,
  else the script's own, else the module's where the script's axis names fit it; ``None``:
  not known);
* **gspmd_propagation**: XLA's sharding propagation saying the program was propagated by
  GSPMD, which is to be deprecated (JAX's ``jax_use_shardy_partitioner`` turned off);
* **gspmd_fallback**: XLA turning Shardy off for a whole program because part of it carries
  GSPMD's shardings: a module ``jax.export`` made with Shardy off, called under Shardy
  (placed at each ``call_exported``: the call's line, else the exported function's);
* **replicated_large**: a large array held whole on every device of a multi-device slice
  (:func:`~hloscope.analysis.collectives.collectives_of`'s ``replicated_large``): its
  ``bytes`` per device, and ``to``, the spec that avoids it (its largest dimension split over
  the largest mesh axis that divides it);
* **all_gather_in_loop**: an all-gather (or all-reduce, reduce-scatter: ``op``) in a while
  body, XLA:TPU's fused ones included (an all-reduce fused with the slice after it, an
  async collective fusion: as :func:`~hloscope.analysis.collectives.find_collectives`
  finds them, each once): its
  ``bytes`` per iteration and per device, ``executions``, the product of the loops' trip
  counts (``None`` where one is not known), and ``loop``, the line of the innermost loop
  (the ``jax.lax.scan`` or ``fori_loop`` call).

The log's lines are read by the tokens XLA has kept across its wordings (``[spmd] ... was not
able to go from sharding A to B without doing a full rematerialization of the tensor for HLO
operation: %op = ...`` before 2025, ``[SPMD] ... cannot go from sharding A to B efficiently
for HLO operation %op = ...`` in libtpu 0.0.42), not whole sentences. A line's op is placed by
its own metadata (``source_file``/``source_line``, or ``stack_frame_id`` resolved in the
variant's optimized module, whose frame table the compile keeps), else as the argument it is,
else by the module's instruction with the same ``op_name``.

:func:`proven_by` names, for each warning, the best-ranked compiled variant whose module no
longer has it: the variant that proves the fix.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..hlo.attributes import value_end
from ..hlo.attributes.sharding import decode_sharding
from ..hlo.errors import DecodeError
from ..hlo.model import Instruction, Module
from ..hlo.partition_spec import spec_of
from ..hlo.placement import Placement, Role
from .collectives import Collective, CollectiveKind, collectives_of, infer_mesh
from .provenance import source_of

__all__ = [
    "LOG_KINDS",
    "WarningKind",
    "log_warnings",
    "module_warnings",
    "proven_by",
    "read_module",
    "read_module_warnings",
    "spec_avoiding",
]


class WarningKind(StrEnum):
    INVOLUNTARY_REMAT = "involuntary_remat"
    GSPMD_PROPAGATION = "gspmd_propagation"
    GSPMD_FALLBACK = "gspmd_fallback"
    REPLICATED_LARGE = "replicated_large"
    ALL_GATHER_IN_LOOP = "all_gather_in_loop"


#: The kinds read from the compile's log; the others are read from its optimized module.
LOG_KINDS = frozenset(
    {WarningKind.INVOLUNTARY_REMAT, WarningKind.GSPMD_PROPAGATION, WarningKind.GSPMD_FALLBACK}
)

#: The collectives that move a whole array each trip when left in a loop body.
_LOOPED = frozenset(
    {CollectiveKind.ALL_GATHER, CollectiveKind.ALL_REDUCE, CollectiveKind.REDUCE_SCATTER}
)

_INVOLUNTARY = "Involuntary full rematerialization"
#: ``from sharding {A} to {B}``: each sharding read up to its matching brace.
_FROM = re.compile(r"go from sharding (?=\{)")
_OPERATION = re.compile(r"HLO operation:? (?P<op>%[\w.-]+) = ")
#: XLA's sharding_propagation.cc (libtpu 0.0.42: line 3132), once per propagation pass.
_GSPMD = "GSPMD sharding propagation is going to be deprecated"
#: The setting that avoids GSPMD: Shardy, JAX's default partitioner.
SHARDY = "jax.config.update('jax_use_shardy_partitioner', True)"
#: XLA's mlir_to_hlo.cc (jaxlib 0.10.2: line 111): Shardy off for a module with GSPMD's
#: shardings in it.
_FALLBACK = "Module has GSPMD attrs or ops, but Shardy is enabled"
#: The op name JAX gives the call of an exported module (``jit(f)/call_exported/...``).
_EXPORTED = re.compile(r"^(.*?/call_exported)(?:/|$)")
_DIMS = re.compile(r"\[([\d,\s]*)\]")


def log_warnings(
    log: Sequence[str],
    module: Module | None = None,
    mesh: Mapping[str, int] | None = None,
    axis_names: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The partitioner's and sharding propagation's lines of a compile's ``log``, one entry
    per kind and place, with how many times the log said it (``count``); ``module`` (the
    variant's optimized module) places an op its line gives no source line for. A
    rematerialization's shardings are also given as specs on ``mesh`` (its axes in the
    mesh's order), else on ``module``'s mesh named by ``axis_names`` (the script's mesh's)."""
    remat = any(_INVOLUNTARY in line for line in log)
    axes = _spec_mesh(mesh, module, axis_names) if remat else ()
    places: dict[tuple[str, str], dict[str, Any]] = {}
    for line in log:
        for found in _read_line(line, module, axes):
            place = places.setdefault((found["kind"], found["where"]), found)
            place["count"] += 1
    return list(places.values())


def _spec_mesh(
    mesh: Mapping[str, int] | None, module: Module | None, axis_names: Sequence[str]
) -> tuple[tuple[str, int], ...]:
    """The mesh the specs name: ``mesh``, else ``module``'s (as its shardings' device lists
    give it, axes of one device left out) where ``axis_names`` name as many axes; ``()``:
    not known (the names cannot be guessed: a ``P('axis_0')`` is no spec the user wrote)."""
    if mesh:
        return tuple((str(name), int(size)) for name, size in mesh.items())
    found = infer_mesh(module) if module is not None and axis_names else None
    if found is None or len(found.shape) != len(axis_names):
        return ()
    return tuple(zip(axis_names, found.shape, strict=True))


def _read_line(
    line: str, module: Module | None, mesh: tuple[tuple[str, int], ...]
) -> list[dict[str, Any]]:
    if _GSPMD in line:
        where = "sharding propagation (GSPMD)"
        return [_entry(WarningKind.GSPMD_PROPAGATION, where, "GSPMD", f"Shardy: {SHARDY}")]
    if _FALLBACK in line:
        to = "export it again with Shardy on"
        return [
            _entry(WarningKind.GSPMD_FALLBACK, where, "GSPMD", to)
            for where in _exported_calls(module) or ["the program"]
        ]
    found = _involuntary(line, module)
    return [] if found is None else [_with_specs(found, mesh)]


def _exported_calls(module: Module | None) -> list[str]:
    """Where ``module`` calls an exported module: per call (its op name up to
    ``call_exported``), the source of the call's own op, else of the first op inside it."""
    if module is None:
        return []
    calls: dict[str, tuple[bool, str]] = {}
    for computation in module.computations:
        for inst in computation.instructions:
            call = _EXPORTED.match(inst.op_name)
            source = source_of(inst.stack, inst.op_name, module.name) if call else ""
            if call is None or not source:
                continue
            own = inst.op_name == call.group(1)
            if call.group(1) not in calls or (own and not calls[call.group(1)][0]):
                calls[call.group(1)] = (own, source)
    return list(dict.fromkeys(source for _, source in calls.values()))


def _involuntary(line: str, module: Module | None) -> dict[str, Any] | None:
    if _INVOLUNTARY not in line:
        return None
    start = _FROM.search(line)
    if start is None:
        return None
    src = _braced(line, start.end())
    rest = line[start.end() + len(src or "") :]
    to = re.match(r" to (?=\{)", rest)
    dst = _braced(rest, to.end()) if src is not None and to is not None else None
    if src is None or to is None or dst is None:
        return None
    operation = _OPERATION.search(rest, to.end() + len(dst))
    if operation is None:
        return None
    after = rest[operation.end() :]
    where = _where(operation.group("op"), after, module)
    return _entry(WarningKind.INVOLUNTARY_REMAT, where, src, dst)


def _with_specs(entry: dict[str, Any], mesh: tuple[tuple[str, int], ...]) -> dict[str, Any]:
    """``entry`` with its ``from`` and ``to`` as specs on ``mesh`` (``spec_mesh``)."""
    for key in ("from", "to"):
        try:
            entry[f"{key}_spec"] = spec_of(decode_sharding(entry[key], None), mesh)
        except DecodeError:  # a form this version does not read: XLA's text is all there is
            entry[f"{key}_spec"] = None
    entry["spec_mesh"] = dict(mesh) if mesh else None
    return entry


def _entry(kind: WarningKind, where: str, src: str, dst: str) -> dict[str, Any]:
    return {"kind": kind.value, "where": where, "from": src, "to": dst, "count": 0}


def _braced(text: str, start: int) -> str | None:
    """The ``{...}`` at ``start`` of ``text``, to its matching brace (a sharding holds braces:
    a tuple's, its metadata's); ``None`` where the line ends first."""
    try:
        return text[start : value_end(text, start)]
    except DecodeError:
        return None


def _where(op: str, rest: str, module: Module | None) -> str:
    source = re.search(r'source_file="([^"]+)" source_line=(\d+)', rest)
    if source is not None:
        return f"{source.group(1)}:{source.group(2)}"
    name = re.search(r'op_name="([^"]+)"', rest)
    op_name = name.group(1) if name is not None else ""
    frame = re.search(r"stack_frame_id=(\d+)", rest)
    if frame is not None and module is not None:
        placed = source_of(module.stack_frames(int(frame.group(1))), op_name, module.name)
        if placed:
            return placed
    if " parameter(" in rest.partition(", metadata=")[0] and op_name:
        return f"argument {op_name}"
    same = _named_op(module, op_name) if module is not None and op_name else None
    if same is not None and same.source is not None:
        return source_of(same.stack, op_name, module.name if module else "")
    return op_name or op


def _named_op(module: Module, op_name: str) -> Instruction | None:
    """The first instruction of ``module`` with the metadata ``op_name`` and a source."""
    for computation in module.computations:
        for inst in computation.instructions:
            if inst.op_name == op_name and inst.source is not None:
                return inst
    return None


def module_warnings(
    module: Module, mesh: Mapping[str, int] | None, axis_names: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The replicated large arrays and the collectives in loop bodies of ``module`` (an
    optimized SPMD module); ``mesh`` names the axes for the spec that avoids the first, else
    ``axis_names`` (the script's own mesh's) name the module's axes of more than one device,
    in order, where there are as many."""
    found = collectives_of(module)
    axes = dict(mesh) if mesh else _named(found.mesh, axis_names)
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
    places: dict[tuple[str, str, str], dict[str, Any]] = {}
    for kind, where, placement, moved in _in_loops(found.collectives, module):
        path = _path_words(placement)
        # One entry per line and loop: a forward scan's gather and its backward's are two.
        place = places.setdefault(
            (kind, where, path),
            {
                "kind": WarningKind.ALL_GATHER_IN_LOOP.value,
                "op": kind,
                "where": where,
                "loop": _loop_source(placement, module),
                "from": path,
                "to": "outside the loop",
                "count": 0,
                "bytes": 0,
                "executions": None if " x?" in path else placement.executions,
            },
        )
        place["count"] += 1
        place["bytes"] += moved
    out += list(places.values())
    return out


def _in_loops(
    collectives: Sequence[Collective], module: Module
) -> Iterator[tuple[str, str, Placement, int]]:
    """``(op, where, placement, bytes)`` of each collective of ``collectives`` (each listed
    once, XLA:TPU's fused ones included: see
    :func:`~hloscope.analysis.collectives.find_collectives`) that moves a whole array in a
    while body. Its place is its source, else the loop's line and the kernel that runs it."""
    for c in collectives:
        placement = c.placement
        if c.kind not in _LOOPED or placement is None:
            continue
        if not any(step.role is Role.BODY for step in placement.path):
            continue
        # A kernel of its own is named by its op where it has no source (as before fused
        # ones were found); a fused one by its loop and kernel.
        source = c.source or ("" if c.fusion else c.op_name)
        if not source:
            loop = _loop_source(placement, module)
            kernel = c.fusion or c.name
            source = f"{loop} ({kernel})" if loop else kernel
        yield c.kind.value, source, placement, c.bytes


def _loop_source(placement: Placement, module: Module) -> str:
    """Where the innermost loop around ``placement`` was written: the ``while``'s own source
    (a ``jax.lax.scan``'s or ``fori_loop``'s line; ``""`` where it has none)."""
    bodies = [step.instruction for step in placement.path if step.role is Role.BODY]
    return source_of(bodies[-1].stack, bodies[-1].op_name, module.name) if bodies else ""


def _path_words(placement: Placement) -> str:
    """``while.9 body x6``: the loops around ``placement``, as collectives_of writes them."""
    parts = []
    for step in placement.path:
        known = "?" if step.trip_count is None else step.trip_count
        trips = f" x{known}" if step.in_loop else ""
        branch = f" {step.branch}" if step.role is Role.BRANCH else ""
        parts.append(f"{step.instruction.name} {step.role.value}{branch}{trips}")
    return " > ".join(parts)


def _named(mesh: Any, axis_names: Sequence[str]) -> dict[str, int]:
    """The module's mesh by axis: XLA names them ``axis_0``, ``axis_1``... (and keeps axes of
    one device), the script's names where they match its axes of more than one device."""
    if mesh is None:
        return {}
    sizes = dict(zip(mesh.names, mesh.shape, strict=True))
    split = [size for size in sizes.values() if size > 1]
    if axis_names and len(split) == len(axis_names):
        return dict(zip(axis_names, split, strict=True))
    return sizes


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


def read_module(path: str) -> Module | None:
    """The module kept at ``path`` (a variant's cache entry, never rewritten: parsed once);
    ``None`` where it cannot be read, which is not remembered: another ``try`` may be moving
    the same entry into place."""
    try:
        return _parsed(path)
    except OSError:
        return None


@functools.lru_cache(maxsize=8)
def _parsed(path: str) -> Module:
    from ..hlo.parser import parse

    return parse(Path(path).read_text())


def read_module_warnings(
    path: str, mesh: tuple[tuple[str, int], ...], axis_names: tuple[str, ...] = ()
) -> tuple[dict, ...]:
    """:func:`module_warnings` of the module kept at ``path``; ``()`` where it cannot be
    read."""
    try:
        return _module_warnings(path, mesh, axis_names)
    except OSError:
        return ()


@functools.lru_cache(maxsize=32)
def _module_warnings(
    path: str, mesh: tuple[tuple[str, int], ...], axis_names: tuple[str, ...]
) -> tuple[dict, ...]:
    return tuple(module_warnings(_parsed(path), dict(mesh), axis_names))


def proven_by(
    warning: Mapping[str, Any], ranked: Sequence[Mapping[str, Any]], own: str
) -> str | None:
    """The first of ``ranked`` (variants' dicts, best first) other than ``own`` that compiled
    and whose warnings lack ``warning``'s kind (and collective) at its place; a variant
    without its module read cannot say for the kinds read from the module."""
    from_log = warning.get("kind", WarningKind.INVOLUNTARY_REMAT) in LOG_KINDS
    for row in ranked:
        if row["name"] == own or not row.get("compiled"):
            continue
        if not from_log and not row.get("module_file"):
            continue
        if _key(warning) not in {_key(w) for w in row.get("sharding_warnings") or []}:
            return str(row["name"])
    return None


def _key(warning: Mapping[str, Any]) -> tuple[str, str, str]:
    """What a warning is across variants: its kind, its collective and its place (a loop's
    name is each module's own: left out)."""
    kind = warning.get("kind", WarningKind.INVOLUNTARY_REMAT.value)
    return (kind, warning.get("op") or "", warning["where"])
