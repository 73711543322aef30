"""hloscope try: what-if variants compiled by XLA:TPU for a slice, offline (libtpu, no TPU).

The oracles: the same programs compiled directly with plain JAX for the same slice, the
arguments placed by hand (``tests/try_oracle.py``: ``memory_analysis()``, ``cost_analysis()``),
and XLA's own parser on each optimized module (its collectives' operand bytes).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from shared_cache import once, shared_cache

from hloscope.cli import cli
from hloscope.drivers.variants import (
    Variant,
    VariantOptions,
    compile_variants,
    factorisations,
    plan_variants,
    try_variants,
)

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "samples"
TRANSFORMER = f"{SAMPLES / 'try_transformer.py'}:train_step"
MESH = f"{SAMPLES / 'try_mesh.py'}:train_step"
SLICE = "tpu-v5e:2x2"
HBM = 16 * 1024**3  # the registry's v5e: 16 GiB per chip
REMAT = f"{SAMPLES / 'try_remat.py'}:train_step"
PREDICT = f"{SAMPLES / 'try_remat.py'}:predict"
CHIP = "tpu-v5e"
#: The remat variants of try_remat's train_step the tests share (one compile each, cached).
LAYER_POLICIES = (
    "nothing_saveable@layer",
    "save_only_these_names( 'up' )@layer",  # written loosely: read as the canonical spelling
    "everything_saveable@layer",
)
ONLY_UP = "remat=save_only_these_names(up)@layer"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The try cache of the module's tests. Under xdist, one for the whole run, which every
    worker's tests of this module share: `-n 2` splits them over two workers, and each would
    otherwise compile the module fixtures' variants again."""
    return shared_cache(tmp_path_factory, "try-cache")


def _oracle_figures(cache, name, args):
    """The oracle's JSON for ``args``, run once per cache (one worker's run read by the other)."""
    needs_libtpu()
    kept = cache / f"{name}.json"
    with once(cache, name):
        if not kept.is_file():
            done = subprocess.run(
                [sys.executable, str(HERE / "try_oracle.py"), *args],
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            kept.write_text(done.stdout.strip().splitlines()[-1])
        return json.loads(kept.read_text())


@pytest.fixture(autouse=True)
def _libtpu_and_cache(cache, monkeypatch):
    needs_libtpu()
    # One cache for the module: a variant compiled by one test is read by the next.
    monkeypatch.setenv("HLOSCOPE_CACHE", str(cache))


@pytest.fixture(scope="module")
def layouts(cache):
    """dp and fsdp, each with and without the layers rematted (five compiles, two at once)."""
    with pytest.MonkeyPatch.context() as patch, once(cache, "layouts"):
        patch.setenv("HLOSCOPE_CACHE", str(cache))
        needs_libtpu()
        options = VariantOptions(shard=("dp", "fsdp"), remat=("nothing_saveable@block",))
        # The fsdp variant a later test adds compiles in the same batch, into the cache the
        # tests share: two at once from the first compile to the last, no core left idle.
        later = VariantOptions(shard=("fsdp",), remat=("everything_saveable",))
        planned = {v.name: v for v in [*plan_variants(options, 4), *plan_variants(later, 4)]}
        compile_variants(TRANSFORMER, SLICE, [Variant("baseline"), *planned.values()], jobs=2)
        return try_variants(TRANSFORMER, SLICE, options, jobs=2)


@pytest.fixture(scope="module")
def oracle(cache):
    return _oracle_figures(cache, "oracle", ["fsdp", "fsdp+nothing_saveable", "dp"])


@pytest.fixture(scope="module")
def remat_policies(cache):
    """try_remat's train_step with its layer under three policies (four compiles, one chip)."""
    with pytest.MonkeyPatch.context() as patch, once(cache, "remat_policies"):
        patch.setenv("HLOSCOPE_CACHE", str(cache))
        needs_libtpu()
        return try_variants(REMAT, CHIP, VariantOptions(remat=LAYER_POLICIES), jobs=2)


@pytest.fixture(scope="module")
def remat_oracle(cache):
    """XLA:TPU's figures for save_only_these_names("up") around the layer, compiled directly."""
    policy = "save_only_these_names(up)"
    args = ["remat", "try_remat", "train_step", "layer", policy]
    return _oracle_figures(cache, "remat_oracle", args)[policy]


def _by_name(result):
    return {v.name: v for v in [result.baseline, *result.variants]}


def test_the_transformer_does_not_fit_as_written_and_fsdp_does(layouts):
    found = _by_name(layouts)
    assert set(found) == {
        "baseline",
        "dp",
        "fsdp",
        "dp remat=nothing_saveable@block",
        "fsdp remat=nothing_saveable@block",
    }
    baseline = found["baseline"]
    # Replicated on every chip, XLA:TPU refuses it in its own words.
    assert not baseline.compiled and baseline.fits is False
    assert "RESOURCE_EXHAUSTED" in baseline.error and "exceeds available HBM" in baseline.error
    fsdp = found["fsdp"]
    assert fsdp.compiled and fsdp.fits is True and fsdp.peak_bytes < HBM
    for outcome in found.values():
        if outcome.compiled:
            assert outcome.fits == (outcome.peak_bytes <= HBM)
        else:
            assert outcome.fits is False and "RESOURCE_EXHAUSTED" in outcome.error
    # Ranked by fit: every variant that fits comes before every one that does not.
    ranked = [v.fits is True for v in layouts.ranked]
    assert ranked == sorted(ranked, reverse=True)
    assert layouts.winner is not None and layouts.winner.fits


def test_each_variants_peak_and_flops_are_xlas_own(layouts, oracle):
    found = _by_name(layouts)
    pairs = {
        "fsdp": "fsdp",
        "fsdp remat=nothing_saveable@block": "fsdp+nothing_saveable",
        "dp": "dp",
    }
    for name, direct in pairs.items():
        ours, theirs = found[name], oracle[direct]
        if "error" in theirs:
            assert not ours.compiled and ours.error == theirs["error"]
            continue
        assert ours.peak_bytes == theirs["peak_bytes"], name
        assert ours.flops == theirs["flops"], name


def test_remat_that_saves_nothing_recomputes(layouts):
    found = _by_name(layouts)
    plain, rematted = found["fsdp"], found["fsdp remat=nothing_saveable@block"]
    assert rematted.compiled and rematted.fits
    assert rematted.flops > plain.flops
    assert not rematted.no_effect


def test_a_remat_policy_that_saves_everything_has_no_effect(layouts):
    # Around the whole step (which nothing differentiates), everything_saveable keeps every
    # value: XLA:TPU's module is the one without it, up to names.
    options = VariantOptions(shard=("fsdp",), remat=("everything_saveable",))
    result = try_variants(TRANSFORMER, SLICE, options, jobs=2)
    found = _by_name(result)
    saved = found["fsdp remat=everything_saveable"]
    assert found["fsdp"].cached  # the compile of the first test, from the cache
    assert saved.compiled and saved.no_effect
    assert (saved.no_effect_of, saved.same_as) == ("remat", "fsdp")
    assert saved.peak_bytes == found["fsdp"].peak_bytes and saved.flops == found["fsdp"].flops
    assert not found["fsdp"].no_effect


def _xla_collective_bytes(text: str) -> int:
    """Per device, the bytes each collective of ``text`` moves, read from XLA's own parse of
    it: operands as XLA prints them (an all-gather's times its group)."""
    import jaxlib._hlo as xla_hlo

    options = xla_hlo.HloPrintOptions()
    options.print_operand_shape = True
    options.print_metadata = False
    options.print_backend_config = False
    printed = xla_hlo.hlo_module_from_text(text).to_string(options)
    sizes = {"f32": 4, "bf16": 2, "f16": 2, "s32": 4, "u32": 4, "f64": 8, "s8": 1, "u8": 1}
    total = 0
    # The operands end where the attributes start (a layout's tiles hold parentheses too).
    pattern = (
        r"= .*? (all-reduce|all-gather|reduce-scatter|all-to-all)(?:-start)?\((.*?)\), "
        r"(?:channel_id|replica_groups)="
    )
    for line in printed.splitlines():
        found = re.search(pattern, line)
        if found is None:
            continue
        moved = 0
        for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", found.group(2)):
            count = 1
            for d in filter(None, dims.split(",")):
                count *= int(d)
            moved += count * sizes[dtype]
        if found.group(1) == "all-gather":
            group = re.search(r"replica_groups=\{\{([\d,]+)\}", line)
            moved *= len(group.group(1).split(","))
        total += moved
    return total


def test_mesh_search_compiles_every_factorisation_and_ranks_by_step():
    options = VariantOptions(meshes_all=True)
    result = try_variants(MESH, "tpu-v5e:2x4", options, goal="step", jobs=2)
    meshes = [v.mesh for v in result.variants]
    assert sorted(map(str, meshes)) == sorted(map(str, factorisations(8, ("data", "model"))))
    assert len(meshes) == 4
    steps = [v.step_s for v in result.ranked]
    assert all(s is not None for s in steps) and steps == sorted(steps)
    for outcome in [result.baseline, *result.variants]:
        assert outcome.compiled and outcome.module_file is not None
        text = Path(outcome.module_file).read_text()
        assert outcome.collective_bytes == _xla_collective_bytes(text), outcome.name
    # The script's own mesh (data=4, model=2) compiled again is the baseline's module.
    (same,) = [v for v in result.variants if v.mesh == {"data": 4, "model": 2}]
    assert same.no_effect and same.same_as == "baseline"
    # Fewer devices over `data` means less gradient traffic: the factorisations differ.
    assert len({v.collective_bytes for v in result.variants}) > 1


def test_a_variant_that_cannot_apply_says_why():
    # Four sequences of tokens cannot be split over the eight chips of a 2x4 slice.
    (outcome,) = compile_variants(TRANSFORMER, "tpu-v5e:2x4", [Variant("dp", {"shard": "dp"})])
    assert not outcome.applicable and not outcome.compiled
    assert "dimension 0 (4) is not divisible by data=8" in outcome.error
    assert outcome.error.startswith("batch.")


def test_the_command_prints_the_ranking_and_the_change(layouts):
    args = ["try", TRANSFORMER, "--device", SLICE, "--shard", "dp", "--shard", "fsdp"]
    result = CliRunner().invoke(cli, [*args, "--remat", "nothing_saveable@block", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) >= {"device", "baseline", "variants"}
    keys = {
        "name",
        "settings",
        "compiled",
        "error",
        "fits",
        "peak_bytes",
        "flops",
        "hbm_bytes",
        "collective_bytes",
        "exposed_comm_s",
        "step_s",
        "no_effect",
    }
    for row in payload["variants"]:
        assert keys <= set(row)
    fsdp = next(v for v in payload["variants"] if v["name"] == "fsdp")
    assert fsdp["peak_bytes"] == _by_name(layouts)["fsdp"].peak_bytes and fsdp["cached"]
    text = CliRunner().invoke(cli, args + ["--remat", "nothing_saveable@block"])
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    assert any("the change for the best" in line for line in lines)
    assert any("NamedSharding" in line for line in lines)
    assert any(line.startswith("baseline: refused: RESOURCE_EXHAUSTED") for line in lines)


def test_the_flag_audit_tells_unknown_from_idle_from_working(tmp_path):
    flags = tmp_path / "flags.txt"
    flags.write_text(
        "--xla_hloscope_no_such_flag=true  # copied from a thread\n"
        "--xla_cpu_enable_fast_math=false\n"  # XLA:CPU's: nothing to do with a TPU compile
        "--xla_disable_hlo_passes=algsimp\n"
    )
    args = ["try", MESH, "--device", SLICE, "--audit-flags", str(flags), "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    notes = payload["notes"]
    (unknown,) = [n for n in notes if n.startswith("--xla_hloscope_no_such_flag=true: ")]
    # XLA's own words, from the compile child that stopped on it.
    assert "unknown" in unknown and "Unknown flag" in unknown
    assert "--xla_cpu_enable_fast_math=false: no effect" in "\n".join(notes)
    (changes,) = [n for n in notes if n.startswith("--xla_disable_hlo_passes=algsimp: ")]
    assert "changes the module" in changes
    rows = {v["name"]: v for v in payload["variants"]}
    assert rows["without --xla_cpu_enable_fast_math=false"]["no_effect"]
    assert not rows["without --xla_disable_hlo_passes=algsimp"]["no_effect"]
    # Only the known flags were compiled with: the baseline carries the other two.
    assert set(rows) == {
        "without --xla_cpu_enable_fast_math=false",
        "without --xla_disable_hlo_passes=algsimp",
    }


def test_donation_and_a_cast_take_effect_as_xla_tpu_says():
    options = VariantOptions(donate=("params",), cast=("x=bf16",))
    result = try_variants(MESH, SLICE, options, jobs=2)
    found = _by_name(result)
    assert set(found) == {"baseline", "donate=params", "cast=x=bf16", "donate=params cast=x=bf16"}
    base, donated, cast = found["baseline"], found["donate=params"], found["cast=x=bf16"]
    assert base.memory["alias_size_in_bytes"] == 0
    # The two weights, each split over `model` (2 of the 4 chips): XLA aliased them to the
    # updated weights it returns.
    weights = 2 * 1024 * 4096 * 4 // 2
    assert donated.memory["alias_size_in_bytes"] == weights and not donated.no_effect
    # The batch in bfloat16: half of its bytes (f32[256,1024] split over `data`, 2 of 4).
    saved = base.memory["argument_size_in_bytes"] - cast.memory["argument_size_in_bytes"]
    assert saved == 256 * 1024 * 2 // 2 and not cast.no_effect


def test_an_involuntary_full_rematerialization_is_placed_and_a_variant_removes_it():
    # `b` is split 4 ways on its last dimension, `a` 2 x 2 on its last two: XLA:TPU's SPMD
    # partitioner replicates `b` to add them. Sharded as `a` is, nothing is replicated.
    reshard = f"{SAMPLES / 'try_reshard.py'}:combine"
    args = ["try", reshard, "--device", SLICE, "--shard", "b=None,x,y"]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    baseline = payload["baseline"]
    (warning,) = baseline["sharding_warnings"]
    assert warning["where"] == "argument b"
    assert warning["from"] == "{devices=[1,1,4]<=[4]}"
    assert any("Involuntary full rematerialization" in line for line in baseline["log"])
    (fixed,) = payload["variants"]
    assert fixed["compiled"] and fixed["sharding_warnings"] == []
    specs = {row["path"]: row["spec"] for row in fixed["placement"]}
    # The rule named `b`; `a` kept the sharding the script gave it.
    assert specs == {"a": "P(None, 'x', 'y')", "b": "P(None, 'x', 'y')"}
    assert fixed["collective_bytes"] < baseline["collective_bytes"]
    assert payload["winner"] == fixed["name"]
    text = CliRunner().invoke(cli, args)
    assert "involuntary full rematerialization at argument b" in text.stdout
    assert f"(none in {fixed['name']})" in " ".join(text.stdout.split())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--shard", "dp"], "give --device"),
        (["--device", SLICE, "--mesh", "data=3"], "3 devices, and the slice has 4"),
        (["--device", SLICE, "--shard", "w[=data"], "--shard"),
        (["--device", "h100", "--shard", "dp"], "XLA:TPU"),
        (["--device", SLICE], "name variants"),
        (["--device", SLICE, "--remat", "save_only_these_names()"], "at least one"),
        (["--device", SLICE, "--remat", "save_from_both_policies(a,b)"], "is a policy"),
        (["--device", SLICE, "--remat", "__import__('os')"], "the policies: everything_saveable"),
    ],
)
def test_bad_options_are_one_line_usage_errors(args, words):
    result = CliRunner().invoke(cli, ["try", MESH, *args])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert words in line


def test_a_policy_with_names_saves_between_nothing_and_everything(remat_policies, remat_oracle):
    from hloscope.analysis.variants import code_change

    found = _by_name(remat_policies)
    assert set(found) == {
        "baseline",
        "remat=nothing_saveable@layer",
        ONLY_UP,
        "remat=everything_saveable@layer",
    }
    nothing, only = found["remat=nothing_saveable@layer"], found[ONLY_UP]
    everything = found["remat=everything_saveable@layer"]
    assert all(v.compiled for v in found.values())
    # XLA:TPU's own figures for the policy built by hand with jax.checkpoint_policies.
    assert only.peak_bytes == remat_oracle["peak_bytes"]
    assert only.flops == remat_oracle["flops"]
    # Saving `up` keeps more than saving nothing and less than saving everything.
    assert nothing.peak_bytes < only.peak_bytes < everything.peak_bytes
    assert not only.no_effect
    # The change to make spells the call as JAX takes it.
    (line,) = [x for x in code_change(only, REMAT) if "checkpoint" in x]
    assert line == (
        "layer = jax.checkpoint(layer, policy=jax.checkpoint_policies.save_only_these_names('up'))"
    )


def _xla_printed(path: str) -> str:
    """The module as XLA's parser reads and prints it canonically, without metadata."""
    import jaxlib._hlo as xla_hlo

    options = xla_hlo.HloPrintOptions.canonical()
    options.print_metadata = False
    printed = xla_hlo.hlo_module_from_text(Path(path).read_text()).to_string(options)
    return re.sub(r"^HloModule \S+", "HloModule m", printed)


def test_a_layer_rematted_where_nothing_differentiates_it_has_no_effect(remat_policies):
    # Forward only, jax.checkpoint around the layer has nothing to decide: XLA:TPU's
    # optimized module is the baseline's, as for a policy around the whole function.
    options = VariantOptions(remat=("everything_saveable@layer",))
    result = try_variants(PREDICT, CHIP, options, jobs=2)
    (saved,) = result.variants
    assert _xla_printed(saved.module_file) == _xla_printed(result.baseline.module_file)
    assert saved.no_effect and (saved.no_effect_of, saved.same_as) == ("remat", "baseline")
    assert saved.effect is None


def test_a_layer_rematted_in_a_train_step_shows_what_it_changed(remat_policies):
    from hloscope.units import format_bytes

    # Differentiated, everything_saveable around one layer is another module for XLA:TPU:
    # not "no effect", and what changed is said against the module without it.
    found = _by_name(remat_policies)
    base, saved = found["baseline"], found["remat=everything_saveable@layer"]
    assert _xla_printed(saved.module_file) != _xla_printed(base.module_file)
    assert not saved.no_effect
    assert (saved.effect_of, saved.compared_to) == ("remat", "baseline")
    assert saved.peak_bytes != base.peak_bytes
    assert f"peak {format_bytes(base.peak_bytes)} -> {format_bytes(saved.peak_bytes)}" in (
        saved.effect
    )
    args = ["try", REMAT, "--device", CHIP, "--remat", ",".join(LAYER_POLICIES)]
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0, text.output
    said = " ".join(text.stdout.split())
    assert "remat=everything_saveable@layer: its remat changed the module of baseline" in said
    assert max(map(len, text.stdout.splitlines())) <= 80


def test_the_report_has_a_what_if_section_with_xlas_numbers(remat_policies, remat_oracle, tmp_path):
    import html

    out = tmp_path / "report.html"
    asked = "--remat 'nothing_saveable@layer,save_only_these_names(up)@layer' --goal memory"
    args = ["report", REMAT, "--device", CHIP, "--try", asked, "--graphs", "0", "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "what-if (3)" in " ".join(result.stdout.split())
    page = out.read_text()
    data = json.loads(re.search(r'id="hloscope-data">(.*?)</script>', page).group(1))
    assert "what-if" in data["sections"]
    what_if = data["what_if"]
    rows = {v["name"]: v for v in [what_if["baseline"], *what_if["variants"]]}
    assert set(rows) == {"baseline", "remat=nothing_saveable@layer", ONLY_UP}
    # XLA:TPU's numbers: the oracle's direct compile, and try's own compiles of the same.
    assert rows[ONLY_UP]["peak_bytes"] == remat_oracle["peak_bytes"]
    assert rows[ONLY_UP]["flops"] == remat_oracle["flops"]
    shared = _by_name(remat_policies)
    for name, row in rows.items():
        assert row["peak_bytes"] == shared[name].peak_bytes, name
    # Ranked by memory, the smallest peak first; the change for it on the page.
    assert what_if["ranking"][0] == "remat=nothing_saveable@layer" == what_if["winner"]
    section = re.search(r'<section id="hs-what-if">(.*?)</section>', page, re.S).group(1)
    shown = html.unescape(section)
    for name in rows:
        assert f'data-variant="{name}"' in shown
        assert f'data-v="{rows[name]["peak_bytes"]}"' in shown
    assert "policy=jax.checkpoint_policies.nothing_saveable" in shown


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--try", "--remat nothing_saveable"], "--try: give --device"),
        (["--device", CHIP, "--try", "--remat save_only_these_names()"], "save_only_these_names"),
        (["--device", CHIP, "--try", "--remat nope"], "the policies: everything_saveable"),
        (["--device", CHIP, "--try", "--audit-flags /no/such/file"], "/no/such/file: No such"),
        (["--device", CHIP, "--try", "--goal"], "--goal"),
        (["--device", CHIP, "--try", "--remat 'a"], "--try"),
        (["--device", CHIP, "--try", ""], "name variants"),
    ],
)
def test_report_try_problems_are_one_line_usage_errors(args, words, tmp_path):
    out = str(tmp_path / "r.html")
    result = CliRunner().invoke(cli, ["report", REMAT, "-o", out, *args])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert words in line
    assert not Path(out).exists()


def test_report_try_needs_a_function(tmp_path):
    hlo = SAMPLES / "hlo" / "transformer_train.after_optimizations.txt"
    args = ["report", str(hlo), "--device", CHIP, "--try", "--remat nothing_saveable"]
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "give SCRIPT.py:FUNCTION" in line
