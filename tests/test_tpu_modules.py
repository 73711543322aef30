"""Modules XLA:TPU made (tests/data/tpu): every analysis reads them as XLA:TPU means them.

The oracles are XLA:TPU's own: ``cost_analysis()`` of the compiled executable
(``oracle.json``), the buffer sizes and memory colours of its buffer-assignment report, and
XLA's parser (jaxlib) for every text hloscope re-prints or rewrites. One test compiles a
program anew with libtpu (deviceless) in a subprocess; it skips without libtpu, except under
``CI=true``.
"""

from __future__ import annotations

import importlib.util
import json
import re
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu

from hloscope.analysis.cost import (
    PALLAS_UNKNOWN,
    instruction_cost,
    module_cost,
    unestimated_pallas_kernels,
)
from hloscope.analysis.fusion_notes import summary_to_dict
from hloscope.analysis.fusions import fusion_report
from hloscope.analysis.hbm import (
    PREFETCH,
    executed_roof_bytes,
    hbm_bytes,
    kernel_roof_bytes,
    on_chip_bytes,
)
from hloscope.analysis.memory.tpu_padding import TileSource, padded_size
from hloscope.bench.api import _unknown_cost_note
from hloscope.bench.extract import (
    extract_kernel,
    kernel_instructions,
    runnable_text,
    skip_reason,
    with_outputs,
)
from hloscope.cli import cli
from hloscope.hlo.model import Module
from hloscope.hlo.parser import parse
from hloscope.hlo.printer import module_to_text
from hloscope.hlo.shape import parse_shape
from hloscope.hlo.tiling import is_hbm, module_has_tpu_layouts

TPU = Path(__file__).resolve().parent / "data" / "tpu"
PROGRAMS = sorted(p.name for p in TPU.iterdir() if (p / "oracle.json").is_file())
# XLA's HloCostAnalysis adds FLOPs in 32-bit floats: a total above 2**24 is rounded to 24 bits
# of mantissa (transformer_train: 8,651,198,976 exact, 8,651,198,464 as XLA reports it).
FLOAT32_ROUNDING = 2.0**-24


def _file(program: str, suffix: str) -> Path:
    (found,) = (TPU / program).glob(f"*.{suffix}")
    return found


@cache
def _module(program: str, stage: str = "after_optimizations") -> Module:
    return parse(_file(program, f"{stage}.txt").read_text())


def _oracle(program: str) -> dict:
    return json.loads((TPU / program / "oracle.json").read_text())


def _buffer_values(program: str) -> list[tuple[int, int, str]]:
    """(allocation colour, value size, value shape text) of every value XLA:TPU assigned."""
    text = _file(program, "after_optimizations-buffer-assignment.txt").read_text()
    out = []
    for block in re.split(r"^allocation \d+: ", text, flags=re.M)[1:]:
        color = re.search(r"color (\d+)", block.splitlines()[0])
        for m in re.finditer(r"^ value: <[^>]*> \(size=(\d+),offset=\d+\): (\S+)$", block, re.M):
            out.append((int(color[1]) if color else 0, int(m[1]), m[2]))
    return out


def test_the_corpus_is_small_and_complete():
    assert {"transformer_train", "transformer_remat", "conv_net", "narrow_arrays"} <= set(PROGRAMS)
    assert {"fused_reduction", "spmd_matmul", "pallas_kernels"} <= set(PROGRAMS)
    assert sum(f.stat().st_size for f in TPU.rglob("*") if f.is_file()) < 3_000_000
    assert all(module_has_tpu_layouts(_module(p)) for p in PROGRAMS)


# ---- FLOPs against XLA:TPU's cost_analysis ------------------------------------------------


@pytest.mark.parametrize("program", PROGRAMS)
def test_flops_and_transcendentals_agree_with_xla_tpu(program):
    xla = _oracle(program)["cost_analysis"]
    cost = module_cost(_module(program))
    assert cost.flops == pytest.approx(xla["flops"], rel=FLOAT32_ROUNDING, abs=0)
    assert cost.transcendentals == xla.get("transcendentals", 0)
    report = fusion_report(_module(program))
    assert report.summary.flops == cost.flops  # the kernels hold all of it


def test_a_pallas_kernel_costs_its_cost_estimate_as_in_xla_tpu():
    # pallas_kernels: two 1024x512x1024 matmul kernels (tpu_custom_call); the first was given
    # pallas_call(cost_estimate=...), the second not. XLA:TPU counts the first's estimate and
    # nothing for the second: test_flops_and_transcendentals_agree_with_xla_tpu holds for it.
    module = _module("pallas_kernels")
    kernels = [
        i
        for i in module.instructions()
        if i.opcode == "custom-call" and i.attrs.get("custom_call_target") == "tpu_custom_call"
    ]
    assert len(kernels) == 2
    estimated, plain = sorted(
        kernels, key=lambda i: "cost_estimate" not in str(i.attrs.get("backend_config"))
    )
    matmul_flops = 2 * 1024 * 512 * 1024
    for rule in ("boundary", "xla"):  # XLA's own rule knows an author's estimate too
        cost = instruction_cost(estimated, custom_calls=rule)
        assert (cost.flops, cost.transcendentals, cost.flag) == (matmul_flops, 0, "")
        assert cost.bytes_accessed == 2 * (1024 * 512 + 512 * 1024 + 1024 * 1024)
    assert instruction_cost(plain).flops == 0
    (flagged,) = module_cost(module).flagged
    assert flagged.name == plain.name and PALLAS_UNKNOWN in flagged.reason
    assert unestimated_pallas_kernels(module_cost(module).flagged) == 1
    # fusions says how to give the missing one its cost; bench says the roofline lacks it.
    notes = " ".join(summary_to_dict(fusion_report(module).summary)["notes"])
    assert "1 of them Pallas kernel(s) given no cost estimate" in notes
    assert "cost_estimate=pl.CostEstimate(" in notes
    bench_note = _unknown_cost_note(fusion_report(module).summary.flagged)
    assert bench_note is not None and "counts 0 FLOPs for 1 op(s)" in bench_note
    assert "Pallas kernel(s)" in bench_note


def test_matrix_products_in_output_fusions_are_counted():
    # XLA:TPU writes matmuls as convolution inside kind=kOutput fusions: their FLOPs are
    # nearly all of the step's.
    report = fusion_report(_module("transformer_train"))
    output = [k for k in report.kernels if k.kind == "kOutput"]
    assert output and all("convolution" in k.ops for k in output)
    in_output = sum(k.cost.flops for k in output)
    assert in_output > 0.9 * _oracle("transformer_train")["cost_analysis"]["flops"]


# ---- prefetches, free ops, HBM bytes ------------------------------------------------------


def test_prefetches_are_their_own_kind_not_unfused_kernels():
    module = _module("transformer_train")
    text = _file("transformer_train", "after_optimizations.txt").read_text()
    report = fusion_report(module)
    kinds = {k.name: k.kind for k in report.kernels}
    copies = re.findall(r"%(copy-(?:start|done)[.\d]*) = ", text)
    assert copies and all(kinds[name] == PREFETCH for name in copies)
    # slice-start = async-start(...), calls=%async_computation: the slice it runs is a prefetch
    async_slices = [k for k in report.kernels if k.computation.startswith("async_computation")]
    assert async_slices and all(k.kind == PREFETCH and k.opcode == "slice" for k in async_slices)
    summary = report.summary
    assert summary.prefetch_count == len(copies) + len(async_slices)
    assert summary.unfused_count == len(report.kernels) - summary.fusion_count - len(copies) - len(
        async_slices
    )
    assert not {"copy-start", "copy-done", "slice", "custom-call"} & set(summary.unfused_by_opcode)


def test_concat_bitcast_is_no_kernel_and_costs_nothing():
    module = _module("transformer_train")
    (concat,) = [
        i
        for i in module.instructions()
        if i.opcode == "custom-call" and i.attrs.get("custom_call_target") == "ConcatBitcast"
    ]
    assert concat.name not in {k.name for k in fusion_report(module).kernels}
    cost = module_cost(module)
    assert concat.name not in {f.name for f in cost.flagged}


@pytest.mark.parametrize("program", PROGRAMS)
def test_memory_spaces_are_xla_tpus_memory_colours(program):
    # The buffer assignment puts a value in colour 0 (HBM) or an on-chip colour; the layout's
    # S(n) must say the same.
    values = _buffer_values(program)
    assert values
    for color, _, text in values:
        shape = parse_shape(text)
        if not shape.is_tuple:
            assert is_hbm(shape) == (color == 0), text


@pytest.mark.parametrize("program", PROGRAMS)
def test_hbm_bytes_leave_out_on_chip_traffic(program):
    report = fusion_report(_module(program))
    kernels = {k.name: k for k in report.kernels}
    assert all(
        k.hbm_bytes is not None and 0 <= k.hbm_bytes <= k.cost.bytes_accessed
        for k in kernels.values()
    )
    for inst in _module(program).instructions():
        kernel = kernels.get(inst.name)
        if kernel is None or inst.opcode in ("copy-start", "copy-done"):
            continue
        if on_chip_bytes(inst) == 0:
            assert kernel.hbm_bytes == kernel.cost.bytes_accessed
        assert kernel.hbm_bytes == hbm_bytes(inst, kernel.cost)
    summary = report.summary
    assert summary.hbm_bytes is not None and summary.hbm_bytes <= summary.bytes
    assert executed_roof_bytes(summary) == summary.executed_hbm_bytes
    assert all(kernel_roof_bytes(k) == k.hbm_bytes for k in report.kernels)


def test_an_on_chip_result_is_not_hbm_traffic():
    # narrow_arrays: the fusion's reduce result is f32[65536]{0:T(1024)S(1)} (colour 1 in the
    # buffer assignment: 262144 bytes), read back by the sqrt from VMEM.
    report = fusion_report(_module("narrow_arrays"))
    on_chip = {size for color, size, text in _buffer_values("narrow_arrays") if color != 0}
    (fusion,) = [k for k in report.kernels if k.is_fusion]
    (sqrt,) = [k for k in report.kernels if k.opcode == "sqrt"]
    assert on_chip == {262144}
    assert fusion.hbm_bytes == fusion.cost.bytes_accessed - 262144
    assert sqrt.hbm_bytes == sqrt.cost.bytes_accessed - 262144
    assert report.summary.hbm_bytes == report.summary.bytes - 2 * 262144


def test_a_prefetch_counts_its_hbm_side_once():
    module = _module("fused_reduction")
    for inst in module.instructions():
        if inst.opcode == "copy-start":
            source, destination = inst.operands[0].shape, inst.shape.tuple_shapes[0]
            assert is_hbm(source) != is_hbm(destination)  # HBM <-> VMEM
            moved = (source if is_hbm(source) else destination).byte_size
            assert hbm_bytes(inst, module_cost(module).total) == moved
        if inst.opcode == "copy-done":
            assert hbm_bytes(inst, module_cost(module).total) == 0


def test_cpu_modules_have_no_hbm_figure(corpus):
    path = next((corpus / "generated" / "jax_mlp_train").glob("*after_optimizations.txt"))
    report = fusion_report(parse(path.read_text()))
    assert report.summary.hbm_bytes is None
    assert "hbm_bytes" not in report.summary.to_dict()
    assert all("hbm_bytes" not in row for row in report.rows())
    assert all(kernel_roof_bytes(k) == k.cost.bytes_accessed for k in report.kernels)


# ---- padding from XLA:TPU's layouts --------------------------------------------------------


@pytest.mark.parametrize("program", PROGRAMS)
def test_padded_sizes_are_xla_tpus_buffer_sizes(program):
    checked = 0
    for _, size, text in _buffer_values(program):
        shape = parse_shape(text)
        if shape.is_tuple or not shape.layout or not shape.layout.tiles:
            continue
        padded = padded_size(shape)
        assert padded is not None and padded.tile_source == TileSource.LAYOUT
        assert padded.padded_bytes == size, text
        checked += 1
    assert checked


def test_a_narrow_minor_dimension_stored_major_is_not_padded_to_128():
    shape = parse_shape("f32[65536,6]{0,1:T(8,128)}")
    sizes = {size for _, size, text in _buffer_values("narrow_arrays") if text == str(shape)}
    padded = padded_size(shape)
    assert padded is not None and sizes == {padded.padded_bytes} == {2 * 1024 * 1024}
    guess = padded_size(parse_shape("f32[65536,6]"))  # row-major, no tiles: the guess
    assert guess is not None and guess.tile_source == TileSource.DEFAULT
    assert guess.padded_bytes == 65536 * 128 * 4


# ---- re-printing keeps async computations and layouts ---------------------------------------


def _xla_parse(text: str):
    import jaxlib._hlo as xla_hlo

    return xla_hlo.hlo_module_from_text(text)


@pytest.mark.parametrize("program", PROGRAMS)
def test_reprinted_and_rewritten_modules_parse_in_xla(program):
    module = _module(program)
    printed = module_to_text(module)
    _xla_parse(printed)
    again = parse(printed)
    before = [i.shape_text for i in module.instructions()]
    assert [i.shape_text for i in again.instructions()] == before  # tiles and S(n) kept
    _xla_parse(runnable_text(module))
    entry = module.entry
    assert entry is not None
    _xla_parse(with_outputs(module, [entry.instructions[-2].name])[0])
    runnable = [k for k in kernel_instructions(module) if skip_reason(k) is None]
    assert runnable
    for kernel in runnable[:40]:
        _xla_parse(extract_kernel(module, kernel.name).text)


def test_async_computations_survive_reprinting():
    module = _module("transformer_train")
    called = {
        c.name
        for i in module.instructions()
        if i.opcode == "async-start"
        for c in i.called_computations
    }
    assert len(called) == 4
    names = {c.name for c in _xla_parse(module_to_text(module)).computations()}
    assert called <= names
    # bench's runnable text makes each single-op async pair that op (XLA's importer keeps
    # no async pair: hloscope/bench/synchronous.py), so XLA reads it with none left.
    runnable = runnable_text(module)
    assert "async-start(" not in runnable
    assert not called & {c.name for c in _xla_parse(runnable).computations()}


# ---- the command line, on a dump read offline ------------------------------------------------


def test_cli_fusions_on_a_tpu_dump():
    result = CliRunner().invoke(cli, ["fusions", str(TPU / "transformer_train"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    summary = data["summary"]
    assert summary["flops"] == pytest.approx(
        _oracle("transformer_train")["cost_analysis"]["flops"], rel=FLOAT32_ROUNDING
    )
    assert 0 < summary["hbm_bytes"] < summary["bytes"]
    assert summary["prefetch_count"] == sum(r["kind"] == PREFETCH for r in data["rows"])
    assert all("hbm_bytes" in row for row in data["rows"])
    table = CliRunner().invoke(cli, ["fusions", str(TPU / "narrow_arrays")], env={"COLUMNS": "120"})
    assert table.exit_code == 0, table.output
    assert "bytes through HBM" in table.output


# ---- a fresh XLA:TPU compile -------------------------------------------------------------------


def test_a_fresh_xla_tpu_compile_reads_as_the_committed_one(tmp_path):
    needs_libtpu()
    # tests/data/tpu/regenerate.py, which runs libtpu in a subprocess, never in this one.
    spec = importlib.util.spec_from_file_location("tpu_regenerate", TPU / "regenerate.py")
    assert spec is not None and spec.loader is not None
    regenerate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(regenerate)
    folder = regenerate.compile_program("narrow_arrays", into=tmp_path)
    fresh = parse(next(folder.glob("*.after_optimizations.txt")).read_text())
    oracle = json.loads((folder / "oracle.json").read_text())["cost_analysis"]
    assert module_cost(fresh).flops == oracle["flops"]
    report = fusion_report(fresh)
    assert report.summary.hbm_bytes == report.summary.bytes - 2 * 262144
