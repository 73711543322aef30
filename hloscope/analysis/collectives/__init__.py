"""Collectives of an SPMD module: what each moves, between which devices, how often.

:func:`collectives_of` lists every collective of an optimized module (sync ones, start/done
pairs and ``async-start`` wrappers, in while bodies with their trip counts and in branches)
with its bytes per device, groups, mesh axes and source line; :func:`collective_seconds`
holds the cost formulas the bench layer prices them with on a device's interconnect.
"""

from ._find import Collective, find_collectives
from ._formulas import Link, collective_seconds
from ._groups import DeviceMesh, infer_mesh, mesh_axes_of, module_devices
from ._kinds import DONE_OPCODES, START_OPCODES, CollectiveKind, kind_of_opcode
from ._report import CollectivesResult, ParameterSharding, collectives_of, collectives_results

__all__ = [
    "Collective",
    "CollectiveKind",
    "CollectivesResult",
    "DeviceMesh",
    "DONE_OPCODES",
    "Link",
    "ParameterSharding",
    "START_OPCODES",
    "collective_seconds",
    "collectives_of",
    "collectives_results",
    "find_collectives",
    "infer_mesh",
    "kind_of_opcode",
    "mesh_axes_of",
    "module_devices",
]
