"""Lower a JAX function for a platform this machine may not have, and keep what happened.

JAX can lower a function for any platform without its device (*cross-platform lowering*)::

    jax.jit(f).trace(x).lower(lowering_platforms=("tpu",))

and what that lowering gives, or refuses, tells whether the program will compile there: the
custom-call kernels it asks for, the primitives that have no lowering rule for the platform
(``MLIR translation rule for primitive 'eig' not found for platform tpu``), the errors raised
while tracing (``ConcretizationTypeError`` ...), and what ``jax.export`` refuses.
:func:`lower_for` collects those as plain facts, a
:class:`~hloscope.backends.lowering_facts.LoweringFacts`; judging them is the job of
:mod:`hloscope.analysis.unsupported.jax_check`, which never imports jax.

Two things make the facts complete rather than "the first error":

* a primitive without a lowering rule is **stood in for** (zeros of its result types, see
  :func:`hloscope.backends._jaxlib.stand_in_rule`) and the lowering is tried again, so a
  function with two unlowerable primitives reports both, and the HLO rules still see the rest;
* host callbacks (``pure_callback``, ``io_callback``, ``jax.debug.print``/``callback``) lower
  to send/recv host transfers on TPU, which JAX builds with a TPU client; off TPU that lowering
  raises ``the platform for the specified backend cpu is different from the lowering platform
  tpu``. The callbacks are then read from the jaxpr (with their source lines) and stood in for.

Where an error came from is the innermost frame of the user's code in the traceback: not
jax, jaxlib, hloscope, the standard library or an installed package.

jax is imported only inside functions, through :func:`~hloscope.backends.frameworks.require_jax`;
private jax APIs only through :mod:`hloscope.backends._jaxlib`.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

from .frameworks import require_jax
from .lowering_facts import LoweringFacts, MissingLowering, PrimitiveUse, RaisedError, UserLine
from .traceable import traceable

__all__ = [
    "CALLBACK_PRIMITIVES",
    "UserLine",
    "RaisedError",
    "PrimitiveUse",
    "MissingLowering",
    "LoweringFacts",
    "jax_platform",
    "lower_for",
    "missing_rule_primitive",
    "user_line",
]

#: Primitives that call back into Python on the host (jax 0.10: ``jax.pure_callback``,
#: ``jax.experimental.io_callback``, ``jax.debug.callback``, ``jax.debug.print``).
CALLBACK_PRIMITIVES: frozenset[str] = frozenset(
    {"pure_callback", "io_callback", "debug_callback", "debug_print"}
)

#: hloscope's platform names -> JAX's lowering platforms (``gpu`` is lowered for CUDA).
_JAX_PLATFORMS = {"cpu": "cpu", "gpu": "cuda", "cuda": "cuda", "rocm": "rocm", "tpu": "tpu"}

_MISSING_RULE = re.compile(r"MLIR translation rule for primitive '([^']+)' not found for platform")
_CALLBACK_NEEDS_DEVICE = re.compile(r"the platform for the specified backend \S+ is different")
# How many stand-ins one lowering may need before the check gives up (each is one more lowering).
_MAX_STAND_INS = 16


def jax_platform(platform: str) -> str:
    """JAX's lowering platform for an hloscope platform name: ``gpu`` -> ``cuda``."""
    name = str(platform).strip().lower()
    try:
        return _JAX_PLATFORMS[name]
    except KeyError:
        choices = ", ".join(sorted(_JAX_PLATFORMS))
        raise ValueError(f"unknown platform {platform!r} (choose one of {choices})") from None


def missing_rule_primitive(message: str) -> str | None:
    """The primitive JAX's "no lowering rule" message names, else ``None``."""
    found = _MISSING_RULE.search(message)
    return found.group(1) if found else None


# ---- the lowering -------------------------------------------------------------------------------


def lower_for(
    fn: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    platform: str = "cpu",
    export: bool = True,
) -> LoweringFacts:
    """Trace ``fn(*args, **kwargs)`` and lower it for ``platform``; return the facts.

    ``fn`` is a plain or already jitted JAX function (its own static arguments apply);
    ``args`` are example inputs (arrays or ``jax.ShapeDtypeStruct``). Nothing is compiled
    or run, and no device of ``platform`` is needed. ``export=True`` also asks
    ``jax.export.export`` for the platform. Exceptions of the user's program are facts, not
    raised; only a missing or too old jax raises (:class:`~hloscope.backends.frameworks.
    MissingFramework`).
    """
    from . import _jaxlib

    jax = require_jax()
    _jaxlib.hide_hloscope_frames()
    target = jax_platform(platform)
    kwargs = dict(kwargs or {})
    jitted, args, kwargs = traceable(fn, args, kwargs)  # either way, it has .trace
    facts = LoweringFacts(
        platform=target, function=_qualified_name(fn), jax_version=str(jax.__version__)
    )
    try:
        with _jaxlib.full_traceback_locations():
            traced = jitted.trace(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the user's tracing error is the finding
        facts.error = _raised(error, "trace")
        return facts
    placed = list(equations_with_callers(traced.jaxpr))
    facts.callbacks = [
        _use(_jaxlib, e, callers) for e, callers in placed if _name(e) in CALLBACK_PRIMITIVES
    ]
    lowered, stand_ins = _lower_with_stand_ins(_jaxlib, traced, target, placed, facts)
    if lowered is None:
        return facts
    _read_texts(_jaxlib, lowered, facts)
    if export:
        _check_export(_jaxlib, (jitted, args, kwargs), stand_ins, facts)
    return facts


def _read_texts(adapter: Any, lowered: Any, facts: LoweringFacts) -> None:
    """The lowered program's StableHLO and HLO text into ``facts``; HLO that cannot be had is
    ``facts.hlo_error``, one line."""
    facts.stablehlo = adapter.stablehlo_text(lowered)
    try:
        facts.hlo = adapter.hlo_text(lowered)
    except Exception as error:  # noqa: BLE001 - StableHLO is still there to read
        facts.hlo_error = f"{type(error).__name__}: {_first_line(str(error))}"


def _check_export(
    adapter: Any,
    call: tuple[Any, Sequence[Any], dict[str, Any]],
    stand_ins: list[Any],
    facts: LoweringFacts,
) -> None:
    """``jax.export`` asked for ``facts.platform`` with the jitted function and its
    arguments (``call``); its refusal is ``facts.export_error``."""
    facts.export_checked = True
    jitted, args, kwargs = call
    try:
        adapter.export_for_platform(jitted, args, kwargs, facts.platform, stand_ins)
    except Exception as error:  # noqa: BLE001 - export's refusal is the fact
        facts.export_error = _raised(error, "export")


def _lower_with_stand_ins(
    adapter: Any, traced: Any, platform: str, equations: list[_Placed], facts: LoweringFacts
) -> tuple[Any, list[Any]]:
    """Lower, standing in for each primitive JAX cannot lower here, until it lowers or fails
    for another reason (then ``facts.error`` says why and the lowered module is ``None``)."""
    stand_ins: dict[str, Any] = {}
    while True:
        try:
            lowered = adapter.lower_for_platform(traced, platform, list(stand_ins.values()))
        except Exception as error:  # noqa: BLE001 - sorted out below
            replace = _what_to_stand_in(adapter, error, equations, stand_ins, facts)
            if not replace or len(stand_ins) + len(replace) > _MAX_STAND_INS:
                facts.error = _raised(error, "lower")
                return None, list(stand_ins.values())
            stand_ins.update(replace)
            continue
        return lowered, list(stand_ins.values())


def _what_to_stand_in(
    adapter: Any,
    error: Exception,
    equations: list[_Placed],
    stand_ins: dict[str, Any],
    facts: LoweringFacts,
) -> dict[str, Any]:
    """The primitives (name -> primitive object) a lowering error asks to stand in for, and
    the facts that say so; empty when a stand-in would not help."""
    message = str(error)
    name = missing_rule_primitive(message) if isinstance(error, NotImplementedError) else None
    if name is not None and name not in stand_ins:
        primitives = _primitives_named(equations, {name})
        if primitives:
            uses = tuple(_use(adapter, e, callers) for e, callers in equations if _name(e) == name)
            facts.missing.append(MissingLowering(name, _first_line(message), uses))
            return primitives
    if (
        isinstance(error, ValueError)
        and _CALLBACK_NEEDS_DEVICE.search(message)
        and facts.callbacks
        and not facts.callbacks_stood_in
    ):
        facts.callbacks_stood_in = True
        return _primitives_named(equations, set(CALLBACK_PRIMITIVES))
    return {}


def _primitives_named(equations: list[_Placed], names: set[str]) -> dict[str, Any]:
    return {_name(e): e.primitive for e, _ in equations if _name(e) in names}


# ---- the jaxpr ----------------------------------------------------------------------------------

# An equation and the equations that called the jaxpr it is in, innermost first.
_Placed = tuple[Any, tuple[Any, ...]]


def equations_with_callers(jaxpr: Any) -> Iterator[_Placed]:
    """Every equation of a (closed) jaxpr and of the jaxprs in its equations' parameters (jit
    calls, cond branches, scan and while bodies, custom_jvp ...), depth first, iteratively,
    each with its callers. A jaxpr JAX cached and called from two places (one jitted helper
    used twice) is visited once per call, so each use has its own call site."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(_open(jaxpr), ())]
    seen: set[tuple[int, ...]] = set()
    while stack:
        current, callers = stack.pop()
        key = (id(current), *map(id, callers))
        if current is None or key in seen:
            continue
        seen.add(key)
        inner: list[tuple[Any, tuple[Any, ...]]] = []
        for equation in current.eqns:
            yield equation, callers
            for value in equation.params.values():
                for candidate in value if isinstance(value, (tuple, list)) else (value,):
                    inner.append((_open(candidate), (equation, *callers)))
        stack.extend(reversed(inner))


def _open(value: Any) -> Any:
    """The ``Jaxpr`` a parameter holds (a ``ClosedJaxpr``'s ``.jaxpr``), else ``None``."""
    if hasattr(value, "eqns"):
        return value
    inner = getattr(value, "jaxpr", None)
    return inner if hasattr(inner, "eqns") else None


def _name(equation: Any) -> str:
    return str(getattr(equation.primitive, "name", equation.primitive))


def _use(adapter: Any, equation: Any, callers: tuple[Any, ...] = ()) -> PrimitiveUse:
    stack = tuple(
        UserLine(file, line, function)
        for placed in (equation, *callers)
        for file, line, function in adapter.equation_frames(placed)
    )
    return PrimitiveUse(_name(equation), stack[0] if stack else None, stack)


# ---- exceptions and where they came from --------------------------------------------------------


def _raised(error: BaseException, step: str) -> RaisedError:
    return RaisedError(type(error).__name__, str(error), step, user_line(error.__traceback__))


def user_line(tb: TracebackType | None) -> UserLine | None:
    """The innermost frame of ``tb`` in the user's code: not in jax, jaxlib, hloscope, the
    standard library or an installed package (``site-packages``). ``None`` when there is none
    (an error raised inside jax while lowering has no user frame)."""
    frames: list[UserLine] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        name = getattr(code, "co_qualname", code.co_name)
        frames.append(UserLine(code.co_filename, tb.tb_lineno, name))
        tb = tb.tb_next
    internal = _internal_prefixes()
    for frame in reversed(frames):
        if not _is_internal(frame.file, internal):
            return frame
    return None


def _internal_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    prefixes = {paths.get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    prefixes.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # hloscope/
    for package in ("jax", "jaxlib"):
        module = sys.modules.get(package)
        path = getattr(module, "__file__", None)
        if path:
            prefixes.add(os.path.dirname(os.path.abspath(path)))
    return tuple(sorted(p.rstrip(os.sep) + os.sep for p in prefixes if p))


def _is_internal(path: str, prefixes: tuple[str, ...]) -> bool:
    if path.startswith("<frozen"):
        return True
    folders = re.split(r"[/\\]", path)
    if "site-packages" in folders or "dist-packages" in folders:
        return True
    return os.path.abspath(path).startswith(prefixes)


# ---- small helpers ------------------------------------------------------------------------------


def _qualified_name(fn: Any) -> str:
    target = getattr(fn, "__wrapped__", None) or fn
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    return str(name) if name else type(fn).__name__


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def same_argument_shapes(a: Any, b: Any) -> bool:
    """Whether two sets of example arguments have the same structure, shapes and dtypes (what
    a compile depends on; values do not matter)."""
    jax = require_jax()

    def kind(x: Any) -> Any:
        shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
        return (tuple(shape), str(dtype)) if shape is not None else repr(x)

    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    return bool(tree_a == tree_b) and list(map(kind, leaves_a)) == list(map(kind, leaves_b))
