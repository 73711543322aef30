"""``compile-time --scale/--slices --device tpu-v5e``: the growth of XLA:TPU offline compiles.

The oracle of each prediction is XLA:TPU itself: the check size is compiled and measured, and
the fit made from the two other sizes must be of the right kind (``growth_checks``: within 50%;
how close it comes on a quiet machine is ``benchmarks/bench_compile_growth.py``'s, within 5% on
the TPU host). Ratios only, never absolute times; each size is compiled twice (a fresh child
each) and the fastest kept (``--repeat``).
The programs are small (256-wide bf16 layers): an XLA:TPU compile of one takes about a second.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from growth_checks import REMEASURE, RIGHT_KIND

from hloscope.cli import cli

pytestmark = pytest.mark.slow

PROGRAMS = Path(__file__).resolve().parent / "compile_growth_programs.py"


@pytest.fixture(autouse=True)
def _libtpu_and_cache(tmp_path_factory, monkeypatch):
    needs_libtpu()
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "tpu-growth"))


def growth(function: str, *options: str) -> dict:
    result = CliRunner().invoke(
        cli,
        ["compile-time", f"{PROGRAMS}:{function}", "--device", "tpu-v5e", *options, "--json"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def checked_growth(function: str, *options: str) -> dict:
    """:func:`growth`, measured again once (every size compiled anew) when its check misses by
    25% or more: a burst of load on a 2-core CI machine can slow one size's compiles only."""
    found = growth(function, *options)
    if abs(found["total"]["check"]["error"]) >= REMEASURE:
        found = growth(function, *options, "--refresh")
    return found


def test_an_unrolled_loop_on_xla_tpu_grows_and_the_fit_predicts_the_check():
    # about half a second of an XLA:TPU compile does not depend on the layers: the layers'
    # share shows from tens of them on
    found = checked_growth(
        "wide_loop_model", "--scale", "layers", "--sizes", "32,64,128", "--repeat", "2"
    )
    assert {p["compiled_for"] for p in found["points"]} == {"TPU v5 lite"}
    total = found["total"]
    assert abs(total["check"]["error"]) < RIGHT_KIND, total
    assert total["growth"] not in ("flat", "falling")
    # XLA:TPU's HLO passes are timed on TPU: their stage is fitted too
    assert "hlo_passes_s" in found["stages"]
    passes = [p["stages"]["hlo_passes_s"] for p in found["points"]]
    assert passes[2] > passes[0]  # four times the layers, longer passes


def test_a_scan_on_xla_tpu_compiles_flat_and_the_fit_says_so():
    found = checked_growth(
        "wide_scan_model", "--scale", "layers", "--sizes", "4,32,64", "--repeat", "2"
    )
    assert found["total"]["growth"] == "flat", found["total"]
    assert abs(found["total"]["check"]["error"]) < RIGHT_KIND, found["total"]


def test_slices_are_fitted_against_their_chips_and_checked_on_the_slice_predicted():
    # fitted on 2x2 and 2x4, checked on 4x4 itself: the prediction --at 4x4 meets XLA:TPU's
    found = growth("sharded_step", "--slices", "2x2,2x4,4x4", "--at", "4x4")
    assert found["scale"] == "chips"
    assert found["sizes"] == [4, 8, 16]
    assert [p["label"] for p in found["points"]] == [
        "tpu-v5e:2x2",
        "tpu-v5e:2x4",
        "tpu-v5e:4x4",
    ]
    check = found["total"]["check"]
    measured = found["points"][2]["total_s"]
    assert check["measured_s"] == measured
    assert found["predicted_at_s"] == pytest.approx(check["predicted_s"])
    assert check["error"] == pytest.approx((check["predicted_s"] - measured) / measured)


def test_two_slices_are_checked_on_half_the_smaller_ones_chips():
    found = growth("sharded_step", "--slices", "2x2,2x4", "--at", "4x4")
    assert found["sizes"] == [4, 8, 2]
    assert found["at"] == {"size": 16, "label": "tpu-v5e:4x4"}
