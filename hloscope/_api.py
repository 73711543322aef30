"""The top-level convenience functions: an analysis applied to anything that names HLO.

The analyses in :mod:`hloscope.analysis` take :class:`~hloscope.hlo.model.Module` objects and
nothing else. These wrappers also take what a person has at hand, a path, a TARGET string, a
:class:`~hloscope.capture.target.Target` or a :class:`~hloscope.capture.inprocess.Capture`,
turn it into a module through :class:`~hloscope.capture.target.Target` (the one road from a
TARGET to modules) and call the analysis::

    hloscope.fusions("model.after_optimizations.txt")    # a DataFrame, one row per kernel
    hloscope.diff("before.txt", "after.txt", module="jit_step")
    hloscope.check(step, x, platform="tpu")               # will it compile there? (a report)
    hloscope.collectives("/tmp/dump", device="tpu-v5e").to_frame()  # SPMD communication
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .capture.script_loader import LoadedFunction, load_function
from .capture.target import Target
from .devices import DEFAULT_MXU
from .hlo.model import Module
from .stages import Stage

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .analysis.collectives import CollectivesResult
    from .analysis.diff import KernelDiff
    from .analysis.fusions import FusionReport
    from .analysis.unsupported.findings import CheckReport

__all__ = [
    "as_module",
    "fusion_report",
    "fusions",
    "collectives",
    "diff",
    "check",
    "load_function",
]


def as_module(
    value: Any, *, stage: str | Stage = Stage.OPTIMIZED_HLO, module: str | None = None
) -> Module:
    """The one module ``value`` stands for.

    ``value`` is a :class:`Module` (returned as it is), a
    :class:`~hloscope.capture.inprocess.Capture` (its ``stage`` module), a
    :class:`~hloscope.capture.target.Target`, or a TARGET string or path (resolved with
    :meth:`Target.resolve`; of several modules, ``module`` picks one by name or id and
    otherwise :meth:`Target.choose_module`'s rule applies).
    """
    if isinstance(value, Module):
        return value
    from .capture.inprocess import Capture

    if isinstance(value, Capture):
        return value.module(stage)
    if isinstance(value, (str, os.PathLike, Target)):
        return Target.resolve(value).main_module(stage, module)
    raise TypeError(
        f"expected a Module, a Capture, a Target or a TARGET string, not {type(value).__name__}"
    )


def fusion_report(value: Any, *, module: str | None = None) -> FusionReport:
    """:func:`hloscope.analysis.fusions.fusion_report` of what ``value`` names (see
    :func:`as_module`); an iterable of modules is reported together."""
    from .analysis.fusions import fusion_report as report_of

    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, os.PathLike, Module)):
        return report_of([as_module(v) for v in value])
    return report_of(as_module(value, module=module))


def fusions(value: Any, *, module: str | None = None) -> pandas.DataFrame:
    """The kernels of what ``value`` names as a DataFrame, one row per kernel (see
    :func:`hloscope.analysis.fusions.fusions` for the columns)."""
    from .analysis.fusions import fusions as kernel_table

    return kernel_table(as_module(value, module=module))


def collectives(
    value: Any, *, module: str | None = None, device: str | None = None
) -> CollectivesResult:
    """``hloscope collectives`` of what ``value`` names: a
    :class:`~hloscope.analysis.collectives.CollectivesResult` (``.to_dict()``, ``.to_frame()``
    one row per collective, ``.parameters_frame()`` the sharding of each parameter and output).

    A path, TARGET string or :class:`Target` is read as the command reads it, with its module
    before optimizations when it holds one (exact global shapes, output shardings, mesh axis
    names); a :class:`Capture` with its own; a :class:`Module` alone. ``device``
    (``"tpu-v5e"``...) prices each collective on that interconnect.
    """
    from .analysis.collectives import collectives_of, collectives_results
    from .capture.inprocess import Capture

    if isinstance(value, Module):
        result = collectives_of(value)
    elif isinstance(value, Capture):
        stages = value.stages
        after = value.module(Stage.OPTIMIZED_HLO)
        before = value.module(Stage.HLO) if Stage.HLO in stages else None
        result = collectives_of(after, before)
    elif isinstance(value, (str, os.PathLike, Target)):
        target = value if isinstance(value, Target) else Target.resolve(value)
        (result,) = collectives_results(target, module=module)
    else:
        raise TypeError(
            f"expected a Module, a Capture, a Target or a TARGET string, not {type(value).__name__}"
        )
    if device is not None:
        from .analysis.collectives import price

        price(result, device)
    return result


def diff(a: Any, b: Any, *, module: str | None = None) -> KernelDiff:
    """:func:`hloscope.analysis.diff.diff` of the modules ``a`` and ``b`` name (see
    :func:`as_module`; ``module`` picks the same-named module on both sides)."""
    from .analysis.diff import diff as kernel_diff

    label_a, label_b = (str(s) if isinstance(s, (str, os.PathLike)) else "" for s in (a, b))
    return kernel_diff(
        as_module(a, module=module),
        as_module(b, module=module),
        labels=(label_a, label_b) if label_a and label_b else None,
    )


# ---- compatibility checks ------------------------------------------------------------------------

_FUNCTION_SPEC = re.compile(r"^(?P<script>.+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")
# What a check of HLO takes as keywords (a function's keywords go to the function instead).
_HLO_OPTIONS = ("stage", "module", "all_modules")


def check(
    value: Any,
    *args: Any,
    platform: str = "cpu",
    mxu: int = DEFAULT_MXU,
    device: Any = None,
    **kwargs: Any,
) -> CheckReport:
    """Will ``value`` compile for ``platform`` (``"cpu"``, ``"gpu"``, ``"tpu"``)? Every op that
    keeps it from compiling, in a :class:`~hloscope.analysis.unsupported.findings.CheckReport`
    (``.clean``, ``.findings``, ``.to_dict()``, ``.to_dataframe()``). No device of the
    platform is needed and nothing is run.

    ``value`` is one of

    * HLO: a :class:`Module`, a :class:`~hloscope.capture.inprocess.Capture`, a
      :class:`~hloscope.capture.target.Target` or a TARGET path (an HLO file, a dump folder):
      the offline rules (custom calls of another platform, host callbacks, 64-bit types on
      TPU, dynamic shapes). Keywords: ``stage="before"|"after"`` (dump folders and captures;
      default ``"before"``), ``module=NAME``, ``all_modules=True``;
    * ``"SCRIPT.py:FUNCTION"``: the script is imported here and FUNCTION checked with its
      example arguments, as below;
    * a ``tf.function`` or Keras model, with example inputs or ``tf.TensorSpec``s:
      :func:`~hloscope.drivers.tf_check.check_tf`;
    * any other callable, with example inputs (arrays or ``jax.ShapeDtypeStruct``): a JAX
      function, lowered for the platform by
      :func:`~hloscope.drivers.jax_check.check_jax`.

    For ``platform="tpu"`` the report's ``mxu`` lists the dots and convolutions not aligned
    to a ``mxu`` x ``mxu`` matrix unit (the default TPU's, :data:`hloscope.devices.DEFAULT_MXU`;
    each chip's in :func:`hloscope.analysis.mxu.mxu_sizes`); ``mxu`` is not passed on to a
    function.

    ``device`` (a TPU of the registry, ``"tpu-v5e"``, or a :class:`~hloscope.devices.DeviceSpec`)
    checks for that chip with ``platform="tpu"`` and its MXU, and has XLA:TPU confirm each
    problem, compiling it alone for the chip in a child process (and the whole program, for
    what the static rules miss): a problem XLA:TPU compiles is dropped, one it refuses carries
    its words (:func:`hloscope.drivers.tpu_confirm.confirm_with_xla_tpu`). Without
    libtpu the report is the static one, labelled so.
    """
    if device is not None:
        return _confirmed_check(value, args, kwargs, device)
    loaded = _script_function(value)
    if loaded is not None:
        fn, example_args, example_kwargs = loaded
        return check(fn, *example_args, platform=platform, mxu=mxu, **example_kwargs)
    if _names_hlo(value):
        _refuse_hlo_arguments(args, kwargs)
        return _check_hlo(value, platform, mxu=mxu, **kwargs)
    return _check_function(value, args, kwargs, platform, mxu)


def _script_function(value: Any) -> LoadedFunction | None:
    """For a ``"SCRIPT.py:FUNCTION"`` (not a folder of that name): the function, imported
    from the script, and its example arguments and keywords; else ``None``."""
    spec = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if spec is None:
        return None
    found = _FUNCTION_SPEC.match(spec)
    if found is None or os.path.isdir(spec):
        return None
    return load_function(found["script"], found["function"])


def _names_hlo(value: Any) -> bool:
    """Whether ``value`` is HLO or names it: a path or TARGET string, a Target, a Module or
    a Capture."""
    from .capture.inprocess import Capture

    return isinstance(value, (str, os.PathLike, Target, Module, Capture))


def _refuse_hlo_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A ``TypeError`` for example arguments, or keywords other than ``_HLO_OPTIONS``, given
    with HLO (they belong to a function)."""
    if args:
        raise TypeError("a check of HLO takes no example arguments")
    unknown = sorted(set(kwargs) - set(_HLO_OPTIONS))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) for a check of HLO: {unknown}")


def _check_function(
    value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], platform: str, mxu: int
) -> CheckReport:
    """:func:`check` of a callable: a ``tf.function`` or Keras model by TensorFlow's rules,
    anything else as a JAX function lowered for ``platform``."""
    if not callable(value):
        raise TypeError(
            "expected a function, a tf.function or Keras model, a Module, a Target or a TARGET "
            f"string, not {type(value).__name__}"
        )
    from .capture.inprocess import is_tensorflow_function

    if is_tensorflow_function(value):
        from .drivers.tf_check import check_tf

        return check_tf(value, *args, platform=platform, **kwargs)
    from .drivers.jax_check import check_jax

    return check_jax(value, *args, platform=platform, mxu=mxu, **kwargs)


def _confirmed_check(
    value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], device: Any
) -> CheckReport:
    """:func:`check` for a TPU ``device``, its problems confirmed by XLA:TPU."""
    from .devices import parse_device
    from .drivers.device_check import confirm_for_device
    from .drivers.tpu_confirm import WholeProgram

    spec = parse_device(device)
    if not spec.device.is_tpu:
        raise ValueError(f"check(device=...) names a TPU; {spec.device.name} is not one")
    mxu = spec.device.mxu or DEFAULT_MXU
    report = check(value, *args, platform="tpu", mxu=mxu, **kwargs)
    where: dict[str, Any] = {}
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    found = _FUNCTION_SPEC.match(text) if text is not None else None
    if found is not None and not os.path.isdir(str(text)):
        where = {"script": found["script"], "function": found["function"]}
    elif callable(value) and not isinstance(value, (Module, Target)):
        from .capture.inprocess import is_tensorflow_function

        if not is_tensorflow_function(value):
            where = _whole_program(value, args, kwargs)
    elif isinstance(value, Module):
        where = {"module_text": value.to_text()}
    return confirm_for_device(report, spec, WholeProgram(**where))  # the registry's compiler


def _whole_program(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """How XLA:TPU's child gets a live function: as its script and name when the script
    defines it at the top with these example arguments and importing it does not run this
    call again (the child then rebuilds every primitive's equation too), else as the module
    lowered for TPU, when it lowers without a stand-in (a stood-in primitive would compile
    and be taken for confirmed clean)."""
    import inspect

    from .backends.jax_lowering import lower_for, same_argument_shapes
    from .capture.script_loader import load_function
    from .capture.script_reentry import import_would_rerun

    name = getattr(fn, "__name__", None)
    try:
        source = inspect.getsourcefile(inspect.unwrap(fn))
    except TypeError:
        source = None
    # A script whose top level is this call, unguarded, is not imported (that would run this
    # call again, without end): the program is lowered here instead.
    if name and source and source.endswith(".py") and import_would_rerun(source) is None:
        try:
            _, example_args, example_kwargs = load_function(source, name)
        except Exception:  # noqa: BLE001 - not a script hloscope can load: lower it here
            example_args, example_kwargs = None, None
        if example_args is not None and same_argument_shapes(
            (example_args, example_kwargs), (args, kwargs)
        ):
            return {"script": source, "function": name}
    facts = lower_for(fn, args, kwargs, platform="tpu", export=False)
    return {"module_text": facts.hlo} if facts.hlo and not facts.missing else {}


def _check_hlo(
    value: Any,
    platform: str,
    *,
    mxu: int = DEFAULT_MXU,
    stage: str | Stage | None = None,
    module: str | None = None,
    all_modules: bool = False,
) -> CheckReport:
    from .analysis.unsupported.hlo_check import check_modules
    from .capture.inprocess import Capture

    if isinstance(value, Module):
        return check_modules([value], platform, mxu=mxu)
    if isinstance(value, Capture):
        chosen = stage or "before"
        return check_modules(
            [value.module(chosen)], platform, stage=chosen, program=value.name, mxu=mxu
        )
    target = Target.resolve(value)
    if all_modules and module is not None:
        raise TypeError("module= and all_modules=True exclude each other")
    read = stage or "before"
    modules = target.modules(read) if all_modules else [target.main_module(read, module)]
    if target.kind != "hlo-file":
        return check_modules(modules, platform, stage=read, program=target.spec, mxu=mxu)
    # A text file is whatever stage it is (its header says: is_scheduled); the stage asked
    # for is read from the file of that stage beside it, as `hloscope check FILE` does.
    from .analysis.unsupported.hlo_check import file_modules_at_stage

    where = target.location if target.is_remote else target.path
    staged, notes = file_modules_at_stage(where, modules, stage)
    report = check_modules(staged, platform, program=target.spec, mxu=mxu)
    report.notes[:0] = notes
    return report
