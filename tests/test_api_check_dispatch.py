"""``hloscope.check``'s dispatch on what it is given: a ``SCRIPT.py:FUNCTION`` (the script
imported, its example arguments used), HLO (no example arguments, only the HLO keywords), a
callable, anything else refused.

JAX is the oracle for the script: its own lowering for TPU refuses ``eig`` and accepts
``sin``; the check of the script's function reports the same as the check of the function
given directly.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.unsupported import Reason
from hloscope.analysis.unsupported.findings import CheckReport

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "hlo"
FUSED = SAMPLES / "fusion_refactor_fused.before_optimizations.txt"

SCRIPT = textwrap.dedent(
    """\
    import jax.numpy as jnp
    import numpy as np


    def unsymmetric(m):
        return jnp.linalg.eig(m)[0].real.sum()


    def smooth(x, scale=2.0):
        return jnp.sin(x) * scale


    EXAMPLE_ARGS = {
        "unsymmetric": (np.eye(3, dtype=np.float32),),
        "smooth": {"x": np.ones((4, 8), np.float32), "scale": 3.0},
    }
    """
)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "model_for_check.py"
    path.write_text(SCRIPT)
    return path


def _ops(report: CheckReport) -> list[tuple[str, Reason]]:
    return sorted((f.op, f.reason) for f in report.findings)


def test_a_script_function_is_checked_with_its_example_arguments(script: Path) -> None:
    jax = needs_framework("jax")
    import numpy as np

    matrix = np.eye(3, dtype=np.float32)
    with pytest.raises(NotImplementedError, match="eig"):
        jax.jit(lambda m: jax.numpy.linalg.eig(m)[0]).trace(matrix).lower(
            lowering_platforms=("tpu",)
        )
    from_script = hloscope.check(f"{script}:unsymmetric", platform="tpu")
    direct = hloscope.check(lambda m: jax.numpy.linalg.eig(m)[0].real.sum(), matrix, platform="tpu")
    assert not from_script.clean
    assert ("eig", Reason.NO_LOWERING) in _ops(from_script)
    assert _ops(from_script) == _ops(direct)


def test_a_second_script_function_with_keyword_examples_is_clean(script: Path) -> None:
    jax = needs_framework("jax")
    import numpy as np

    jax.jit(jax.numpy.sin).trace(np.ones((4, 8), np.float32)).lower(lowering_platforms=("tpu",))
    report = hloscope.check(f"{script}:smooth", platform="tpu")
    assert report.clean and not report.findings, [f.to_dict() for f in report.findings]


def test_a_folder_named_like_a_script_function_is_hlo(tmp_path: Path) -> None:
    folder = tmp_path / "model.py:step"
    folder.mkdir()
    shutil.copy(FUSED, folder / "module_0000.jit_fused.before_optimizations.txt")
    assert _ops(hloscope.check(folder)) == _ops(hloscope.check(FUSED))
    assert hloscope.check(str(folder)).clean


def test_hlo_takes_no_example_arguments_and_only_its_keywords() -> None:
    with pytest.raises(TypeError, match="takes no example arguments"):
        hloscope.check(FUSED, 1)
    with pytest.raises(TypeError, match=r"for a check of HLO: \['scale'\]"):
        hloscope.check(str(FUSED), scale=2)
    assert hloscope.check(FUSED, module=None).clean


def test_something_neither_hlo_nor_callable_is_refused() -> None:
    with pytest.raises(TypeError, match="not int"):
        hloscope.check(42)
