"""What the printer and the graph read of a module, as Protocols.

:class:`~hloscope.hlo.model.Module`, :class:`~hloscope.hlo.model.Computation` and
:class:`~hloscope.hlo.model.Instruction` are what they read; the model's views
(``Module.to_text()``, ``Module.graph()``) call into them. Naming the model by these
read-only Protocols keeps the imports one way: the model imports the printer and the graph,
and neither imports the model back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from .metadata import StackFrame
    from .shape import Shape

__all__ = ["InstructionView", "ComputationView", "ModuleView"]


class InstructionView(Protocol):
    """An instruction as its text and its place in the dataflow."""

    # Plain attributes of the model, read as they are; what the model computes (or what
    # names another view, which a read-only property keeps covariant) is a property.
    name: str
    opcode: str

    @property
    def operands(self) -> Sequence[InstructionView]: ...
    @property
    def shape(self) -> Shape: ...
    @property
    def shape_text(self) -> str: ...
    @property
    def payload(self) -> str | None: ...
    @property
    def attr_text(self) -> str: ...
    @property
    def computation(self) -> ComputationView | None: ...
    @property
    def async_wrapped(self) -> InstructionView | None: ...
    @property
    def fused_computation(self) -> ComputationView | None: ...
    @property
    def parameter_number(self) -> int | None: ...
    @property
    def fusion_kind(self) -> str | None: ...
    @property
    def source(self) -> StackFrame | None: ...


class ComputationView(Protocol):
    """A computation: its instructions in text order and what its header and closer say."""

    name: str
    is_entry: bool
    signature: str | None
    execution_thread: str | None

    @property
    def expanded_from(self) -> InstructionView | None: ...
    @property
    def root(self) -> InstructionView | None: ...
    @property
    def instructions(self) -> Sequence[InstructionView]: ...


#: The kind of computation a module holds (the model's own Computation, for a Module).
C_co = TypeVar("C_co", bound=ComputationView, covariant=True)


class ModuleView(Protocol[C_co]):
    """A module: its computations and the header and stack-frame tables printed before them."""

    @property
    def name(self) -> str: ...
    @property
    def header_attr_text(self) -> str: ...
    @property
    def computations(self) -> Sequence[C_co]: ...
    @property
    def entry(self) -> C_co | None: ...
    @property
    def computations_by_name(self) -> Mapping[str, C_co]: ...
    @property
    def file_names(self) -> Mapping[int, str]: ...
    @property
    def function_names(self) -> Mapping[int, str]: ...
    @property
    def file_locations(self) -> Mapping[int, Mapping[str, int]]: ...
    @property
    def stack_frame_table(self) -> Mapping[int, tuple[int, int]]: ...
