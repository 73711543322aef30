"""``hloscope collectives``' result for one module: its collectives, mesh, parameters, totals.

:func:`collectives_of` reads a module; :func:`collectives_results` resolves a target's modules
(the main module, ``--module NAME`` or all). Times are ``None`` until a device prices them
(:func:`._pricing.price`), and the JSON says so in ``notes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...dataframes import require_pandas
from ...errors import HloscopeError
from ...hlo.model import Module
from ._endpoints import Endpoint, Memo, consumers_of, is_resharding, producer_of
from ._find import Collective, find_collectives
from ._groups import DeviceMesh, mesh_axes_of, module_devices
from ._sharding import (
    ArraySharding,
    ReplicatedLarge,
    named_mesh,
    outputs_of,
    parameters_of,
    replicated_large,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "ArraySharding",
    "CollectiveTrace",
    "CollectivesResult",
    "ParameterSharding",
    "collectives_of",
    "collectives_results",
]


#: The old name of :class:`ArraySharding` (it now describes outputs too).
ParameterSharding = ArraySharding


@dataclass(frozen=True, slots=True)
class CollectiveTrace:
    """The ops on either side of a collective (see :mod:`._sharding`): the one computing what
    it sends, those computing with what it receives, and whether the partitioner inserted it
    to change a sharding."""

    producer: Endpoint | None
    consumers: list[Endpoint]
    resharding: bool


@dataclass(slots=True)
class CollectivesResult:
    module: str
    devices: int
    mesh: DeviceMesh | None
    collectives: list[Collective]
    parameters: list[ArraySharding]
    device: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    outputs: list[ArraySharding] = field(default_factory=list)
    #: Large arrays held whole on every device (:func:`._sharding.replicated_large`).
    replicated_large: list[ReplicatedLarge] = field(default_factory=list)
    #: Each collective's :class:`CollectiveTrace`, by its name.
    traces: dict[str, CollectiveTrace] = field(default_factory=dict)

    @property
    def resharding(self) -> list[Collective]:
        """The collectives the partitioner inserted to change a sharding, in program order."""
        return [c for c in self.collectives if self._trace(c).resharding]

    def _trace(self, c: Collective) -> CollectiveTrace:
        return self.traces.get(c.name) or CollectiveTrace(None, [], False)

    @property
    def total_bytes(self) -> int:
        return sum(c.bytes for c in self.collectives)

    @property
    def executed_bytes(self) -> int:
        return sum(c.executed_bytes for c in self.collectives)

    @property
    def estimate_s(self) -> float | None:
        """All collectives' seconds per call (each times its executions)."""
        if self.device is None:
            return None
        return sum((c.estimate_s or 0.0) * c.executions for c in self.collectives)

    @property
    def exposed_s(self) -> float | None:
        """Sync collectives whole, async ones less the compute scheduled under them."""
        if self.device is None:
            return None
        return sum((c.exposed_s or 0.0) * c.executions for c in self.collectives)

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "devices": self.devices,
            "mesh": self.mesh.to_dict() if self.mesh is not None else None,
            "collectives": [_collective_dict(c, self._trace(c)) for c in self.collectives],
            "totals": {
                "count": len(self.collectives),
                "bytes": self.total_bytes,
                "executed_bytes": self.executed_bytes,
                "estimate_s": self.estimate_s,
                "exposed_s": self.exposed_s,
            },
            "parameters": [p.to_dict() for p in self.parameters],
            "outputs": [o.to_dict() for o in self.outputs],
            "replicated_large": [r.to_dict() for r in self.replicated_large],
            "device": self.device,
            "notes": list(self.notes),
        }

    def to_frame(self) -> pandas.DataFrame:
        """One row per collective: the JSON's flat keys, ``mesh_axes`` joined with commas,
        ``executed_bytes``, and the ``producer``'s and ``consumers``' source lines."""
        pd = require_pandas()

        rows = []
        for c in self.collectives:
            trace = self._trace(c)
            rows.append(
                {
                    **c.flat_row(),
                    "mesh_axes": ",".join(c.mesh_axes) if c.mesh_axes is not None else None,
                    "resharding": trace.resharding,
                    "producer": _where_from(trace.producer),
                    "consumers": "; ".join(_where_from(e) for e in trace.consumers),
                }
            )
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def parameters_frame(self) -> pandas.DataFrame:
        """One row per entry parameter, then per output (``role`` says which): the keys of
        the JSON's ``parameters``."""
        pd = require_pandas()

        rows = [a.to_dict() for a in [*self.parameters, *self.outputs]]
        return pd.DataFrame(rows, columns=list(PARAMETER_COLUMNS))


#: The columns of :meth:`CollectivesResult.to_frame`.
FRAME_COLUMNS = (
    "name",
    "kind",
    "async",
    "bytes",
    "group_size",
    "num_groups",
    "executions",
    "executed_bytes",
    "mesh_axes",
    "where",
    "op_name",
    "source",
    "resharding",
    "producer",
    "consumers",
    "estimate_s",
    "exposed_s",
)
#: The columns of :meth:`CollectivesResult.parameters_frame`.
PARAMETER_COLUMNS = tuple(
    ArraySharding("", "", "", "", 0, False).to_dict()  # the keys, in the JSON's order
)


def _where_from(end: Endpoint | None) -> str:
    if end is None:
        return ""
    return end.source or end.op_name or end.name


def _collective_dict(c: Collective, trace: CollectiveTrace) -> dict[str, Any]:
    return {
        "name": c.name,
        "kind": c.kind.value,
        "async": c.is_async,
        "shapes": {"operands": list(c.operand_shapes), "result": c.result_shape},
        "bytes": c.bytes,
        "group_size": c.group_size,
        "groups": [list(g) for g in c.groups],
        "num_groups": c.num_groups,
        "channel_id": c.channel_id,
        "executions": c.executions,
        "where": c.where,
        "mesh_axes": c.mesh_axes,
        "op_name": c.op_name,
        "source": c.source,
        "done": c.done,
        "estimate_s": c.estimate_s,
        "exposed_s": c.exposed_s,
        "resharding": trace.resharding,
        "producer": trace.producer.to_dict() if trace.producer is not None else None,
        "consumers": [e.to_dict() for e in trace.consumers],
    }


def collectives_of(module: Module, before: Module | None = None) -> CollectivesResult:
    """Every collective of ``module`` (see :mod:`._find`) with its mesh, the sharding of its
    parameters and outputs, and the ops on either side of each collective.

    ``before``, the same program's module before optimizations when there is one, gives the
    exact global shapes, the outputs' shardings and the mesh axis names (see
    :mod:`._sharding`); its named mesh then replaces the one read from the optimized module
    and the collectives' mesh axes are read against it.
    """
    found, mesh, devices = find_collectives(module)
    named = named_mesh(before, devices)
    if named is not None:
        mesh = named
        # Every kind's groups, a send's and a recv's (source, target) pairs too, are read
        # against the named mesh; the collectives of an SPMD module share a few groups.
        axes: dict[tuple[tuple[int, ...], ...], list[str] | None] = {}
        for c in found:
            if c.groups not in axes:
                axes[c.groups] = mesh_axes_of(c.groups, mesh, devices)
            known = axes[c.groups]
            c.mesh_axes = None if known is None else list(known)  # each owns its list
    params = parameters_of(module, before, mesh, devices)
    outputs = outputs_of(module, before, mesh, devices)
    return CollectivesResult(
        module.name,
        devices,
        mesh,
        found,
        params,
        outputs=outputs,
        replicated_large=replicated_large([*params, *outputs], devices),
        traces=_traces(module, found),
    )


def _traces(module: Module, found: list[Collective]) -> dict[str, CollectiveTrace]:
    out = {}
    memo = Memo()
    for c in found:
        comp = module.computations_by_name.get(c.computation)
        inst = comp.get(c.name) if comp is not None else None
        if inst is None:
            continue
        # A fused async collective's result leaves by the fusion that ends it (inside its own
        # kernel it only feeds the custom-call that starts or ends it).
        done = c.placement.computation.get(c.done) if c.fusion and c.done and c.placement else None
        out[c.name] = CollectiveTrace(
            producer_of(inst, memo), consumers_of(done or inst, memo=memo), is_resharding(inst)
        )
    return out


def _chosen_modules(
    target: Any, *, module: str | None = None, all_modules: bool = False
) -> list[Module]:
    """The optimized modules of ``target`` (a resolved CLI target) the command reads: the
    main one, the one ``module`` names, or all of them."""
    if all_modules:
        return target.modules("after")
    return [target.choose_module("after", module).module]


def collectives_results(
    target: Any,
    *,
    module: str | None = None,
    all_modules: bool = False,
    modules: list[Module] | None = None,
) -> list[CollectivesResult]:
    """One result per chosen optimized module of ``target`` (a resolved CLI target), each
    read with its module before optimizations when the target holds one.

    ``modules``, when given, are the modules already chosen (as ``module`` and
    ``all_modules`` choose them): a caller that reads them again (the step estimate prices
    their kernels) passes them here, since a target may parse its text at every choice (an
    HLO file does, a 54 MB one in 1.3 s).
    """
    if modules is None:
        modules = _chosen_modules(target, module=module, all_modules=all_modules)
    return [collectives_of(m, _before_of(target, m)) for m in modules]


def _before_of(target: Any, after: Module) -> Module | None:
    """The same-named module before optimizations, for a multi-device ``after`` of a dump or a
    capture (a single HLO file holds one stage only)."""
    if str(getattr(target, "kind", "")) == "hlo-file" or after.entry is None:
        return None
    if module_devices(after) <= 1:
        return None  # no sharding to read: do not pay for parsing a second module
    try:
        before = target.choose_module("before", after.name).module
    except HloscopeError:
        return None
    if before is after or before.name != after.name or before.entry is None:
        return None
    if len(before.entry.parameters) != len(after.entry.parameters):
        return None
    return before
