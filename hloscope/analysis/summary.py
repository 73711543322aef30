"""A one-screen summary of a module: what is in it, how big its inputs are, where it came from.

This is what ``hloscope summary`` prints. It reads only the parsed model (no jax, no
tensorflow), so it runs anywhere a text file can be read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field

from ..hlo.gc_pause import gc_paused
from ..hlo.model import Module
from ..hlo.opcodes import category_of

__all__ = ["ModuleSummary", "ParameterInfo", "summarize"]

_NO_LOCATION = (0, "", 0)  # what Instruction.location says of an op without metadata
# XLA numbers every fifth element of a long tuple shape for the reader of its own printout,
# (a, b, c, d, e, /*index=5*/f): a summary shows the shape, not the printer's bookmarks.
_INDEX_COMMENT = re.compile(r"/\*index=\d+\*/")


def _shape_without_index_comments(shape_text: str) -> str:
    return _INDEX_COMMENT.sub("", shape_text) if "/*" in shape_text else shape_text


@dataclass(slots=True)
class ParameterInfo:
    """An entry parameter: number, name, shape and size in bytes (None if unbounded)."""

    number: int | None
    name: str
    shape: str
    bytes: int | None


@dataclass(slots=True)
class ModuleSummary:
    """Counts and highlights of one module (see :func:`summarize`)."""

    name: str
    entry: str
    computations: int
    fused_computations: int
    instructions: int
    instructions_outside_fusions: int
    by_category: dict[str, int]
    by_opcode: dict[str, int]
    fusions_by_kind: dict[str, int]
    parameters: list[ParameterInfo]
    parameter_bytes: int
    output_shape: str
    output_bytes: int | None
    custom_call_targets: dict[str, int]
    source_files: dict[str, int]
    unknown_opcodes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@gc_paused
def summarize(module: Module) -> ModuleSummary:
    """Summarize ``module``: counts by category and opcode, fusions by kind, entry parameters
    with shapes and bytes, custom-call targets, and the source files its ops came from."""
    fused = {c.name for c in module.fusion_computations()}
    counts = _OpCounts.of(module, fused)
    by_category, unknown = _categories(counts.by_opcode)
    entry = module.entry
    params = _parameters(module)
    param_bytes = sum(p.bytes or 0 for p in params)
    root = entry.root if entry is not None else None
    return ModuleSummary(
        name=module.name,
        entry=entry.name if entry is not None else "",
        computations=len(module.computations),
        fused_computations=len(fused),
        instructions=counts.total,
        instructions_outside_fusions=counts.outside,
        by_category=dict(by_category.most_common()),
        by_opcode=dict(counts.by_opcode.most_common()),
        fusions_by_kind=dict(counts.fusions.most_common()),
        parameters=params,
        parameter_bytes=param_bytes,
        output_shape=_shape_without_index_comments(root.shape_text) if root is not None else "",
        output_bytes=root.shape.byte_size if root is not None else None,
        custom_call_targets=dict(counts.targets.most_common()),
        source_files=dict(_source_files(module, counts.locations).most_common()),
        unknown_opcodes=sorted(unknown),
        warnings=list(module.warnings),
    )


@dataclass(slots=True)
class _OpCounts:
    """One pass over a module's computations: ops by opcode, fusions by kind, custom-call
    targets, ops per source location, and how many ops there are, outside fusions too."""

    by_opcode: Counter[str] = field(default_factory=Counter)
    fusions: Counter[str] = field(default_factory=Counter)
    targets: Counter[str] = field(default_factory=Counter)
    locations: Counter[tuple[int, str, int]] = field(default_factory=Counter)
    total: int = 0
    outside: int = 0

    @classmethod
    def of(cls, module: Module, fused: set[str]) -> _OpCounts:
        # Counting in C where a per-op Python loop would take a second on a 400k-instruction
        # module; the category of an op is its opcode's, so counted per opcode. Opcodes and
        # locations come from Computation.opcode_counts()/location_counts(), which count a
        # body the parser has not built into Instructions yet without building it (nor reading
        # it, where a forked child of the parse counted it); only computations holding a
        # fusion or a custom call are built, for their attributes.
        counts = cls()
        for comp in module.computations:
            opcodes = comp.opcode_counts()
            size = opcodes.total()
            counts.total += size
            if comp.name not in fused:
                counts.outside += size
            counts.by_opcode.update(opcodes)
            counts.locations.update(comp.location_counts())
            if "fusion" not in opcodes and "custom-call" not in opcodes:
                continue
            for inst in comp.instructions:
                opcode = inst.opcode
                if opcode == "fusion":
                    counts.fusions[inst.fusion_kind or "?"] += 1
                elif opcode == "custom-call":
                    target = inst.attrs.get("custom_call_target")
                    counts.targets[str(target) if target is not None else "?"] += 1
        return counts


def _categories(by_opcode: Counter[str]) -> tuple[Counter[str], set[str]]:
    """Ops by category, and the opcodes of no known category."""
    by_category: Counter[str] = Counter()
    unknown: set[str] = set()
    for opcode, count in by_opcode.items():
        category = category_of(opcode)
        by_category[category] += count
        if category == "unknown":
            unknown.add(opcode)
    return by_category, unknown


def _source_files(module: Module, locations: Counter[tuple[int, str, int]]) -> Counter[str]:
    """Ops per source file (the first frame's file where a stack frame is given)."""
    files: Counter[str] = Counter()
    locations.pop(_NO_LOCATION, None)
    # Thousands of ops share a location: resolve each one (frame table, file) once.
    for (frame_id, file, _), count in locations.items():
        frames = module.stack_frames(frame_id) if frame_id else None
        file = frames[0].file if frames else file
        if file:
            files[file] += count
    return files


def _parameters(module: Module) -> list[ParameterInfo]:
    """The entry's parameters with their shapes (index comments left out) and bytes."""
    entry = module.entry
    if entry is None:
        return []
    return [
        ParameterInfo(
            p.parameter_number,
            p.name,
            _shape_without_index_comments(p.shape_text),
            p.shape.byte_size,
        )
        for p in entry.parameters
    ]
