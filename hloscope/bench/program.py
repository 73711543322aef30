"""The program a benchmark times, from whatever names it.

:class:`Program` is a compiled program ready for the harness: a :class:`~.compile.Workload`
(what to call, on which inputs), the device, the optimized module XLA made of it (where the
costs and the kernel names come from) and the module whose kernels ``--per-kernel`` times.

It comes from one of three places:

* **a Python callable** and its arguments (:func:`program_from_callable`): jitted (if it is not
  already), its arguments put on the device, compiled once through the backends' seam
  (:class:`~hloscope.backends.LocalJax`); the executable that compile made
  (:attr:`~hloscope.backends.Compiled.executable`) is then called as the user calls the
  function, ``run(*args)``, so the time includes JAX's own dispatch. An argument given as
  ``jax.ShapeDtypeStruct`` becomes a random array of that shape and dtype. A function that
  donates its arguments gets fresh copies before every run.
* **a SCRIPT.py:FUNCTION target**: the script is imported in this process (its ``__main__``
  block does not run), and the function and its example arguments (the convention of
  :data:`hloscope.capture.script_loader.EXAMPLE_ARGS_HELP`) go the way of a callable.
* **any other TARGET** (:func:`program_from_target`): an HLO file, a dump folder, a capture,
  a script run in a child process. The main module (``--module`` picks another) is compiled
  through jaxlib: from its before-optimizations text where the target has one (what the
  framework gave XLA), else from the text itself (an optimized module has its fusions inlined
  first, and XLA optimizes it again, for the device at hand). Inputs are random arrays of the
  entry parameters' shapes, dtypes and layouts; donated parameters are fresh for every run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends.traceable import traceable
from ..capture.errors import ScriptImportError
from .compile import CompiledModule, Workload, compile_module, resolve_device
from .inputs import random_like

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.target import Target
    from ..hlo.model import Module

__all__ = [
    "Program",
    "ScriptImportError",  # capture/errors.py's, raised by load_script_function
    "program_from_callable",
    "program_from_target",
    "program_of",
    "load_script_function",
]


@dataclass(slots=True)
class Program:
    """A compiled program ready to be timed (see the module docstring)."""

    name: str
    device: Any
    work: Workload
    optimized: Module
    kernels_module: Module
    notes: list[str] = field(default_factory=list)
    compiled: CompiledModule | None = None


# ---- callables -----------------------------------------------------------------------------------


def _concrete(tree: Any, rng: np.random.Generator) -> Any:
    """``tree`` with every ``jax.ShapeDtypeStruct`` replaced by a random array."""
    import jax

    def fill(leaf: Any) -> Any:
        if isinstance(leaf, jax.ShapeDtypeStruct):
            return random_like(tuple(leaf.shape), np.dtype(leaf.dtype), rng)
        return leaf

    return jax.tree_util.tree_map(fill, tree)


def _any_deleted(tree: Any) -> bool:
    import jax

    return any(
        callable(getattr(leaf, "is_deleted", None)) and leaf.is_deleted()
        for leaf in jax.tree_util.tree_leaves(tree)
    )


@dataclass(frozen=True, slots=True)
class _HostKey:
    """A typed PRNG key array kept on the host: its raw data and its implementation (NumPy
    cannot hold the key type itself)."""

    data: np.ndarray
    impl: Any


def _is_key(leaf: Any) -> bool:
    import jax

    dtype = getattr(leaf, "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def _host_copy(tree: Any) -> Any:
    """The arrays of ``tree`` copied to the host, to place afresh when a call consumes them
    (:func:`_to_device`)."""
    import jax

    def copy(leaf: Any) -> Any:
        if _is_key(leaf):  # jax.random.key(...): its data, and how to make it a key again
            return _HostKey(np.array(jax.random.key_data(leaf)), jax.random.key_impl(leaf))
        return np.array(leaf) if hasattr(leaf, "__array__") else leaf

    return jax.tree_util.tree_map(copy, tree)


def _to_device(tree: Any, target: Any) -> Any:
    """``jax.device_put(tree, target)``, with the keys :func:`_host_copy` kept made keys."""
    import jax

    def put(leaf: Any) -> Any:
        if isinstance(leaf, _HostKey):
            return jax.device_put(
                jax.random.wrap_key_data(jax.numpy.asarray(leaf.data), impl=leaf.impl), target
            )
        return leaf

    keyed = jax.tree_util.tree_map(put, tree, is_leaf=lambda leaf: isinstance(leaf, _HostKey))
    return jax.device_put(keyed, target)


def program_from_callable(
    fn: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    device: Any = None,
    name: str | None = None,
    seed: int = 0,
) -> Program:
    """A :class:`Program` of ``fn(*args, **kwargs)`` (see the module docstring)."""
    from ..backends.frameworks import require_jax

    jax = require_jax()
    target = resolve_device(device)
    rng = np.random.default_rng(seed)
    call_args, call_kwargs = _concrete((tuple(args), dict(kwargs or {})), rng)
    # As capture traces it: a function of its array leaves when some leaf is no JAX type
    # (an Equinox module, a config object), which are then the arguments timed.
    jitted, call_args, call_kwargs = traceable(fn, call_args, call_kwargs)
    host = _host_copy((call_args, call_kwargs))
    placed_args, placed_kwargs = jax.device_put((call_args, call_kwargs), target)
    run, optimized = _compiled_here(jitted, placed_args, placed_kwargs)

    def call(*positional: Any) -> Any:
        return run(*positional, **placed_kwargs)

    work = Workload(call, tuple(placed_args))
    jax.block_until_ready(call(*placed_args))  # the first call: does it consume its inputs?
    if _any_deleted((placed_args, placed_kwargs)):
        host_args, host_kwargs = host

        def call_fresh(*positional: Any) -> Any:
            fresh_args, fresh_kwargs = positional
            return run(*fresh_args, **fresh_kwargs)

        work = Workload(call_fresh, (), lambda: tuple(_to_device((host_args, host_kwargs), target)))
    label = name or optimized.name
    return Program(label, target, work, optimized, optimized)


def _compiled_here(
    jitted: Any, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[Callable[..., Any], Module]:
    """``jitted`` compiled through the backends' seam for the device its arguments are on:
    what runs it (the executable JAX compiled, called as ``jitted`` is) and the optimized
    module that executable runs, with the capture's estimates of its Pallas kernels."""
    from ..backends import LocalJax
    from ..hlo.parser import parse

    # bench must run what it compiles: a program XLA refuses (one too big for HBM on a TPU
    # host) is XLA's own error, in XLA's words, not a capture of the refusal.
    lowered = LocalJax(keep_refused=False).lower(jitted, args, kwargs)
    try:
        compiled = lowered.compile()
    except Exception as error:
        raise _refused(error) from error
    assert compiled.executable is not None  # a compile that returns made an executable
    # The executable's own text: the kernels a profile names are the executable's (on a TPU
    # the capture keeps the module XLA dumped, whose names differ).
    jax_compiled = getattr(compiled.executable, "compiled", None)
    optimized = parse(jax_compiled.as_text() if jax_compiled is not None else compiled.as_text())
    optimized.kernel_estimates = list(compiled.capture.kernel_estimates)
    return compiled.executable, optimized


def _refused(error: Exception) -> Exception:
    """XLA's refusal as the one error line bench prints: XLA's own words (its status and
    first line: ``RESOURCE_EXHAUSTED: ... Ran out of memory in memory space hbm ...``);
    an hloscope error is already worded."""
    from ..backends.errors import XlaCompileFailed
    from ..errors import HloscopeError

    if isinstance(error, HloscopeError):
        return error
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return XlaCompileFailed(lines[0] if lines else type(error).__name__)


def load_script_function(script: str, name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """Import ``script`` here (not as ``__main__``) and return its function ``name`` with the
    example arguments the script gives it: :func:`hloscope.capture.script_loader.load_function`,
    the one loader of every ``SCRIPT.py:FUNCTION`` (a failure is its
    :class:`~hloscope.capture.errors.ScriptImportError`)."""
    from ..capture.script_loader import load_function

    return load_function(script, name)


# ---- TARGETs -------------------------------------------------------------------------------------


def _has_fusions(module: Module) -> bool:
    return any(inst.opcode == "fusion" for inst in module.instructions())


def program_from_module(
    module: Module,
    *,
    device: Any = None,
    kernels_module: Module | None = None,
    seed: int = 0,
) -> Program:
    """A :class:`Program` that runs ``module`` compiled anew (random inputs from ``seed``)."""
    from ..backends.errors import XlaCompileFailed
    from .extract import droppable_callbacks

    try:
        compiled = compile_module(module, resolve_device(device))
    except XlaCompileFailed as error:
        # XLA's text importer cannot take back every module XLA printed (on a TPU host it
        # refused an attention step's optimized text: "CHLO => [StableHLO+Shape] => StableHLO
        # failed"); the function itself runs XLA's own executable.
        raise XlaCompileFailed(
            f"{error} (XLA could not compile {module.name}'s text again: time the function "
            "itself, hloscope bench SCRIPT.py:FUNCTION, which runs XLA's own executable)"
        ) from None
    notes = []
    dropped = droppable_callbacks(module)
    if dropped:
        names = ", ".join(inst.name for inst in dropped[:4])
        notes.append(
            f"{len(dropped)} host callback(s) nothing depends on ({names}) left out: they call "
            "back into the process that compiled the program"
        )
    if _has_fusions(module):
        notes.append(
            f"{module.name}: compiled from optimized HLO with its fusions inlined; XLA "
            "optimized it again for this device"
        )
    return Program(
        module.name,
        compiled.device,
        compiled.workload(seed=seed),
        compiled.optimized_module(),
        kernels_module if kernels_module is not None else module,
        notes,
        compiled,
    )


def program_from_target(
    spec: str | os.PathLike[str] | Target,
    *,
    device: Any = None,
    module: str | None = None,
    refresh: bool = False,
    seed: int = 0,
) -> Program:
    """A :class:`Program` for a TARGET (see the module docstring)."""
    from ..capture.target import Target, TargetError, TargetKind

    if isinstance(spec, (str, os.PathLike)) and not isinstance(spec, Target):
        text = os.fspath(spec)
        script, sep, function = text.rpartition(":")
        if sep and script.endswith(".py") and function.isidentifier() and not os.path.exists(text):
            fn, args, kwargs = load_script_function(script, function)
            return program_from_callable(fn, args, kwargs, device=device, seed=seed)
    target = Target.resolve(spec, refresh=refresh)
    if target.kind is TargetKind.FUNCTION and target.script is not None and target.function:
        fn, args, kwargs = load_script_function(str(target.script), target.function)
        return program_from_callable(fn, args, kwargs, device=device, seed=seed)
    choice = target.choose_module("after", module)
    optimized = choice.module
    source = optimized
    if target.kind is not TargetKind.HLO_FILE:
        try:
            source = target.main_module("before", optimized.name)
        except TargetError:
            source = optimized
    program = program_from_module(source, device=device, kernels_module=optimized, seed=seed)
    if choice.note:
        program.notes.insert(0, choice.note)
    return program


def program_of(value: Any, args: Sequence[Any] = (), **options: Any) -> Program:
    """A :class:`Program` of anything: a Program, a Module, a TARGET, or a callable with
    ``args``."""
    from ..capture.target import Target
    from ..hlo.model import Module

    if isinstance(value, Program):
        return value
    if isinstance(value, Module):
        device = options.get("device")
        return program_from_module(value, device=device, seed=options.get("seed", 0))
    if isinstance(value, (str, os.PathLike, Target)):
        return program_from_target(value, **options)
    if callable(value):
        kwargs = options.pop("kwargs", None)
        allowed = {k: options[k] for k in ("device", "seed", "name") if k in options}
        return program_from_callable(value, args, kwargs, **allowed)
    raise TypeError(
        "bench() takes a TARGET string, a Module, a Target or a function with its arguments, "
        f"not {type(value).__name__}"
    )
