"""The environment a TARGET was compiled in, and a capture made in another one.

``hloscope diff`` compares two environments (see :mod:`hloscope.analysis.diff.environment`)
from what each side's capture recorded: the package versions (``capture.json``'s, written by
the process that compiled; the manifest's, with the Python version, written by the command
that ran it) and the compile times (:func:`~hloscope.drivers.compile_time.compile_time_of_target`).

:func:`capture_in_python` makes one side in another environment: it runs that interpreter's
own hloscope, ``PYTHON -m hloscope capture SCRIPT.py:FUNCTION -o FOLDER``, so the function is
traced, lowered and compiled by that environment's jax, jaxlib and libtpu, and the folder is
read here like any capture folder. The other interpreter needs hloscope installed (with its
jax); when it has none, one line says so.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..capture.errors import CaptureError, CaptureUsageError

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.compile_time import CompileTime
    from ..analysis.diff.environment import EnvironmentDiff
    from ..capture.target import Target

__all__ = [
    "SideEnvironment",
    "environment_of",
    "target_versions",
    "capture_in_python",
    "compare_environments",
]


@dataclass(slots=True)
class SideEnvironment:
    """One side's versions and compile time (``None``, with ``note`` saying why)."""

    versions: dict[str, str] = field(default_factory=dict)
    compile_time: CompileTime | None = None
    note: str | None = None


def _read_json(path: Path) -> dict[str, Any]:
    import json

    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def target_versions(target: Target) -> dict[str, str]:
    """The package versions a target's capture recorded (``{}`` for an HLO file or a dump
    hloscope did not make): the manifest's (jax, jaxlib, tensorflow, keras and Python, read by
    the command that ran the capture), then ``capture.json``'s (read by the process that
    compiled, with libtpu for an XLA:TPU compile), which win."""
    from ..capture.target import TargetKind

    if target.is_remote:
        return {}
    found: dict[str, str] = {}
    manifest = target.manifest or {}
    for name, version in (manifest.get("versions") or {}).items():
        if isinstance(version, str):
            found[name] = version
    python = (manifest.get("python") or {}).get("version")
    if isinstance(python, str):
        found["python"] = python
    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        recorded = _read_json(target.path / "capture.json").get("versions") or {}
        found.update({k: v for k, v in recorded.items() if isinstance(v, str)})
    return found


def environment_of(target: Target, module: str | None = None) -> SideEnvironment:
    """A target's versions and the compile time of its main module (``module`` names
    another); a target that kept no times gets a note instead."""
    from ..errors import HloscopeError
    from .compile_time import compile_time_of_target

    side = SideEnvironment(versions=target_versions(target))
    try:
        side.compile_time = compile_time_of_target(target, module)
    except HloscopeError as error:
        side.note = error.one_line()
        return side
    stages = side.compile_time.stages
    if stages.trace_s is None and stages.backend_compile_s is None and side.compile_time.notes:
        side.note = side.compile_time.notes[0]  # why JAX's stage times are missing
    return side


def compare_environments(
    a: SideEnvironment, b: SideEnvironment, *, top: int = 10
) -> EnvironmentDiff:
    """The environment diff of two sides, with each side's note."""
    from ..analysis.diff.environment import environment_diff

    notes = [f"{name}: {s.note}" for name, s in (("A", a), ("B", b)) if s.note]
    return environment_diff(
        a.versions, b.versions, a.compile_time, b.compile_time, top=top, notes=notes
    )


def _last_line(text: str) -> str:
    """The last line an hloscope wrote, without its ``hloscope: error:`` prefix."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1].removeprefix("hloscope: error: ") if lines else ""


def capture_in_python(
    python: str,
    spec: str,
    folder: Path,
    *,
    device: str | None = None,
    timeout: float | None = None,
) -> Path:
    """Capture ``spec`` (``SCRIPT.py:FUNCTION``) with the interpreter ``python``'s own hloscope
    into ``folder`` (created; it must not exist or be empty) and return it.

    Raises :class:`CaptureUsageError` (one line) when ``python`` is no interpreter or has no
    hloscope, :class:`CaptureError` with that hloscope's own last line when its capture
    failed."""
    command = [python, "-m", "hloscope", "capture", spec, "-o", os.fspath(folder)]
    command += ["--device", device] if device is not None else []
    # The other environment's own hloscope, not a folder named hloscope in the current one
    # (``-m`` would put the working folder first on its path; Python 3.11 reads this).
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except FileNotFoundError:
        raise CaptureUsageError(f"{python}: no such Python interpreter") from None
    except PermissionError:
        raise CaptureUsageError(f"{python}: not an executable Python interpreter") from None
    except OSError as error:
        raise CaptureUsageError(f"{python}: cannot run it ({error.strerror or error})") from None
    except subprocess.TimeoutExpired:
        raise CaptureError(f"{python}: the capture of {spec} ran past {timeout:g} s") from None
    if done.returncode == 0:
        return folder
    said = _last_line(done.stderr) or _last_line(done.stdout)
    if "No module named hloscope" in done.stderr:
        raise CaptureUsageError(
            f"{python} has no hloscope installed: install it there "
            f"({python} -m pip install 'hloscope[jax]') to capture {spec} with its jax"
        )
    raise CaptureError(f"{python}'s hloscope could not capture {spec}: {said}")
