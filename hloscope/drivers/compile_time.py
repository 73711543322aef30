"""Compile time of a TARGET: the capture or dump it opens, measured and read into
:class:`~hloscope.analysis.compile_time.CompileTime` (the Python face of
``hloscope compile-time``).

Analysis takes data (a capture's times, a dump's module metadata); what opens a target,
compiles a function or reads a script run's records lives here, above it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analysis.compile_time import CompileTime, compile_time_of_capture, compile_time_of_dump
from ..analysis.errors import CompileTimeError, NoCompileTimes

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.target import Target
    from ..dump.index import DumpIndex, DumpModule

__all__ = ["compile_time", "compile_time_of_target", "script_compile_timing"]


def compile_time_of_target(target: Target, module: str | None = None) -> CompileTime:
    """The compile time of a target's main module (``module`` names another): a
    ``SCRIPT.py:FUNCTION`` or saved capture from its capture, a dump folder or script capture
    from XLA's module metadata. One HLO file holds no compile: :class:`NoCompileTimes`."""
    from ..capture.target import TargetKind
    from ..stages import Stage

    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        return compile_time_of_capture(target.capture())
    if target.kind is TargetKind.HLO_FILE:
        raise NoCompileTimes(
            f"{target.spec}: one HLO file holds no compile times (give SCRIPT.py:FUNCTION, a "
            "capture folder, or a dump folder made with --xla_dump_module_metadata=true)"
        )
    chosen = target.choose_module(Stage.OPTIMIZED_HLO, module).module
    index = target.dump()
    path = chosen.source.path if chosen.source is not None else None
    found = next(
        (m for m in index.modules if m.after_file is not None and m.after_file.location == path),
        None,
    ) or next(m for m in index.modules if m.name == chosen.name)
    family = [m for m in index.modules if m.name == found.name and m is not found]
    # XLA:TPU's metadata file carries no module name: the one of the module's own id.
    family += [m for m in index.modules if m.name is None and m.id == found.id]
    folder = target.output_dir
    if folder is None and not target.is_remote and (target.path.parent / "manifest.json").is_file():
        folder = target.path.parent  # an `hloscope capture -o DIR` folder
    timing = script_compile_timing(folder, index, found, family) if folder is not None else None
    return compile_time_of_dump(found, family, timing)


def _normal(name: str) -> str:
    """A function's name as JAX reports it (``jit(<lambda>)``) and as its module is named
    (``jit__lambda_``), compared alike."""
    return re.sub(r"_+", "_", re.sub(r"\W", "_", name)).strip("_")


def _compiles(events: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """JAX's events of a script run, one list per compile: what was traced and lowered since
    the previous backend compile, and that compile."""
    compiles, pending = [], []
    for event in events:
        pending.append(event)
        if event.get("stage") == "backend_compile_s":
            compiles.append(pending)
            pending = []
    return compiles


def script_compile_timing(
    folder: Path, index: DumpIndex, module: DumpModule, family: Sequence[DumpModule]
) -> dict[str, Any] | None:
    """JAX's durations of ``module``'s compile from a script capture's ``compile_time.json``:
    the k-th compile of a function is the k-th module of its name that XLA dumped (``None``
    when the run kept none, or they do not pair)."""
    import json

    try:
        events = json.loads((folder / "compile_time.json").read_text())["events"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    compiled = next((m for m in (module, *family) if m.before_file is not None), None)
    if compiled is None or compiled.name is None:
        return None
    compiles = _compiles(events)
    if compiles and not any(c[-1].get("function") for c in compiles):
        return _paired_in_order(index, compiled, compiles)
    name = _normal(compiled.name)
    same = sorted(
        (m for m in index.modules if m.name == compiled.name and m.before_file is not None),
        key=lambda m: m.key,
    )
    ours = [c for c in compiles if _normal(str(c[-1].get("function", ""))) == name]
    k = next(i for i, m in enumerate(same) if m is compiled)
    if k >= len(ours):
        return None
    return {"events": list(ours[k])}


def _paired_in_order(
    index: DumpIndex, compiled: DumpModule, compiles: Sequence[Sequence[Mapping[str, Any]]]
) -> dict[str, Any] | None:
    """The durations of ``compiled`` where JAX named no function in its events (jax 0.5 tags
    none): the k-th compile is the k-th module XLA dumped, in the order of their ids, when
    the run compiled as many modules as XLA dumped (else ``None``: no guess)."""
    dumped = sorted((m for m in index.modules if m.before_file is not None), key=lambda m: m.key)
    if len(dumped) != len(compiles):
        return None
    k = next(i for i, m in enumerate(dumped) if m is compiled)
    return {"events": list(compiles[k])}


def compile_time(
    target: Any,
    *args: Any,
    device: Any = None,
    module: str | None = None,
    refresh: bool = False,
    **kwargs: Any,
) -> CompileTime:
    """Where a compile's time went (the Python face of ``hloscope compile-time``).

    ``target`` is a JAX function (compiled here with ``args`` and ``kwargs`` as example
    inputs; ``device="tpu-v5e"`` compiles it with XLA:TPU in this process, as
    :func:`hloscope.capture` does), a :class:`~hloscope.capture.inprocess.Capture`, or a TARGET
    string (``"train.py:step"``, a capture or dump folder; ``device`` compiles a
    ``SCRIPT.py:FUNCTION`` for that device in a child process, cached; ``refresh`` measures
    again)::

        report = hloscope.compile_time(step, params, batch, device="tpu-v5e")
        report.stages.backend_s, report.passes[0].name, report.findings[0].fix
    """
    import os

    from ..backends.record import Capture
    from ..capture.target import Target, TargetKind

    if isinstance(target, Capture):
        return compile_time_of_capture(target)
    if isinstance(target, (str, os.PathLike, Target)):
        if args or kwargs:
            raise CompileTimeError("example arguments go with a function, not a TARGET string")
        opened = Target.resolve(target, refresh=refresh, device=device)
        stale = opened.kind is TargetKind.FUNCTION and not refresh
        if stale and Capture.read_index(opened.path).get("compile_time") is None:
            opened = Target.resolve(target, refresh=True, device=device)
        return compile_time_of_target(opened, module)
    from ..backends import capture_for

    return compile_time_of_capture(capture_for(target, args, kwargs, device))
