"""The child side of a script capture: ``python -m hloscope.capture._runner --info FILE ...``.

Three modes, all started by :mod:`hloscope.capture.script` in a fresh process (whose
``XLA_FLAGS`` already name the dump folder, for the first two):

* **script** (``_runner --info FILE SCRIPT.py [ARGS...]``): run the script as ``python SCRIPT.py
  ARGS...`` would (``__main__``, ``sys.argv``, ``sys.path[0]`` = the script's folder), via
  :func:`runpy.run_path`;
* **function** (``_runner --info FILE --function NAME --save DIR [--scale x:0=64] SCRIPT.py``):
  import the script
  as a module (not as ``__main__``, so its ``if __name__ == "__main__":`` block does not run),
  find ``NAME`` and its example arguments (see :data:`~.script_loader.EXAMPLE_ARGS_HELP`; the
  script is loaded by :mod:`.script_loader`, as every caller loads one), capture it with
  :func:`hloscope.capture.inprocess.capture` and save the capture into ``DIR``;
* **recompiles** (``_runner --info FILE --recompiles OUT.json [--function NAME] SCRIPT.py
  [ARGS...]``): run the script (or call ``NAME`` with its example arguments) under
  :class:`~hloscope.capture.compile_watch.CompileWatcher`, with TensorFlow's XLA compile log
  switched on (:data:`~hloscope.capture.tf_watch.XLA_LOG_ENV`), and write every compile it saw
  to ``OUT.json``, also when the script raised.

Either way the runner writes a small JSON report to ``--info`` when the child ends: the error
(exception type and message, ``file:line`` of the innermost frame in the script), where a
terminated script was stuck, and the jax devices, *only if the script imported jax* (asking
otherwise would import jax and start a backend the script never wanted). The runner imports
nothing heavy itself and needs no ``sitecustomize``.

With ``--ready-fd N`` the runner writes one line to that inherited pipe once the report (and
the records) are written, before the interpreter shuts down: JAX's and TensorFlow's clean-up at
exit takes a tenth of a second or more, which the parent then spends reading the results
instead of waiting.

``_runner --orders-fd N --warm KIND [--device DEVICE]`` (a child
:mod:`hloscope.capture.prestart` starts before the command has read its own options) takes, for
a function, the environment of a function capture for ``DEVICE`` (the backend's: libtpu's for a
TPU), imports the runner and what ``KIND`` needs (the watchers; numpy, ml_dtypes and jaxlib for
a function), then reads one of the command lines above, as JSON, from that pipe and runs it; an
empty pipe (the command needed no child) ends it at once.

A function capture ends with ``os._exit`` once its capture, its report and its output are
written: what follows in a normal exit is JAX's and libtpu's own clean-up (a quarter of a
second and more), which nothing of the capture needs; the script was only imported, never run
as ``__main__``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import runpy
import signal
import sys
import sysconfig
import traceback
from collections.abc import Iterator
from types import FrameType, ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

from ..after_import import after_import
from ..backends.frameworks import MissingFramework, explain_missing_frameworks
from .errors import CaptureUsageError, ScriptImportError
from .prestart import (
    DEVICE_FLAG,
    ORDERS_FLAG,
    RUN_REPORT_START,
    RUNNER,
    WARM_FLAG,
    Warm,
    enter_function_env,
)

if TYPE_CHECKING:  # pragma: no cover
    from .while_compiling import WhileCompiling

from .script_loader import (
    EXAMPLE_ARGS_HELP,  # noqa: F401 - also read from here (target.py, older imports)
    describe_exception,
    example_arguments,
    find_function,
    import_script,
)

#: Exit status of a child stopped by the parent's timeout (SIGTERM), like coreutils' timeout.
TIMEOUT_EXIT = 124
#: Characters of a failing run's error message kept whole in the manifest (``error_text``).
ERROR_TEXT_CHARS = 20_000
#: hloscope's own package and Python's standard library: frames there are never the user's.
_HLOSCOPE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STDLIB_DIR = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep


class _Terminated(BaseException):
    """Raised in the script's frame when the parent sends SIGTERM (its timeout)."""


# ---- report -------------------------------------------------------------------------------------


def _innermost_location(tb: TracebackType | None, prefer: str) -> str | None:
    """``file:line`` of the innermost frame in ``prefer`` (the script), else of the innermost
    frame in the user's other code; ``None`` (the script is named) where every frame is
    hloscope's, an installed library's or Python's: a function target compiled by hloscope
    fails in hloscope's frames, and naming one would send the user to the wrong file."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    for frame in reversed(frames):
        if os.path.abspath(frame.filename) == prefer:
            return f"{frame.filename}:{frame.lineno}"
    for frame in reversed(frames):
        if _users_file(frame.filename):
            return f"{frame.filename}:{frame.lineno}"
    return None


def _users_file(filename: str) -> bool:
    """Whether ``filename`` is the user's: not hloscope's, not installed, not the stdlib's."""
    path = os.path.abspath(filename)
    if filename.startswith("<") or path.startswith(_HLOSCOPE_DIR):
        return False
    parts = path.split(os.sep)
    return not ({"site-packages", "dist-packages"} & set(parts) or path.startswith(_STDLIB_DIR))


def _error_location(error: BaseException, script: str) -> str | None:
    if isinstance(error, SyntaxError) and error.filename and error.lineno:
        return f"{error.filename}:{error.lineno}"  # the frame of a syntax error is the importer
    return _innermost_location(error.__traceback__, script)


def _stack_location(frame: FrameType | None, prefer: str) -> str | None:
    """``file:line`` where a terminated script was: innermost frame in the script, if any."""
    stack = traceback.extract_stack(frame) if frame is not None else []
    for entry in reversed(stack):
        if os.path.abspath(entry.filename) == prefer:
            return f"{entry.filename}:{entry.lineno}"
    return None


def _devices() -> dict[str, Any]:
    """Devices of the frameworks the script imported; never imports one itself."""
    found: dict[str, Any] = {}
    jax = sys.modules.get("jax")
    if jax is not None:
        try:
            found["jax"] = [
                {
                    "id": d.id,
                    "platform": d.platform,
                    "kind": getattr(d, "device_kind", ""),
                    "name": str(d),
                }
                for d in jax.devices()
            ]
        except Exception as error:  # a broken backend must not hide the script's own result
            found["jax"] = {"error": f"{type(error).__name__}: {error}"}
    tf = sys.modules.get("tensorflow")
    if tf is not None and hasattr(tf, "config"):
        try:
            found["tensorflow"] = [
                {"name": d.name, "type": d.device_type} for d in tf.config.list_logical_devices()
            ]
        except Exception as error:
            found["tensorflow"] = {"error": f"{type(error).__name__}: {error}"}
    return found


def _write_info(path: str, info: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as out:
        json.dump(info, out, indent=2, default=str)
    os.replace(tmp, path)


# ---- keeping the runner's own frames out of HLO source locations ---------------------------------


def _hide_frames(source_info_util: ModuleType) -> None:
    """Tell JAX that hloscope's frames are not user code, once the script imports jax.

    JAX records each traced op's Python stack, minus jax and stdlib frames; the runner's frame
    would otherwise sit at the bottom of every stack in the dump. The runner cannot import jax
    up front (the script may configure jax through the environment before importing it), so it
    waits for jax's ``source_info_util`` module to load and registers the exclusion then
    (cosmetic: a failure is dropped, never breaking the user's import of jax).
    """
    from ..backends import hide_hloscope_frames

    hide_hloscope_frames(source_info_util, also=("<frozen runpy>",))


# ---- the two modes -------------------------------------------------------------------------------


def _run_script(script: str, args: list[str]) -> None:
    sys.argv = [script, *args]
    _enter_script_folder(script)
    runpy.run_path(script, run_name="__main__")


def _enter_script_folder(script: str) -> None:
    """The script's folder in place of the runner's own first ``sys.path`` entry: this process
    is the script's, started as ``python SCRIPT.py`` would be."""
    sys.path[0] = os.path.dirname(script)


def _load_function(
    script: str, name: str, scale: str | None = None, info: dict[str, Any] | None = None
) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """The function and its example arguments, by :mod:`.script_loader`'s steps: an exception
    of the script itself goes up as it is, to be reported as Python would. ``scale``
    (``x:0=64``, ``layers*2``) rebuilds them at another size (:mod:`.scaled_arguments`), which
    ``info["scaled"]`` keeps."""
    _enter_script_folder(script)
    module = import_script(script)
    fn = find_function(module, script, name)
    if scale is None:
        args, kwargs = example_arguments(module, name, fn, script)
        return fn, args, kwargs
    from .scaled_arguments import scaled_example

    def load(call: Any) -> tuple[Any, ...]:
        return example_arguments(module, name, fn, script, call)

    args, kwargs, size = scaled_example(load, fn, scale)
    if info is not None:
        info["scaled"] = {"scale": scale, "size": size}
    return fn, args, kwargs


def _capture_function(
    script: str,
    name: str,
    save: str,
    device: str | None = None,
    mesh: str | None = None,
    info: dict[str, Any] | None = None,
    scale: str | None = None,
    scratch: str | None = None,
) -> WhileCompiling | None:
    """Capture the function into ``save``; what was done while it compiled, with ``scratch``
    (:mod:`.while_compiling`)."""
    fn, args, kwargs = _load_function(script, name, scale, info)
    from ..backends import capture_for

    if info is not None:
        # The script and its example arguments loaded: a failure from here on is the
        # framework's or the compiler's (`hloscope report` writes a page of it).
        info["compiling"] = True
    meanwhile = None
    if scratch is not None:
        from .while_compiling import WhileCompiling

        def trace() -> Any:
            return _jaxpr_sources_of(fn, args, kwargs)

        meanwhile = WhileCompiling(scratch, trace, (os.path.dirname(script),))
    placed = parse_mesh(mesh) if mesh else None
    try:
        with _private_dumps_in(scratch):
            captured = capture_for(fn, args, kwargs, device, mesh=placed)
    finally:
        if meanwhile is not None:
            meanwhile.stop()
    sources = _NOT_YET
    if meanwhile is not None and meanwhile.sources_done:
        sources = meanwhile.jaxpr_sources
    _with_jaxpr_sources(captured, fn, args, kwargs, sources).save(save)
    return meanwhile


@contextlib.contextmanager
def _private_dumps_in(folder: str | None) -> Iterator[None]:
    """While the compile runs, the temporary folders this process makes (the compile's private
    dump among them) go into ``folder`` (``--scratch``), which the parent watches for the
    optimized module (:mod:`.parse_ahead`); then as before."""
    if folder is None:
        yield
        return
    import tempfile

    before = tempfile.tempdir
    tempfile.tempdir = folder
    try:
        yield
    finally:
        tempfile.tempdir = before


_NOT_YET = object()  # the jaxpr's sources are still to be traced


def _jaxpr_sources_of(fn: Any, args: Any, kwargs: Any) -> Any:
    """The jaxpr's sources of a JAX function (``None`` for another, or when tracing fails)."""
    from ..backends.tf_compile import is_tensorflow_function

    if "jax" not in sys.modules or is_tensorflow_function(fn):
        return None
    from .jaxpr_lines import jaxpr_sources

    try:
        return jaxpr_sources(fn, *args, **kwargs)
    except Exception:  # noqa: BLE001 - explain traces it in a child of its own then
        return None


def _with_jaxpr_sources(
    captured: Any, fn: Any, args: Any, kwargs: Any, sources: Any = _NOT_YET
) -> Any:
    """A JAX function's capture with its jaxpr's lines (what ``explain`` and ``report`` put
    beside each line), traced again here, where JAX's tracing cache has the function: the
    command then needs no second process (on a TPU host, a second start of the chip). The
    capture as it is when that fails, or for TensorFlow. ``sources``: traced already, while
    the compile ran (:mod:`.while_compiling`)."""
    if captured.frontend != "jax":
        return captured
    from .inprocess import Capture
    from .jaxpr_lines import SourcedCapture

    if sources is _NOT_YET:
        sources = _jaxpr_sources_of(fn, args, kwargs)
    if sources is None:
        return captured
    fields = {name: getattr(captured, name) for name in Capture.__slots__ if name != "_modules"}
    return SourcedCapture(**fields, jaxpr_sources=sources)


def parse_mesh(text: str) -> dict[str, int]:
    """``"data=8,model=4"`` as ``{"data": 8, "model": 4}`` (``--mesh``; read by
    :func:`hloscope.capture.mesh.parse_mesh`, kept here for older imports)."""
    from .mesh import parse_mesh as parse

    return parse(text)


def _concrete(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict]:
    """Example arguments with every ``jax.ShapeDtypeStruct`` made a real array of zeros: the
    recompiles mode calls the function, which needs values, not only types."""
    jax = sys.modules.get("jax")
    if jax is None:
        return args, kwargs

    def real(x: Any) -> Any:
        if isinstance(x, jax.ShapeDtypeStruct):
            return jax.numpy.zeros(x.shape, x.dtype)
        return x

    return jax.tree_util.tree_map(real, (args, kwargs))


def _watch_compiles(script: str, function: str | None, args: list[str], save: str) -> None:
    from .compile_watch import CompileWatcher
    from .tf_watch import xla_log_environment

    os.environ.update(xla_log_environment(os.environ))  # read when TensorFlow loads
    watcher = CompileWatcher()
    watcher.start()
    try:
        if function is None:
            _run_script(script, args)
        else:
            with explain_missing_frameworks():
                fn, args_, kwargs_ = _load_function(script, function)
                positional, keywords = _concrete(args_, kwargs_)
                watcher.records.clear()  # importing and building the arguments: not FUNCTION's
                fn(*positional, **keywords)
    finally:
        watcher.stop()
        records = [record.to_dict() for record in watcher.records]
        tmp = f"{save}.tmp"
        with open(tmp, "w") as out:
            json.dump({"records": records}, out, default=str)
        os.replace(tmp, save)


# ---- main ----------------------------------------------------------------------------------------


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m hloscope.capture._runner")
    parser.add_argument("--info", required=True)
    parser.add_argument("--function")
    parser.add_argument("--save")
    parser.add_argument("--recompiles")
    parser.add_argument("--device")
    parser.add_argument("--mesh")
    parser.add_argument("--scale")
    parser.add_argument("--scratch")
    parser.add_argument("--ready-fd", type=int)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def _wait_for_orders(
    fd: int, warm: Warm = Warm.WATCHED, device: str | None = None
) -> list[str] | None:
    """A prestarted child (:mod:`hloscope.capture.prestart`): take a function capture's
    environment (for ``device``), load what ``warm`` needs, then read the real command line
    from ``fd``; ``None`` when the parent gave up on it."""
    if warm is not Warm.WATCHED:
        _take_function_env(fd, warm, device)
    os.set_inheritable(fd, False)
    _warm_up(warm)
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return json.loads(b"".join(chunks)) if chunks else None


def _warm_up(warm: Warm) -> None:
    """Import, while the parent reads its options, what the child will need whatever they say.

    For a function: the heavy libraries under ``import jax`` that read no setting a script can
    still change before its own ``import jax`` (jax itself reads ``JAX_*`` variables when it is
    imported, so the script imports it, as it would alone); and the runner's own modules."""
    if warm is Warm.WATCHED:
        from . import compile_watch, tf_watch  # noqa: F401

        return
    from .. import backends  # noqa: F401
    from . import cache, inprocess  # noqa: F401

    wanted = ["numpy", "ml_dtypes"] + (["jaxlib._jax"] if warm is Warm.FUNCTION else [])
    for name in wanted:
        try:
            importlib.import_module(name)
        except Exception:  # not installed, or broken: the script's own import says so
            continue


def _take_function_env(fd: int, warm: Warm, device: str | None) -> None:
    """Make this child's environment the one a function capture for ``device`` gets (its
    parent started it with the variables read at start only): in place, or, when the device's
    backend changes one the interpreter read as it started, by executing this child anew with
    it (the pipes are inherited; the new one finds nothing left to change)."""
    try:
        restart = enter_function_env(device)
    except Exception as error:  # noqa: BLE001 - the command itself says what is wrong with it
        print(
            f"hloscope: the early child cannot take {device}'s environment: {error}",
            file=sys.stderr,
        )
        os._exit(1)
    if restart is not None:
        argv = [sys.executable, "-m", RUNNER, ORDERS_FLAG, str(fd), WARM_FLAG, warm]
        os.execve(sys.executable, argv, restart)


def _orders_argv(argv: list[str]) -> tuple[int, Warm, str | None]:
    """``--orders-fd N [--warm KIND [--device DEVICE]]``: the pipe, the warm-up, the device."""
    warm = Warm(argv[3]) if argv[2:3] == [WARM_FLAG] else Warm.WATCHED
    device = argv[5] if argv[4:5] == [DEVICE_FLAG] else None
    return int(argv[1]), warm, device


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [ORDERS_FLAG]:
        orders = _wait_for_orders(*_orders_argv(argv))
        if orders is None:
            return 0
        argv = orders
    options = _parse(argv)
    if options.ready_fd is not None:  # the parent's, not for what the script starts
        os.set_inheritable(options.ready_fd, False)
    script = os.path.abspath(options.script)
    info: dict[str, Any] = dict(RUN_REPORT_START)
    status = 0
    meanwhile = None

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        info["terminated_at"] = _stack_location(frame, script)
        raise _Terminated()

    signal.signal(signal.SIGTERM, on_sigterm)
    after_import("jax._src.source_info_util", _hide_frames)
    try:
        meanwhile = _run_mode(options, script, info)
    except BaseException as error:  # noqa: BLE001 - every ending is reported (_failure_status)
        status = _failure_status(error, script, info)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        info["exit_status"] = status
        _write_final_info(options, script, info, meanwhile)
    return _end(options, status)


def _run_mode(
    options: argparse.Namespace, script: str, info: dict[str, Any]
) -> WhileCompiling | None:
    """Run what the options ask: a watched run, a function's capture, or the whole script;
    what a function's capture did while it compiled."""
    if options.recompiles:
        _watch_compiles(script, options.function, options.args, options.recompiles)
    elif options.function:
        with explain_missing_frameworks():  # the script's own `import jax`, if jax is absent
            return _capture_function(
                script,
                options.function,
                options.save,
                options.device,
                options.mesh,
                info,
                options.scale,
                options.scratch,
            )
    else:
        # each compile's stages: compile-time
        from ..backends.compile_timing import ScriptCompileTimes

        with ScriptCompileTimes(os.path.dirname(os.path.abspath(options.info))):
            _run_script(script, options.args)
    return None


def _failure_status(error: BaseException, script: str, info: dict[str, Any]) -> int:
    """The exit status of a run that ended in ``error``, which ``info`` records."""
    if isinstance(error, _Terminated):
        info["error"] = "terminated (timeout)"
        return TIMEOUT_EXIT
    if isinstance(error, SystemExit):
        code = error.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if status and not isinstance(code, int):
            info["error"] = f"SystemExit: {code}"
        return status
    if isinstance(error, CaptureUsageError):  # the compile asked for cannot be made as asked
        info["error"] = str(error)
        return 1
    if isinstance(error, (ScriptImportError, MissingFramework)):
        info["error"] = str(error)
        info["usage_error"] = True
        # Not the command line's mistake but this machine's: the parent says it as a failure.
        info["missing_framework"] = isinstance(error, MissingFramework)
        return 2
    # The script's own failure: report it like Python would.
    info["error"] = describe_exception(error)
    # The message whole (a compiler's runs to many lines): a bug report shows all of it.
    info["error_text"] = f"{type(error).__name__}: {error}"[:ERROR_TEXT_CHARS]
    info["error_location"] = _error_location(error, script)
    traceback.print_exception(type(error), error, error.__traceback__)
    return 130 if isinstance(error, KeyboardInterrupt) else 1


def _write_final_info(
    options: argparse.Namespace,
    script: str,
    info: dict[str, Any],
    meanwhile: WhileCompiling | None = None,
) -> None:
    """Write ``info`` with the devices and, for the cache, the hashes of the local modules
    (most of them hashed while the compile ran, with ``meanwhile``)."""
    try:
        info["devices"] = _devices()
        # What the cache re-checks before it reuses this capture (hloscope.capture.cache).
        # (A watched run is never cached: no need to hash what it imported.)
        if not options.recompiles:
            from .while_compiling import local_modules

            user_folders = (os.path.dirname(script),)
            found = meanwhile.local_modules() if meanwhile is not None else None
            info["local_modules"] = found if found is not None else local_modules(user_folders)
    finally:
        _write_info(options.info, info)


def _end(options: argparse.Namespace, status: int) -> int:
    """Flush, say "ready" to the parent, and end: a function capture at once."""
    sys.stdout.flush()
    sys.stderr.flush()
    function_capture = bool(options.function and not options.recompiles)
    if function_capture:
        _let_go_of_output()  # the parent's readers see the end of the output now
    if options.ready_fd is not None:
        _say_ready(options.ready_fd)
    if function_capture:
        os._exit(status)  # everything is written: skip the frameworks' clean-up at exit
    return status


def _let_go_of_output() -> None:
    """Point stdout and stderr at /dev/null: a function capture's output is complete, and
    what the frameworks still print while the process ends is not part of it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            os.dup2(devnull, fd)
    os.close(devnull)


#: What the runner writes to ``--ready-fd`` once its results are on disk.
READY = b"ready\n"


def _say_ready(fd: int) -> None:
    """Tell the parent the results are written (a parent that is gone does not matter)."""
    try:
        os.write(fd, READY)
        os.close(fd)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
