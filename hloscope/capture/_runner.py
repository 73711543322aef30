"""The child side of a script capture: ``python -m hloscope.capture._runner --info FILE ...``.

Three modes, all started by :mod:`hloscope.capture.script` in a fresh process (whose
``XLA_FLAGS`` already name the dump folder, for the first two):

* **script** (``_runner --info FILE SCRIPT.py [ARGS...]``): run the script as ``python SCRIPT.py
  ARGS...`` would (``__main__``, ``sys.argv``, ``sys.path[0]`` = the script's folder), via
  :func:`runpy.run_path`;
* **function** (``_runner --info FILE --function NAME --save DIR SCRIPT.py``): import the script
  as a module (not as ``__main__``, so its ``if __name__ == "__main__":`` block does not run),
  find ``NAME`` and its example arguments (see :data:`EXAMPLE_ARGS_HELP`), capture it with
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
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.util
import inspect
import json
import os
import runpy
import signal
import sys
import traceback
from pathlib import Path
from types import FrameType, ModuleType, TracebackType
from typing import Any

from ..errors import HloscopeError
from .cache import hash_files, local_module_files
from .frameworks import MissingFramework, explain_missing_frameworks

#: Exit status of a child stopped by the parent's timeout (SIGTERM), like coreutils' timeout.
TIMEOUT_EXIT = 124

#: How ``SCRIPT.py:FUNCTION`` targets find example arguments, for docs and error messages.
EXAMPLE_ARGS_HELP = """\
hloscope compiles FUNCTION with example arguments found in the script, in this order:
  1. FUNCTION.example_args          (set after the def: f.example_args = (x, y))
  2. EXAMPLE_ARGS["FUNCTION"]       (a module-level dict: EXAMPLE_ARGS = {"f": (x, y)})
  3. example_args()["FUNCTION"]     (a module-level function returning such a dict)
  4. example_args()                 (the same function returning one tuple: the arguments
                                     of every function in the script)
  5. no arguments, if FUNCTION has no required parameters
Each value is a tuple of positional arguments, a dict of keyword arguments, or a
zero-argument callable returning one of those (to build arrays only when needed).
Arrays can be real (jnp.ones(...), tf.ones(...)) or jax.ShapeDtypeStruct for JAX."""


class _Terminated(BaseException):
    """Raised in the script's frame when the parent sends SIGTERM (its timeout)."""


class UsageError(HloscopeError):
    """The target is misnamed or lacks example arguments: reported without a traceback."""


# ---- report -------------------------------------------------------------------------------------


def _innermost_location(tb: TracebackType | None, prefer: str) -> str | None:
    """``file:line`` of the innermost frame in ``prefer`` (the script), else the innermost frame."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    for frame in reversed(frames):
        if os.path.abspath(frame.filename) == prefer:
            return f"{frame.filename}:{frame.lineno}"
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None


def describe_exception(error: BaseException) -> str:
    """``ValueError: first line of the message``: the exception as one line."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


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


class _HideFramesOnJaxImport(importlib.abc.MetaPathFinder):
    """When the script imports jax, tell JAX that hloscope's frames are not user code.

    JAX records each traced op's Python stack, minus jax and stdlib frames; the runner's frame
    would otherwise sit at the bottom of every stack in the dump. The runner cannot import jax
    up front (the script may configure jax through the environment before importing it), so it
    waits for jax's ``source_info_util`` module to load and registers the exclusion then.
    """

    target = "jax._src.source_info_util"

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.target:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_hide(module: ModuleType) -> None:
            exec_module(module)
            try:
                from .jaxlib_adapter import hide_hloscope_frames

                hide_hloscope_frames(module, also=("<frozen runpy>",))
            except Exception:  # cosmetic: never break the user's import of jax
                pass

        spec.loader.exec_module = exec_then_hide  # type: ignore[method-assign]
        return spec


# ---- the two modes -------------------------------------------------------------------------------


def _run_script(script: str, args: list[str]) -> None:
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(script)  # what `python SCRIPT.py` puts first
    runpy.run_path(script, run_name="__main__")


def _load_module(script: str) -> ModuleType:
    sys.path[0] = os.path.dirname(script)
    name = "hloscope_target_" + "".join(c if c.isalnum() else "_" for c in Path(script).stem)
    spec = importlib.util.spec_from_file_location(name, script)
    if spec is None or spec.loader is None:
        raise UsageError(f"{script}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return module


def _resolve_example(value: Any, where: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if callable(value) and not isinstance(value, (tuple, list, dict)):
        value = value()
    if isinstance(value, dict):
        return (), dict(value)
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    raise UsageError(
        f"{where} must be a tuple of positional arguments, a dict of keyword arguments, or a "
        f"callable returning one; got {type(value).__name__}"
    )


def example_arguments(
    module: ModuleType, name: str, fn: Any, script: str
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Find the example arguments of ``fn`` by the convention in :data:`EXAMPLE_ARGS_HELP`."""
    if hasattr(fn, "example_args"):
        return _resolve_example(fn.example_args, f"{name}.example_args")
    table = getattr(module, "EXAMPLE_ARGS", None)
    if isinstance(table, dict) and name in table:
        return _resolve_example(table[name], f"EXAMPLE_ARGS[{name!r}]")
    factory = getattr(module, "example_args", None)
    if callable(factory):
        table = factory()
        if isinstance(table, dict) and name in table:
            return _resolve_example(table[name], f"example_args()[{name!r}]")
        if isinstance(table, (tuple, list)):
            # One set of arguments for every function of the script (e.g. two versions of a layer).
            return _resolve_example(tuple(table), "example_args()")
    if _takes_no_arguments(fn):
        return (), {}
    raise UsageError(
        f"{script}:{name} needs example arguments; define {name}.example_args = (...) or "
        f"EXAMPLE_ARGS = {{{name!r}: (...)}} in the script (a tuple of arguments, a dict of "
        "keyword arguments, or a function returning one), or give its parameters defaults"
    )


def _takes_no_arguments(fn: Any) -> bool:
    target = getattr(fn, "python_function", None) or getattr(fn, "__wrapped__", None) or fn
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in signature.parameters.values()
    )


def _find_function(module: ModuleType, script: str, name: str) -> Any:
    fn = getattr(module, name, None)
    if fn is None or not callable(fn):
        public = sorted(
            n
            for n, v in vars(module).items()
            if callable(v)
            and not n.startswith("_")
            and getattr(v, "__module__", None) == module.__name__
        )
        listing = f" (functions: {', '.join(public)})" if public else ""
        raise UsageError(f"{script} has no function {name!r}{listing}")
    return fn


def _capture_function(script: str, name: str, save: str) -> None:
    module = _load_module(script)
    fn = _find_function(module, script, name)
    args, kwargs = example_arguments(module, name, fn, script)
    from .inprocess import capture

    capture(fn, *args, **kwargs).save(save)


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
                module = _load_module(script)
                fn = _find_function(module, script, function)
                positional, keywords = _concrete(*example_arguments(module, function, fn, script))
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
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = _parse(sys.argv[1:] if argv is None else argv)
    script = os.path.abspath(options.script)
    info: dict[str, Any] = {
        "error": None,
        "error_location": None,
        "terminated_at": None,
        "usage_error": False,
    }
    status = 0

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        info["terminated_at"] = _stack_location(frame, script)
        raise _Terminated()

    signal.signal(signal.SIGTERM, on_sigterm)
    sys.meta_path.insert(0, _HideFramesOnJaxImport())
    try:
        if options.recompiles:
            _watch_compiles(script, options.function, options.args, options.recompiles)
        elif options.function:
            with explain_missing_frameworks():  # the script's own `import jax`, if jax is absent
                _capture_function(script, options.function, options.save)
        else:
            _run_script(script, options.args)
    except _Terminated:
        status = TIMEOUT_EXIT
        info["error"] = "terminated (timeout)"
    except SystemExit as exit_:
        code = exit_.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if status and not isinstance(code, int):
            info["error"] = f"SystemExit: {code}"
    except (UsageError, MissingFramework) as error:
        status = 2
        info["error"] = str(error)
        info["usage_error"] = True
    except BaseException as error:  # the script's own failure: report it like Python would
        status = 130 if isinstance(error, KeyboardInterrupt) else 1
        info["error"] = describe_exception(error)
        info["error_location"] = _error_location(error, script)
        traceback.print_exception(type(error), error, error.__traceback__)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        info["exit_status"] = status
        try:
            info["devices"] = _devices()
            # What the cache re-checks before it reuses this capture (hloscope.capture.cache).
            # (A watched run is never cached: no need to hash what it imported.)
            if not options.recompiles:
                info["local_modules"] = hash_files(local_module_files())
        finally:
            _write_info(options.info, info)
    sys.stdout.flush()
    sys.stderr.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
