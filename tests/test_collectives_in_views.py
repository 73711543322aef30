"""Collectives where the other views show them: ``fusions``, ``report`` and ``diff A B``.

The programs are one model's gradient step (a two-layer MLP) sharded two ways over 8 host
devices, compiled by jax in a subprocess (the device count is fixed when jax starts; run as
``python tests/test_collectives_in_views.py DUMP_DIR``, as ``tests/collectives_spmd_programs.py``
is):

* ``dp`` -- data parallel: the batch split 8 ways, the weights replicated, so the gradients
  of both weights are all-reduced (XLA combines them: one all-reduce of f32[64,16] and
  f32[16,64], 8 KiB per device);
* ``tp`` -- tensor parallel: ``w1`` column- and ``w2`` row-sharded 8 ways, so the second
  matmul's partial sums are all-reduced (f32[32,16], 2 KiB per device) and the gradients
  stay sharded.

What each view says is checked against the optimized HLO's own text (the collective lines
and their shapes) and the cost formulas by hand.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.collectives import interconnect_devices
from hloscope.cli import cli

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "hlo"
RING_V5E = 100e9  # tpu-v5e: 400 GB/s both ways over 4 ports -> 100 GB/s into a ring
HOP = 1e-6


def main(out: str) -> None:
    import jax
    import jax.numpy as jnp
    from collectives_spmd_programs import _mesh
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(_mesh(jax.devices(), (8,)), ("d",))

    def loss(params, x):
        w1, w2 = params
        return jnp.sum(jnp.tanh(jnp.tanh(x @ w1) @ w2))

    x, w1, w2 = jnp.ones((32, 16)), jnp.ones((16, 64)), jnp.ones((64, 16))

    def compile_to(name, weight_specs, x_spec):
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        shardings = tuple(NamedSharding(mesh, spec) for spec in weight_specs)
        params = tuple(jax.device_put(a, s) for a, s in zip((w1, w2), shardings))
        xs = jax.device_put(x, NamedSharding(mesh, x_spec))
        lowered = jax.jit(jax.grad(loss), out_shardings=shardings).lower(params, xs)
        lowered.compile(compiler_options={"xla_dump_to": folder, "xla_dump_hlo_as_text": True})

    compile_to("dp", (P(), P()), P("d"))
    compile_to("tp", (P(None, "d"), P("d", None)), P())


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("views")
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    subprocess.run([sys.executable, __file__, str(out)], check=True, env=env, timeout=300)
    return out


def _after(dumps: Path, name: str) -> str:
    (path,) = (dumps / name).glob("*.cpu_after_optimizations.txt")
    return path.read_text()


def _all_reduce_bytes(text: str) -> list[int]:
    """The bytes per device of each all-reduce in the HLO text: its result's f32 arrays."""
    out = []
    for line in text.splitlines():
        if " all-reduce(" not in line:
            continue
        result = line.split(" all-reduce(")[0].split("=", 1)[1]
        out.append(sum(4 * _elements(dims) for dims in re.findall(r"f32\[([\d,]*)\]", result)))
    return out


def _elements(dims: str) -> int:
    n = 1
    for d in filter(None, dims.split(",")):
        n *= int(d)
    return n


def _all_reduce_seconds(nbytes: int, n: int) -> float:
    return 2 * (n - 1) / n * nbytes / RING_V5E + 2 * (n - 1) * HOP


def _run(*args: str) -> str:
    out = CliRunner().invoke(cli, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def test_the_two_shardings_all_reduce_what_they_should(dumps):
    # The oracle the views are checked against: XLA's own text.
    assert _all_reduce_bytes(_after(dumps, "dp")) == [64 * 16 * 4 + 16 * 64 * 4]
    assert _all_reduce_bytes(_after(dumps, "tp")) == [32 * 16 * 4]


def test_fusions_json_adds_the_collectives_with_their_estimates(dumps):
    plain = json.loads(_run("fusions", str(dumps / "tp"), "--json"))
    data = json.loads(_run("fusions", str(dumps / "tp"), "--json", "--device", "tpu-v5e"))
    assert data["rows"] == plain["rows"] and data["summary"] == plain["summary"]
    (row,) = data["collectives"]
    (nbytes,) = _all_reduce_bytes(_after(dumps, "tp"))
    assert row["kind"] == "all-reduce" and row["bytes"] == nbytes == 2048
    assert (row["group_size"], row["num_groups"], row["executions"]) == (8, 1, 1)
    assert row["name"] in {r["name"] for r in data["rows"]}  # the collective is a kernel row
    assert row["estimate_s"] == pytest.approx(_all_reduce_seconds(2048, 8), rel=1e-12)
    assert row["exposed_s"] == row["estimate_s"]  # a sync collective: nothing hides it
    comm = data["communication"]
    assert comm == {
        "count": 1,
        "devices": 8,
        "bytes": 2048,
        "executed_bytes": 2048,
        "estimate_s": row["estimate_s"],
        "exposed_s": row["estimate_s"],
        "device": "tpu-v5e",
    }
    step = data["step"]
    assert step["total_s"] == pytest.approx(step["compute_s"] + comm["exposed_s"])
    assert step["kernels"] == len(data["rows"]) - 1  # every kernel but the all-reduce
    # Without --device: the bytes and kinds, no seconds, no step.
    (bare,) = plain["collectives"]
    assert bare["bytes"] == 2048 and bare["estimate_s"] is None and plain["step"] is None


def test_fusions_text_shows_the_collectives_and_the_step_in_80_columns(dumps):
    text = _run("fusions", str(dumps / "dp"), "--device", "tpu-v5e")
    assert "collectives 1  bytes per device 8.0 KiB" in text
    assert "communication on tpu-v5e" in text and "step on tpu-v5e" in text
    assert re.search(r"all-reduce\s.*8\.0 KiB.*8x1", text)
    assert all(len(line) <= 80 for line in text.splitlines()), text
    bare = _run("fusions", str(dumps / "dp"))
    assert "collectives 1" in bare and "--device NAME prices them" in bare


def test_fusions_of_a_module_without_collectives_is_unchanged():
    path = str(SAMPLE / "fusion_refactor_fused.after_optimizations.txt")
    data = json.loads(_run("fusions", path, "--json"))
    assert set(data) == {"module", "rows", "summary"}
    assert "collectives" not in _run("fusions", path)
    priced = json.loads(_run("fusions", path, "--json", "--device", "h100"))
    assert priced["collectives"] == [] and priced["step"]["exposed_s"] == 0
    assert priced["step"]["split"]["compute"] == 1.0


def test_diff_of_two_shardings_shows_the_communication_change(dumps):
    a, b = str(dumps / "dp"), str(dumps / "tp")
    data = json.loads(_run("diff", a, b, "--json", "--device", "tpu-v5e"))
    comm = data["communication"]
    (bytes_a,), (bytes_b,) = (_all_reduce_bytes(_after(dumps, n)) for n in ("dp", "tp"))
    (kind,) = comm["kinds"]
    assert kind["kind"] == "all-reduce"
    assert (kind["a"]["count"], kind["b"]["count"]) == (1, 1)
    assert (kind["a"]["bytes"], kind["b"]["bytes"]) == (bytes_a, bytes_b) == (8192, 2048)
    assert kind["delta"]["bytes"] == -6144 and kind["delta"]["count"] == 0
    assert kind["a"]["executed_bytes"] == 8192 and kind["b"]["executed_bytes"] == 2048
    exposed_a, exposed_b = _all_reduce_seconds(8192, 8), _all_reduce_seconds(2048, 8)
    assert kind["a"]["exposed_s"] == pytest.approx(exposed_a, rel=1e-12)
    assert kind["b"]["exposed_s"] == pytest.approx(exposed_b, rel=1e-12)
    assert comm["delta"]["exposed_s"] == pytest.approx(exposed_b - exposed_a, rel=1e-9)
    assert comm["a"]["bytes"] == 8192 and comm["b"]["bytes"] == 2048
    assert comm["device"] == "tpu-v5e" and comm["devices"] == {"a": 8, "b": 8}
    assert not comm["no_change"]
    step = comm["step"]
    for side, exposed in (("a", exposed_a), ("b", exposed_b)):
        assert step[side]["exposed_s"] == pytest.approx(exposed, rel=1e-12)
        assert step[side]["total_s"] == pytest.approx(step[side]["compute_s"] + exposed)
    # Without --device: counts and bytes, no seconds.
    bare = json.loads(_run("diff", a, b, "--json"))["communication"]
    assert bare["kinds"][0]["a"]["bytes"] == 8192 and bare["kinds"][0]["a"]["exposed_s"] is None
    assert "step" not in bare and bare["device"] is None


def test_diff_text_says_the_communication_change_in_80_columns(dumps):
    text = _run("diff", str(dumps / "dp"), str(dumps / "tp"), "--device", "tpu-v5e")
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), text
    start = next(i for i, line in enumerate(lines) if line.startswith("collectives: 1 -> 1"))
    block = " ".join(line.strip() for line in lines[start:])
    assert "8.0 KiB -> 2.0 KiB (-6.0 KiB) per device" in block
    assert "all-reduce: 1 -> 1" in block and "exposed on tpu-v5e" in block
    assert "step on tpu-v5e:" in block


def test_diff_without_collectives_says_nothing_of_them():
    fused, split = (
        str(SAMPLE / f"fusion_refactor_{kind}.after_optimizations.txt")
        for kind in ("fused", "split")
    )
    assert "communication" not in json.loads(_run("diff", fused, split, "--json"))
    priced = json.loads(_run("diff", fused, split, "--json", "--device", "tpu-v4"))
    assert priced["communication"]["kinds"] == [] and priced["communication"]["no_change"]


def test_report_shows_the_collectives_and_the_step_on_every_device(dumps):
    from hloscope.reporting import build_report

    report = build_report(str(dumps / "dp"), graphs=0, device="tpu-v5e")
    assert "collectives" in report.section_names()
    section = report.collectives
    assert section is not None and section.device == "tpu-v5e" and section.devices == 8
    (row,) = section.rows
    assert row.kind == "all-reduce" and row.bytes == 8192 and row.groups == "8x1"
    assert row.estimate_s == pytest.approx(_all_reduce_seconds(8192, 8), rel=1e-12)
    assert [s.device for s in section.steps] == [r.name for r in interconnect_devices()]
    html = report.to_html()
    assert 'id="hs-collectives"' in html and f"<code>{row.name}</code>" in html
    assert "One step on each device" in html
    data = report.to_dict()
    assert data["collectives"]["bytes"] == 8192
    assert set(data["collectives"]["steps"]) == {r.name for r in interconnect_devices()}
    # Without a device the rows are not priced, the step on every device still is.
    bare = build_report(str(dumps / "dp"), graphs=0).collectives
    assert bare is not None and bare.device is None and bare.rows[0].estimate == "-"
    assert len(bare.steps) == len(interconnect_devices())


def test_report_of_a_module_without_collectives_has_no_section():
    from hloscope.reporting import build_report

    report = build_report(str(SAMPLE / "fusion_refactor_fused.after_optimizations.txt"), graphs=0)
    assert report.collectives is None and "collectives" not in report.section_names()


def test_report_escapes_what_the_hlo_names(tmp_path):
    from hloscope.reporting import build_report

    path = tmp_path / "evil.hlo"
    path.write_text(
        "HloModule evil, num_partitions=2\n"
        "%add (a: f32[], b: f32[]) -> f32[] {\n"
        "  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
        "  ROOT %s = f32[] add(%a, %b)\n}\n"
        "ENTRY %main (p: f32[8]) -> f32[8] {\n"
        "  %p = f32[8]{0} parameter(0)\n"
        "  ROOT %ar = f32[8]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1}}, "
        'to_apply=%add, metadata={op_name="<img src=x onerror=alert(1)>"}\n'
        "}\n"
    )
    html = build_report(str(path), graphs=0).to_html()
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


if __name__ == "__main__":
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=8").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    main(sys.argv[1])


def test_report_command_prices_the_rows_with_device(dumps, tmp_path):
    page = tmp_path / "dp.html"
    out = CliRunner().invoke(
        cli, ["report", str(dumps / "dp"), "--graphs", "0", "--device", "tpu-v5e", "-o", str(page)]
    )
    assert out.exit_code == 0, out.output
    (data,) = re.findall(
        r'<script type="application/json" id="hloscope-data">(.*?)</script>', page.read_text()
    )
    assert json.loads(data)["collectives"]["device"] == "tpu-v5e"
    wrong = CliRunner().invoke(cli, ["report", str(dumps / "dp"), "--device", "tpu-v9"])
    assert wrong.exit_code == 2 and "unknown device 'tpu-v9'" in wrong.output
    assert "tpu-v5e" in wrong.output  # the names it knows
