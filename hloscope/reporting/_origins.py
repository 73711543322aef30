"""What a report is about, and where each of its sections' data comes from, by kind.

This is the one place that looks at what kind of target a report is about. A report's subject
is one of a few kinds, each a class here, chosen once (:func:`origin_of`: a parsed
:class:`~hloscope.hlo.model.Module`, a :class:`Capture` object, or a TARGET by
:data:`BY_KIND`), and each answers the same questions its own way: what explains the module,
whose pass snapshots and compile times there are, which ledger of recompiles, which module the
unsupported-ops check reads, where the memory figures come from, what bench times, and what
compiled it. A kind that has nothing for a question answers ``None`` (the base class, a module
alone, has the least).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ..capture.target import TargetKind
from ..errors import HloscopeError
from ..hlo.model import Module
from ..render.compiled_by import COMPILE_FIELDS, compiled_line

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.compile_time import CompileTime
    from ..analysis.explain import Explanation
    from ..analysis.memory import MemoryResult
    from ..analysis.recompiles import Ledger
    from ..backends.record import Capture
    from ..capture.jaxpr_lines import SourcedCapture
    from ..capture.target import Target
    from ..dump.index import DumpModule

__all__ = ["Origin", "origin_of", "BY_KIND"]


@dataclass(slots=True, eq=False)  # eq=False: an origin is itself, hashed by identity
class Origin:
    """A parsed module alone: a label, the optimized module, and nothing beside it to read.

    The subclasses add what their kind of subject has: a capture, a dump folder, the files
    beside an HLO file."""

    label: str
    module: Module
    target: Target | None = None
    capture: Capture | None = None
    note: str | None = None

    def explanation(self, explain: ModuleType) -> Explanation | None:
        """What :mod:`hloscope.drivers.explain` (given) links to the module's source lines;
        ``None`` when there is no stage before optimization to link."""
        return explain.explain(self.module)

    def pass_subject(self) -> Capture | DumpModule | None:
        """Whose per-pass snapshots make the pass timeline (``None``: none were kept)."""
        return None

    def compile_time(self) -> CompileTime | None:
        """Where the compile's time went, when something of it was timed."""
        return None

    def ledger(self) -> Ledger | None:
        """The recompiles ledger of the modules beside this one, when there are several."""
        return None

    def framework_spec(self) -> str | None:
        """The ``SCRIPT.py:FUNCTION`` whose own framework is asked what each platform lowers
        (``hloscope check`` in a child process); ``None`` for anything else."""
        return None

    def module_to_check(self) -> tuple[Module, str]:
        """The module the unsupported-ops check reads and its stage: the one XLA was given
        where the subject has it (the optimized one is already rewritten for the backend that
        compiled it), else the optimized one."""
        return self.module, "after"

    def memory(self) -> MemoryResult:
        """The peak memory: hloscope's simulation of the module text (it says so)."""
        from ..analysis.memory import memory_of

        return memory_of(self.module)

    def bench_subject(self) -> tuple[Target | Module, dict[str, str]]:
        """What bench compiles and times, and its options."""
        return self.module, {}

    def search_dirs(self) -> list[Path]:
        """Where the source files named in metadata may be found."""
        return [Path.cwd()]

    def compiled_note(self) -> str | None:
        """What compiled a function for a ``--device``: the page says it first."""
        return None


class CaptureOrigin(Origin):
    """A :class:`Capture` object (a notebook's, ``hloscope.capture``'s): its stages, its
    per-pass snapshots, its own buffer assignment and compile times."""

    __slots__ = ()
    capture: Capture

    def explanation(self, explain: ModuleType) -> Explanation | None:
        return explain.explain(self.capture)

    def pass_subject(self) -> Capture | DumpModule | None:
        return self.capture if self.capture.passes else None

    def compile_time(self) -> CompileTime | None:
        from ..analysis.compile_time import compile_time_of_capture

        capture = self.capture
        if capture.compile_time is None and "module_metadata" not in capture.reports:
            return None  # a capture made before hloscope kept the times
        return compile_time_of_capture(capture)

    def module_to_check(self) -> tuple[Module, str]:
        if "hlo" in self.capture.stages:
            return self.capture.module("hlo"), "before"
        return self.module, "after"

    def memory(self) -> MemoryResult:
        from ..analysis.memory import memory_of_capture

        return memory_of_capture(self.capture)

    def bench_subject(self) -> tuple[Target | Module, dict[str, str]]:
        if "hlo" in self.capture.stages:
            return self.capture.module("hlo"), {}
        return self.module, {}

    def compiled_note(self) -> str | None:
        return compiled_line({key: getattr(self.capture, key) for key in COMPILE_FIELDS})


class TargetOrigin(Origin):
    """A TARGET: its files are read where it lies (a dump's side files, the folder of the
    program's sources)."""

    __slots__ = ()
    target: Target

    def explanation(self, explain: ModuleType) -> Explanation | None:
        return explain.explain(self.target, module=self.module.name)

    def memory(self) -> MemoryResult:
        from ..drivers.memory import memory_of_side

        return memory_of_side(self.module, self.target)

    def bench_subject(self) -> tuple[Target | Module, dict[str, str]]:
        return self.target, {"module": self.module.name}

    def search_dirs(self) -> list[Path]:
        """The working folder, then the target's folder and the folders above it (metadata
        paths are often relative)."""
        dirs = [Path.cwd()]
        target = self.target
        if target.script is not None or not target.is_remote:
            base = target.script if target.script is not None else target.path
            anchor = base.resolve().parent
            dirs.extend([anchor, *list(anchor.parents)[:3]])
        return list(dict.fromkeys(dirs))


class SavedCaptureOrigin(CaptureOrigin, TargetOrigin):
    """A capture folder (``hloscope capture``'s, or a function's in the cache): a TARGET with a
    capture. The capture answers first (its snapshots, times, memory); bench and the source
    folders go by the target."""

    __slots__ = ()

    def explanation(self, explain: ModuleType) -> Explanation | None:
        return explain.explain(_sourced_capture(self.target, self.capture))

    bench_subject = TargetOrigin.bench_subject
    search_dirs = TargetOrigin.search_dirs


class FunctionOrigin(SavedCaptureOrigin):
    """A ``SCRIPT.py:FUNCTION``: its capture, and the function itself, which its framework
    lowers for each platform for the unsupported-ops check."""

    __slots__ = ()

    def framework_spec(self) -> str | None:
        return self.target.spec


class DumpOrigin(TargetOrigin):
    """A dump folder, or a script captured into one: XLA's per-pass files, JAX's compile
    times and XLA's pass times, every compile of the program, the modules before
    optimization."""

    __slots__ = ()

    def pass_subject(self) -> Capture | DumpModule | None:
        dumped = [m for m in self.target.dump().by_name(self.module.name) if m.passes]
        return max(dumped, key=lambda m: len(m.passes)) if dumped else None

    def compile_time(self) -> CompileTime | None:
        from ..drivers.compile_time import compile_time_of_target

        target = self.target
        timed = (
            target.output_dir is not None and (target.output_dir / "compile_time.json").is_file()
        )
        if not timed and not any(m.companions("metadata") for m in target.dump().modules):
            return None  # neither JAX's durations nor XLA's pass times
        return compile_time_of_target(target, self.module.name)

    def ledger(self) -> Ledger | None:
        from ..analysis.recompiles import ledger_of_dump

        return ledger_of_dump(self.target.dump())

    def module_to_check(self) -> tuple[Module, str]:
        try:
            return self.target.choose_module("before", self.module.name).module, "before"
        except HloscopeError:
            return self.module, "after"


class HloFileOrigin(TargetOrigin):
    """An HLO text file (local or a URL): the ``before_optimizations`` file beside an
    ``after_optimizations`` one, and the modules a file of several holds."""

    __slots__ = ()

    def explanation(self, explain: ModuleType) -> Explanation | None:
        before = sibling_before(self.target.location, self.module.name)
        if before is None:
            return None  # one stage only: nothing to link beyond the kernel table's sources
        return explain.explain(self.module, before=before)

    def ledger(self) -> Ledger | None:
        from ..analysis.recompiles import ledger_of_modules

        modules = self.target.modules("before")
        return ledger_of_modules(modules) if len(modules) >= 2 else None

    def module_to_check(self) -> tuple[Module, str]:
        from ..analysis.unsupported.hlo_check import module_at_stage

        target = self.target
        if target.is_remote:
            before = sibling_before(target.location, self.module.name)
        else:
            before = module_at_stage(self.module, target.path, "before")
        return (before, "before") if before is not None else (self.module, "after")


#: The origin of each kind of TARGET.
BY_KIND: dict[TargetKind, type[TargetOrigin]] = {
    TargetKind.HLO_FILE: HloFileOrigin,
    TargetKind.DUMP: DumpOrigin,
    TargetKind.SCRIPT: DumpOrigin,
    TargetKind.CAPTURE: SavedCaptureOrigin,
    TargetKind.FUNCTION: FunctionOrigin,
}


def origin_of(value: object, module: str | None, refresh: bool) -> Origin:
    """The origin of what ``build_report`` was given: a TARGET string or path, a Target, a
    Capture or a Module (``module`` picks the module of a target with several)."""
    # Imported here: the capture machinery is only needed once a report is asked for.
    from ..backends.record import Capture
    from ..capture.target import Target

    if isinstance(value, Module):
        return Origin(value.name, value)
    if isinstance(value, Capture):
        return CaptureOrigin(value.name, value.module("optimized_hlo"), capture=value)
    if isinstance(value, (str, os.PathLike, Target)):
        target = Target.resolve(value, refresh=refresh)
        choice = target.choose_module("after", module)
        kind = BY_KIND[TargetKind(target.kind)]
        capture = target.capture() if issubclass(kind, CaptureOrigin) else None
        return kind(target.spec, choice.module, target, capture, choice.note)
    raise TypeError(
        "build_report() takes a TARGET string or path, a Target, a Capture or a Module, "
        f"not a {type(value).__name__}"
    )


def _sourced_capture(target: Target, fallback: Capture | None) -> SourcedCapture | Capture | None:
    """A function or saved-capture target's capture with the line of each jaxpr equation
    (:func:`~hloscope.capture.jaxpr_lines.capture_for_target` traces a function target again in
    a child process, once, and caches it); the plain capture when that cannot be had."""
    from ..capture.jaxpr_lines import capture_for_target

    try:
        return capture_for_target(target)
    except HloscopeError:
        return fallback


def sibling_before(location: str, name: str) -> Module | None:
    """The module before optimization of an ``*after_optimizations.txt`` file (a local path
    or a URL), read from the ``*before_optimizations.txt`` beside it when that holds a module
    of the same name."""
    from ..analysis.explain import before_beside
    from ..dump import storage
    from ..hlo.parser import parse_modules

    if not storage.is_url(location):
        return before_beside(location, name)
    base = storage.basename(location)
    if "after_optimizations" not in base:
        return None
    beside = storage.join(
        storage.parent(location), base.replace("after_optimizations", "before_optimizations")
    )
    if not storage.exists(beside):
        return None
    text = storage.read_bytes(beside)
    return next((m for m in parse_modules(text, path=beside) if m.name == name), None)
