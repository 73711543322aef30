"""What lowering a JAX function for a platform gave or raised, as data: the facts
:func:`hloscope.backends.jax_lowering.lower_for` collects (:class:`LoweringFacts`, with the
:class:`MissingLowering` primitives, each :class:`PrimitiveUse` and :class:`RaisedError`, and
the :class:`UserLine` of each) and :mod:`hloscope.analysis.unsupported.jax_check` judges
without lowering anything."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["UserLine", "RaisedError", "PrimitiveUse", "MissingLowering", "LoweringFacts"]


@dataclass(frozen=True, slots=True)
class UserLine:
    """A line of the user's code: ``file:line``, and the function it is in (a qualified name
    such as ``f.<locals>.body``)."""

    file: str
    line: int
    function: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class RaisedError:
    """An exception raised while tracing, lowering or exporting: its class name, the whole
    message, the step (``"trace"``, ``"lower"``, ``"export"``) and the user's line."""

    kind: str
    message: str
    step: str
    where: UserLine | None = None

    @property
    def first_line(self) -> str:
        """The message's first non-empty line (what a one-line report shows)."""
        return next((line.strip() for line in self.message.splitlines() if line.strip()), "")


@dataclass(frozen=True, slots=True)
class PrimitiveUse:
    """One equation of the traced program that uses ``primitive``, and where it was made:
    ``stack`` is every frame JAX kept, innermost first, the equation's own and then those of
    the equations that called the jaxpr it is in (``jnp.linalg.eigvals`` is a jitted function:
    its ``eig`` was made in jax, its call in the user's code); ``where`` the innermost one."""

    primitive: str
    where: UserLine | None = None
    stack: tuple[UserLine, ...] = ()


@dataclass(frozen=True, slots=True)
class MissingLowering:
    """A primitive with no lowering rule for the platform: JAX's message and every use."""

    primitive: str
    message: str
    uses: tuple[PrimitiveUse, ...] = ()


@dataclass(slots=True)
class LoweringFacts:
    """What lowering one function for one platform gave, or raised.

    ``platform`` is JAX's name of it (``cpu``, ``cuda``, ``rocm``, ``tpu``) and ``function``
    the qualified name of the function lowered. ``error`` is set when tracing or lowering
    failed for a reason a stand-in cannot fix (then ``stablehlo``/``hlo`` are ``None``).
    ``missing`` lists the primitives stood in for because they have no rule;
    ``callbacks`` every host-callback equation of the jaxpr; ``callbacks_stood_in`` says the
    callbacks were replaced too (TPU off TPU), so the HLO does not show them.
    ``hlo`` is the lowered module as HLO text before optimizations (``hlo_error`` says why
    not, when the conversion failed). ``export_error`` is what ``jax.export`` raised, when
    it was asked (``export_checked``) and refused.
    """

    platform: str
    function: str
    stablehlo: str | None = None
    hlo: str | None = None
    hlo_error: str | None = None
    error: RaisedError | None = None
    missing: list[MissingLowering] = field(default_factory=list)
    callbacks: list[PrimitiveUse] = field(default_factory=list)
    callbacks_stood_in: bool = False
    export_checked: bool = False
    export_error: RaisedError | None = None
    jax_version: str = ""

    @property
    def lowered(self) -> bool:
        """Whether the function lowered (perhaps with stand-ins)."""
        return self.stablehlo is not None
