"""Loading ``SCRIPT.py:FUNCTION``: the script as a module, the function, its example arguments.

Every place that calls a function of a user's script goes through here: the top-level
``hloscope.check("model.py:step")``, ``hloscope.benchmark("model.py:step")`` and the child
processes of a capture (:mod:`hloscope.capture._runner`, :mod:`hloscope.capture.jaxpr_lines`).
So a script sees the same world whoever loads it:

* it is imported as a module named ``hloscope_target_<stem>``, not as ``__main__`` (its ``if
  __name__ == "__main__":`` block does not run), and registered in ``sys.modules`` under that
  name (dataclasses and pickling look a module up by its name);
* its folder is first on ``sys.path``, as ``python SCRIPT.py`` has it, so it imports its
  neighbours; the entries already there stay, and the folder stays after the import (a
  function may import a neighbour only when it is called);
* the function's example arguments are found by the convention of :data:`EXAMPLE_ARGS_HELP`.

:func:`load_function` is the whole road, and says every failure as one
:class:`~hloscope.capture.errors.ScriptImportError` line. The child process of a capture uses
its steps (:func:`import_script`, :func:`find_function`, :func:`example_arguments`) because it
reports an exception of the script itself as Python would, with its traceback.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from ..backends.frameworks import explain_missing_frameworks
from ..errors import HloscopeError
from .errors import ScriptImportError, ScriptTargetError
from .script_reentry import refuse_reimport

__all__ = [
    "EXAMPLE_ARGS_HELP",
    "LoadedFunction",
    "describe_exception",
    "example_arguments",
    "find_function",
    "import_script",
    "load_function",
    "module_name",
]

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


class LoadedFunction(NamedTuple):
    """A script's function and the example arguments it is called with:
    ``fn, args, kwargs = load_function(...)``."""

    function: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def describe_exception(error: BaseException) -> str:
    """``ValueError: first line of the message``: the exception as one line."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def module_name(script: str | os.PathLike[str]) -> str:
    """The name a script is imported under: ``hloscope_target_`` and its file stem, every
    character that cannot be in an identifier made ``_``."""
    stem = Path(script).stem
    return "hloscope_target_" + "".join(c if c.isalnum() else "_" for c in stem)


def import_script(script: str | os.PathLike[str]) -> ModuleType:
    """Import ``script`` as a module (see the module docstring for its name and ``sys.path``).

    An exception the script raises while it runs goes through as it is: the caller decides
    how to say it (:func:`load_function` makes it one line).
    """
    path = os.path.abspath(script)
    refuse_reimport(path)  # a script calling hloscope at its top level would import without end
    folder = os.path.dirname(path)
    if not sys.path or sys.path[0] != folder:
        sys.path.insert(0, folder)  # what `python SCRIPT.py` puts first
    name = module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ScriptImportError(f"{script}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return module


def find_function(module: ModuleType, script: str, name: str) -> Any:
    """The callable ``name`` of the imported script ``module``; a :class:`ScriptImportError`
    listing the script's own public functions when there is none."""
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
        raise ScriptTargetError(f"{script} has no function {name!r}{listing}")
    return fn


def _resolve_example(
    value: Any, where: str, call: Any = None
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if callable(value) and not isinstance(value, (tuple, list, dict)):
        value = value() if call is None else call(value, where)
    if isinstance(value, dict):
        return (), dict(value)
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    raise ScriptTargetError(
        f"{where} must be a tuple of positional arguments, a dict of keyword arguments, or a "
        f"callable returning one; got {type(value).__name__}"
    )


def example_arguments(
    module: ModuleType, name: str, fn: Any, script: str, call: Any = None
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Find the example arguments of ``fn`` by the convention in :data:`EXAMPLE_ARGS_HELP`.

    ``call(factory, where)``, when given, calls the example-arguments callable in place of
    ``factory()`` (:mod:`.scaled_arguments` calls it at another size)."""
    if hasattr(fn, "example_args"):
        return _resolve_example(fn.example_args, f"{name}.example_args", call)
    table = getattr(module, "EXAMPLE_ARGS", None)
    if isinstance(table, dict) and name in table:
        return _resolve_example(table[name], f"EXAMPLE_ARGS[{name!r}]", call)
    factory = getattr(module, "example_args", None)
    if callable(factory):
        table = factory() if call is None else call(factory, "example_args()")
        if isinstance(table, dict) and name in table:
            return _resolve_example(table[name], f"example_args()[{name!r}]")
        if isinstance(table, (tuple, list)):
            # One set of arguments for every function of the script (e.g. two versions of a layer).
            return _resolve_example(tuple(table), "example_args()")
    if _takes_no_arguments(fn):
        return (), {}
    raise ScriptTargetError(
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


def load_function(script: str, name: str) -> LoadedFunction:
    """Import ``script`` in this process and return its function ``name`` with the example
    arguments the script gives it (see the module docstring).

    Every failure is a :class:`ScriptImportError`: no such file; an exception while the script
    imports (one line naming the script and its line); no function ``name``; no usable example
    arguments. A framework the script imports but that is not installed is said as
    :func:`~hloscope.backends.frameworks.explain_missing_frameworks` says it.
    """
    path = os.path.abspath(script)
    if not os.path.isfile(path):
        raise ScriptImportError(f"{script}: no such file")
    try:
        with explain_missing_frameworks():
            loaded = import_script(path)
    except HloscopeError:
        raise
    except Exception as error:  # noqa: BLE001 - the script's own failure, said in one line
        raise ScriptImportError(
            f"{script}: importing it failed{_script_line(error, path)}: {describe_exception(error)}"
        ) from None
    fn = find_function(loaded, script, name)
    args, kwargs = example_arguments(loaded, name, fn, script)
    return LoadedFunction(fn, args, kwargs)


def _script_line(error: BaseException, path: str) -> str:
    """`` at line N``: the innermost line of the script in ``error``'s traceback, if any."""
    if isinstance(error, SyntaxError) and error.lineno and error.filename == path:
        return f" at line {error.lineno}"  # the frame of a syntax error is the importer's
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if os.path.abspath(frame.filename) == path:
            return f" at line {frame.lineno}"
    return ""
