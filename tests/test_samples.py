"""The sample programs and the HLO text committed for them in samples/hlo/.

XLA is the oracle: every committed module must load in XLA's own parser, the fusion pair must
really differ in the way its docstring says, and (when the installed jax/TensorFlow match the
manifest) rerunning samples/regenerate.py must give the committed bytes exactly.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hloscope.backends import _jaxlib as adapter

ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = ROOT / "samples"
HLO_DIR = SAMPLES_DIR / "hlo"
STAGES = ("before_optimizations", "after_optimizations")


def load_sample(name: str) -> ModuleType:
    """Import samples/<name>.py (samples/ is a folder of scripts, not a package)."""
    qualified = f"hloscope_sample_{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    spec = importlib.util.spec_from_file_location(qualified, SAMPLES_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


regenerate = load_sample("regenerate")
SAMPLES = {sample.stem: sample for sample in regenerate.SAMPLES}
MANIFEST = json.loads((HLO_DIR / "MANIFEST.json").read_text())


def hlo_file(stem: str, stage: str) -> Path:
    return HLO_DIR / f"{stem}.{stage}.txt"


@pytest.fixture(scope="module")
def texts() -> dict[tuple[str, str], str]:
    return {
        (stem, stage): hlo_file(stem, stage).read_text() for stem in SAMPLES for stage in STAGES
    }


def test_every_sample_has_both_stages_and_a_manifest_entry():
    committed = {p.name for p in HLO_DIR.glob("*.txt")}
    expected = {f"{stem}.{stage}.txt" for stem in SAMPLES for stage in STAGES}
    assert committed == expected
    assert set(MANIFEST["samples"]) == set(SAMPLES)
    assert {"jax", "jaxlib"} <= set(MANIFEST["versions"])


@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_manifest_describes_the_committed_text(stem, texts):
    entry = MANIFEST["samples"][stem]
    assert entry["source"] == SAMPLES[stem].source
    for stage in STAGES:
        text = texts[stem, stage]
        assert entry[f"{stage}_bytes"] == len(text.encode())
        assert len(text.encode()) < regenerate.MAX_COMMITTED_BYTES
        assert text.startswith(f"HloModule {entry['module']}")


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_xla_parses_committed_text(stem, stage, texts):
    module = adapter.xla_parse(texts[stem, stage])
    assert module.name == MANIFEST["samples"][stem]["module"]


@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_metadata_names_the_sample(stem, texts):
    text = texts[stem, "after_optimizations"]
    if stem == "keras_cnn":
        # TensorFlow records where each TF op was created inside TensorFlow itself
        # (source_file=".../tensorflow/python/framework/ops.py"), never the user's file; the
        # user's code shows up in op_name, through the Keras model's name.
        assert 'op_name="gradient_tape/small_cnn' in text
        assert 'source_file="/usr/lib/python3/site-packages/tensorflow/' in text
    else:
        # JAX writes source locations to the module's stack-frame tables.
        assert f'1 "{SAMPLES[stem].source}"' in text.split("FunctionNames", 1)[0]
        assert "stack_frame_id=" in text
    assert str(ROOT) not in text  # paths were made machine-neutral


def entry_opcodes(text: str) -> list[str]:
    """Opcodes of the entry computation, as XLA's own parser saw them (the entry comes last)."""
    return [i["opcode"] for i in adapter.xla_structure(text)[-1]["instructions"]]


def test_fusion_pair_differs_as_documented(texts):
    fused = entry_opcodes(texts["fusion_refactor_fused", "after_optimizations"])
    split = entry_opcodes(texts["fusion_refactor_split", "after_optimizations"])
    # fused: the matmul kernel + one kernel for the whole elementwise chain.
    assert fused.count("fusion") == 2 and "custom-call" not in fused
    # split: the host callback cuts the chain into two kernels.
    assert split.count("fusion") == 3 and split.count("custom-call") == 1


def test_samples_import_without_running_anything(tmp_path):
    """Importing a sample must compile nothing: XLA dumps every compile, so the dump stays empty."""
    code = (
        "import importlib.util, sys\n"
        "for name in ('transformer_train', 'keras_cnn', 'fusion_refactor', 'regenerate'):\n"
        "    spec = importlib.util.spec_from_file_location(name, f'samples/{name}.py')\n"
        "    sys.modules[name] = module = importlib.util.module_from_spec(spec)\n"
        "    spec.loader.exec_module(module)\n"
        "assert 'tensorflow' not in sys.modules\n"
    )
    env = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={tmp_path / 'dump'}", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "dump").exists() or not any((tmp_path / "dump").iterdir())


def test_transformer_step_learns():
    transformer = load_sample("transformer_train")
    step, (params, x, target) = transformer.make(layers=1, width=16, seq=4, batch=1, heads=2)
    loss, new_params = step(params, x, target)
    next_loss, _ = step(new_params, x, target)
    assert float(next_loss) < float(loss)
    assert [sorted(p) for p in new_params] == [sorted(p) for p in params]
    assert new_params[0]["w1"].shape == (16, 64)
    with pytest.raises(ValueError, match="multiple of heads"):
        transformer.make(width=10, heads=4)


def test_fusion_pair_computes_the_same_layer():
    import jax
    import numpy as np

    refactor = load_sample("fusion_refactor")
    x, w = refactor.example_args(batch=4, width=8)
    np.testing.assert_allclose(refactor.fused(x, w), refactor.split(x, w), rtol=1e-6, atol=1e-6)
    jax.effects_barrier()
    assert len(refactor.GATE_MEANS) == 1  # split's callback ran once


@pytest.mark.slow
def test_committed_text_is_what_xla_gives_now(tmp_path):
    """Rerun regenerate.py and compare bytes; also proves every sample runs as a script."""
    installed = regenerate.versions()
    recorded = MANIFEST["versions"]
    if installed != recorded:
        message = (
            f"samples/hlo was generated with {recorded}, installed: {installed}; run "
            "samples/regenerate.py"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    manifest = regenerate.regenerate(regenerate.SAMPLES, tmp_path)
    for stem in SAMPLES:
        assert manifest["samples"][stem] == MANIFEST["samples"][stem]
        for stage in STAGES:
            fresh = (tmp_path / f"{stem}.{stage}.txt").read_text()
            assert fresh == hlo_file(stem, stage).read_text(), (
                f"{stem}.{stage} differs: run samples/regenerate.py"
            )


@pytest.mark.slow
def test_big_mode_writes_the_optimized_train_step(tmp_path):
    # The real --big run (11 layers) is the benchmark's job; one narrow layer exercises the path.
    out = tmp_path / "nested" / "big.txt"
    assert regenerate.main(["--big", str(out), "--big-layers", "1", "--big-width", "16"]) == 0
    text = out.read_text()
    assert text.startswith("HloModule jit_train_step, is_scheduled=true")  # after optimizations
    assert adapter.xla_parse(text).name == "jit_train_step"
    params = adapter.xla_structure(text)[-1]["instructions"]
    # one layer = 12 weight arrays, plus x and target
    assert sum(1 for i in params if i["opcode"] == "parameter") == 14
