"""``--mesh`` is read by one function (:func:`hloscope.capture.mesh.parse_mesh`) for a capture
and for ``hloscope try``'s variants: the same sizes, and the same refusals, on both."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hloscope.capture.mesh import parse_mesh
from hloscope.cli import cli
from hloscope.drivers.variants import parse_mesh as variants_parse_mesh
from hloscope.errors import UsageProblem


def test_try_reads_a_mesh_as_a_capture_does():
    assert variants_parse_mesh is parse_mesh
    assert parse_mesh("data=8,model=4") == {"data": 8, "model": 4}
    assert parse_mesh(" data = 2 ") == {"data": 2}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("data=2,data=4", "axis 'data' given twice"),
        ("data=0", "give AXIS=SIZE pairs"),
        ("=2", "give AXIS=SIZE pairs"),
        ("data", "give AXIS=SIZE pairs"),
    ],
)
def test_a_mesh_that_cannot_be_one_is_refused(text, said):
    with pytest.raises(UsageProblem, match=said):
        parse_mesh(text)


def test_a_repeated_axis_is_a_usage_error_before_any_capture(tmp_path):
    script = tmp_path / "never_run.py"
    never = "raise SystemExit('imported: a capture started')\n"
    script.write_text(never + "def step(x):\n    return x\n")
    args = ["collectives", f"{script}:step", "--device", "tpu-v5e:2x4", "--mesh", "data=2,data=4"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "axis 'data' given twice" in result.output and "imported" not in result.output
