"""From a connected group of paired kernels to a :class:`KernelChange`.

The matcher decides which kernels of A and of B belong together; this module says what
happened to such a group: its :class:`ChangeStatus` (one kernel each side: unchanged or
changed; one in A and several in B: split; and so on), the opcodes it gained and lost, the
shapes that changed under paired ops, and the arrays that now pass through memory between
its kernels (:class:`MemoryEdge`; for a merge, those that no longer do); what each kernel
computes (``_compute``) and whether the two sides compute anything alike (``unrelated``);
and the group's source lines that only one side has (``replaced_a`` became ``replaced_b``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container

from ._compute import KernelCompute, compatible
from ._facts import _structure
from ._names import _LAYOUT, line_sort_key
from ._results import ChangeStatus, KernelChange, MemoryEdge
from ._sides import DiffSide, _data_source


class _ChangeBuilder:
    """Turns groups of kernels into changes, given the matcher's op pairs (``pair_a``: op
    index of A -> op index of B, or a negative number for an op left unpaired)."""

    def __init__(
        self,
        a: DiffSide,
        b: DiffSide,
        kernel_ops_a: list[list[int]],
        kernel_ops_b: list[list[int]],
        pair_a: list[int],
        computes: tuple[list[KernelCompute], list[KernelCompute]],
        line_pairs: dict[str, str],
    ) -> None:
        self.a, self.b = a, b
        self.kernel_ops_a, self.kernel_ops_b = kernel_ops_a, kernel_ops_b
        self.pair_a = pair_a
        self.compute_a, self.compute_b = computes
        self.line_pairs = line_pairs
        self.continued = set(line_pairs.values())

    def change(self, ka_list: list[int], kb_list: list[int]) -> KernelChange:
        ka_list, kb_list = sorted(ka_list), sorted(kb_list)
        a_kernels = [self.a.kernels[k] for k in ka_list]
        b_kernels = [self.b.kernels[k] for k in kb_list]
        ops_a = Counter(self.a.ops[i].opcode for k in ka_list for i in self.kernel_ops_a[k])
        ops_b = Counter(self.b.ops[j].opcode for k in kb_list for j in self.kernel_ops_b[k])
        shape_changes = self._shape_changes(ka_list, kb_list)
        status: ChangeStatus
        if not a_kernels:
            status = ChangeStatus.ADDED
        elif not b_kernels:
            status = ChangeStatus.REMOVED
        elif len(a_kernels) == 1 and len(b_kernels) == 1:
            same_structure = _structure(a_kernels[0]) == _structure(b_kernels[0])
            same = ops_a == ops_b and not shape_changes and same_structure
            status = ChangeStatus.UNCHANGED if same else ChangeStatus.CHANGED
        elif len(a_kernels) == 1:
            status = ChangeStatus.SPLIT
        elif len(b_kernels) == 1:
            status = ChangeStatus.MERGED
        else:
            status = ChangeStatus.REGROUPED
        through: list[MemoryEdge] = []
        if status in (ChangeStatus.SPLIT, ChangeStatus.REGROUPED):
            # The arrays between B's kernels, now written to memory and read back.
            through = _memory_edges(self.b, kb_list)
        elif status is ChangeStatus.MERGED:
            # The arrays between A's kernels that no longer leave the kernel.
            through = _memory_edges(self.a, ka_list)
        return KernelChange(
            status,
            a_kernels,
            b_kernels,
            ops_added=dict(sorted((ops_b - ops_a).items())),
            ops_removed=dict(sorted((ops_a - ops_b).items())),
            shape_changes=shape_changes,
            through_memory=through,
            computes_a=[self.compute_a[k].label for k in ka_list],
            computes_b=[self.compute_b[k].label for k in kb_list],
            unrelated=self._unrelated(ka_list, kb_list),
            replaced_a=self._lines(self.a, self.kernel_ops_a, ka_list, self.line_pairs),
            replaced_b=self._lines(self.b, self.kernel_ops_b, kb_list, self.continued),
        )

    def _unrelated(self, ka_list: list[int], kb_list: list[int]) -> bool:
        """Whether a kernel of one side computes nothing like any kernel of the other."""
        if not ka_list or not kb_list:
            return False
        ca = [self.compute_a[k] for k in ka_list]
        cb = [self.compute_b[k] for k in kb_list]
        return any(not any(compatible(x, y) for y in cb) for x in ca) or any(
            not any(compatible(x, y) for x in ca) for y in cb
        )

    @staticmethod
    def _lines(
        side: DiffSide, kernel_ops: list[list[int]], kernels: list[int], known: Container[str]
    ) -> list[str]:
        """The source lines of the kernels' ops that the other side has no counterpart of
        (``known``: the lines that continue, or are continued, across the two sides)."""
        found: dict[str, None] = {}
        for k in kernels:
            for i in kernel_ops[k]:
                where = side.ops[i].where
                if where and where not in known:
                    found[where] = None
        return sorted(found, key=line_sort_key)

    def _shape_changes(self, ka_list: list[int], kb_list: list[int]) -> list[tuple[str, str, int]]:
        kb_set = set(kb_list)
        changes: Counter[tuple[str, str]] = Counter()
        for k in ka_list:
            for i in self.kernel_ops_a[k]:
                j = self.pair_a[i]
                if j >= 0 and self.b.ops[j].kernel in kb_set:
                    sa, sb = self.a.ops[i].shape, self.b.ops[j].shape
                    if sa != sb:
                        changes[(sa, sb)] += 1
        if not changes and len(ka_list) == 1 and len(kb_list) == 1:
            # Without op shapes (a side built from a report) the kernel's own shape still tells.
            sa, sb = (
                _LAYOUT.sub("", self.a.kernels[ka_list[0]].shape),
                _LAYOUT.sub("", self.b.kernels[kb_list[0]].shape),
            )
            if sa != sb and not self.a.ops[self.kernel_ops_a[ka_list[0]][0]].shape:
                changes[(sa, sb)] += 1
        return [
            (sa, sb, n) for (sa, sb), n in sorted(changes.items(), key=lambda kv: (-kv[1], kv[0]))
        ]


def _memory_edges(side: DiffSide, kernels: list[int]) -> list[MemoryEdge]:
    """Arrays that one of ``kernels`` writes and another of them reads."""
    from ...hlo.shape import parse_shape

    insts = [side.instructions[k] for k in kernels]
    names = {inst.name for inst in insts if inst is not None}
    seen: set[tuple[str, str]] = set()
    out: list[MemoryEdge] = []
    for inst in insts:
        if inst is None:
            continue
        for operand in inst.operands:
            source = _data_source(operand)
            if source.name not in names or source is inst or (source.name, inst.name) in seen:
                continue
            seen.add((source.name, inst.name))
            text = _LAYOUT.sub("", operand.shape_text)
            try:
                size = parse_shape(operand.shape_text).byte_size
            except Exception:  # noqa: BLE001 - an odd shape still names the edge
                size = 0
            out.append(MemoryEdge(source.name, inst.name, text, size))
    return out
