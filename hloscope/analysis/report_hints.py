"""What the numbers suggest looking at: the report summary's hints, each with its evidence.

The decisions are made here, in analysis, and the page only shows them: which hints a module
gets, their thresholds and their words. Every hint is computed from the fusion report's own
numbers (and the recompiles ledger), for any module, by a rule with a documented threshold;
a hint whose rule finds nothing is left out, so a small clean module gets none. The rules:

* **memory-bound kernels** (:data:`MEMORY_BOUND_INTENSITY`, :data:`HEAVY_SHARE`): the kernels
  doing fewer than 1 FLOP per byte they move -- below the ridge point of every CPU, GPU and TPU
  (a few to a few hundred FLOP/B), so memory bandwidth bounds them anywhere -- when together
  they move at least a quarter of the module's bytes; the :data:`MAX_EVIDENCE` heaviest are
  named. Moving fewer bytes (fusing them into a neighbour, a narrower dtype) is what makes
  them faster;
* **unfused elementwise chains**: elementwise ops left as kernels of their own (the fusion
  summary's ``unfused_elementwise``), grouped into chains where one feeds the next; each reads
  its operands from memory and writes its result back;
* **loops dominating the executed FLOPs** (:data:`LOOP_SHARE`): a loop body whose kernels,
  times the loop's trip counts, do at least half of the FLOPs one run of the module executes;
* **recompiles**: the functions of the target that compiled more than once
  (:func:`recompiled_functions`: JAX's eager-op modules are left out,
  :attr:`FunctionLedger.internal`), with the causes of their compiles.

Evidence values are the fusion report's numbers, unformatted (bytes, FLOPs, shares), so the
page formats them and tests compare them with the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..hlo.opcodes import category_of
from .fusions import FusionReport, Kernel

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Module
    from .recompiles import FunctionLedger, Ledger

__all__ = [
    "HintKind",
    "Hint",
    "hints",
    "recompiled_functions",
    "MEMORY_BOUND_INTENSITY",
    "HEAVY_SHARE",
    "LOOP_SHARE",
    "MAX_EVIDENCE",
]

#: FLOPs per byte below which a kernel is memory-bound on any device (ridge points are higher).
MEMORY_BOUND_INTENSITY = 1.0
#: The least share of the module's bytes the memory-bound kernels together must move.
HEAVY_SHARE = 0.25
#: The least share of the executed FLOPs a loop body must do to be named.
LOOP_SHARE = 0.5
#: The most kernels, chains or functions one hint names.
MAX_EVIDENCE = 3


class HintKind(StrEnum):
    MEMORY_BOUND = "memory_bound"
    UNFUSED_CHAIN = "unfused_elementwise"
    LOOP_FLOPS = "loop_flops"
    RECOMPILES = "recompiles"


@dataclass(slots=True)
class Hint:
    """One thing worth a look: ``title`` says what and what to do, ``evidence`` the numbers
    that say so (one dict per kernel, chain, loop or function)."""

    kind: HintKind
    title: str
    evidence: list[dict[str, Any]] = field(default_factory=list)


def hints(
    report: FusionReport, module: Module | None = None, ledger: Ledger | None = None
) -> list[Hint]:
    """The hints of one report (see the module docstring); ``module`` links unfused ops into
    chains (without it each op is its own), ``ledger`` is the target's recompiles ledger."""
    found = [
        _memory_bound(report),
        _unfused_chains(report, module),
        _loop_flops(report),
        _recompiles(recompiled_functions(ledger) if ledger is not None else []),
    ]
    return [hint for hint in found if hint is not None]


def _memory_bound(report: FusionReport) -> Hint | None:
    total = report.summary.bytes
    if total <= 0:
        return None
    heavy = [
        k
        for k in report.kernels
        if k.cost.bytes_accessed > 0
        and k.cost.flops < MEMORY_BOUND_INTENSITY * k.cost.bytes_accessed
    ]
    heavy.sort(key=lambda k: -k.cost.bytes_accessed)
    if sum(k.cost.bytes_accessed for k in heavy) < HEAVY_SHARE * total:
        return None
    evidence = [
        {
            "kernel": k.name,
            "bytes": k.cost.bytes_accessed,
            "share": k.cost.bytes_accessed / total,
            "flops": k.cost.flops,
            "intensity": k.cost.flops / k.cost.bytes_accessed,
            "source": k.source,
        }
        for k in heavy[:MAX_EVIDENCE]
    ]
    moved = sum(k.cost.bytes_accessed for k in heavy) / total
    title = (
        f"{len(heavy)} memory-bound kernel{'s' if len(heavy) != 1 else ''} (under "
        f"{MEMORY_BOUND_INTENSITY:g} FLOP per byte) move{'s' if len(heavy) == 1 else ''} "
        f"{moved:.0%} of the bytes; the heaviest below run as fast as memory allows, so moving "
        "fewer bytes (fusing them with a neighbour, a narrower dtype) is what speeds them up"
    )
    return Hint(HintKind.MEMORY_BOUND, title, evidence)


def _is_unfused_elementwise(kernel: Kernel) -> bool:
    # The fusion summary's own rule: unfused, elementwise, not a scalar (loop counters).
    return not kernel.is_fusion and category_of(kernel.opcode) == "elementwise" and kernel.rank > 0


def _unfused_chains(report: FusionReport, module: Module | None) -> Hint | None:
    loose = [k for k in report.kernels if _is_unfused_elementwise(k)]
    if not loose:
        return None
    chains = _chains(loose, module)
    chains.sort(key=lambda chain: (-len(chain), -sum(k.cost.bytes_accessed for k in chain)))
    evidence = [
        {
            "kernels": [k.name for k in chain],
            "ops": len(chain),
            "bytes": sum(k.cost.bytes_accessed for k in chain),
            "source": chain[0].source,
        }
        for chain in chains[:MAX_EVIDENCE]
    ]
    total = sum(k.cost.bytes_accessed for k in loose)
    title = (
        f"{len(loose)} elementwise op{'s' if len(loose) != 1 else ''} left unfused, in "
        f"{len(chains)} chain{'s' if len(chains) != 1 else ''}: each reads its operands from "
        f"memory and writes its result back ({total:,} bytes in all); look at what keeps XLA "
        "from fusing them (a custom call, a sharding or layout change between them)"
    )
    return Hint(HintKind.UNFUSED_CHAIN, title, evidence)


def _chains(loose: Sequence[Kernel], module: Module | None) -> list[list[Kernel]]:
    """The unfused ops grouped where one is an operand of another in the same computation,
    each chain in schedule order."""
    by_name = {(k.computation, k.name): k for k in loose}
    parent = {key: key for key in by_name}

    def root(key: tuple[str, str]) -> tuple[str, str]:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    if module is not None:
        for computation in module.computations:
            for inst in computation.instructions:
                key = (computation.name, inst.name)
                if key not in by_name:
                    continue
                for operand in inst.operands:
                    other = (computation.name, operand.name)
                    if other in by_name:
                        parent[root(key)] = root(other)
    groups: dict[tuple[str, str], list[Kernel]] = {}
    for key, kernel in by_name.items():
        groups.setdefault(root(key), []).append(kernel)
    order = {id(k): i for i, k in enumerate(loose)}
    return [sorted(group, key=lambda k: order[id(k)]) for group in groups.values()]


def _loop_flops(report: FusionReport) -> Hint | None:
    executed = report.summary.executed_flops
    if executed <= 0:
        return None
    bodies: dict[str, list[Kernel]] = {}
    for k in report.kernels:
        if k.executions > 1 or k.trip_count is not None:
            bodies.setdefault(k.where, []).append(k)
    evidence: list[dict[str, Any]] = []
    for where, kernels in bodies.items():
        flops = sum(k.cost.flops * k.executions for k in kernels)
        if flops >= LOOP_SHARE * executed:
            heaviest = max(kernels, key=lambda k: k.cost.flops)
            evidence.append(
                {
                    "loop": where,
                    "executions": max(k.executions for k in kernels),
                    "flops": flops,
                    "share": flops / executed,
                    "heaviest": heaviest.name,
                }
            )
    if not evidence:
        return None
    evidence.sort(key=lambda e: -e["flops"])
    title = (
        "a loop body does most of the FLOPs executed per run: its kernels count once in the "
        "kernel table but run once per iteration, so they are where time goes"
    )
    return Hint(HintKind.LOOP_FLOPS, title, evidence[:MAX_EVIDENCE])


def recompiled_functions(ledger: Ledger) -> list[FunctionLedger]:
    """The functions of the user's (not JAX's own eager-op modules) that compiled more than
    once: what the report's recompiles section and its hint are about."""
    return [f for f in ledger.functions if not f.internal and f.compiles > 1]


def _recompiles(recompiled: list[FunctionLedger]) -> Hint | None:
    if not recompiled:
        return None
    functions = sorted(recompiled, key=lambda f: -f.compiles)
    evidence = []
    for f in functions[:MAX_EVIDENCE]:
        # Why each compile after the first happened (the first has nothing to differ from).
        causes = Counter(str(c) for e in f.events[1:] for c in e.causes)
        evidence.append(
            {"function": f.name, "compiles": f.compiles, "causes": dict(causes.most_common())}
        )
    title = (
        f"{len(functions)} function{'s' if len(functions) != 1 else ''} compiled more than "
        "once: every compile costs the time of tracing and XLA again (the Recompiles section "
        "says what changed and how to avoid it)"
    )
    return Hint(HintKind.RECOMPILES, title, evidence)
