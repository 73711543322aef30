"""Collectives of an SPMD module: what each moves, between which devices, how often.

:func:`collectives_of` lists every collective of an optimized module (sync ones, start/done
pairs and ``async-start`` wrappers, in while bodies with their trip counts and in branches,
inside XLA:TPU's fusions once per channel)
with its bytes per device, groups, mesh axes and source line; :func:`collective_seconds`
holds the cost formulas, and :func:`price` prices each collective with them on a device's
interconnect (the device registry's figures); :mod:`._sharding` reads how each parameter and
output is split over the devices, flags the large ones left whole on every device, and finds
the ops on either side of a collective.
"""

from ._endpoints import Endpoint, consumers_of, producer_of
from ._find import Collective, find_collectives
from ._formulas import Link, collective_seconds
from ._groups import DeviceMesh, infer_mesh, mesh_axes_of, module_devices
from ._kinds import DONE_OPCODES, START_OPCODES, CollectiveKind, kind_of_opcode
from ._pricing import interconnect_devices, link_of, matched_sends, price, priced_device
from ._report import (
    CollectivesResult,
    CollectiveTrace,
    ParameterSharding,
    collectives_of,
    collectives_results,
)
from ._sharding import (
    LARGE_BYTES,
    LARGE_FRACTION,
    ArraySharding,
    ReplicatedLarge,
    ShardingSource,
    named_mesh,
    per_device_dims,
    sharding_words,
    tile_axes,
)

__all__ = [
    "ArraySharding",
    "Collective",
    "CollectiveTrace",
    "CollectiveKind",
    "CollectivesResult",
    "DeviceMesh",
    "DONE_OPCODES",
    "Endpoint",
    "LARGE_BYTES",
    "LARGE_FRACTION",
    "Link",
    "ParameterSharding",
    "ReplicatedLarge",
    "ShardingSource",
    "START_OPCODES",
    "collective_seconds",
    "collectives_of",
    "collectives_results",
    "consumers_of",
    "find_collectives",
    "infer_mesh",
    "interconnect_devices",
    "kind_of_opcode",
    "link_of",
    "matched_sends",
    "mesh_axes_of",
    "module_devices",
    "named_mesh",
    "per_device_dims",
    "price",
    "priced_device",
    "producer_of",
    "sharding_words",
    "tile_axes",
]
