"""The jaxpr of a JAX function with the Python line of every equation, for ``hloscope explain``.

A capture's ``jaxpr`` stage is ``str(traced.jaxpr)``: the program, but not where each
equation came from. JAX keeps that on the equation itself (``eqn.source_info``: the traceback
of the call that bound the primitive), and only a live jaxpr has it. This module reads it
while jax is at hand and writes it down as plain data, so that
:mod:`hloscope.analysis.explain` can put each equation beside the StableHLO ops, HLO
instructions and kernels of the same line without importing jax::

    sources = jaxpr_sources(step, params, x, y)        # JaxprSources: one entry per equation
    sources.equations[0].text, sources.equations[0].stack[0]
    cap = capture_with_sources(step, params, x, y)     # a Capture that carries them too
    cap.save("step.capture")                           # ... and writes jaxpr_sources.json

Every equation is listed in program order, the equations of a sub-jaxpr (the body of a nested
``jit``, ``scan``, ``cond``, ``custom_jvp``...) right after the equation that holds it, with
its ``depth``. Its ``stack`` is the traceback innermost frame first, without the frames of jax,
jaxlib, hloscope and the standard library (what JAX itself leaves out of HLO locations), so
the analysis can pick the user's frame by the same rule as for HLO
(:mod:`hloscope.analysis.provenance`). Variable names are given in one scope per top-level
jaxpr, the way ``str(jaxpr)`` names them.

For ``SCRIPT.py:FUNCTION`` targets, :func:`capture_for_target` runs this module in a child
process (``python -m hloscope.capture.jaxpr_lines --function NAME --save DIR SCRIPT.py``),
as the script capture does, and keeps the result beside the target's cached capture.

Only public attributes of jax objects are read (``eqn.primitive``, ``eqn.params``,
``eqn.source_info.traceback.frames``, ``var.aval``); jax is imported inside functions.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..backends.jaxpr_records import JAXPR_SOURCES_FILE, JaxprEquation, JaxprSources
from ..backends.traceable import traceable
from ..hlo.metadata import StackFrame
from .errors import CaptureError
from .inprocess import Capture

if TYPE_CHECKING:  # pragma: no cover
    from .target import Target

__all__ = [
    "JAXPR_SOURCES_FILE",
    "JaxprEquation",
    "JaxprSources",
    "SourcedCapture",
    "jaxpr_sources",
    "sources_of_jaxpr",
    "capture_with_sources",
    "capture_for_target",
    "saved_capture_for_target",
    "has_jaxpr_sources",
]

# Where the target cache keeps the captures made here (inside the target's own cache folder,
# so they go when the target's capture is replaced).
_EXPLAIN_FOLDER = "explain"
_PASSES_FOLDER = "explain-passes"
# A parameter value longer than this is left out of an equation's text (shapes, shardings...).
_PARAM_LIMIT = 40
# Parameters that say how, not what (placement, layout, sharding): left out of the text.
_NOISY_PARAMS = frozenset(
    {
        "in_shardings",
        "out_shardings",
        "in_layouts",
        "out_layouts",
        "donated_invars",
        "ctx_mesh",
        "keep_unused",
        "inline",
        "compiler_options_kvs",
        "out_sharding",
        "sharding",
        "accuracy",
    }
)


@dataclass(slots=True, eq=False, repr=False)
class SourcedCapture(Capture):
    """A :class:`~hloscope.capture.inprocess.Capture` that also holds its jaxpr's sources.

    :meth:`save` writes :data:`JAXPR_SOURCES_FILE` beside the other stage files and
    :meth:`load` reads it back (a folder without one loads with ``jaxpr_sources=None``).
    """

    jaxpr_sources: JaxprSources | None = None

    def save(self, directory: str | Path) -> Path:
        root = Capture.save(self, directory)
        if self.jaxpr_sources is not None:
            self.jaxpr_sources.save(root)
        return root

    @classmethod
    def load(cls, directory: str | Path) -> SourcedCapture:
        # Named, not zero-argument super(): slots=True makes the dataclass a new class, and the
        # bare form would still point at the class before that.
        loaded = super(SourcedCapture, cls).load(directory)
        loaded.jaxpr_sources = JaxprSources.load(directory)
        return loaded


# ---- walking a jaxpr -----------------------------------------------------------------------------


def _excluded_folders() -> tuple[str, ...]:
    """Folders whose frames JAX leaves out of HLO locations, and hloscope's own."""
    import jax

    folders = [os.path.dirname(os.path.abspath(jax.__file__))]
    try:
        import jaxlib

        folders.append(os.path.dirname(os.path.abspath(jaxlib.__file__)))
    except ImportError:  # pragma: no cover - jax always brings jaxlib
        pass
    folders.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    stdlib = sysconfig.get_paths().get("stdlib")
    if stdlib:
        folders.append(os.path.abspath(stdlib))
    return tuple(folder.rstrip(os.sep) + os.sep for folder in folders)


def _frames(equation: Any, excluded: tuple[str, ...]) -> list[StackFrame]:
    """The equation's traceback, innermost first, without framework frames; each frame with
    its column when the traceback gives the code objects (``raw_frames``), as HLO and
    StableHLO locations have it."""
    source_info = getattr(equation, "source_info", None)
    traceback = getattr(source_info, "traceback", None)
    frames = getattr(traceback, "frames", None) or []
    raw = _raw_frames(traceback, len(frames))
    kept = []
    for i, frame in enumerate(frames):
        file = str(getattr(frame, "file_name", ""))
        if not file or file.startswith(excluded) or file.startswith("<frozen"):
            continue
        line = int(getattr(frame, "line_num", 0))
        column = _column(*raw[i]) if raw else 0
        kept.append(StackFrame(file, line, str(frame.function_name), column))
    return kept


def _raw_frames(traceback: Any, count: int) -> list[tuple[Any, int]]:
    """``(code, lasti)`` of each frame, or ``[]`` when the traceback does not give them."""
    raw = getattr(traceback, "raw_frames", None)
    try:
        codes, lastis = raw() if callable(raw) else ((), ())
        pairs = list(zip(codes, lastis))
    except Exception:  # noqa: BLE001 - columns refine a link; never a reason to fail
        return []
    return pairs if len(pairs) == count else []


def _column(code: Any, lasti: int) -> int:
    """The 0-based column of the instruction at ``lasti`` (``code.co_positions()``), else 0.
    Only the user's frames are asked (jax's own code objects are large: their positions are
    never listed), and each code object's positions are listed once."""
    try:
        positions = _positions(code)
    except Exception:  # noqa: BLE001 - columns refine a link; never a reason to fail
        return 0
    index = lasti // 2
    column = positions[index][2] if 0 <= index < len(positions) else None
    return int(column or 0)


@functools.lru_cache(maxsize=1024)
def _positions(code: Any) -> tuple[Any, ...]:
    return tuple(code.co_positions())


def _sub_jaxprs(params: dict[str, Any]) -> Iterator[Any]:
    """The jaxprs among an equation's parameters (``jaxpr``, ``branches``, ``body_jaxpr``...)."""
    for value in params.values():
        items = value if isinstance(value, (tuple, list)) else (value,)
        for item in items:
            inner = getattr(item, "jaxpr", item)  # a ClosedJaxpr holds its Jaxpr
            if hasattr(inner, "eqns") and hasattr(inner, "invars"):
                yield inner


def _alphabetic(number: int) -> str:
    """0 -> ``a``, 25 -> ``z``, 26 -> ``ba``: the variable names ``str(jaxpr)`` uses."""
    digits = []
    while True:
        number, digit = divmod(number, 26)
        digits.append(chr(ord("a") + digit))
        if number == 0:
            return "".join(reversed(digits))


class _Names:
    """Variable names in order of first appearance, one scope for a whole walk."""

    __slots__ = ("_names",)

    def __init__(self) -> None:
        self._names: dict[int, str] = {}

    def __call__(self, var: Any) -> str:
        if hasattr(var, "val"):  # a Literal prints as its value and type: 1.0:f32[]
            return f"{var.val}:{_short_type(var)}"
        if type(var).__name__ == "DropVar":
            return "_"
        key = id(var)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = _alphabetic(len(self._names))
        return name

    def typed(self, var: Any) -> str:
        name = self(var)
        return f"{name}:{_short_type(var)}" if name != "_" else name


def _short_type(var: Any) -> str:
    """``f32[2,16]``, as the jaxpr printer writes an abstract value."""
    short = getattr(getattr(var, "aval", None), "str_short", None)
    if not callable(short):
        return "?"
    try:
        return short(short_dtypes=True)
    except TypeError:  # pragma: no cover - a jax whose str_short takes no arguments
        return short()


def _param_text(params: dict[str, Any]) -> str:
    """``[axes=(2,) y=3]``: the parameters worth reading (no sub-jaxprs, shardings, layouts,
    ``None``s or long values)."""
    shown = []
    for key, value in params.items():
        if key in _NOISY_PARAMS or value is None or any(True for _ in _sub_jaxprs({key: value})):
            continue
        text = str(value)
        if len(text) <= _PARAM_LIMIT:
            shown.append(f"{key}={text}")
    return f"[{' '.join(shown)}]" if shown else ""


def _equation_text(equation: Any, names: _Names, holds: bool) -> str:
    outs = " ".join(names.typed(v) for v in equation.outvars)
    ins = " ".join(names(v) for v in equation.invars)
    text = f"{outs} = {equation.primitive.name}{_param_text(equation.params)} {ins}".rstrip()
    return text + " {...}" if holds else text


def sources_of_jaxpr(jaxpr: Any, function: str = "") -> JaxprSources:
    """The :class:`JaxprSources` of a ``Jaxpr`` or ``ClosedJaxpr`` (a live jax object)."""
    excluded = _excluded_folders()
    names = _Names()
    top = getattr(jaxpr, "jaxpr", jaxpr)
    for var in (*top.constvars, *top.invars):
        names(var)
    equations: list[JaxprEquation] = []

    def walk(inner: Any, depth: int, parent: int | None) -> None:
        for equation in inner.eqns:
            subs = list(_sub_jaxprs(equation.params))
            index = len(equations)
            equations.append(
                JaxprEquation(
                    index=index,
                    text=_equation_text(equation, names, bool(subs)),
                    primitive=equation.primitive.name,
                    depth=depth,
                    parent=parent,
                    name_stack=str(getattr(equation.source_info, "name_stack", "") or ""),
                    stack=_frames(equation, excluded),
                )
            )
            for sub in subs:
                for var in (*sub.constvars, *sub.invars):
                    names(var)
                walk(sub, depth + 1, index)

    walk(top, 0, None)
    return JaxprSources(function=function, equations=equations)


def jaxpr_sources(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> JaxprSources:
    """Trace ``fn(*args, **kwargs)`` (nothing runs) and return its equations with sources.

    ``fn`` is a JAX function, plain or jitted; the arguments are examples, as for
    :func:`hloscope.capture`. Tracing shares JAX's tracing cache with the capture of the same
    call, so after a capture this costs next to nothing.
    """
    from ..backends import hide_hloscope_frames
    from ..backends.frameworks import require_jax

    require_jax()
    hide_hloscope_frames()
    jitted, args, kwargs = traceable(fn, args, kwargs)
    traced = jitted.trace(*args, **kwargs)
    name = getattr(traced, "fun_name", "") or getattr(fn, "__name__", "") or "fn"
    return sources_of_jaxpr(traced.jaxpr, name)


def capture_with_sources(
    fn: Callable[..., Any],
    *args: Any,
    passes: str | None = None,
    device: Any = None,
    **kwargs: Any,
) -> SourcedCapture:
    """:func:`hloscope.capture` of a JAX function (for ``device`` when given), plus
    :func:`jaxpr_sources` of the same call: what ``hloscope.explain`` needs to put jaxpr
    equations beside the HLO of each line."""
    from .inprocess import capture

    base = capture(fn, *args, passes=passes, device=device, **kwargs)
    if base.frontend != "jax":
        raise CaptureError("jaxpr sources are for JAX functions; TensorFlow has no jaxpr")
    sources = jaxpr_sources(fn, *args, **kwargs)
    fields = {name: getattr(base, name) for name in Capture.__slots__ if name != "_modules"}
    return SourcedCapture(**fields, jaxpr_sources=sources)


# ---- script targets ------------------------------------------------------------------------------


def capture_for_target(
    target: Target, *, passes: str | None = None, timeout: float | None = None
) -> SourcedCapture:
    """The capture of a ``SCRIPT.py:FUNCTION`` or saved-capture target with its jaxpr sources.

    A saved capture folder is read as it is (its ``jaxpr_sources`` is ``None`` when it was not
    saved by a :class:`SourcedCapture`). A function target is captured again in a child
    process, with ``passes`` (an XLA pass regex) when given, and the result kept in the
    target's cache folder, so the next call reads it: the target cache replaces that folder
    whenever the script, its modules or the environment change.
    """
    from .target import TargetError, TargetKind

    if target.kind is TargetKind.CAPTURE:
        return _loaded(target, target.path)
    if target.kind is not TargetKind.FUNCTION or target.output_dir is None:
        raise TargetError(
            f"{target.spec}: jaxpr sources come from a SCRIPT.py:FUNCTION target or a saved "
            f"capture, not from a {target.kind}"
        )
    if passes is None and has_jaxpr_sources(target.path):
        return _loaded(target, target.path)  # the function's capture kept them
    folder = target.output_dir / (_PASSES_FOLDER if passes is not None else _EXPLAIN_FOLDER)
    if Capture.is_saved(folder):
        return _loaded(target, folder)
    _run_child(target, folder, passes, timeout)
    return _loaded(target, folder)


def has_jaxpr_sources(folder: Path) -> bool:
    """Whether the capture saved in ``folder`` kept its jaxpr's lines."""
    return (folder / JAXPR_SOURCES_FILE).is_file()


def _loaded(target: Target, folder: Path) -> SourcedCapture:
    """The capture in ``folder``, with the target's snapshot of the source files as they ran."""
    loaded = SourcedCapture.load(folder)
    loaded.source_files = target.source_files()
    return loaded


def saved_capture_for_target(target: Target) -> SourcedCapture:
    """What :func:`capture_for_target` would return, without running anything: the capture
    with jaxpr sources when one was made before, else the target's own capture (whose
    ``jaxpr_sources`` is then ``None``)."""
    from .target import TargetKind

    if target.kind is TargetKind.FUNCTION and target.output_dir is not None:
        if has_jaxpr_sources(target.path):
            return _loaded(target, target.path)
        for name in (_EXPLAIN_FOLDER, _PASSES_FOLDER):
            if Capture.is_saved(target.output_dir / name):
                return _loaded(target, target.output_dir / name)
    return _loaded(target, target.path)


def _run_child(target: Target, folder: Path, passes: str | None, timeout: float | None) -> None:
    """Capture the target's function in a fresh process into ``folder`` (atomically)."""
    from .inprocess import check_pass_regex
    from .prestart import child_env

    if passes is not None:
        check_pass_regex(passes)
    manifest = target.manifest or {}
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    command = [sys.executable, "-m", __name__, "--save", str(work / "capture")]
    command += ["--function", str(target.function)]
    command += ["--passes", passes] if passes is not None else []
    command += ["--device", target.device] if target.device is not None else []
    command.append(str(Path(target.script or "").resolve()))
    env = child_env(os.environ.get("XLA_FLAGS"))
    if target.device is not None:
        from ..backends import backend_for

        env = backend_for(target.device).child_environment(env)
    try:
        try:
            done = subprocess.run(
                command,
                cwd=manifest.get("cwd") or None,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CaptureError(f"{target.spec}: capture stopped after {timeout:g} s") from None
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            why = lines[-1] if lines else f"exit status {done.returncode}"
            raise CaptureError(f"{target.spec}: {why}", detail=done.stderr[-4000:])
        try:
            os.replace(work / "capture", folder)
        except OSError:
            if not Capture.is_saved(folder):  # not a race lost to another process
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _main(argv: Sequence[str] | None = None) -> int:
    """The child side: import the script, capture the function, save a SourcedCapture."""
    parser = argparse.ArgumentParser(prog="python -m hloscope.capture.jaxpr_lines")
    parser.add_argument("--save", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--passes")
    parser.add_argument("--device")
    parser.add_argument("script")
    options = parser.parse_args(argv)
    from ..backends.frameworks import explain_missing_frameworks
    from .script_loader import load_function

    try:
        fn, args, kwargs = load_function(options.script, options.function)
        with explain_missing_frameworks():
            captured = capture_with_sources(
                fn, *args, passes=options.passes, device=options.device, **kwargs
            )
            captured.save(options.save)
    except Exception as error:  # noqa: BLE001 - one line for the parent
        message = error.one_line() if hasattr(error, "one_line") else str(error)
        first = (message.strip().splitlines() or [""])[0]
        print(f"{type(error).__name__}: {first}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover - run as the child of capture_for_target
    sys.exit(_main())
