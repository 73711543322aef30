"""TARGET resolution: what every hloscope command that reads HLO accepts.

A TARGET is one of

* an **HLO text file** (one or more modules, e.g.
  ``module_0004.jit_f.cpu_after_optimizations.txt``);
* an **XLA dump folder** (``--xla_dump_to``), or an ``hloscope capture -o DIR`` folder (its
  ``dump/`` is used), or a folder written by :meth:`hloscope.Capture.save`;
* either of those two **where it lives**: a URL (``s3://bucket/run-17/dump``, ``gs://``,
  ``az://``, ``http(s)://``, ``memory://``) is read through fsspec
  (:mod:`hloscope.dump.storage`, the ``hloscope[cloud]`` extra): a folder is listed once and
  only the files a command needs are fetched;
* a **script**, ``SCRIPT.py``: run it in a child process and capture everything XLA compiles
  (:func:`hloscope.capture.script.capture_script`);
* a **function in a script**, ``SCRIPT.py:FUNCTION``: import the script in a child process (its
  ``if __name__ == "__main__":`` block does not run) and capture that one function with example
  arguments the script provides (the convention is in
  :data:`hloscope.capture.script_loader.EXAMPLE_ARGS_HELP`: ``FUNCTION.example_args``, a
  module-level ``EXAMPLE_ARGS`` dict or ``example_args()`` function, or no arguments at all).

Scripts are captured into a cache folder (``$HLOSCOPE_CACHE``, else
``$XDG_CACHE_HOME/hloscope`` or ``~/.cache/hloscope``) and reused only while nothing that could
change their HLO has changed: the script, its arguments, the environment, ``XLA_FLAGS``, the
versions, and every local module the script imported (:mod:`hloscope.capture.cache` has the
rule). ``refresh=True`` captures again. Failed captures are not cached; their output stays in
``<key>.failed`` for a look at ``stderr.txt``.

Resolving a text file or a dump folder never imports jax or TensorFlow::

    target = Target.resolve("train.py:step")
    target.main_module("after")  # what every analysis command reads
    target.modules("before")  # every module of that stage

:class:`Target` is the one road from a TARGET string to :class:`~hloscope.hlo.model.Module`
objects; commands and the top-level convenience functions (``hloscope.fusions("f.txt")``) all
take it, and :meth:`Target.choose_module` holds the one rule for "the main module".
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dump import storage
from ..dump.errors import DumpFormatError
from ..hlo.errors import HloParseError
from ..stages import Stage, UnknownStageError
from .cache import CACHE_ENV, cache_root
from .errors import TargetError, TargetNotFound
from .script_reentry import refuse_reimport, refuse_rerun
from .target_cache import _CompileFor, _ScriptRun, capture_cached, target_cache_key

if TYPE_CHECKING:  # pragma: no cover
    from ..dump.index import DumpIndex
    from ..hlo.model import Module
    from .inprocess import Capture

__all__ = [
    "Target",
    "TargetKind",
    "TargetError",
    "TargetNotFound",
    "ModuleChoice",
    "cache_root",
    "target_cache_key",
    "CACHE_ENV",
]

_FUNCTION_SPEC = re.compile(r"^(?P<script>.+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")


def is_function_spec(text: str) -> bool:
    """Whether a TARGET string names a function in a script (``SCRIPT.py:FUNCTION``)."""
    return _FUNCTION_SPEC.match(text) is not None and not Path(text).exists()


# What reading one module file of a dump can fail with, leaving the others readable.
_UNREADABLE = (HloParseError, DumpFormatError)


class TargetKind(StrEnum):
    """What a TARGET string named."""

    HLO_FILE = "hlo-file"
    DUMP = "dump"
    CAPTURE = "capture"
    SCRIPT = "script"
    FUNCTION = "function"


@dataclass(frozen=True, slots=True)
class ModuleChoice:
    """The module a command reads from a target, and why that one.

    ``rule`` says how it was chosen (``"function"``: the one module of a ``SCRIPT.py:FUNCTION``
    capture; ``"only"``: the target holds one module; ``"named"``: ``--module``; ``"largest"``:
    the module with the most HLO text). ``total`` counts the modules of that stage.
    """

    module: Module
    rule: str
    total: int

    @property
    def note(self) -> str | None:
        """One line for the user when a module was picked from several without being named."""
        if self.rule != "largest" or self.total < 2:
            return None
        others = self.total - 1
        return (
            f"module {self.module.name}: the largest of {self.total} modules "
            f"({others} other{'s' if others != 1 else ''}; --module NAME picks one)"
        )


@dataclass(frozen=True, slots=True)
class _Entry:
    """One module of a target before parsing: its id, name and how to read it."""

    id: int
    name: str | None  # None for a dumped module whose file names carry no module name
    size: int
    load: Any  # () -> Module


@dataclass(frozen=True, slots=True)
class Target:
    """Where a TARGET's HLO lives, ready to be read. Make one with :meth:`resolve`.

    ``kind`` is a :class:`TargetKind`. ``location`` is the HLO text file, the dump folder or
    the saved-capture folder to read: a local path or a URL (:attr:`is_remote`); ``path`` is
    it as a local :class:`~pathlib.Path` (a remote target has none: asking raises
    :class:`TargetError`, so no code reads a made-up local path). For script targets,
    ``script``/``function`` name the source, ``output_dir`` is the cache folder (with
    ``manifest.json``, ``stdout.txt``, ``stderr.txt``) and ``from_cache`` says whether it was
    reused without running anything.
    """

    spec: str
    kind: str
    location: str
    script: Path | None = None
    function: str | None = None
    output_dir: Path | None = None
    from_cache: bool = False
    #: The ``--device`` a ``SCRIPT.py:FUNCTION`` was compiled for (``None``: this machine's).
    device: str | None = None
    #: One line per module file of a dump that could not be read and was left out.
    problems: list[str] = field(default_factory=list, compare=False, repr=False)
    # An HLO file's modules, parsed once: commands ask for the main module and then for all
    # of them (or the main one again), and a 50 MB text takes seconds to parse. A dump's
    # modules are cached by the dump index the same way.
    _file_modules: list[Module] = field(default_factory=list, compare=False, repr=False)
    # The dump folder's index, made once: its modules cache what they parse, so a command that
    # chooses the main module and then reads it again does not list and parse twice.
    _dump_index: list[DumpIndex] = field(default_factory=list, compare=False, repr=False)
    _sources: list[dict[str, str]] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def resolve(
        cls,
        spec: str | os.PathLike[str] | Target,
        *,
        args: Sequence[str] = (),
        timeout: float | None = None,
        refresh: bool = False,
        progress: bool | None = None,
        device: Any = None,
        mesh: str | None = None,
        while_running: Callable[[], object] | None = None,
        scale: str | None = None,
    ) -> Target:
        """Find (and for scripts, capture or reuse from the cache) the HLO a TARGET names.

        ``device`` (a registry name or TPU slice: ``tpu-v5e``, ``tpu-v5e:2x4``) compiles a
        ``SCRIPT.py:FUNCTION`` for that device through :mod:`hloscope.backends`
        (XLA:TPU when libtpu is installed, else this machine's compile marked as an
        estimate); ``mesh`` (``data=8,model=4``) reshapes its arguments' mesh on a slice;
        ``scale`` (``x:0=64``, ``layers*2``) compiles it with its example arguments at
        another size (:mod:`hloscope.capture.scaled_arguments`), cached apart.
        ``while_running`` is called in this process while a script's capture child runs (what
        the caller needs afterwards, imported meanwhile).
        Other targets are read as they are: their device is the one they were compiled for.

        ``args`` are command-line arguments for a ``SCRIPT.py`` target; ``timeout`` stops a
        script that runs longer (seconds); ``refresh`` ignores a cached capture; ``progress``
        shows a spinner while a script runs (default: when stderr is a terminal). Raises
        :class:`TargetError` with a one-line message for anything that is not a target, and
        :class:`~hloscope.capture.errors.CaptureError` when a script fails (the message carries
        the script's error and points at its ``stderr.txt``).
        """
        if isinstance(spec, Target):
            return spec
        compile_for = _CompileFor.of(device, mesh, while_running, scale)
        run = _ScriptRun(args, timeout, refresh, progress)
        return _resolve(os.fspath(spec), run, compile_for)

    @property
    def is_remote(self) -> bool:
        """Whether the target is a URL (object storage, a web server, ``memory://``)."""
        return storage.is_url(self.location)

    @property
    def path(self) -> Path:
        """The target as a local path (:class:`TargetError` for a remote target)."""
        if self.is_remote:
            raise TargetError(
                f"{self.location}: this needs a local file or folder "
                "(copy it here first; a URL is read as a dump folder or HLO file only)"
            )
        return Path(self.location)

    def compile_info(self) -> dict[str, Any]:
        """What compiled this target's module: ``compiled_for`` (JAX's device kind, ``None``
        for an estimate or when unknown), ``device`` (the ``--device`` asked for),
        ``estimate_note``, ``backend`` and ``compiled_by``; read from a capture's index, not
        its stages."""
        info: dict[str, Any] = {
            "compiled_for": None,
            "device": self.device,
            "estimate_note": None,
            "backend": None,
            "compiled_by": None,
            "compile_error": None,
        }
        if self.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE) and not self.is_remote:
            from .inprocess import Capture

            saved = Capture.read_index(self.path)
            for key in info:
                info[key] = saved.get(key, info[key])
        return info

    @property
    def manifest(self) -> dict[str, Any] | None:
        """The capture manifest of a script target or ``hloscope capture`` folder, if any."""
        folder = self._capture_folder()
        if folder is None:
            return None
        try:
            return json.loads((folder / "manifest.json").read_text())
        except (OSError, ValueError):
            return None

    def _capture_folder(self) -> Path | None:
        """The folder of the run hloscope captured this target from (its manifest's)."""
        if self.is_remote:
            return None  # only script captures, which are local, have one
        folder = self.output_dir
        if (
            folder is None
            and self.kind in (TargetKind.DUMP, TargetKind.FUNCTION, TargetKind.CAPTURE)
            and (self.path.parent / "manifest.json").is_file()
        ):
            folder = self.path.parent
        return folder

    def source_files(self) -> dict[str, str]:
        """The user's source files as they were when this target was captured (``{}`` when
        hloscope did not capture it, or kept none): see
        :mod:`hloscope.capture.source_snapshot`. Read once."""
        if not self._sources:
            from .source_snapshot import read_snapshot

            self._sources.append(read_snapshot(self._capture_folder()))
        return self._sources[0]

    def dump(self) -> DumpIndex:
        """The dump index of a dump-folder or script target."""
        if self.kind not in (TargetKind.DUMP, TargetKind.SCRIPT):
            raise TargetError(f"{self.spec}: a {self.kind} target has no XLA dump folder")
        from ..dump.index import load_dump

        if not self._dump_index:
            self._dump_index.append(load_dump(self.location))
        return self._dump_index[0]

    def capture(self) -> Capture:
        """The saved :class:`~hloscope.capture.inprocess.Capture` of a function or capture
        target."""
        if self.kind not in (TargetKind.FUNCTION, TargetKind.CAPTURE):
            raise TargetError(
                f"{self.spec}: only SCRIPT.py:FUNCTION and saved-capture targets hold a capture"
            )
        from .inprocess import Capture
        from .parse_ahead import use_parsed_ahead

        capture = Capture.load(self.path)
        capture.source_files = self.source_files()
        use_parsed_ahead(capture)  # its optimized module, when parsed while it compiled
        return capture

    def modules(self, stage: str | Stage = Stage.OPTIMIZED_HLO) -> list[Module]:
        """The target's HLO modules for ``stage`` (``"before"``/``"after"`` or any
        :class:`~hloscope.stages.Stage` alias), in module-id order.

        A text file is read as it is, whatever ``stage`` says. A dump gives one module per
        compilation that dumped that stage (helper modules JAX compiles for eager ops
        included). A function capture gives its one module.
        """
        return self._load_each(self._entries(stage))

    def choose_module(
        self, stage: str | Stage = Stage.OPTIMIZED_HLO, name: str | None = None
    ) -> ModuleChoice:
        """The main module of this target, with the rule that chose it.

        The rule, the same for every command: ``name`` (``--module``) picks the module whose
        name is ``name``, else whose id is ``name``, else whose name contains it (of several
        matches, the largest). Without ``name``, a ``SCRIPT.py:FUNCTION`` or saved capture
        means its own module, and otherwise the **largest** module (the most HLO text), which in
        a dump folder is the program rather than the small helper modules eager dispatch
        compiles. Raises :class:`TargetError` naming the modules there are when none matches.
        """
        entries = self._entries(stage)
        if name is None:
            if len(entries) == 1:
                rule = "function" if self.kind is TargetKind.FUNCTION else "only"
                return ModuleChoice(entries[0].load(), rule, 1)
            return ModuleChoice(self._load_largest(entries), "largest", len(entries))
        matches = (
            [e for e in entries if e.name == name]
            or [e for e in entries if str(e.id) == name.lstrip("#")]
            or [e for e in entries if e.name is not None and name in e.name]
        )
        if not matches:
            # A module without a name is listed by its id, which --module also takes.
            names = sorted({e.name or f"#{e.id}" for e in entries})
            shown = ", ".join(names[:8]) + (
                f", ... ({len(names)} in all)" if len(names) > 8 else ""
            )
            raise TargetNotFound(f"{self.spec}: no module named {name!r} (modules: {shown})")
        return ModuleChoice(self._load_largest(matches), "named", len(entries))

    def main_module(
        self, stage: str | Stage = Stage.OPTIMIZED_HLO, name: str | None = None
    ) -> Module:
        """The module :meth:`choose_module` picks (see there for the rule)."""
        return self.choose_module(stage, name).module

    def _load_each(self, entries: Sequence[_Entry]) -> list[Module]:
        """Every module of ``entries``; of several, an unreadable one is left out (noted in
        :attr:`problems`) unless none can be read."""
        if len(entries) == 1:
            return [entries[0].load()]
        loaded, first_error = [], None
        for entry in entries:
            try:
                loaded.append(entry.load())
            except _UNREADABLE as error:
                self.problems.append(error.one_line())
                first_error = first_error or error
        if not loaded and first_error is not None:
            raise first_error
        return loaded

    def _load_largest(self, entries: Sequence[_Entry]) -> Module:
        """The largest readable module of ``entries`` (an unreadable one is noted and passed)."""
        ordered = sorted(entries, key=lambda e: e.size, reverse=True)  # stable: earlier first
        for entry in ordered[:-1]:
            try:
                return entry.load()
            except _UNREADABLE as error:
                self.problems.append(error.one_line())
        return ordered[-1].load()

    def _entries(self, stage: str | Stage) -> list[_Entry]:
        try:
            which = Stage.parse(stage)
        except UnknownStageError as error:
            raise TargetError(str(error)) from None
        if not which.is_hlo:
            raise TargetError(f"stage {str(stage)!r} is not HLO; use 'before' or 'after'")
        if self.kind is TargetKind.HLO_FILE:
            return self._file_entries()
        if self.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
            capture = self.capture()
            if which not in capture.stages:
                raise TargetError(f"{self.spec}: the capture has no {which.short} stage")
            size = len(capture.stages[which])
            return [_Entry(0, capture.name, size, lambda: capture.module(which))]
        entries = []
        for m in self.dump().modules:
            stage_files = m.stage(which)
            text = stage_files.text_file if stage_files is not None else None
            if text is not None:
                size = text.size  # from the listing: no request per file for a remote dump
                load = m.before if which is Stage.HLO else m.after
                entries.append(_Entry(m.id, m.name, size, self._with_sources(load)))
        if (
            not entries
            and self.kind is TargetKind.SCRIPT
            and not (self.manifest or {}).get("devices")
        ):
            raise TargetError(
                f"{self.spec}: the script compiled nothing with XLA "
                "(it never imported jax or tensorflow)"
            )
        if not entries:
            what = f"{which.short}-optimization"
            raise TargetError(
                f"{self.location}: no {what} HLO text in this dump "
                "(was it dumped with --xla_dump_hlo_as_text?)"
            )
        return entries

    def _with_sources(self, load: Callable[[], Module | None]) -> Callable[[], Module | None]:
        """``load``, then the module gets the capture's snapshot of the source files."""

        def loaded() -> Module | None:
            module = load()
            sources = self.source_files() if module is not None else {}
            if module is not None and sources:
                module.source_files = sources
            return module

        return loaded

    def _file_entries(self) -> list[_Entry]:
        from ..hlo.parser import parse_modules

        if not self._file_modules:
            if self.is_remote:
                # The bytes, with the URL to name in errors (URL:line:column).
                text = storage.read_bytes(self.location)
                self._file_modules.extend(parse_modules(text, path=self.location))
            else:
                self._file_modules.extend(parse_modules(self.path))
        modules = self._file_modules
        return [
            _Entry(i, m.name, _instruction_count(m), (lambda m=m: m)) for i, m in enumerate(modules)
        ]


def _instruction_count(module: Module) -> int:
    return sum(map(len, module.computations))  # counted without building unbuilt bodies


#: A target compiled for this machine, as the script gives its arguments.
_FOR_THIS_MACHINE = _CompileFor()

# ---- resolution ----------------------------------------------------------------------------------


def _resolve(text: str, run: _ScriptRun, compile_for: _CompileFor = _FOR_THIS_MACHINE) -> Target:
    if not text.strip():
        raise TargetNotFound(
            "empty TARGET (give an HLO file, a dump folder, SCRIPT.py or SCRIPT.py:FUNCTION)"
        )
    if storage.is_url(text):
        return _resolve_url(text)
    path = Path(text)
    try:
        if path.is_dir():
            return _resolve_folder(text, path)
        if path.is_file():
            if path.suffix == ".py":
                return _resolve_script(text, path, None, run)
            return Target(spec=text, kind=TargetKind.HLO_FILE, location=text)
    except OSError as error:  # a symlink loop, a path too long...
        raise TargetError(f"{text}: {error.strerror or error}") from None
    found = _FUNCTION_SPEC.match(text)
    if found is not None and Path(found.group("script")).is_file():
        if run.args:
            raise TargetError(f"{text}: a SCRIPT.py:FUNCTION target takes no script arguments")
        script = Path(found.group("script"))
        return _resolve_script(text, script, found.group("function"), run, compile_for)
    raise _not_found(text)


def check_target_exists(spec: str) -> None:
    """Raise the :class:`TargetNotFound` :meth:`Target.resolve` would raise for a local TARGET
    that is not there, without capturing or reading anything: a command of two targets
    (``diff A B``) says B is missing before it spends seconds capturing A. A URL is left to
    :meth:`Target.resolve` (asking the store is a request)."""
    if not spec.strip() or storage.is_url(spec):
        return
    try:
        if Path(spec).exists():
            return
    except OSError:
        return  # resolve says what is wrong with it
    found = _FUNCTION_SPEC.match(spec)
    if found is not None and Path(found.group("script")).is_file():
        return
    raise _not_found(spec)


def _not_found(text: str) -> TargetNotFound:
    """The error for a local TARGET that names nothing: a missing script, a broken link, no
    such file or folder."""
    found = _FUNCTION_SPEC.match(text)
    if found is not None:
        return TargetNotFound(f"{found.group('script')}: no such file")
    if os.path.islink(text):  # a link that leads nowhere: say which way it fails
        try:
            os.stat(text)
        except OSError as error:
            if error.errno == errno.ELOOP:
                return TargetNotFound(f"{text}: a symbolic link loop")
            return TargetNotFound(f"{text}: a broken symbolic link (to {os.readlink(text)})")
    return TargetNotFound(
        f"{text}: no such file or folder "
        "(a TARGET is an HLO file, a dump folder, SCRIPT.py or SCRIPT.py:FUNCTION)"
    )


def _resolve_folder(text: str, path: Path) -> Target:
    from .inprocess import Capture

    if Capture.is_saved(path):
        return Target(spec=text, kind=TargetKind.CAPTURE, location=str(path))
    if (path / "manifest.json").is_file() and (path / "dump").is_dir():  # `hloscope capture -o DIR`
        return Target(spec=text, kind=TargetKind.DUMP, location=str(path / "dump"))
    function_capture = path / "capture"  # `hloscope capture SCRIPT.py:FUNCTION -o DIR`
    if (path / "manifest.json").is_file() and Capture.is_saved(function_capture):
        return Target(spec=text, kind=TargetKind.CAPTURE, location=str(function_capture))
    return Target(spec=text, kind=TargetKind.DUMP, location=str(path))


def _resolve_url(url: str) -> Target:
    """A URL TARGET: a dump folder (a prefix holding keys) or one HLO file, asked of the
    store in one request (two more for a folder: is it an ``hloscope capture`` folder?);
    nothing is downloaded here. (An ``hloscope capture -o DIR``
    folder is recognised as locally; a saved capture and a script must be local.)"""
    if url.endswith(".py") or _FUNCTION_SPEC.match(url) is not None:
        raise TargetError(
            f"{url}: a script target cannot be a URL (scripts run here: copy it here; "
            "a URL TARGET is a dump folder or an HLO file)"
        )
    try:
        found = storage.kind(url)
        if found == "directory":
            capture_dump = storage.join(url, "dump")
            if storage.exists(storage.join(url, "manifest.json")) and storage.is_dir(capture_dump):
                return Target(spec=url, kind=TargetKind.DUMP, location=capture_dump)
            return Target(spec=url, kind=TargetKind.DUMP, location=url.rstrip("/"))
        if found == "file":
            return Target(spec=url, kind=TargetKind.HLO_FILE, location=url)
    except OSError as error:  # the store refused (permissions, a bad bucket name...)
        raise TargetError(f"{url}: {error.strerror or error}") from None
    raise TargetNotFound(
        f"{url}: no such file or folder (a URL TARGET is a dump folder or an HLO file)"
    )


def _resolve_script(
    text: str,
    script: Path,
    function: str | None,
    run: _ScriptRun,
    compile_for: _CompileFor = _FOR_THIS_MACHINE,
) -> Target:
    # The script calling hloscope on itself from a line the capture's child would run again.
    if function:
        refuse_reimport(script, function)
    else:
        refuse_rerun(script)
    folder, hlo_path, from_cache = capture_cached(script, function, run, compile_for)
    kind = TargetKind.FUNCTION if function else TargetKind.SCRIPT
    device = compile_for.device if function else None
    return Target(text, kind, str(hlo_path), script, function, folder, from_cache, device)
