"""An index of an XLA dump folder: which modules were compiled, with which stages and files.

:func:`load_dump` only lists the folder (one ``os.scandir`` per folder and a ``stat`` per file
for its size) and splits each file name with :func:`~hloscope.dump.filenames.parse_dump_filename`;
nothing is read until asked for, so a folder of 10,000 files indexes in a fraction of a second.
A URL (``s3://bucket/run-17/dump``; :mod:`~hloscope.dump.storage`) is listed once, the whole
prefix in one paginated listing, and :func:`index_entries` builds the same index from it: the
index of a listing made elsewhere (``hloscope fleet`` lists a prefix of many dumps once).

The shape of the index::

    DumpIndex
      .modules         [DumpModule]   one per compilation (module id), in id order
          .stages      [DumpStage]    before_optimizations, after_optimizations (with backend)
          .passes      [PassDump]     per-pass dumps (--xla_dump_hlo_pass_re), by step number
          .other_files [DumpFile]     debug_options, LLVM IR, object code, PTX, and the
                                      files of a per-module folder (module_0006.jit_f/)
          .before() / .after()        the parsed HLO Module (lazily, cached)
          .buffer_assignment() / .memory_report() / .memory()
      .functions       {name: DumpFunction}  modules grouped by the function they compile
      .unknown_files   [Path | str]   files whose names are not XLA dump names (URLs as text)

A *function* groups the compilations of one user function: ``jit_f`` compiled for three shapes
gives three modules (three ids) with the same name. For TensorFlow the module name carries the
function's attributes, so modules are grouped by the decoded function name
(:func:`~hloscope.dump.filenames.function_name`) rather than the raw module name.

One level of subfolders is indexed too (a dump per process or per host); module ids are only
unique within one folder and one ``--xla_dump_include_timestamp`` run, so a module's identity
is ``(folder, timestamp, id)``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..stages import Stage, UnknownStageError
from . import storage
from .buffers import BufferAssignment, LiveRange, MemorySummary, load_buffer_assignment
from .errors import DumpFormatError
from .filenames import (
    AFTER_OPTIMIZATIONS,
    BEFORE_OPTIMIZATIONS,
    PASS,
    DumpFileName,
    parse_dump_filename,
    parse_module_folder_entry,
)
from .memory_report import MemoryUsageReport, load_memory_report
from .passes import PassStep
from .report_text import read_dump_text

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Module

__all__ = [
    "DumpFile",
    "DumpStage",
    "PassDump",
    "DumpModule",
    "DumpFunction",
    "DumpIndex",
    "load_dump",
    "index_entries",
]

_STAGE_ORDER = {BEFORE_OPTIMIZATIONS: 0, AFTER_OPTIMIZATIONS: 1}


@dataclass(slots=True)
class DumpFile:
    """One file of a dump: where it is, what its name says, and its size in bytes.

    ``location`` is where the file is: a local path, or a URL (``s3://bucket/dump/...``) for a
    dump read from object storage. :meth:`read_bytes`/:meth:`read_text` read it either way.
    ``path`` is the local :class:`~pathlib.Path`, for the many callers that want one; on a
    remote file it raises rather than make up a local path that does not exist.

    Both are built on access (making 10,000 ``Path`` objects up front would cost more than
    the whole rest of the index)."""

    directory: str
    name: DumpFileName
    size: int
    folder: str = ""

    @property
    def location(self) -> str:
        """The file's local path or URL, as text."""
        return storage.join(self.directory, self.name.filename)

    @property
    def is_remote(self) -> bool:
        return storage.is_url(self.directory)

    @property
    def path(self) -> Path:
        if storage.is_url(self.directory):
            raise DumpFormatError(
                "a remote file has no local path (read it with read_bytes() or read_text())",
                path=self.location,
            )
        return Path(self.directory, self.name.filename)

    @property
    def kind(self) -> str:
        return self.name.kind

    def read_bytes(self) -> bytes:
        """The file's content, from disk or from its store (:class:`DumpFormatError` naming
        the location when it cannot be read)."""
        return storage.read_bytes(self.location)

    def read_text(self) -> str:
        """The file's content as UTF-8 text (:class:`DumpFormatError` with the line of the
        first byte that is not)."""
        return read_dump_text(self.location)


def _parse_hlo(file: DumpFile) -> Module:
    from ..hlo.parser import parse  # late import: the index itself needs no parser

    if file.is_remote:
        # The bytes, with the URL to name in errors (URL:line:column).
        return parse(file.read_bytes(), path=file.location)
    return parse(file.path)


@dataclass(slots=True)
class DumpStage:
    """The files of one HLO stage of a module (``before_optimizations`` or
    ``after_optimizations`` for one ``backend``): the HLO text and its companions."""

    name: str
    backend: str | None
    files: list[DumpFile] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``before``, ``after`` or ``after (sm_9.0_gpu)`` for tables (cpu is implied)."""
        short = Stage.parse(self.name).short
        if self.backend and self.backend != "cpu":
            return f"{short} ({self.backend})"
        return short

    def file(self, kind: str) -> DumpFile | None:
        """The first file of this stage holding ``kind`` (``"hlo"``, ``"buffer-assignment"``...)."""
        for f in self.files:
            if f.name.kind == kind:
                return f
        return None

    @property
    def text_file(self) -> DumpFile | None:
        """The HLO text (``.txt``) of this stage, if it was dumped."""
        return self.file("hlo")


@dataclass(slots=True)
class PassDump(PassStep):
    """One per-pass dump (``--xla_dump_hlo_pass_re``) of a module: where it sits in the pass
    pipeline (the :class:`~hloscope.dump.passes.PassStep` fields) and its files."""

    files: list[DumpFile] = field(default_factory=list)

    @property
    def text_file(self) -> DumpFile | None:
        for f in self.files:
            if f.name.kind == "hlo":
                return f
        return None

    def module(self) -> Module:
        """Parse this step's HLO text (not cached: pass dumps are many and large)."""
        f = self.text_file
        if f is None:
            raise DumpFormatError(f"pass step {self.step} ({self.label}) has no HLO text file")
        return _parse_hlo(f)


class DumpModule:
    """Everything dumped for one compilation (one module id).

    Parsed results (:meth:`before`, :meth:`after`, :meth:`buffer_assignment`...) are computed
    on first call and cached; errors are not cached, so a fixed file can be re-read.
    """

    __slots__ = (
        "id",
        "timestamp",
        "folder",
        "name",
        "files",
        "stages",
        "passes",
        "other_files",
        "_cache",
    )

    def __init__(self, id: int, timestamp: int | None = None, folder: str = "") -> None:
        self.id = id
        self.timestamp = timestamp
        self.folder = folder
        self.name: str | None = None
        self.files: list[DumpFile] = []
        self.stages: list[DumpStage] = []
        self.passes: list[PassDump] = []
        self.other_files: list[DumpFile] = []
        self._cache: dict[str, object] = {}

    # ---- identity -------------------------------------------------------------------------------
    @property
    def key(self) -> tuple[str, int, int]:
        """``(folder, timestamp or -1, id)``: unique within one index, and its sort order."""
        return (self.folder, self.timestamp if self.timestamp is not None else -1, self.id)

    @property
    def function(self) -> str | None:
        """The user function this module compiles (``jit_f`` -> ``f``); see
        :func:`~hloscope.dump.filenames.function_name`."""
        from .filenames import function_name

        return function_name(self.name) if self.name else None

    @property
    def size_on_disk(self) -> int:
        return sum(f.size for f in self.files)

    def __repr__(self) -> str:
        stages = [s.label for s in self.stages]
        return (
            f"DumpModule(id={self.id}, name={self.name!r}, stages={stages}, "
            f"passes={len(self.passes)})"
        )

    # ---- stages -------------------------------------------------------------------------------
    def stage(self, name: str | Stage, backend: str | None = None) -> DumpStage | None:
        """The stage called ``name`` (``"before_optimizations"``/``"after_optimizations"``, or
        any :class:`~hloscope.stages.Stage` alias), optionally for one backend."""
        try:
            name = Stage.parse(name).dump_name or str(name)
        except UnknownStageError:
            return None
        for s in self.stages:
            if s.name == name and (backend is None or s.backend == backend):
                return s
        return None

    @property
    def before_file(self) -> DumpFile | None:
        s = self.stage(BEFORE_OPTIMIZATIONS)
        return s.text_file if s else None

    @property
    def after_file(self) -> DumpFile | None:
        s = self.stage(AFTER_OPTIMIZATIONS)
        return s.text_file if s else None

    def companions(self, kind: str) -> list[DumpFile]:
        """Every file of this module holding ``kind`` (``"dot"``, ``"llvm-ir"``...)."""
        return [f for f in self.files if f.name.kind == kind]

    def stage_summary(self) -> str:
        """``before, after, 20 passes``: what was dumped, in one phrase."""
        parts = [s.label for s in self.stages]
        if self.passes:
            parts.append(f"{len(self.passes)} pass{'es' if len(self.passes) != 1 else ''}")
        return ", ".join(parts) if parts else "-"

    # ---- lazily parsed contents ---------------------------------------------------------------
    def _cached(self, key: str, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def before(self) -> Module | None:
        """The HLO module before optimization, parsed on first call (``None`` if not dumped).

        Raises :class:`~hloscope.hlo.errors.HloParseError` if the file is not valid HLO."""
        f = self.before_file
        return self._cached("before", lambda: _parse_hlo(f)) if f else None

    def after(self) -> Module | None:
        """The HLO module after optimization, parsed on first call (``None`` if not dumped)."""
        f = self.after_file
        return self._cached("after", lambda: _parse_hlo(f)) if f else None

    def buffer_assignment(self) -> BufferAssignment | None:
        """The after-optimization buffer assignment, joined with its ``-buffer-assignment-values``
        and ``-live-range`` companions when those exist (newer XLA splits them out)."""

        def load() -> BufferAssignment | None:
            parts = self.buffer_assignment_files()
            if not parts:
                return None
            result = load_buffer_assignment(parts[0].location)
            for extra in parts[1:]:
                result.merge(load_buffer_assignment(extra.location))
            return result

        return self._cached("buffer_assignment", load)

    def buffer_assignment_files(self) -> list[DumpFile]:
        """The files :meth:`buffer_assignment` reads (the buffer assignment and its
        ``-buffer-assignment-values`` and ``-live-range`` companions that exist)."""
        kinds = ("buffer-assignment", "buffer-assignment-values", "live-range")
        return [f for f in map(self._after_companion, kinds) if f is not None]

    @property
    def memory_report_file(self) -> DumpFile | None:
        """The ``-memory-usage-report.txt`` :meth:`memory_report` reads, if dumped."""
        return self._after_companion("memory-usage-report")

    def live_range(self) -> LiveRange | None:
        ba = self.buffer_assignment()
        return ba.live_range if ba is not None else None

    def memory_report(self) -> MemoryUsageReport | None:
        """The after-optimization ``-memory-usage-report.txt``, parsed (``None`` if absent)."""
        f = self.memory_report_file
        return self._cached("memory_report", lambda: load_memory_report(f.location)) if f else None

    def memory(self) -> MemorySummary:
        """Peak and allocated bytes (see :class:`~hloscope.dump.buffers.MemorySummary`)."""
        ba = self.buffer_assignment()
        report = self.memory_report() if ba is None or not ba.allocations else None
        return MemorySummary.of(ba, report)

    def _after_companion(self, kind: str) -> DumpFile | None:
        for s in self.stages:
            if s.name == AFTER_OPTIMIZATIONS:
                f = s.file(kind)
                if f is not None:
                    return f
        # Companions of another stage (unusual, but XLA allows it).
        for s in self.stages:
            f = s.file(kind)
            if f is not None:
                return f
        return None


@dataclass(slots=True)
class DumpFunction:
    """The compilations of one function, in module-id order (``compiles > 1`` = recompiled)."""

    name: str
    folder: str = ""
    modules: list[DumpModule] = field(default_factory=list)

    @property
    def compiles(self) -> int:
        return len(self.modules)

    @property
    def module_names(self) -> list[str]:
        """The distinct module names (TensorFlow may use several for one function)."""
        seen: dict[str, None] = {}
        for m in self.modules:
            if m.name:
                seen.setdefault(m.name, None)
        return list(seen)

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.modules]


@dataclass(slots=True)
class DumpIndex:
    """The index of one dump folder (see the module docstring)."""

    #: The folder: a ``Path`` for a local dump, the URL text for a remote one.
    root: Path | str
    modules: list[DumpModule] = field(default_factory=list)
    functions: dict[str, DumpFunction] = field(default_factory=dict)
    unknown_files: list[Path | str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def location(self) -> str:
        """The folder as text: a local path or a URL."""
        return str(self.root)

    @property
    def is_remote(self) -> bool:
        return isinstance(self.root, str) and storage.is_url(self.root)

    @property
    def files(self) -> Iterator[DumpFile]:
        for m in self.modules:
            yield from m.files

    def module(
        self, id: int, *, folder: str | None = None, timestamp: int | None = None
    ) -> DumpModule:
        """The module with this id (narrowed by ``folder``/``timestamp`` when ids repeat)."""
        found = [
            m
            for m in self.modules
            if m.id == id
            and (folder is None or m.folder == folder)
            and (timestamp is None or m.timestamp == timestamp)
        ]
        if not found:
            raise KeyError(f"no module {id} in {self.root}")
        if len(found) > 1:
            where = ", ".join(f"{m.folder or '.'}@{m.timestamp}" for m in found)
            raise KeyError(
                f"module id {id} occurs {len(found)} times ({where}); pass folder= or timestamp="
            )
        return found[0]

    def __getitem__(self, id: int) -> DumpModule:
        return self.module(id)

    def __len__(self) -> int:
        return len(self.modules)

    def __iter__(self) -> Iterator[DumpModule]:
        return iter(self.modules)

    def by_name(self, module_name: str) -> list[DumpModule]:
        """Modules whose (raw) module name is ``module_name``, in id order."""
        return [m for m in self.modules if m.name == module_name]


def load_dump(path: str | os.PathLike) -> DumpIndex:
    """Index the XLA dump folder ``path`` (and its direct subfolders) without reading files.

    ``path`` is a local folder or a URL (``s3://bucket/run-17/dump``, ``gs://...``,
    ``memory://...``; see :mod:`~hloscope.dump.storage`): a URL costs one listing of the
    prefix (:func:`~hloscope.dump.storage.walk_files`), indexed by :func:`index_entries`.

    Raises :class:`DumpFormatError` when ``path`` does not exist or is not a folder. An empty
    folder gives an empty index; files that are not XLA dump names go to ``unknown_files``.
    """
    if storage.is_url(path):
        return _load_remote(os.fspath(path))
    root = Path(path)
    if not root.exists():
        raise DumpFormatError("no such folder", path=str(root))
    if not root.is_dir():
        raise DumpFormatError("not a folder (give the --xla_dump_to folder)", path=str(root))
    index = DumpIndex(root=root)
    modules: dict[tuple[str, int, int], DumpModule] = {}
    _scan(root, "", index, modules, depth=1)
    return _finish(index, modules)


def _finish(index: DumpIndex, modules: dict[tuple[str, int, int], DumpModule]) -> DumpIndex:
    index.modules = sorted(modules.values(), key=lambda m: m.key)
    for m in index.modules:
        _organize(m)
    index.functions = _group_functions(index.modules)
    return index


def _load_remote(url: str) -> DumpIndex:
    root = url.rstrip("/")
    entries = storage.walk_files(root)
    if len(entries) == 1 and entries[0].location.rstrip("/") == root:
        raise DumpFormatError("not a folder (give the --xla_dump_to folder)", path=root)
    if not entries and not storage.is_dir(root):
        # An empty listing is an empty folder only if the store says the folder is there
        # (object stores have no empty folders, but fsspec's memory:// and local ones do).
        raise DumpFormatError("no such folder", path=root)
    return index_entries(root, entries)


# Where a file sits in a dump, by its path relative to the root split at "/": a root file
# (1 part), a file of a subfolder or of a per-module folder (2), a per-module folder's file in a
# subfolder (3). Deeper files are not part of the dump, as the local scan does not descend.
def index_entries(root: str, entries: list[storage.Entry]) -> DumpIndex:
    """The :class:`DumpIndex` of the dump folder ``root`` from a listing made elsewhere.

    ``entries`` are files (:class:`~hloscope.dump.storage.Entry`, as
    :func:`~hloscope.dump.storage.walk_files` gives them) whose locations start with
    ``root``; others are ignored, so one listing of a whole prefix can be shared by the dumps
    under it (pass each dump the entries below it: cheaper than filtering the whole listing
    per dump). The index is the one :func:`load_dump` builds for a local folder: the same
    modules, stages, functions and ``unknown_files`` (whose locations are strings here).
    No file is read.
    """
    base = root.rstrip("/") if storage.is_url(root) else root.rstrip(os.sep) or os.sep
    sep = "/" if storage.is_url(root) else os.sep
    index = DumpIndex(root=base if storage.is_url(base) else Path(base))
    modules: dict[tuple[str, int, int], DumpModule] = {}
    prefix = base if base.endswith(sep) else base + sep
    placed = [
        (e.location[len(prefix) :].split(sep), e)
        for e in entries
        if not e.is_dir and e.location.startswith(prefix)
    ]
    # The local scan's order: each folder's entries by name, a subfolder where its name falls.
    placed.sort(key=lambda pe: pe[0])
    unknown_folders: set[str] = set()
    for parts, e in placed:
        _place(base, sep, parts, e, index, modules, unknown_folders)
    return _finish(index, modules)


def _place(
    base: str,
    sep: str,
    parts: list[str],
    e: storage.Entry,
    index: DumpIndex,
    modules: dict,
    unknown_folders: set[str],
) -> None:
    """Add one listed file to the index where the local scan would have found it."""
    depth = len(parts)
    if depth == 1:
        _add_listed(e, parse_dump_filename(parts[0]), base, "", index, modules)
        return
    if _is_module_folder(parts[0]):  # root/module_0006.jit_f/...
        if depth == 2:
            _add_listed(e, parse_module_folder_entry(parts[0], parts[1]), base, "", index, modules)
        else:  # a folder inside a per-module folder: unknown, as the local scan lists it
            _unknown_folder(sep.join([base, *parts[:2]]), index, unknown_folders)
        return
    rel = parts[0]
    directory = sep.join([base, rel])
    if depth == 2:  # root/host-0/<file>
        _add_listed(e, parse_dump_filename(parts[1]), directory, rel, index, modules)
    elif _is_module_folder(parts[1]):  # root/host-0/module_0006.jit_f/...
        if depth == 3:
            parsed = parse_module_folder_entry(parts[1], parts[2])
            _add_listed(e, parsed, directory, rel, index, modules)
        else:
            _unknown_folder(sep.join([base, *parts[:3]]), index, unknown_folders)
    # else: root/host-0/other/...: below the indexed depth, as locally.


def _unknown_folder(location: str, index: DumpIndex, seen: set[str]) -> None:
    if location not in seen:
        seen.add(location)
        index.unknown_files.append(_as_listed(location))


def _as_listed(location: str) -> Path | str:
    """A location as the index keeps it: a ``Path`` locally (as :func:`load_dump` does), the
    URL text otherwise (a ``Path`` would fold ``s3://`` into ``s3:/``)."""
    return location if storage.is_url(location) else Path(location)


def _add_listed(
    e: storage.Entry,
    parsed: DumpFileName | None,
    directory: str,
    rel: str,
    index: DumpIndex,
    modules: dict,
) -> None:
    if parsed is None:
        index.unknown_files.append(_as_listed(e.location))
        return
    _attach(modules, DumpFile(directory, parsed, e.size, rel))


def _scan(folder: Path, rel: str, index: DumpIndex, modules: dict, depth: int) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError as e:
        index.warnings.append(f"{folder}: warning: cannot list folder: {e.strerror or e}")
        return
    entries.sort(key=lambda e: e.name)
    directory = str(folder)
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if _is_module_folder(entry.name):
                _scan_module_folder(entry, rel, index, modules)
            elif depth > 0:
                _scan(
                    Path(entry.path),
                    f"{rel}/{entry.name}" if rel else entry.name,
                    index,
                    modules,
                    depth - 1,
                )
            continue
        parsed = parse_dump_filename(entry.name)
        if parsed is None:
            index.unknown_files.append(Path(entry.path))
            continue
        _add(entry, parsed, directory, rel, index, modules)


def _add(
    entry: os.DirEntry,
    parsed: DumpFileName,
    directory: str,
    rel: str,
    index: DumpIndex,
    modules: dict,
) -> None:
    try:
        size = entry.stat().st_size
    except OSError as e:  # a dangling link, a file removed while listing
        index.warnings.append(f"{entry.path}: warning: cannot stat: {e.strerror or e}")
        return
    _attach(modules, DumpFile(directory, parsed, size, rel))


def _attach(modules: dict, file: DumpFile) -> None:
    """Add ``file`` to its module in ``modules`` (keyed by folder, timestamp and module id),
    making the module on its first file: what a listed (remote) and a scanned file share."""
    parsed = file.name
    key = (file.folder, parsed.timestamp if parsed.timestamp is not None else -1, parsed.module_id)
    module = modules.get(key)
    if module is None:
        module = modules[key] = DumpModule(parsed.module_id, parsed.timestamp, file.folder)
    module.files.append(file)


def _is_module_folder(name: str) -> bool:
    return "module_" in name and parse_module_folder_entry(name, "") is not None


def _scan_module_folder(folder: os.DirEntry, rel: str, index: DumpIndex, modules: dict) -> None:
    """Attach the files of a per-module folder (``module_0006.jit_f/``) to that module."""
    try:
        entries = sorted(os.scandir(folder.path), key=lambda e: e.name)
    except OSError as e:
        index.warnings.append(f"{folder.path}: warning: cannot list folder: {e.strerror or e}")
        return
    for entry in entries:
        parsed = parse_module_folder_entry(folder.name, entry.name)
        if parsed is None or not entry.is_file():
            index.unknown_files.append(Path(entry.path))
            continue
        _add(entry, parsed, os.path.dirname(folder.path), rel, index, modules)


def _organize(module: DumpModule) -> None:
    """Sort a module's files into stages, pass steps and other files; pick its name."""
    stages: dict[tuple[str, str | None], DumpStage] = {}
    passes: dict[int, PassDump] = {}
    names: dict[str, int] = {}
    for f in module.files:
        n = f.name
        if n.module_name:
            # HLO text names are the most reliable (other suffixes may leave a sub-id behind).
            names[n.module_name] = names.get(n.module_name, 0) + (10 if n.kind == "hlo" else 1)
        if n.stage in _STAGE_ORDER:
            stage = stages.get((n.stage, n.backend))
            if stage is None:
                stage = stages[(n.stage, n.backend)] = DumpStage(n.stage, n.backend)
            stage.files.append(f)
        elif n.stage == PASS and n.step is not None:  # a per-pass file name has its step number
            step = passes.get(n.step)
            if step is None:
                step = passes[n.step] = PassDump(*PassStep.fields_of(n))
            step.files.append(f)
        else:
            module.other_files.append(f)
    module.stages = sorted(stages.values(), key=lambda s: (_STAGE_ORDER[s.name], s.backend or ""))
    module.passes = [passes[k] for k in sorted(passes)]
    if names:
        module.name = max(names, key=lambda k: names[k])


def _group_functions(modules: list[DumpModule]) -> dict[str, DumpFunction]:
    groups: dict[str, DumpFunction] = {}
    for m in modules:  # already in (folder, timestamp, id) order
        fn = m.function or f"module_{m.id:04d}"
        key = f"{m.folder}/{fn}" if m.folder else fn
        group = groups.get(key)
        if group is None:
            group = groups[key] = DumpFunction(fn, m.folder)
        group.modules.append(m)
    return groups
