"""The unit of work of a fleet: one module file, and what a worker needs to turn it into a row.

A :class:`ModuleTask` is small and plain (strings and numbers), so that Dask can ship
thousands of them to workers on other machines: the module's identity in its dump (label,
dump, name, id, function, which compile of that function it is) and the *locations* of the
files to read, never their content. The worker reads the files itself, from the local disk or
the object store (:func:`~hloscope.dump.storage.read_bytes`), so nothing big travels through
the scheduler.

The analysed file is the module after optimizations, the program XLA runs (and the one whose
kernels, bytes and peak memory mean something); a module dumped only before optimizations is
analysed as it is, and its row says ``stage = "before"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dump.index import DumpFile, DumpIndex, DumpModule, index_entries
from ..json_fields import json_fields
from ._discovery import FoundDump

__all__ = ["ModuleTask", "tasks_of"]

#: The side files that hold XLA's buffer assignment and live range (the peak memory), in the
#: order :func:`hloscope.analysis.memory.dumped_assignment` merges them.
ASSIGNMENT_KINDS = ("buffer-assignment", "live-range")


@dataclass(frozen=True, slots=True)
class ModuleTask:
    """One module file of a fleet, as a worker receives it (see the module docstring)."""

    label: str
    dump: str
    module: str
    id: int
    function: str
    compile: int
    compiles: int
    stage: str
    hlo: str
    assignment: tuple[str, ...] = ()
    #: The bytes of the HLO text (from the listing): how long the task will take, roughly.
    size: int = 0

    def identity(self) -> dict[str, object]:
        """The row's first columns: which module this is."""
        return json_fields(self, "label dump module id function compile compiles stage")


def tasks_of(found: FoundDump) -> list[ModuleTask]:
    """One task per module of the dump ``found`` that has HLO text, in function order and
    then compile order (as ``hloscope ls`` lists them)."""
    index = _index_of(found)
    tasks = []
    for group in index.functions.values():
        for number, module in enumerate(group.modules, 1):
            task = _task(found, module, group.name, number, group.compiles)
            if task is not None:
                tasks.append(task)
    return tasks


def _task(
    found: FoundDump, module: DumpModule, function: str, number: int, compiles: int
) -> ModuleTask | None:
    text, stage = module.after_file, "after"
    if text is None:
        text, stage = module.before_file, "before"
    if text is None:
        return None  # only side files (a pass dump folder, say): no module to analyse
    assignment = tuple(
        _location(files[0]) for kind in ASSIGNMENT_KINDS if (files := module.companions(kind))
    )
    return ModuleTask(
        label=found.label,
        dump=found.dump,
        module=module.name or f"module_{module.id:04d}",
        id=module.id,
        function=function,
        compile=number,
        compiles=compiles,
        stage=stage,
        hlo=_location(text),
        assignment=assignment if stage == "after" else (),
        size=text.size,
    )


def _location(file: DumpFile) -> str:
    return file.location


def _index_of(found: FoundDump) -> DumpIndex:
    """The index of one dump folder, built from the root's listing (no second listing)."""
    return index_entries(found.location, list(found.entries))
