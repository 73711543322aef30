"""explain-error on Pallas kernels that JAX or XLA:TPU refused, in their own words.

``tests/data/pallas_errors`` holds what JAX 0.10.2 and libtpu printed compiling six small
kernels for a TPU v5e (``regenerate.py`` there made them, no TPU needed): each case's program
marks the line to fix with ``# fails here``. Two texts users pasted in public threads are
checked the same way.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.explain_error import explain_error
from hloscope.cli import cli

CASES = Path(__file__).parent / "data" / "pallas_errors"

# case: (op, reason, kind of advice, words the advice must hold)
EXPECTED = {
    "block_shape": (
        "pallas_call",
        "compile_error",
        "fix_shapes",
        [
            "multiples of 8 and 128",
            "the block (100, 100) of the array (1000, 1000) could be (104, 128)",
        ],
    ),
    "vmem": (
        "vmem",
        "out_of_memory",
        "smaller_blocks",
        ["256.0 MiB of VMEM where there is 128.0 MiB", "f32[8192,8192] is the whole array"],
    ),
    "partition": ("pallas_call", "compile_error", "shard", ["jax.shard_map"]),
    "primitive": ("sort", "no_lowering", "replace_op", ["no lowering for sort"]),
    "reshape": ("tpu.reshape", "compile_error", "fix_shapes", ["reshape outside the kernel"]),
    "matmul_dtype": ("tpu.matmul", "dtype", "cast_dtype", ["bf16 and f32 operands"]),
}


def _marked_line(case: str) -> int:
    lines = (CASES / f"{case}.kernel.py").read_text().splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if "# fails here" in text]
    return line


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_each_refusal_is_explained_with_its_line_and_fix(case):
    op, reason, kind, words = EXPECTED[case]
    explanation = explain_error((CASES / f"{case}.log").read_text())
    assert explanation.recognised
    failure = explanation.failures[0]
    assert (str(failure.family), failure.finding.op, str(failure.finding.reason)) == (
        "pallas",
        op,
        reason,
    )
    assert failure.advice_kind == kind
    assert all(word in failure.finding.suggestion for word in words), failure.finding.suggestion
    assert failure.finding.source == f"/home/user/kernels/kernel.py:{_marked_line(case)}"
    assert failure.device == "tpu"
    # JAX names a kernel op's frame after its MLIR location; the function is the kernel's.
    assert all('"' not in frame.function for frame in failure.stack)


def test_mosaic_names_the_kernel_its_reason_and_the_block_shapes_kernel():
    reshape = explain_error((CASES / "reshape.log").read_text()).failures[0]
    assert reshape.finding.function == "regroup"
    assert any("unsupported shape cast" in hint for hint in reshape.hints)
    block = explain_error((CASES / "block_shape.log").read_text()).failures[0]
    assert block.finding.node == "double"


def test_the_command_prints_it_in_80_columns_and_exits_like_any_explanation(tmp_path):
    result = CliRunner().invoke(cli, ["explain-error", str(CASES / "partition.log")])
    assert result.exit_code == 0, result.output
    assert "a Pallas kernel did not lower, partition or compile" in result.output
    assert max(map(len, result.output.splitlines())) <= 80


# Pasted in public threads (trimmed to the error): jax-ml/jax#30104 (a bf16 comparison on a
# v5p), pytorch/xla#8732 (a layout XLA and the kernel disagree on), and a line-wrapped
# partition refusal (marin-community/marin#4122).
PASTED = {
    "comparison": (
        "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Target does not "
        "support this comparison\n\nThe MLIR operation involved:\n"
        '  %13060 = "arith.cmpf"(%11789, %283) <{fastmath = #arith.fastmath<none>, predicate '
        "= 1 : i64}> : (vector<8x128x2xbf16>, vector<8x128x2xbf16>) -> vector<8x128x2xi1>\n"
        "... additional diagnostics were skipped.\n",
        ("arith.cmpf", "cast_dtype"),
    ),
    "layout": (
        'Traceback (most recent call last):\n  File "/mnt/ssd0/vllm/bgmv_torch.py", line 159, '
        'in <module>\n    run("torch") # Fails\nRuntimeError: Bad StatusOr access: '
        "INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Failed to verify layout for "
        "Mosaic kernel operand 3: XLA layout does not match MLIR layout for an operand of shape "
        "f32[16,3072]: expected {1,0:T(128)S(1)}, got {1,0:T(8,128)S(1)}\n",
        ("tpu_custom_call", "fix_shapes"),
    ),
    "wrapped": (
        "  NotImplementedError: Mosaic kernels cannot be automatically\n"
        "  partitioned. Please wrap the call in a shard_map.\n",
        ("pallas_call", "shard"),
    ),
}


@pytest.mark.parametrize("name", sorted(PASTED))
def test_texts_users_pasted_are_explained(name):
    text, (op, kind) = PASTED[name]
    failure = explain_error(text).failures[0]
    assert (failure.finding.op, failure.advice_kind) == (op, kind)
