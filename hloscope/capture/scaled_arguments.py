"""A function's example arguments rebuilt at another size: what grows when a command asks how a
compile's peak memory (``memory --scale``) or its time (``compile-time --scale``) grows.

Two things can grow:

* **an argument's dimension**, ``ARG:DIM`` (``x:0``, ``params:1``, ``1:0``): the example
  argument ``ARG`` (a parameter name or a position) becomes an abstract array
  (``jax.ShapeDtypeStruct``) whose dimension ``DIM`` has the new size;
* **a size the script's example arguments are built from**, ``NAME`` (``layers``): the
  example-arguments callable the script gives (``FUNCTION.example_args``,
  ``EXAMPLE_ARGS["FUNCTION"]`` or the module's ``example_args``) takes a parameter ``NAME``
  with a default, the example's own size, and is called with ``NAME=size``::

      def example_args(layers=4):
          return {"model": ([jnp.ones((128, 128))] * layers, jnp.ones((8, 128)))}

A capture child is told one size as text (:func:`parse_scale_at`): ``x:0=64`` or ``layers=16``
(the size itself), ``x:0*2`` or ``layers*2`` (a multiple of the example's own size, which only
the child, with the script loaded, knows).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageProblem
from .errors import ScriptTargetError

__all__ = [
    "ArgumentScale",
    "argument_position",
    "resized_array",
    "parse_scale_at",
    "scaled_example",
]

_AT = re.compile(r"^(?P<what>[^=*]+)(?P<op>[=*])(?P<size>\d+)$")


@dataclass(frozen=True, slots=True)
class ArgumentScale:
    """What grows: dimension ``dim`` of argument ``argument``, or (``dim is None``) the
    parameter ``argument`` of the script's example-arguments callable."""

    argument: str | int
    dim: int | None = None

    def __str__(self) -> str:
        return str(self.argument) if self.dim is None else f"{self.argument}:{self.dim}"

    @classmethod
    def parse(cls, text: str) -> ArgumentScale:
        """``"x:0"``, ``"1:0"``, ``"layers"`` -> an :class:`ArgumentScale`."""
        parts = text.strip().split(":")
        if len(parts) == 1 and parts[0].isidentifier():
            return cls(parts[0])
        if len(parts) != 2 or not parts[0] or not parts[1].lstrip("-").isdigit():
            raise UsageProblem(
                f"--scale {text!r}: give ARG:DIM (an argument's name or position and a "
                "dimension, e.g. x:0) or NAME (a parameter of the script's example_args, e.g. "
                "layers)"
            )
        argument: str | int = int(parts[0]) if parts[0].isdigit() else parts[0]
        return cls(argument, int(parts[1]))


def parse_scale_at(text: str) -> tuple[ArgumentScale, int, bool]:
    """``"x:0=64"`` -> (``x:0``, 64, False); ``"layers*2"`` -> (``layers``, 2, True): the
    scale, the size or factor, and whether it is a factor of the example's own size."""
    found = _AT.match(text.strip())
    if found is None or int(found.group("size")) < 1:
        raise UsageProblem(f"scale {text!r}: give ARG:DIM=SIZE, NAME=SIZE, or *FACTOR for either")
    scale = ArgumentScale.parse(found.group("what"))
    return scale, int(found.group("size")), found.group("op") == "*"


def argument_position(
    fn: Callable[..., Any], argument: str | int, args: Sequence[Any], kwargs: dict[str, Any]
) -> int | str:
    """Where the argument is: an ``int`` position in ``args`` or a ``str`` key of ``kwargs``."""
    if isinstance(argument, int):
        if argument >= len(args):
            # ScriptTargetError: found in a capture's child, said as the command line's mistake
            raise ScriptTargetError(
                f"--scale: argument {argument} does not exist (the example arguments "
                f"have {len(args)} positional)"
            )
        return argument
    if argument in kwargs:
        return argument
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    if argument in names and names.index(argument) < len(args):
        return names.index(argument)
    known = ", ".join([*names[: len(args)], *kwargs]) or "none"
    raise ScriptTargetError(f"--scale: no argument {argument!r} (arguments: {known})")


def resized_array(value: Any, dim: int, size: int, label: str) -> Any:
    """An abstract array like ``value`` with dimension ``dim`` of size ``size``."""
    import jax

    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is None or dtype is None:
        raise ScriptTargetError(
            f"--scale: argument {label} is not an array ({type(value).__name__})"
        )
    if not -len(shape) <= dim < len(shape):
        raise ScriptTargetError(
            f"--scale: argument {label} has shape {tuple(shape)}: no dimension {dim}"
        )
    dims = list(shape)
    dims[dim] = size
    return jax.ShapeDtypeStruct(tuple(dims), dtype)


def _resize_argument(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    scale: ArgumentScale,
    size: int,
    factor: bool,
) -> tuple[tuple[Any, ...], dict[str, Any], int]:
    assert scale.dim is not None
    where = argument_position(fn, scale.argument, args, kwargs)
    base = args[where] if isinstance(where, int) else kwargs[where]
    label = str(scale.argument)
    resized_array(base, scale.dim, 1, label)  # says a non-array or a bad dimension
    if factor:
        size *= int(base.shape[scale.dim])
    value = resized_array(base, scale.dim, size, label)
    new_args, new_kwargs = list(args), dict(kwargs)
    if isinstance(where, int):
        new_args[where] = value
    else:
        new_kwargs[where] = value
    return tuple(new_args), new_kwargs, size


class _CallAtSize:
    """The hook :func:`~.script_loader.example_arguments` calls an example-arguments callable
    through: with ``NAME=size`` (the size, or the factor times the parameter's default)."""

    def __init__(self, name: str, size: int, factor: bool) -> None:
        self.name, self.size, self.factor = name, size, factor
        self.used: int | None = None

    def __call__(self, factory: Callable[..., Any], where: str) -> Any:
        try:
            parameter = inspect.signature(factory).parameters.get(self.name)
        except (TypeError, ValueError):
            parameter = None
        if parameter is None:
            raise ScriptTargetError(
                f"--scale {self.name}: {where} takes no parameter {self.name!r} (give it one "
                f"with the example's own size as its default: def example_args({self.name}=4))"
            )
        size = self.size
        if self.factor:
            default = parameter.default
            if not isinstance(default, int) or isinstance(default, bool) or default < 1:
                raise ScriptTargetError(
                    f"--scale {self.name}: the parameter {self.name!r} of {where} needs a "
                    "positive integer default (the example's own size), or give the sizes"
                )
            size *= default
        self.used = size
        return factory(**{self.name: size})


def scaled_example(
    load: Callable[[Callable[[Callable[..., Any], str], Any] | None], tuple[Any, ...]],
    fn: Callable[..., Any],
    text: str,
) -> tuple[tuple[Any, ...], dict[str, Any], int]:
    """The example arguments at the size ``text`` says (:func:`parse_scale_at`), and that size.

    ``load(call)`` finds the example arguments (``(args, kwargs)``), calling an
    example-arguments callable through ``call`` when ``call`` is given."""
    scale, size, factor = parse_scale_at(text)
    if scale.dim is not None:
        args, kwargs = load(None)
        return _resize_argument(fn, tuple(args), dict(kwargs), scale, size, factor)
    hook = _CallAtSize(str(scale.argument), size, factor)
    args, kwargs = load(hook)
    if hook.used is None:
        raise ScriptTargetError(
            f"--scale {scale.argument}: the script's example arguments are not built by a "
            f"function; give one a parameter {scale.argument!r} (def example_args"
            f"({scale.argument}=4): ...), or scale an argument's dimension (ARG:DIM)"
        )
    return tuple(args), dict(kwargs), hook.used
