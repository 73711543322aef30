"""``hloscope check --device``: one option names what to check for, a platform (``cpu``, ``gpu``,
``tpu``) or a device of the registry (its platform, and for a TPU its own MXU); the older
``--platform`` and ``--tpu`` still work, hidden, with one note on stderr naming the new
spelling, and print the very same report."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hloscope import devices
from hloscope.cli import cli
from hloscope.devices import DEFAULT_MXU, DEFAULT_TPU, Device, Platform

#: One dot whose M, N and K are multiples of no MXU size (8, 200 and 100).
DOT = """\
HloModule misaligned

ENTRY %main (a: f32[8,100], b: f32[100,200]) -> f32[8,200] {
  %a = f32[8,100]{1,0} parameter(0)
  %b = f32[100,200]{1,0} parameter(1)
  ROOT %dot = f32[8,200]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""
#: A made-up TPU with an MXU no built-in chip has, and no libtpu topology (nothing to confirm
#: with: the report is the static one, labelled so).
ZZ7 = Device("tpu-zz7", Platform.TPU, "TPU zz7", r"\bTPU zz7\b", aliases=("zz7",), mxu=64)
#: A TPU row that states no MXU size.
ZZ8 = Device("tpu-zz8", Platform.TPU, "TPU zz8", r"\bTPU zz8\b")


@pytest.fixture
def rows():
    for row in (ZZ7, ZZ8):
        devices.register(row)
    try:
        yield
    finally:
        for row in (ZZ7, ZZ8):
            devices.unregister(row.name)


@pytest.fixture
def dot(tmp_path):
    path = tmp_path / "dot.hlo"
    path.write_text(DOT)
    return path


def check(*args):
    result = CliRunner().invoke(cli, ["check", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("platform", ["cpu", "gpu", "tpu"])
def test_platform_is_a_hidden_alias_of_device_with_one_note(corpus, platform):
    target = corpus / "generated" / "jax_linalg_custom_calls"  # only cpu has its LAPACK calls
    new = check(target, "--device", platform, "--json")
    old = check(target, "--platform", platform, "--json")
    assert new[0] == old[0] == (0 if platform == "cpu" else 3)
    assert new[1] == old[1] and json.loads(new[1])["platform"] == platform
    # The dump's own note (which module) on both; the old spelling one line more, first.
    assert "deprecated" not in new[2]
    assert old[2].splitlines() == [
        f"hloscope: note: --platform is deprecated: use --device {platform}",
        *new[2].splitlines(),
    ]


def test_no_option_checks_for_cpu(dot):
    assert check(dot, "--json")[1] == check(dot, "--device", "cpu", "--json")[1]


def test_a_tpu_is_measured_against_its_rows_mxu(dot, rows):
    def sizes(*args):
        code, out, _ = check(dot, "--json", *args)
        assert code == 0, out
        return {(f["mxu_size"], f["padded_shape"]) for f in json.loads(out)["mxu"]}

    # tpu alone: the default TPU's row; a chip: its own (zz7 exists only in this test).
    assert sizes("--device", "tpu") == {(DEFAULT_MXU, "[128,128]x[128,256]")}
    assert devices.lookup(DEFAULT_TPU).mxu == DEFAULT_MXU
    assert sizes("--device", "zz7") == {(64, "[64,128]x[128,256]")}
    assert sizes("--device", "tpu-v6e:2x2") == {(256, "[256,256]x[256,256]")}
    assert sizes("--device", "cpu") == set()  # not a TPU: no MXU warnings


def test_tpu_is_a_hidden_alias_of_device_with_one_note(dot, rows):
    new = check(dot, "--device", "zz7", "--json")
    old = check(dot, "--tpu", "zz7", "--json")
    both = check(dot, "--platform", "tpu", "--tpu", "zz7", "--json")
    assert new[0] == old[0] == both[0] == 0
    assert new[1] == old[1] == both[1]
    assert json.loads(new[1])["device"] == "tpu-zz7"
    assert old[2].splitlines() == ["hloscope: note: --tpu is deprecated: use --device tpu-zz7"]
    assert both[2].splitlines() == [
        "hloscope: note: --platform and --tpu are deprecated: use --device tpu-zz7"
    ]


def test_a_gpu_device_checks_for_the_gpu_platform(dot):
    code, out, err = check(dot, "--device", "h100", "--json")
    assert code == 0 and err == ""
    assert out == check(dot, "--device", "gpu", "--json")[1]
    assert json.loads(out)["platform"] == "gpu"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--device", "tpu-v6e", "--platform", "cpu"], "checks for tpu, --platform says cpu"),
        (["--device", "h100", "--platform", "tpu"], "checks for gpu, --platform says tpu"),
        (["--device", "tpu", "--tpu", "v6e"], "give --device alone"),
        (["--device", "zz8"], "no MXU size for tpu-zz8"),
        (["--device", "ipu"], "or a platform: cpu, gpu, tpu"),
        (["--platform", "ipu"], "'--platform'"),
        (["--tpu", "h100"], "is not a TPU"),
    ],
)
def test_what_cannot_be_checked_for_is_one_usage_line(dot, rows, args, said):
    code, out, err = check(dot, *args)
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("hloscope: error: ") and said in line, line


def test_help_shows_device_alone_with_platforms_and_registered_rows(rows):
    out = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["check", "--help"]).stdout
    text = "".join(out.split())  # help wraps at hyphens too: tpu-|zz7
    assert "--devicePLATFORM|NAME[:SLICE]" in text
    assert "Platforms:cpu,gpu,tpu." in text and "tpu-zz7" in text
    assert "--platform" not in text and "--tpu" not in text
