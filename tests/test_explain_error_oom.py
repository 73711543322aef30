"""explain-error on XLA's out-of-memory reports, in the shapes XLA prints them on GPU (the
allocator's RESOURCE_EXHAUSTED, then "BufferAssignment OOM Debugging" with its stats and peak
buffers) and on TPU (the compiler's "Ran out of memory in memory space hbm" with its largest
allocations, tile padding included): several buffers, entry-parameter subshapes, buffers
without a source line, a report repeated by the exception chain.

The logs (tests/oom_logs/) are written from XLA's format (xla/service/buffer_assignment.cc and
the reports users quote in public issues), with made-up programs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.memory.oom_log import BufferKind, FixKind, oom_fixes, parse_size, read_oom
from hloscope.analysis.memory.tpu_padding import padded_size
from hloscope.analysis.unsupported import Platform, Reason
from hloscope.hlo.shape import parse_shape
from hloscope.render.explain_error_text import explanation_view

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

LOGS = Path(__file__).parent / "oom_logs"
GPU_LOG = (LOGS / "gpu_train_step.log").read_text()
TPU_LOG = (LOGS / "tpu_compile.log").read_text()


def test_sizes_read_as_xla_prints_them():
    assert parse_size("6.00MiB") == 6 * MiB
    assert parse_size("384.0KiB") == 384 * KiB
    assert parse_size("0B") == 0
    assert parse_size("4B") == 4
    assert parse_size("32.00G") == 32 * GiB
    assert parse_size("4.0K") == 4 * KiB
    assert parse_size("7.97G (256.0x expansion)") == round(7.97 * GiB)
    assert parse_size("unknown size") is None


def test_gpu_report_requested_stats_and_every_peak_buffer():
    report = read_oom(GPU_LOG)
    assert report is not None
    assert report.requested_bytes == 1073741824
    assert report.memory_space is None and report.capacity_bytes is None
    assert report.stats["parameter allocation"] == round(64.25 * MiB)
    assert report.stats["constant allocation"] == 4
    assert report.stats["preallocated temp allocation"] == round(2.19 * GiB)
    assert report.stats["total fragmentation"] == 12 * KiB
    # The report ends where the exception chain goes on: the repeat is not read into it.
    assert [b.rank for b in report.buffers] == [1, 2, 3, 4, 5, 6]
    first, _, library, param, no_source, ids = report.buffers
    assert (first.size_bytes, first.shape, first.label) == (GiB, "f32[64,1024,4096]", "fusion")
    assert first.op_name == "jit(train_step)/jit(main)/jvp(Model)/block_0/mlp/dot_general"
    assert first.source is not None
    assert (first.source.file, first.source.line) == ("/home/ana/project/model.py", 41)
    assert library.shape == "bf16[64,1024,1024]" and library.label == "custom-call"
    assert library.source is not None and library.source.line == 232
    # Entry parameter subshapes are parameters with their shape; no Operator, no source.
    assert (param.kind, param.shape, param.source) == (BufferKind.PARAMETER, "f32[4096,4096]", None)
    assert (ids.kind, ids.size_bytes) == (BufferKind.PARAMETER, 256 * KiB)
    assert (no_source.kind, no_source.source, no_source.op_name) == (
        BufferKind.TEMPORARY,
        None,
        None,
    )


def test_gpu_report_groups_by_source_line_and_says_which_fixes_apply():
    report = read_oom(GPU_LOG)
    assert report is not None
    groups = report.by_source()
    # model.py:41 made both 1 GiB activations; the rest have no line or are library code.
    top = groups[0]
    assert top.source is not None and (top.source.file, top.source.line, top.user) == (
        "/home/ana/project/model.py",
        41,
        True,
    )
    assert (top.bytes, top.buffers) == (2 * GiB, [1, 2])
    library = next(g for g in groups if g.source is not None and g.source.line == 232)
    assert library.user is False and library.bytes == 128 * MiB
    unknown = next(g for g in groups if g.source is None)
    assert unknown.buffers == [4, 5, 6] and unknown.bytes == 128 * MiB + 256 * KiB
    fixes = {fix.kind: fix for fix in oom_fixes(report)}
    # The f32[4096,4096] parameter has a same-shaped result: donating it frees 64 MiB.
    assert fixes[FixKind.DONATE].bytes == 64 * MiB
    assert fixes[FixKind.DONATE].target == "f32[4096,4096]"
    # Three forward (jvp) temporaries are activations kept for the backward pass.
    assert fixes[FixKind.REMAT].bytes == 2 * GiB + 128 * MiB
    assert fixes[FixKind.REMAT].target == "jit(train_step)/jit(main)/jvp(Model)"
    assert "jax.checkpoint" in fixes[FixKind.REMAT].fix
    # f32 temporaries in bf16 take half: (1 GiB + 1 GiB + 64 MiB) / 2.
    assert fixes[FixKind.BF16].bytes == (2 * GiB + 64 * MiB) // 2
    assert fixes[FixKind.SMALLER_BATCH].bytes == 1073741824


def test_explain_error_gpu_oom_is_one_failure_with_the_report():
    explanation = explain_error(GPU_LOG)
    assert explanation.families == [Family.OUT_OF_MEMORY]
    (failure,) = explanation.failures
    # The exception chain prints the message twice: one failure, seen twice.
    assert failure.occurrences == 2
    assert failure.finding.reason is Reason.OUT_OF_MEMORY
    assert failure.finding.function == "train_step"
    assert failure.finding.source == "/home/ana/project/model.py:41"
    assert failure.status == "RESOURCE_EXHAUSTED"
    assert failure.error_class == "XlaRuntimeError"
    assert failure.memory is not None and len(failure.memory.buffers) == 6
    data = json.loads(json.dumps(explanation.to_dict()))["failures"][0]
    memory = data["memory"]
    assert memory["requested_bytes"] == 1073741824
    assert memory["buffers"][3] == {
        "rank": 4,
        "bytes": 64 * MiB,
        "kind": "parameter",
        "shape": "f32[4096,4096]",
        "op_name": None,
        "op_type": None,
        "source": None,
        "label": None,
        "unpadded_bytes": None,
        "padding_bytes": None,
        "allocation_type": None,
    }
    assert memory["by_source"][0] == {
        "source": "/home/ana/project/model.py:41",
        "bytes": 2 * GiB,
        "buffers": [1, 2],
        "user": True,
    }
    assert [fix["kind"] for fix in memory["fixes"]] == ["donate", "remat", "bf16", "smaller_batch"]


def test_tpu_report_used_capacity_and_padding():
    report = read_oom(TPU_LOG)
    assert report is not None
    assert report.requested_bytes is None
    assert report.memory_space == "hbm"
    assert report.used_bytes == round(21.95 * GiB)
    assert report.capacity_bytes == round(15.48 * GiB)
    assert report.exceeded_bytes == round(6.47 * GiB)
    assert [b.rank for b in report.buffers] == [1, 2, 3]
    attention, cache, copy = report.buffers
    assert attention.shape == "f32[32,8192,8192]{2,1,0:T(8,128)}"
    assert attention.allocation_type == "HLO temp" and attention.kind is BufferKind.TEMPORARY
    assert attention.source is not None and attention.source.line == 57
    assert (cache.unpadded_bytes, cache.padding_bytes) == (32 * MiB, round(7.97 * GiB))
    assert cache.label is not None and cache.label.startswith("dynamic-update-slice.4 = ")
    assert copy.source is None and copy.op_name is None
    # The tile-padding rule gives the sizes the TPU compiler printed.
    for buffer in report.buffers:
        assert buffer.shape is not None
        size = padded_size(parse_shape(buffer.shape))
        assert size is not None and size.padded_bytes == buffer.size_bytes


def test_explain_error_tpu_oom_names_the_platform_and_the_fixes():
    explanation = explain_error(TPU_LOG)
    (failure,) = explanation.failures
    assert failure.family is Family.OUT_OF_MEMORY
    assert failure.platform is Platform.TPU and failure.device == "tpu"
    assert failure.error_class == "JaxRuntimeError"
    assert failure.finding.function == "decode"
    assert failure.finding.source == "/home/ana/project/decode.py:57"
    assert failure.memory is not None
    fixes = [fix["kind"] for fix in failure.to_dict()["memory"]["fixes"]]
    # No parameters listed and no jvp: neither donation nor remat applies; buffer 2's tile
    # padding (7.97G, 256x its data) is more than the 6.47G the program is over by: first.
    assert fixes == ["tile_padding", "bf16", "smaller_batch"]
    assert failure.to_dict()["memory"]["fixes"][-1]["bytes"] == round(6.47 * GiB)


def test_other_failures_carry_no_memory_field():
    text = (
        "jaxlib._jax.XlaRuntimeError: INVALID_ARGUMENT: Element type C128 is not supported "
        "on TPU.\n"
    )
    (failure,) = explain_error(text).failures
    assert "memory" not in failure.to_dict()


def _text(explanation) -> str:
    console = Console(width=260, record=True, color_system=None)
    console.print(explanation_view(explanation))
    return console.export_text()


def test_text_output_says_what_was_requested_what_filled_memory_and_the_fixes():
    text = _text(explain_error(GPU_LOG))
    assert "the program does not fit in device memory (out_of_memory)" in text
    assert "requested   1.0 GiB (1073741824 bytes)" in text
    assert "2.0 GiB  /home/ana/project/model.py:41  buffers 1, 2" in text
    assert "site-packages/flax/linen/linear.py:232  (library code)  buffer 3" in text
    assert "128.2 MiB  (no source line)  buffers 4, 5, 6" in text
    assert "(the report's peak buffers: 6 buffers, 2.3 GiB)" in text
    assert "donate: donate the arguments" in text and "(frees up to 64.0 MiB)" in text
    assert "remat: recompute" in text and "bf16: compute in bfloat16" in text
    assert "smaller_batch: a smaller batch" in text and "(at least 1.0 GiB must go)" in text
    tpu = _text(explain_error(TPU_LOG))
    assert "hbm         used 22.0 GiB of 15.5 GiB (over by 6.5 GiB)" in tpu
    assert "padding     buffer 2 bf16[256,8192,8,1]{3,2,1,0:T(16,128)(2,1)}: 8.0 GiB of tile" in tpu


def test_cli_json_has_the_memory_fields(tmp_path):
    log = tmp_path / "oom.log"
    log.write_text(GPU_LOG)
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "explain-error", str(log), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    failure = json.loads(done.stdout)["failures"][0]
    assert failure["family"] == "out_of_memory"
    assert failure["memory"]["requested_bytes"] == 1073741824
    assert len(failure["memory"]["buffers"]) == 6


@pytest.mark.parametrize(
    "size",
    ["X bytes", "xxxx bytes", "~140GB", "<N> bytes"],
)
def test_an_oom_whose_size_the_user_replaced_is_still_the_programs_oom(size):
    # Users paste the runtime's line with the number edited out; the report is the same.
    for text in (
        "E0910 20:24:00.097739   38257 pjrt_stream_executor_client.cc:3067] Execution of "
        f"replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate {size}.\n",
        "Traceback (most recent call last):\n"
        '  File "/home/me/fold.py", line 12, in <module>\n'
        "    out = model.apply(params, batch)\n"
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
        f"to allocate {size}\n",
    ):
        (failure,) = explain_error(text).failures
        assert str(failure.family) == "out_of_memory"
        assert failure.memory is not None and failure.memory.requested_bytes is None
        assert failure.status == "RESOURCE_EXHAUSTED"
    assert explain_error(text).failures[0].finding.source == "/home/me/fold.py:12"


def test_a_stated_size_is_still_read_beside_the_unstated_form():
    text = "XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2.50GiB.\n"
    (failure,) = explain_error(text).failures
    assert failure.memory is not None and failure.memory.requested_bytes == int(2.5 * 2**30)
