"""The diff turned around by source line: for each line whose ops moved, where they went.

:func:`line_pairs` pairs each line of A with the line of B it became, one to one, by what
the line is (``_line_pairing``: function, code text, op names; a moved line is followed),
and :func:`_line_changes` compares the kernels the line's ops are in on each side and
the other lines they share those kernels with: more or fewer kernels, separated from or
joined with other lines, or both (:class:`LineChange`, :class:`LineStatus`). Lines only one
side has are added or removed.
"""

from __future__ import annotations

from ._line_pairing import pair_lines, source_lines
from ._names import line_sort_key
from ._results import ChangeStatus, KernelChange, LineChange, LineStatus
from ._sides import DiffSide


def _line_changes(
    a: DiffSide, b: DiffSide, to_b: dict[str, str], changes: list[KernelChange]
) -> list[LineChange]:
    """The lines of A and B whose ops are grouped differently, in source order (``to_b``:
    :func:`line_pairs`)."""
    lines_a = _lines(a)
    lines_b = _lines(b)
    reached = set(to_b.values())
    unchanged_a = {k.name for c in changes if c.status is ChangeStatus.UNCHANGED for k in c.a}
    table_a, table_b = _kernel_lines(a), _kernel_lines(b)

    out: list[LineChange] = []
    for la, (n_a, kernels_a) in lines_a.items():
        lb = to_b.get(la)
        names_a = [a.kernels[k].name for k in kernels_a]
        if lb is None:
            if not all(n in unchanged_a for n in names_a):
                out.append(LineChange(la, "", n_a, 0, names_a, [], LineStatus.REMOVED))
            continue
        n_b, kernels_b = lines_b[lb]
        names_b = [b.kernels[k].name for k in kernels_b]
        before = {to_b[x] for x in _companions(table_a, la, kernels_a) if x in to_b} - {lb}
        after = set(_companions(table_b, lb, kernels_b))
        separated, joined = sorted(before - after), sorted(after - before)
        if len(kernels_b) > len(kernels_a):
            status = LineStatus.MORE_KERNELS
        elif len(kernels_b) < len(kernels_a):
            status = LineStatus.FEWER_KERNELS
        elif separated and joined:
            status = LineStatus.REGROUPED
        elif separated:
            status = LineStatus.SEPARATED
        elif joined:
            status = LineStatus.JOINED
        else:
            continue
        out.append(LineChange(la, lb, n_a, n_b, names_a, names_b, status, separated, joined))
    for lb, (n_b, kernels_b) in lines_b.items():
        if lb not in reached:
            names_b = [b.kernels[k].name for k in kernels_b]
            out.append(LineChange("", lb, 0, n_b, [], names_b, LineStatus.ADDED))
    out.sort(key=lambda r: line_sort_key(r.source_b or r.source_a))
    return out


def line_pairs(a: DiffSide, b: DiffSide) -> dict[str, str]:
    """Each source line of A that continues in B, and the line of B it became
    (:func:`._line_pairing.pair_lines`: one to one, by function, code text and op names)."""
    return pair_lines(
        source_lines(_op_names(a), a.source_files), source_lines(_op_names(b), b.source_files)
    )


def _op_names(side: DiffSide) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for op in side.ops:
        if op.where:
            names.setdefault(op.where, set()).update((op.name,) if op.name else ())
    return names


def _lines(side: DiffSide) -> dict[str, tuple[int, list[int]]]:
    """For each source line, its op count and the kernels its ops are in (in kernel order)."""
    ops_per: dict[str, int] = {}
    kernels: dict[str, dict[int, None]] = {}
    for op in side.ops:
        if op.where:
            ops_per[op.where] = ops_per.get(op.where, 0) + 1
            kernels.setdefault(op.where, {})[op.kernel] = None
    ordered = sorted(ops_per, key=line_sort_key)
    return {w: (ops_per[w], sorted(kernels[w])) for w in ordered}


def _kernel_lines(side: DiffSide) -> dict[int, list[str]]:
    """For each kernel, the source lines of its ops (first seen first)."""
    table: dict[int, dict[str, None]] = {}
    for op in side.ops:
        if op.where:
            table.setdefault(op.kernel, {})[op.where] = None
    return {k: list(v) for k, v in table.items()}


def _companions(table: dict[int, list[str]], where: str, kernels: list[int]) -> list[str]:
    """Other source lines with ops in the same kernels as ``where``'s."""
    found: dict[str, None] = {}
    for k in kernels:
        for w in table.get(k, ()):
            if w != where:
                found[w] = None
    return list(found)
