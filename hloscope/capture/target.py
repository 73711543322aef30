"""TARGET resolution: what every hloscope command that reads HLO accepts.

A TARGET is one of

* an **HLO text file** (one or more modules, e.g. ``module_0004.jit_f.cpu_after_optimizations.txt``);
* an **XLA dump folder** (``--xla_dump_to``), or an ``hloscope capture -o DIR`` folder (its
  ``dump/`` is used), or a folder written by :meth:`hloscope.Capture.save`;
* a **script**, ``SCRIPT.py``: run it in a child process and capture everything XLA compiles
  (:func:`hloscope.capture.script.capture_script`);
* a **function in a script**, ``SCRIPT.py:FUNCTION``: import the script in a child process (its
  ``if __name__ == "__main__":`` block does not run) and capture that one function with example
  arguments the script provides (the convention is in
  :data:`hloscope.capture._runner.EXAMPLE_ARGS_HELP`: ``FUNCTION.example_args``, a module-level
  ``EXAMPLE_ARGS`` dict or ``example_args()`` function, or no arguments at all).

Scripts are captured into a cache folder (``$HLOSCOPE_CACHE``, else
``$XDG_CACHE_HOME/hloscope`` or ``~/.cache/hloscope``) keyed by a hash of the script's content
and path, its arguments, the function name, ``XLA_FLAGS``, the installed jax/jaxlib/TensorFlow
versions and hloscope's version, so asking again is instant. (Files the script imports are not
part of the key; pass ``refresh=True`` / delete the cache after editing them.) Failed captures are
not cached; their output stays in ``<key>.failed`` for a look at ``stderr.txt``.

Resolving a text file or a dump folder never imports jax or TensorFlow.

    >>> modules = load_modules("train.py:step", stage="after")   # what analysis commands call
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import CaptureError

if TYPE_CHECKING:  # pragma: no cover
    from ..dump.index import DumpIndex
    from ..hlo.model import Module
    from .inprocess import Capture

__all__ = [
    "ResolvedTarget",
    "resolve_target",
    "load_modules",
    "cache_root",
    "target_cache_key",
    "CACHE_ENV",
    "TARGET_KINDS",
]

CACHE_ENV = "HLOSCOPE_CACHE"
#: ``kind`` values of a :class:`ResolvedTarget`.
TARGET_KINDS = ("hlo-file", "dump", "capture", "script", "function")

_FUNCTION_SPEC = re.compile(r"^(?P<script>.+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")
_STAGES = {
    "before": "before",
    "before_optimizations": "before",
    "hlo": "before",
    "after": "after",
    "after_optimizations": "after",
    "optimized_hlo": "after",
    "optimized": "after",
}


@dataclass(frozen=True, slots=True)
class ResolvedTarget:
    """Where a TARGET's HLO lives, ready to be read.

    ``kind`` is one of :data:`TARGET_KINDS`. ``path`` is the HLO text file, the dump folder or
    the saved-capture folder to read. For script targets, ``script``/``function`` name the
    source, ``output_dir`` is the cache folder (with ``manifest.json``, ``stdout.txt``,
    ``stderr.txt``) and ``from_cache`` says whether it was reused without running anything.
    """

    spec: str
    kind: str
    path: Path
    script: Path | None = None
    function: str | None = None
    output_dir: Path | None = None
    from_cache: bool = False

    @property
    def manifest(self) -> dict[str, Any] | None:
        """The capture manifest of a script target or ``hloscope capture`` folder, if any."""
        folder = self.output_dir
        if folder is None and self.kind == "dump" and (self.path.parent / "manifest.json").is_file():
            folder = self.path.parent
        if folder is None:
            return None
        try:
            return json.loads((folder / "manifest.json").read_text())
        except (OSError, ValueError):
            return None

    def dump(self) -> DumpIndex:
        """The dump index of a dump-folder or script target."""
        if self.kind not in ("dump", "script"):
            raise CaptureError(f"{self.spec}: a {self.kind} target has no XLA dump folder")
        from ..dump.index import load_dump

        return load_dump(self.path)

    def capture(self) -> Capture:
        """The saved :class:`~hloscope.capture.inprocess.Capture` of a function or capture target."""
        if self.kind not in ("function", "capture"):
            raise CaptureError(f"{self.spec}: only SCRIPT.py:FUNCTION and saved-capture targets hold a capture")
        from .inprocess import Capture

        return Capture.load(self.path)

    def modules(self, stage: str = "after") -> list[Module]:
        """The target's HLO modules for ``stage`` (``"before"`` or ``"after"`` optimizations).

        A text file is read as it is, whatever ``stage`` says. A dump gives one module per
        compilation that dumped that stage, in module-id order (helper modules JAX compiles
        for eager ops included). A function capture gives its one module.
        """
        which = _STAGES.get(stage)
        if which is None:
            raise CaptureError(f"unknown stage {stage!r}; use 'before' or 'after'")
        if self.kind == "hlo-file":
            from ..hlo.parser import parse_modules

            return parse_modules(self.path)
        if self.kind in ("function", "capture"):
            return [self.capture().module(which)]
        index = self.dump()
        found = [m.before() if which == "before" else m.after() for m in index.modules]
        modules = [m for m in found if m is not None]
        if not modules:
            what = "before-optimization" if which == "before" else "after-optimization"
            raise CaptureError(f"{self.path}: no {what} HLO text in this dump (was it dumped with --xla_dump_hlo_as_text?)")
        return modules


# ---- resolution --------------------------------------------------------------------------------------


def resolve_target(
    spec: str | os.PathLike[str],
    *,
    args: Sequence[str] = (),
    timeout: float | None = None,
    refresh: bool = False,
    progress: bool | None = None,
) -> ResolvedTarget:
    """Find (and for scripts, capture or reuse from the cache) the HLO a TARGET names.

    ``args`` are command-line arguments for a ``SCRIPT.py`` target; ``timeout`` stops a script
    that runs longer (seconds); ``refresh`` ignores a cached capture. Raises
    :class:`CaptureError` with a one-line message for anything that is not a target, and when
    a script fails (the message carries the script's error and points at its ``stderr.txt``).
    """
    text = os.fspath(spec)
    path = Path(text)
    if path.is_dir():
        return _resolve_folder(text, path)
    if path.is_file():
        if path.suffix == ".py":
            return _resolve_script(text, path, None, args, timeout, refresh, progress)
        return ResolvedTarget(spec=text, kind="hlo-file", path=path)
    found = _FUNCTION_SPEC.match(text)
    if found is not None:
        script = Path(found.group("script"))
        if not script.is_file():
            raise CaptureError(f"{found.group('script')}: no such file")
        if args:
            raise CaptureError(f"{text}: a SCRIPT.py:FUNCTION target takes no script arguments")
        return _resolve_script(text, script, found.group("function"), (), timeout, refresh, progress)
    raise CaptureError(f"{text}: no such file or folder (a TARGET is an HLO file, a dump folder, SCRIPT.py or SCRIPT.py:FUNCTION)")


def load_modules(spec: str | os.PathLike[str], stage: str = "after", **options: Any) -> list[Module]:
    """The HLO modules of a TARGET: ``resolve_target(spec, **options).modules(stage)``."""
    return resolve_target(spec, **options).modules(stage)


def _resolve_folder(text: str, path: Path) -> ResolvedTarget:
    from .inprocess import Capture

    if Capture.is_saved(path):
        return ResolvedTarget(spec=text, kind="capture", path=path)
    if (path / "manifest.json").is_file() and (path / "dump").is_dir():  # `hloscope capture -o DIR`
        return ResolvedTarget(spec=text, kind="dump", path=path / "dump")
    return ResolvedTarget(spec=text, kind="dump", path=path)


# ---- the cache ---------------------------------------------------------------------------------------


def cache_root() -> Path:
    """``$HLOSCOPE_CACHE``, else ``$XDG_CACHE_HOME/hloscope``, else ``~/.cache/hloscope``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "hloscope"


def target_cache_key(script: Path, args: Sequence[str], function: str | None) -> str:
    """The cache key of a script target: a hash of everything that changes its HLO."""
    from .. import __version__
    from .script import framework_versions

    try:
        content = script.read_bytes()
    except OSError as error:
        raise CaptureError(f"{script}: cannot read ({error.strerror or error})") from None
    payload = {
        "hloscope": __version__,
        "script": str(script.resolve()),
        "content": hashlib.sha256(content).hexdigest(),
        "args": list(args),
        "function": function,
        "xla_flags": os.environ.get("XLA_FLAGS"),
        "versions": framework_versions(),
        "python": sys.version.split()[0],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _cache_folder(script: Path, args: Sequence[str], function: str | None) -> Path:
    key = target_cache_key(script, args, function)
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", script.stem)
    label = f"{stem}.{function}" if function else stem
    return cache_root() / "targets" / f"{label}-{key[:20]}"


def _resolve_script(
    text: str,
    script: Path,
    function: str | None,
    args: Sequence[str],
    timeout: float | None,
    refresh: bool,
    progress: bool | None,
) -> ResolvedTarget:
    folder = _cache_folder(script, args, function)
    hlo_path = folder / ("capture" if function else "dump")

    def resolved(from_cache: bool) -> ResolvedTarget:
        kind = "function" if function else "script"
        return ResolvedTarget(text, kind, hlo_path, script, function, folder, from_cache)

    if not refresh and (folder / "manifest.json").is_file() and hlo_path.is_dir():
        return resolved(True)

    # Capture into a private folder beside the final one, then rename it into place: a reader
    # never sees a half-written capture, and two processes racing on one target both succeed.
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        from .script import ScriptCapture, capture_script

        run = capture_script(script, args, work, function=function, timeout=timeout, force=True, progress=progress)
        if not run.ok:
            failed = folder.with_name(folder.name + ".failed")
            shutil.rmtree(failed, ignore_errors=True)
            os.replace(work, failed)
            from ._runner import EXAMPLE_ARGS_HELP

            message = ScriptCapture(out_dir=failed, manifest=run.manifest).error_line() or "capture failed"
            detail = EXAMPLE_ARGS_HELP if run.manifest.get("usage_error") else ""
            raise CaptureError(message, detail=detail, output_dir=str(failed))
        if refresh:
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(work, folder)
        except OSError:
            # Another process finished the same target first (the folder is there, not empty).
            if not ((folder / "manifest.json").is_file() and hlo_path.is_dir()):
                raise
        return resolved(False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
