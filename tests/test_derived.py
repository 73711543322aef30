""":class:`hloscope.derived.Derived`: attributes worked out from their object, one line each in a
class body; read off an object they are the value, read off the class the descriptor (as a
property is, so ``help()`` and documentation tools still list them)."""

from __future__ import annotations

import pydoc

from hloscope.derived import Derived
from hloscope.dump.buffers import Allocation, BufferAssignment
from hloscope.hlo.attributes.windows import ConvDimLabels, Window, WindowDimension


class _Twice(Derived["_Box", int]):
    def of(self, obj: _Box) -> int:
        return 2 * obj.value


class _Box:
    twice = _Twice()

    def __init__(self, value: int) -> None:
        self.value = value


def test_an_object_reads_the_value_and_the_class_reads_the_descriptor():
    box = _Box(3)
    assert box.twice == 6
    box.value = 5
    assert box.twice == 10  # worked out at each read, never kept
    assert isinstance(_Box.twice, _Twice)


def test_the_derived_attributes_of_hloscope_classes():
    labels = ConvDimLabels("b01f", "01io", "b01f")
    assert (labels.input_batch_dimension, labels.output_feature_dimension) == (0, 3)
    assert labels.kernel_spatial_dimensions == (0, 1)
    window = Window((WindowDimension(3, 2, 0, 1), WindowDimension(5, 1, 2, 2)))
    assert window.size == (3, 5) and window.stride == (2, 1)
    assert window.padding == ((0, 1), (2, 2))
    sizes = {"parameter": 8, "temp": 64, "both": 4}
    assignment = BufferAssignment(
        allocations=[
            Allocation(index=0, size=sizes["parameter"], parameter=0),
            Allocation(index=1, size=sizes["temp"], preallocated_temp=True),
            Allocation(index=2, size=sizes["both"], parameter=1, maybe_live_out=True),
        ]
    )
    assert assignment.argument_bytes == 12 and assignment.temp_bytes == 64
    assert assignment.alias_bytes == 4 and assignment.allocated_bytes == 76
    for cls, name in [(ConvDimLabels, "input_batch_dimension"), (Window, "rhs_reversal")]:
        assert isinstance(getattr(cls, name), Derived)
        assert name in pydoc.plain(pydoc.render_doc(cls))
