"""explain-error's advice follows the numbers a message gives, never against them: SMEM is not
VMEM, tile padding reaches the advice, reservable below free is fragmentation, a program past
the device is not memory held by something else, a graph input is no compute op, a warning is
not a failure, and a PyTorch/XLA log gets no JAX advice. Each rule on two logs: real ones from
public threads (``tests/data/family_logs``, thread in each ``.url``), or written in a named
runtime's wording where a test says so."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.allocation import Allocation, read_allocation
from hloscope.analysis.unsupported import Platform
from hloscope.cli import cli

LOGS = Path(__file__).parent / "data" / "family_logs"


def read(name: str) -> str:
    return (LOGS / f"{name}.log").read_text()


def only(text: str):
    (failure,) = explain_error(text).failures
    return failure


def advice(failure) -> str:
    """Every piece of advice a failure gives, as one text."""
    return " ".join([failure.finding.suggestion, *(fix for _, fix in failure.more_advice)])


def advice_kinds(failure) -> list[str]:
    return [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]


# ---- SMEM is not VMEM ---------------------------------------------------------------------------


def test_a_full_smem_is_no_limit_to_raise():
    # vLLM's paged attention on a v5e: 1.00M of 1.00M smem, the core's whole SMEM.
    failure = only(read("vllm_8318_smem"))
    assert failure.family is Family.OUT_OF_MEMORY and failure.advice_kind == "fewer_scalars"
    assert "raise_vmem_limit" not in advice_kinds(failure)
    assert "vmem_limit" not in advice(failure) and "scoped_vmem" not in advice(failure)
    assert "scalar prefetch" in failure.finding.suggestion
    assert "VMEM is" not in " ".join(failure.hints) and "SMEM is" in failure.hints[0]
    # XLA:TPU of 2020 (PyTorch/XLA 1.6) called a full SMEM its own bug: report it first.
    bug = only(read("ptxla_2628_smem_bug"))
    assert advice_kinds(bug) == ["report_bug", "fewer_scalars"]
    assert "vmem_limit" not in advice(bug)


def test_the_text_output_says_what_the_json_says_of_smem():
    result = CliRunner().invoke(cli, ["explain-error", str(LOGS / "vllm_8318_smem.log")])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "fewer_scalars:" in flat and "vmem_limit_bytes" not in flat


def test_vmem_past_any_chips_vmem_is_no_limit_to_raise():
    # XLA:TPU's vmem wording (jax-ml/jax#38988's), with a kernel needing 160M: no TPU core
    # has more than 128 MiB of VMEM, so no limit can be raised to it.
    over = only(
        "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space "
        "vmem. Used 160.00M of 64.00M vmem. Exceeded vmem capacity by 96.00M\n"
    )
    assert advice_kinds(over) == ["smaller_blocks"]
    # 65.05M of a 64M limit (jax-ml/jax#38988's own numbers): raising the limit is the fix.
    near = only(
        "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space "
        "vmem. Used 65.05M of 64.00M vmem. Exceeded vmem capacity by 1.05M\n"
    )
    assert near.advice_kind == "raise_vmem_limit"


def test_a_pallas_kernel_past_any_vmem_gets_no_limit_to_raise():
    # Mosaic's wording, made by JAX 0.10.2 and libtpu for a v5e (tests/data/pallas_errors):
    # a whole 8192x8192 f32 array as one block, 256 MiB of the core's 128 MiB.
    log = Path(__file__).parent / "data" / "pallas_errors" / "vmem.log"
    whole = next(f for f in explain_error(log.read_text()).failures if f.family is Family.PALLAS)
    assert advice_kinds(whole) == ["smaller_blocks"] and "vmem_limit_bytes" not in advice(whole)
    # 24 MiB of blocks on a 16 MiB limit (the same wording, numbers of a kernel that fits a
    # raised limit): raising stays the second fix.
    small = only(
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=25165824) would "
        "exceed memory (size=16777216) :: #allocation2 [shape = 'u8[25165824]{0}', space=vmem, "
        "size = 0x1800000, scoped, tag = 'input window allocation for operator input 0.'] :: "
        "step.1\n"
    )
    assert advice_kinds(small) == ["smaller_blocks", "raise_vmem_limit"]


# ---- tile padding reaches the advice ------------------------------------------------------------


def test_tile_padding_that_is_the_excess_comes_first():
    # TF on a TPU v3 (flowpm): s32[8388608,8,4] padded 32x, 31G of the 25.74G excess.
    tf = only(read("flowpm_27_padding"))
    assert tf.advice_kind == "tile_padding"
    assert "dimension 2 (4) is padded to 128" in tf.finding.suggestion
    assert "31.0 GiB" in tf.finding.suggestion  # the padding's bytes, what it frees
    # PyTorch/XLA (pytorch/xla#6674): a transpose left a dimension of 1 second-minor, 4x.
    torch = only(read("ptxla_6674_padding"))
    assert torch.advice_kind == "tile_padding"
    assert "dimension 1 (1) is padded to 4" in torch.finding.suggestion


def test_padding_too_small_to_matter_is_not_first():
    text = (
        "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space "
        "hbm. Used 20.00G of 15.48G hbm. Exceeded hbm capacity by 4.52G.\n\n"
        "  Largest program allocations in hbm:\n\n"
        "  1. Size: 12.00G\n     Shape: f32[4,8192,96000]{2,1,0:T(8,128)}\n"
        "     Unpadded size: 11.72G\n     Allocation type: HLO temp\n"
        "     ==========================\n\n"
        "  2. Size: 256.00M\n     Shape: f32[65536,8,1]{2,1,0:T(8,128)}\n"
        "     Unpadded size: 2.00M\n     Extra memory due to padding: 254.00M (128.0x expansion)\n"
        "     Allocation type: HLO temp\n     ==========================\n"
    )  # XLA:TPU's list format; buffer 2 is padded 128x but holds 254M of a 4.52G excess
    failure = only(text)
    kinds = advice_kinds(failure)
    assert kinds[0] != "tile_padding" and "tile_padding" in kinds


# ---- reservable below free: fragmentation, never a negative shortfall --------------------------


def test_reservable_below_free_is_fragmentation():
    failure = only(read("ptxla_3470_fragmented"))
    assert failure.advice_kind == "defragment"
    text = failure.finding.suggestion
    assert "6.8 GiB is free" in text and "3.3 GiB" in text and "up to 3.3 GiB fits" in text
    assert not re.search(r"-\d", advice(failure))
    assert "held by something else" not in advice(failure)


def test_too_little_free_is_a_positive_shortfall():
    failure = only(read("hf_22328_reserve_torch"))  # 10.51G asked, 8.97G free and reservable
    assert failure.advice_kind == "free_memory"
    assert "1.5 GiB more is needed" in failure.finding.suggestion
    assert not re.search(r"-\d", advice(failure))


# ---- a program larger than the device is not memory held elsewhere -----------------------------


def test_a_program_past_the_device_is_not_held_by_something_else():
    # pytorch/xla#1735's report format, with a program of 9.95G on its 8.00G of HBM and
    # nothing allocated: the program must shrink.
    text = read("ptxla_1735_reserve").replace("3.95G", "9.95G").replace("6.08G", "0B")
    failure = only(text)
    assert advice_kinds(failure) == ["smaller_batch", "bigger_device"]
    assert "held by something else" not in advice(failure)
    assert "more than the device's 8.0 GiB" in failure.finding.suggestion
    # The thread's own numbers: 3.95G needed, 6.08G of 8.00G held by earlier arrays.
    held = only(read("ptxla_1735_reserve"))
    assert held.advice_kind == "free_memory" and "6.08G" in held.finding.suggestion


def test_a_compile_time_report_past_the_device_names_the_device_first():
    failure = only(read("ptxla_3532_hbm"))  # 29.80G of 7.98G, PyTorch/XLA
    assert failure.advice_kind == "bigger_device"
    assert "held by something else" not in advice(failure)


# ---- a graph input is not a compute op ----------------------------------------------------------


_PARAMETER_FIRST = (
    "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space "
    "hbm. Used 18.00G of 15.48G hbm. Exceeded hbm capacity by 2.52G.\n\n"
    "  Largest program allocations in hbm:\n\n"
    "  1. Size: 8.00G\n"
    '     Operator: op_name="params" source_file="/home/u/train.py" source_line=12\n'
    "     Shape: f32[2048,1048576]{1,0:T(8,128)}\n"
    "     Allocation type: parameter\n     ==========================\n\n"
    "  2. Size: 6.00G\n"
    '     Operator: op_name="jit(step)/dot_general" source_file="/home/u/model.py" '
    "source_line=40\n"
    "     Shape: f32[1536,1048576]{1,0:T(8,128)}\n"
    "     Allocation type: HLO temp\n     ==========================\n"
)  # XLA:TPU's list format, its largest allocation an argument that names a line


def test_the_line_to_fix_made_a_temporary_not_an_argument():
    failure = only(_PARAMETER_FIRST)
    assert failure.finding.source == "/home/u/model.py:40"
    # GPU's BufferAssignment report: the entry parameter is the largest buffer.
    gpu = only(
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.\n"
        "BufferAssignment OOM Debugging.\nPeak buffers:\n"
        "        Buffer 1:\n                Size: 64.00MiB\n"
        '                Operator: op_name="x" source_file="/home/u/data.py" source_line=3\n'
        "                Entry Parameter Subshape: f32[4096,4096]\n"
        "                ==========================\n\n"
        "        Buffer 2:\n                Size: 6.00MiB\n"
        '                Operator: op_name="jit(f)/concatenate" source_file="/home/u/f.py" '
        "source_line=68\n                XLA Label: concatenate\n"
        "                Shape: f32[4096,128,3]\n                ==========================\n"
    )  # XLA's GPU wording (oom_log's docstring), the parameter given a line
    assert gpu.finding.source == "/home/u/f.py:68"


# ---- a warning is not a failure ------------------------------------------------------------


def test_warnings_are_said_to_be_harmless():
    allocator = only(read("tf_bfc_not_a_failure"))  # TF's BFC allocator retrying with less
    assert allocator.advice_kind == "harmless"
    assert allocator.finding.suggestion.startswith("a warning, not a failure")
    old = only(
        "W tensorflow/core/common_runtime/bfc_allocator.cc:217] Ran out of memory trying to "
        "allocate 1.17GiB. The caller indicates that this is not a failure, but may mean that "
        "there could be performance gains if more memory is available.\n"
    )  # TF 1.x's wording of the same
    assert old.advice_kind == "harmless"
    # JAX's donation warning on a CPU that takes none (jax/_src/interpreters/pxla.py's two
    # lines; the first as jax-ml/jax#9237 quotes it): one harmless failure, not an unused
    # donation to drop.
    cpu = only(
        "UserWarning: Some donated buffers were not usable: ShapedArray(float32[185,16,16,3]), "
        "ShapedArray(int32[185]).\nDonation is not implemented for ('cpu',).\n"
        "See an explanation at https://jax.readthedocs.io/en/latest/faq.html#buffer-donation.\n"
    )
    assert cpu.family is Family.JAX_CALL and cpu.advice_kind == "harmless"
    assert cpu.platform is Platform.CPU


# ---- PyTorch/XLA logs get PyTorch/XLA advice ---------------------------------------------

_JAX_WORDS = re.compile(r"\bjax\b|jnp\.|XLA_PYTHON_CLIENT|donate_argnums|clear_caches")


def test_no_jax_advice_on_a_pytorch_xla_log():
    for name in (
        "hf_22328_reserve_torch",  # XRT's TPU runtime under torch_xla's xmp
        "colab_5126_torch_buffer",  # "Bad StatusOr access", PJRT's
        "ptxla_3532_hbm",  # a compile-time report from torch_xla's mark_step
    ):
        failure = only(read(name))
        assert not _JAX_WORDS.search(advice(failure)), (name, advice(failure))
    held = only(read("colab_5126_torch_buffer"))
    assert "PyTorch/XLA" in held.finding.suggestion


def test_torch_xla_memory_fixes_are_in_its_terms():
    text = (
        "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent "
        "error. Ran out of memory in memory space hbm. Used 17.00G of 15.48G hbm. Exceeded hbm "
        "capacity by 1.52G.\n\n  Largest program allocations in hbm:\n\n"
        "  1. Size: 4.00G\n"
        '     Operator: op_name="jvp(forward)/mul" source_file="/home/u/m.py" source_line=9\n'
        "     Shape: f32[1024,1048576]{1,0:T(8,128)}\n"
        "     Allocation type: HLO temp\n     ==========================\n"
    )  # XLA:TPU's wording as torch_xla raises it
    failure = only(text)
    assert not _JAX_WORDS.search(advice(failure))
    assert "torch_xla.utils.checkpoint" in advice(failure) and "torch.bfloat16" in advice(failure)
    # The same report from JAX keeps JAX's words.
    jax = only(text.replace("RuntimeError: Bad StatusOr access: ", "jax.errors.JaxRuntimeError: "))
    assert "jax.checkpoint" in advice(jax)


def test_a_start_up_failure_under_pytorch_xla_gets_its_packages():
    # A backend failing in a torch_xla process (its frame above the line): the packages to
    # line up are torch's, not jax's; the same line in a JAX log keeps JAX's.
    line = (
        "RuntimeError: Unable to initialize backend 'tpu': INVALID_ARGUMENT: Mismatched PJRT "
        "plugin PJRT API version (0.54) and framework PJRT API version 0.51)\n"
    )
    torch = only(
        '  File "/usr/local/lib/python3.10/site-packages/torch_xla/runtime.py", line 95, in '
        "wrapper\n" + line
    )
    assert torch.advice_kind == "install" and "torch_xla" in torch.finding.suggestion
    assert not _JAX_WORDS.search(advice(torch)) and "jax[" not in advice(torch)
    assert "jax[cuda12]" in only(line).finding.suggestion


def test_the_allocation_line_says_every_stated_figure_with_its_word_and_no_other():
    # Two allocators' words: TF's BFC summary and XLA:TPU's compile report.
    bfc = read_allocation(
        "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to "
        "2147483648). InUse: 7,000,000,000 Limit: 7,455,476,941"
    )
    tpu = read_allocation("Ran out of memory in memory space hbm. Used 29.80G of 7.98G hbm.")
    assert bfc is not None and tpu is not None
    assert bfc.figures() == [
        ("requested", 2 * 1024**3),
        ("in use", 7_000_000_000),
        ("limit", 7_455_476_941),
    ]
    assert [label for label, _ in tpu.figures()] == ["used", "capacity"]
    # Every byte count the record holds has a word: a new field cannot go unsaid.
    every = Allocation(*range(1, 10))
    assert len(every.figures()) == 9
    assert len({label for label, _ in every.figures()}) == 9
