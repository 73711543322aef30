"""The target cache's side of a script target: what a function target is compiled for
(device, mesh, scale), the cache key and folder of a script target, and the capture made
into that folder when it is not there yet (atomically: a reader never sees half of one).

:mod:`hloscope.capture.target` resolves a TARGET to a :class:`~.target.Target` with it
(and names :func:`target_cache_key` there too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .cache import cache_folder, cache_key, is_fresh
from .errors import CaptureError, CaptureUsageError, TargetError

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = ["capture_cached", "target_cache_key"]


@dataclass(frozen=True, slots=True)
class _ScriptRun:
    """How a script target's capture runs: the script's command-line ``args``, the child's
    ``timeout`` (seconds), ``refresh`` (capture again, ignoring the cache) and ``progress``
    (a spinner; ``None``: when stderr is a terminal)."""

    args: Sequence[str] = ()
    timeout: float | None = None
    refresh: bool = False
    progress: bool | None = None


@dataclass(frozen=True, slots=True)
class _CompileFor:
    """What a function target is compiled for: the device spec's text and the mesh."""

    device: str | None = None
    mesh: str | None = None
    #: The example arguments at another size (``x:0=64``), ``None``: as the script gives them.
    scale: str | None = None
    #: Called while a capture child runs (not part of what is compiled).
    while_running: Callable[[], object] | None = field(default=None, compare=False)

    @classmethod
    def of(
        cls,
        device: Any,
        mesh: str | None,
        while_running: Callable[[], object] | None = None,
        scale: str | None = None,
    ) -> _CompileFor:
        if scale is not None:
            from .scaled_arguments import parse_scale_at

            parse_scale_at(scale)  # a malformed scale is said now, before any child starts
        if device is None:
            if mesh is not None:
                raise CaptureUsageError(
                    "--mesh reshapes the mesh on a TPU slice: give --device too"
                )
            return cls(scale=scale, while_running=while_running)
        if mesh is not None:
            from .mesh import parse_mesh

            parse_mesh(mesh)  # a malformed --mesh is said now, before any child starts
        from ..devices import parse_device

        return cls(str(parse_device(device)), mesh, scale, while_running)

    def key(self) -> dict[str, Any] | None:
        """The cache key's part (``None``: compiled for this machine, as before)."""
        if self.device is None:
            return None if self.scale is None else {"scale": self.scale}
        from ..backends import cache_key_for

        return {
            "device": self.device,
            "mesh": self.mesh,
            **cache_key_for(self.device),  # the backend's label and compiler
            **({"scale": self.scale} if self.scale is not None else {}),
        }

    def parses_dumped_module(self) -> bool:
        """Whether the compile's capture keeps the optimized module its compile dumps (XLA:TPU's
        does: the module its buffer assignment names; the local JAX keeps ``Compiled.as_text()``,
        another text): that module can then be parsed while the compile runs
        (:mod:`.parse_ahead`)."""
        if self.device is None:
            return False
        from ..backends import BackendName, cache_key_for

        return cache_key_for(self.device).get("backend") == BackendName.XLA_TPU

    def label(self, function: str) -> str:
        parts = [p for p in (self.device, self.scale) if p is not None]
        return ".".join([function, *(re.sub(r"[^A-Za-z0-9_-]", "_", p) for p in parts)])


def target_cache_key(
    script: Path,
    args: Sequence[str],
    function: str | None,
    compile_for: dict[str, Any] | None = None,
) -> str:
    """The cache key of a script target (see :mod:`hloscope.capture.cache`)."""
    from .._version import __version__
    from .script import framework_versions

    try:
        content = script.read_bytes()
    except OSError as error:
        raise TargetError(f"{script}: cannot read ({error.strerror or error})") from None
    versions = {"hloscope": __version__, **framework_versions()}
    return cache_key(script, content, args, function, versions, compile_for)


def _cache_folder(
    script: Path, args: Sequence[str], function: str | None, compile_for: _CompileFor
) -> Path:
    key = target_cache_key(script, args, function, compile_for.key() if function else None)
    return cache_folder(key, script, compile_for.label(function) if function else None)


def _reusable(folder: Path, hlo_path: Path) -> bool:
    """A finished capture whose local modules still hash as they did."""
    if not ((folder / "manifest.json").is_file() and hlo_path.is_dir()):
        return False
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    return is_fresh(manifest)


def capture_cached(
    script: Path, function: str | None, run: _ScriptRun, compile_for: _CompileFor
) -> tuple[Path, Path, bool]:
    """The cache folder of a script target, its capture's folder inside, and whether the
    capture was already there: captured now (into a private folder, then renamed into place)
    when it was not, or when ``run.refresh``."""
    device = compile_for.device if function else None
    folder = _cache_folder(script, run.args, function, compile_for)
    hlo_path = folder / ("capture" if function else "dump")
    if not run.refresh and _reusable(folder, hlo_path):
        return folder, hlo_path, True

    # Capture into a private folder beside the final one, then rename it into place: a reader
    # never sees a half-written capture, and two processes racing on one target both succeed.
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        from .script import ScriptSettings, capture_script

        settings = ScriptSettings(
            function=function,
            timeout=run.timeout,
            force=True,
            progress=run.progress,
            device=device,
            mesh=compile_for.mesh if function else None,
            while_running=compile_for.while_running,
            scale=compile_for.scale if function else None,
            # The target is read next, here: its module parsed while it compiles.
            parse_ahead=bool(function) and compile_for.parses_dumped_module(),
        )
        captured = capture_script(script, run.args, work, settings)
        if not captured.ok:
            _refuse_failed(captured.manifest, work, folder)
        _move_into_place(work, folder, hlo_path)
        return folder, hlo_path, False
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _refuse_failed(manifest: dict[str, Any], work: Path, folder: Path) -> NoReturn:
    """Keep a failed capture beside the cache's folder (``NAME.failed``) and raise its error."""
    from .script import ScriptCapture
    from .script_loader import EXAMPLE_ARGS_HELP

    failed = folder.with_name(folder.name + ".failed")
    shutil.rmtree(failed, ignore_errors=True)
    os.replace(work, failed)
    kept = ScriptCapture(out_dir=failed, manifest=manifest)
    message = kept.error_line() or "capture failed"
    usage = kept.usage_error
    # No such function, no usable example arguments: the mistake the static check of the
    # source says before any child starts (exit 2), found here when the source alone could
    # not tell (a star import, a module __getattr__).
    error_class = CaptureUsageError if usage else CaptureError
    detail = EXAMPLE_ARGS_HELP if usage else ""
    raise error_class(message, detail=detail, output_dir=str(failed))


def _move_into_place(work: Path, folder: Path, hlo_path: Path) -> None:
    """Rename the finished capture ``work`` to the cache's ``folder``."""
    if folder.exists():  # --refresh, or a stale entry: the new capture replaces it
        shutil.rmtree(folder, ignore_errors=True)
    try:
        os.replace(work, folder)
    except OSError:
        # Another process finished the same target first (the folder is there, not empty).
        if not ((folder / "manifest.json").is_file() and hlo_path.is_dir()):
            raise
