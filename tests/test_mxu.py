"""MXU alignment: the dots and convolutions that leave a TPU's matrix unit partly idle.

Every program here is a real JAX program lowered (and for the fused cases compiled) on CPU;
its M, N and K are known by construction from the array shapes, and XLA's own cost analysis
is the oracle for the useful FLOPs. The check's wiring is tested through the CLI and the
JAX pre-flight check: the warnings come in ``mxu`` and leave the verdict and exit status alone.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.analysis.mxu import MxuFinding, MxuOp, mxu_dataframe, mxu_findings, padded
from hloscope.analysis.unsupported.hlo_check import check_module
from hloscope.cli import cli
from hloscope.hlo.parser import parse
from hloscope.render.check_text import MXU_SHOWN, check_lines

jax = needs_framework("jax")
jnp = pytest.importorskip("jax.numpy")


def lowered(fn, *shapes):
    return jax.jit(fn).lower(*(jnp.ones(s, jnp.float32) for s in shapes))


def before(fn, *shapes):
    """The module XLA is given (what ``hloscope check`` reads), with its source lines."""
    return parse(lowered(fn, *shapes).as_text(dialect="hlo", debug_info=True))


def after(fn, *shapes):
    """The optimized module of the CPU compile: dots sit in fusion computations."""
    return parse(lowered(fn, *shapes).compile().as_text())


def xla_flops(fn, *shapes) -> float:
    return lowered(fn, *shapes).compile().cost_analysis()["flops"]


def line_of(fn, text: str) -> str:
    """``file:line`` of the line of ``fn`` that holds ``text``."""
    lines, start = inspect.getsourcelines(fn)
    offset = next(n for n, line in enumerate(lines) if text in line)
    return f"{inspect.getsourcefile(fn)}:{start + offset}"


def layer(x, w):
    return jnp.tanh(jnp.dot(x, w))


def conv(x, k):
    return jax.lax.conv_general_dilated(
        x, k, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


# ---- dots ---------------------------------------------------------------------------------------


def test_a_misaligned_dot_has_its_sizes_padding_and_source():
    (finding,) = mxu_findings(before(layer, (64, 100), (100, 200)))
    assert finding.op is MxuOp.DOT
    assert (finding.m, finding.n, finding.k, finding.batch) == (64, 200, 100, 1)
    assert finding.misaligned == ("m", "n", "k")
    assert (finding.padded_m, finding.padded_n, finding.padded_k) == (128, 256, 128)
    assert finding.padded_shape == "[128,128]x[128,256]"
    assert finding.shape == "[64,100]x[100,200]"
    assert finding.array_use == pytest.approx((100 / 128) * (200 / 256))
    assert finding.use == pytest.approx((64 / 128) * (100 / 128) * (200 / 256))
    assert finding.flops == xla_flops(layer, (64, 100), (100, 200))
    assert finding.wasted_flops == 2 * 128 * 256 * 128 - finding.flops
    assert finding.source == line_of(layer, "jnp.dot")
    assert finding.function == "<top>" and finding.kernel == finding.node
    assert "M (rows, e.g. the batch) 64 -> 128" in finding.suggestion
    assert "K (contracting) 100 -> 128" in finding.suggestion


def test_the_articles_batch_of_64_is_the_one_dimension_to_raise():
    (finding,) = mxu_findings(before(layer, (64, 128), (128, 128)))
    assert finding.misaligned == ("m",)
    assert finding.array_use == 1.0 and finding.use == 0.5
    assert finding.padded_shape == "[128,128]x[128,128]"
    assert finding.suggestion.endswith("M (rows, e.g. the batch) 64 -> 128")


def test_an_aligned_dot_has_no_finding():
    assert mxu_findings(before(layer, (128, 256), (256, 384))) == []


def test_v6e_measures_against_its_256_array():
    module = before(layer, (128, 256), (256, 384))
    (finding,) = mxu_findings(module, mxu=256)
    assert finding.mxu == 256 and finding.misaligned == ("m", "n")
    assert finding.padded_shape == "[256,256]x[256,512]"
    assert finding.use == pytest.approx((128 / 256) * (384 / 512))
    assert "256x256 MXU" in finding.suggestion


def test_batch_dimensions_are_independent_products():
    def batched(a, b):
        return jnp.einsum("bmk,bkn->bmn", a, b)

    (finding,) = mxu_findings(before(batched, (4, 64, 100), (4, 100, 200)))
    assert (finding.batch, finding.m, finding.n, finding.k) == (4, 64, 200, 100)
    assert finding.padded_shape == "4x[128,128]x[128,256]"
    assert finding.flops == xla_flops(batched, (4, 64, 100), (4, 100, 200))


def test_several_free_and_contracting_dimensions_multiply():
    def multi(a, b):
        return jnp.einsum("ijkl,klm->ijm", a, b)

    (finding,) = mxu_findings(before(multi, (2, 3, 10, 20), (10, 20, 50)))
    assert (finding.m, finding.n, finding.k) == (6, 50, 200)
    assert finding.flops == xla_flops(multi, (2, 3, 10, 20), (10, 20, 50))


def test_products_that_are_not_matrix_products_are_left_out():
    def inner(a, b):
        return jnp.dot(a, b)  # M = N = 1: a reduction

    def outer(a, b):
        return jnp.dot(a, b)  # K = 1: a broadcast multiply

    def geometry(a, b):
        return a @ b  # 3 x 3 x 3 = 27 multiply-adds, under one array row

    assert mxu_findings(before(inner, (300,), (300,))) == []
    assert mxu_findings(before(outer, (300, 1), (1, 200))) == []
    assert mxu_findings(before(geometry, (3, 3), (3, 3))) == []
    # A small matrix product still counts: 8 x 8 x 8 = 512 multiply-adds.
    (small,) = mxu_findings(before(geometry, (8, 8), (8, 8)))
    assert (small.m, small.n, small.k) == (8, 8, 8)


def test_a_matrix_vector_product_is_reported():
    (finding,) = mxu_findings(before(layer, (100,), (100, 200)))
    assert (finding.m, finding.n, finding.k) == (1, 200, 100)


def test_findings_are_ranked_by_wasted_work():
    def two(x, w1, w2):
        small = jnp.dot(x[:8, :8], w1)  # [8,8]x[8,8]: little waste
        big = jnp.dot(x, w2)  # [64,100]x[100,200]
        return small.sum() + big.sum()

    module = before(two, (64, 100), (8, 8), (100, 200))
    findings = mxu_findings(module)
    assert [(f.m, f.k, f.n) for f in findings] == [(64, 100, 200), (8, 8, 8)]
    assert findings[0].wasted_flops > findings[1].wasted_flops
    assert findings[0].source == line_of(two, "big = ")


def test_a_dot_inside_a_fusion_names_its_kernel_and_line():
    module = after(layer, (64, 100), (100, 200))
    (finding,) = mxu_findings(module)
    assert (finding.m, finding.n, finding.k) == (64, 200, 100)
    # The kernel is the entry instruction that calls the computation the dot sits in.
    dot = next(i for i in module.instructions() if i.opcode == "dot")
    kernels = [i for i in module.entry.instructions if dot.computation in i.called_computations]
    assert [k.opcode for k in kernels] == ["fusion"]
    assert finding.kernel == kernels[0].name != finding.node == dot.name
    assert finding.function == "<top>"
    assert finding.source == line_of(layer, "jnp.dot")


def test_a_dot_in_a_loop_body_names_the_body():
    def loop(x, w):
        return jax.lax.fori_loop(0, 3, lambda _, acc: jnp.tanh(acc @ w), x)

    (finding,) = mxu_findings(before(loop, (64, 100), (100, 100)))
    assert (finding.m, finding.n, finding.k) == (64, 100, 100)
    assert finding.function != "<top>"


# ---- convolutions -------------------------------------------------------------------------------


def test_a_convolution_contracts_its_input_features_per_window_position():
    (finding,) = mxu_findings(before(conv, (8, 32, 32, 3), (3, 3, 3, 64)))
    assert finding.op is MxuOp.CONVOLUTION
    # M: batch x output positions (VALID: 30 x 30); K: input features; N: output features.
    assert (finding.m, finding.n, finding.k, finding.window) == (8 * 30 * 30, 64, 3, 9)
    # 7200 rows are 56 passes of 128 and a part: 7296 fill 57.
    assert finding.misaligned == ("m", "n", "k")
    assert finding.flops == xla_flops(conv, (8, 32, 32, 3), (3, 3, 3, 64))
    assert finding.padded_shape == "[7296,128]x[128,128]"
    assert "K (input features) 3 -> 128" in finding.suggestion


def test_grouped_and_depthwise_convolutions():
    def grouped(x, k):
        return jax.lax.conv_general_dilated(
            x, k, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2
        )

    (finding,) = mxu_findings(before(grouped, (8, 16, 16, 64), (3, 3, 32, 96)))
    assert (finding.batch, finding.k, finding.n) == (2, 32, 48)
    assert finding.flops == xla_flops(grouped, (8, 16, 16, 64), (3, 3, 32, 96))

    def depthwise(x, k):
        return jax.lax.conv_general_dilated(
            x,
            k,
            (1, 1),
            "VALID",
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=64,
        )

    # One input feature per group: K = 1, the vector units' work.
    assert mxu_findings(before(depthwise, (8, 16, 16, 64), (3, 3, 1, 64))) == []


def test_an_aligned_convolution_has_no_finding():
    assert mxu_findings(before(conv, (16, 10, 10, 128), (3, 3, 128, 256))) == []


def test_to_dict_and_dataframe_carry_the_same_fields():
    (finding,) = mxu_findings(before(layer, (64, 100), (100, 200)))
    record = finding.to_dict()
    assert record["padded"] == {"m": 128, "n": 256, "k": 128}
    assert record["misaligned"] == ["m", "n", "k"] and record["mxu_size"] == 128
    assert json.loads(json.dumps(record)) == record
    frame = mxu_dataframe([finding])
    assert frame.loc[0, "wasted_flops"] == finding.wasted_flops
    assert frame.loc[0, "padded_shape"] == "[128,128]x[128,256]"


def test_padded_rounds_up_to_the_array():
    assert [padded(n, 128) for n in (1, 64, 128, 129, 200, 256)] == [128, 128, 128, 256, 256, 256]
    with pytest.raises(ValueError, match="positive"):
        mxu_findings(before(layer, (64, 100), (100, 200)), mxu=0)


# ---- in hloscope check --------------------------------------------------------------------------


def write_hlo(tmp_path: Path, fn, *shapes) -> Path:
    path = tmp_path / "module.hlo"
    path.write_text(lowered(fn, *shapes).as_text(dialect="hlo", debug_info=True))
    return path


def test_check_for_tpu_lists_them_and_keeps_verdict_and_exit_status(tmp_path):
    path = write_hlo(tmp_path, layer, (64, 100), (100, 200))
    result = CliRunner().invoke(cli, ["check", str(path), "--device", "tpu", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["findings"] == [] and report["clean"] is True
    assert report["verdict"] == "OK for tpu: no problems found"
    (mxu,) = report["mxu"]
    assert (mxu["m"], mxu["n"], mxu["k"]) == (64, 200, 100)
    assert mxu["source"] == line_of(layer, "jnp.dot")

    text = CliRunner().invoke(cli, ["check", str(path), "--device", "tpu"], terminal_width=80)
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[-1] == "OK for tpu: no problems found"
    body = " ".join(" ".join(lines).split())  # the sentence wraps
    assert "MXU alignment (128x128 MXU" in body
    assert "[64,100]x[100,200] uses 31% of the MXU; [128,128]x[128,256] fills it" in body


def test_check_for_other_platforms_has_none(tmp_path):
    path = write_hlo(tmp_path, layer, (64, 100), (100, 200))
    result = CliRunner().invoke(cli, ["check", str(path), "--device", "gpu", "--json"])
    assert json.loads(result.stdout)["mxu"] == []
    assert "MXU" not in CliRunner().invoke(cli, ["check", str(path), "--device", "gpu"]).stdout


def test_the_verdict_ignores_them_beside_real_problems():
    def wide(x, w):
        return jnp.dot(x, w).astype(jnp.float64)  # f64: a TPU problem

    with jax.enable_x64(True):
        module = before(wide, (64, 100), (100, 200))
    report = check_module(module, "tpu")
    assert len(report.mxu) == 1 and not report.clean
    verdict = report.verdict().text
    report.mxu.clear()
    assert report.verdict().text == verdict


def test_the_text_names_a_convolution_window_and_small_shares():
    report = check_module(before(conv, (8, 32, 32, 3), (3, 3, 3, 64)), "tpu")
    text = " ".join(" ".join(check_lines(report, width=80)).split())
    # 3/128 x 64/128 x 7200/7296 = 1.2%: one decimal under 10%, not "1%".
    assert "9 window positions: [7200,3]x[3,64] uses 1.2% of the MXU" in text


def test_a_kernel_gradient_contracts_over_the_batch():
    def loss(x, k):
        return conv(x, k).sum()

    grad = jax.grad(loss, argnums=1)
    module = before(grad, (4, 16, 16, 8), (3, 3, 8, 16))
    kernel_grad = [f for f in mxu_findings(module) if f.window == 14 * 14]
    # The output's 14 x 14 positions are the window, the batch of 4 the contraction, the
    # kernel's 3 x 3 x 8 positions and inputs the rows, its 16 outputs the columns.
    assert [(f.m, f.k, f.n) for f in kernel_grad] == [(3 * 3 * 8, 4, 16)]


def test_check_module_takes_the_v6e_size():
    report = check_module(before(layer, (128, 256), (256, 384)), "tpu", mxu=256)
    assert [f.padded_shape for f in report.mxu] == ["[256,256]x[256,512]"]
    assert check_module(before(layer, (128, 256), (256, 384)), "tpu").mxu == []


def test_the_text_shows_the_worst_and_counts_the_rest():
    count = MXU_SHOWN + 2

    def many(x, *ws):
        return sum(jnp.dot(x, w).sum() for w in ws)

    shapes = [(64, 100)] + [(100, 10 * (n + 1)) for n in range(count)]
    report = check_module(before(many, *shapes), "tpu")
    assert len(report.mxu) == count
    lines = check_lines(report, width=80)
    assert all(len(line) <= 80 for line in lines)
    assert sum(line.startswith("  ~ ") for line in lines) == MXU_SHOWN
    assert "  (and 2 more: --wide shows them all, --json too)" in lines
    assert sum(line.startswith("  ~ ") for line in check_lines(report, wide=True)) == count
    # Most wasted work first: every N pads to 128, so the narrowest wastes most.
    assert [f.n for f in report.mxu] == [10 * (n + 1) for n in range(count)]


def test_the_jax_preflight_check_for_tpu_has_them():
    from hloscope.drivers.jax_check import check_jax

    report = check_jax(layer, jnp.ones((64, 100)), jnp.ones((100, 200)), platform="tpu")
    assert report.clean
    assert [(f.m, f.n, f.k) for f in report.mxu] == [(64, 200, 100)]
    assert report.mxu[0].source == line_of(layer, "jnp.dot")
    assert check_jax(layer, jnp.ones((64, 100)), jnp.ones((100, 200)), platform="cpu").mxu == []


def test_a_finding_is_a_plain_record():
    finding = MxuFinding(
        op=MxuOp.DOT,
        node="d",
        kernel="d",
        function="<top>",
        module="m",
        source=None,
        dtype="bf16",
        m=100,
        n=128,
        k=128,
    )
    assert finding.misaligned == ("m",) and finding.array_use == 1.0
    assert finding.use == pytest.approx(100 / 128)


def test_check_tpu_v6e_measures_against_256_on_the_command_line_and_in_the_api(tmp_path):
    # [256,128]x[128,128] fills v5e's 128x128 array and half of v6e's 256x256 one along K and N.
    path = write_hlo(tmp_path, layer, (256, 128), (128, 128))
    runner = CliRunner()
    v5e = json.loads(runner.invoke(cli, ["check", str(path), "--device", "tpu", "--json"]).stdout)
    assert v5e["mxu"] == []
    out = runner.invoke(cli, ["check", str(path), "--device", "v6e", "--json"])
    assert out.exit_code == 0, out.output
    (v6e,) = json.loads(out.stdout)["mxu"]
    assert v6e["mxu_size"] == 256 and (v6e["m"], v6e["n"], v6e["k"]) == (256, 128, 128)
    assert v6e["padded"] == {"m": 256, "n": 256, "k": 256}
    # The same from Python, for an HLO file and for the JAX function itself.
    import hloscope

    assert [f.mxu for f in hloscope.check(str(path), platform="tpu", mxu=256).mxu] == [256]
    x, w = jnp.ones((256, 128)), jnp.ones((128, 128))
    assert hloscope.check(layer, x, w, platform="tpu").mxu == []
    (live,) = hloscope.check(layer, x, w, platform="tpu", mxu=256).mxu
    assert (live.m, live.n, live.k) == (256, 128, 128)


def test_check_tpu_generation_needs_the_tpu_platform(tmp_path):
    path = write_hlo(tmp_path, layer, (64, 100), (100, 200))
    out = CliRunner().invoke(cli, ["check", str(path), "--platform", "gpu", "--tpu", "v6e"])
    assert out.exit_code == 2
    assert "--device tpu-v6e checks for tpu, --platform says gpu" in out.output
