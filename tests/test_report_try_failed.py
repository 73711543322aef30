"""``hloscope report SCRIPT.py:FUNCTION --device tpu-v5e:2x2 --try '...'`` of a function that
does not compile: the page of the failed compile has the What if section, the baseline refused
in the compiler's words and each variant compiled or refused, in the HTML and in the page's
JSON; a function that does not fit (XLA:TPU refuses it after optimizing) has it in its report.
And ``report --try '--audit-flags FILE'``: the flag audit's table.

The oracle: the same programs compiled directly with plain JAX for the same slice, each
argument placed by hand as the variant places it (``tests/report_try_oracle.py``:
``memory_analysis()``, ``cost_analysis()``, and the refusal's own words); libtpu's own words
for a flag it does not know.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from shared_cache import once, shared_cache

from hloscope.analysis.flag_audit import flag_audit
from hloscope.analysis.variants import VariantOutcome, judge
from hloscope.cli import cli
from hloscope.render.html.failed_report import FailedReport
from hloscope.reporting._what_if import add_what_if

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "report_try_programs.py"
SOLVE = f"{PROGRAMS}:solve"
MEAN_STEP = f"{PROGRAMS}:mean_step"
ADAM_STEP = f"{PROGRAMS}:adam_step"
MESH = f"{HERE.parent / 'samples' / 'try_mesh.py'}:train_step"
SLICE = "tpu-v5e:2x2"
LU_REFUSED = "Only F32 and C64 types are implemented in LuDecomposition"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The capture and try cache of the module's tests. Under xdist, the one tests/test_try.py
    shares between its workers: its flag audit compiles the same variants of the same sample
    with the same flags, read here from that cache when both modules run."""
    return shared_cache(tmp_path_factory, "try-cache")


@pytest.fixture(scope="module")
def oracle(cache):
    """XLA:TPU's (and JAX's) answers for the programs, compiled directly, once per cache."""
    needs_libtpu()
    # Named apart from tests/test_try.py's oracles, which keep theirs in the same shared cache
    # ("oracle.json" there holds other programs' figures).
    kept = cache / "report_try_oracle.json"
    with once(cache, "report_try_oracle"):
        if not kept.is_file():
            done = subprocess.run(
                [sys.executable, str(HERE / "report_try_oracle.py")],
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            kept.write_text(done.stdout.strip().splitlines()[-1])
        return json.loads(kept.read_text())


def _report(cache, monkeypatch, tmp_path, target, asked):
    needs_libtpu()
    monkeypatch.setenv("HLOSCOPE_CACHE", str(cache))
    out = tmp_path / "report.html"
    args = ["report", target, "--device", SLICE, "--try", asked, "--graphs", "0", "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    page = out.read_text() if out.is_file() else ""
    return result, page


def _data(page):
    return json.loads(re.search(r'id="hloscope-data">(.*?)</script>', page).group(1))


def _section(page):
    return unescape(re.search(r'<section id="hs-what-if">(.*?)</section>', page, re.S).group(1))


def _rows(what_if):
    return {v["name"]: v for v in [what_if["baseline"], *what_if["variants"]]}


@pytest.mark.slow
def test_a_program_xla_tpu_refuses_gets_the_variants_that_compile(
    cache, oracle, monkeypatch, tmp_path
):
    asked = "--cast system=f32 --cast system=bf16"
    result, page = _report(cache, monkeypatch, tmp_path, SOLVE, asked)
    # The failed compile's page, as before: the check found float64 on a TPU (status 3).
    assert result.exit_code == 3, result.output
    said = " ".join(result.stdout.split())
    assert "solve did not compile" in said
    assert "what if: 1 of 2 variants compile; the best: cast=system=f32" in said
    data = _data(page)
    assert data["compiled"] is False and LU_REFUSED in data["error"]
    rows = _rows(data["what_if"])
    # XLA's words without the C++ stack it appends, and no hloscope file named as the place.
    told = " ".join([result.output, data["error"], rows["baseline"]["error"] or ""])
    assert not re.search(r"@\s+0x[0-9a-fA-F]+", told), told
    assert "hloscope/backends" not in told and "hloscope/capture" not in told, told
    # The baseline refused in XLA:TPU's words, as the direct compile of the same program.
    baseline = rows["baseline"]
    assert not baseline["compiled"] and LU_REFUSED in baseline["error"]
    assert LU_REFUSED in oracle["solve f64"]["error"]
    # float32 compiles, with XLA:TPU's own peak and FLOPs; bfloat16 is refused as directly.
    f32 = rows["cast=system=f32"]
    assert f32["compiled"] and f32["fits"]
    assert f32["peak_bytes"] == oracle["solve f32"]["peak_bytes"]
    assert f32["flops"] == oracle["solve f32"]["flops"]
    bf16 = rows["cast=system=bf16"]
    assert not bf16["compiled"] and "got shape bf16[" in bf16["error"]
    assert "got shape bf16[" in oracle["solve bf16"]["error"]
    assert data["what_if"]["winner"] == "cast=system=f32"
    # The page: the section after the compile error, linked, each row and the change.
    assert page.index('id="hs-error"') < page.index('id="hs-what-if"')
    assert 'href="#hs-what-if"' in page
    section = _section(page)
    for name in rows:
        assert f'data-variant="{name}"' in section
    assert f'data-v="{f32["peak_bytes"]}"' in section
    assert "refused" in section and LU_REFUSED in section
    assert "astype(jnp.float32)" in section


@pytest.mark.slow
def test_a_program_jax_refuses_gets_the_mesh_that_divides_its_batch(
    cache, oracle, monkeypatch, tmp_path
):
    result, page = _report(cache, monkeypatch, tmp_path, MEAN_STEP, "--mesh data=2,model=2")
    # No unsupported op: the command ends with the compile's own error (status 1).
    assert result.exit_code == 1, result.output
    assert "what if: 1 of 1 variants compile; the best: data=2,model=2" in " ".join(
        result.stdout.split()
    )
    rows = _rows(_data(page)["what_if"])
    words = "implies that array axis 0 is partitioned 4 times"
    assert not rows["baseline"]["compiled"] and words in rows["baseline"]["error"]
    assert words in oracle["mean_step 4x1"]["error"]
    reshaped = rows["data=2,model=2"]
    assert reshaped["compiled"] and reshaped["fits"]
    assert reshaped["peak_bytes"] == oracle["mean_step 2x2"]["peak_bytes"]
    assert reshaped["flops"] == oracle["mean_step 2x2"]["flops"]
    assert "jax.make_mesh((2, 2), ('data', 'model'))" in _section(page)


@pytest.mark.slow
def test_a_program_that_does_not_fit_gets_the_sharding_that_does(
    cache, oracle, monkeypatch, tmp_path
):
    # XLA:TPU refuses it after optimizing: the report is of the module it dumped, with the
    # What if section as for any report.
    result, page = _report(cache, monkeypatch, tmp_path, ADAM_STEP, "--shard dp --shard fsdp")
    assert result.exit_code == 0, result.output
    data = _data(page)
    assert data["module"] == "jit_adam_step" and "what-if" in data["sections"]
    rows = _rows(data["what_if"])
    refusal = oracle["adam_step replicated"]["error"]
    assert refusal.startswith("RESOURCE_EXHAUSTED") and "24.00G" in refusal
    for name in ("baseline", "dp"):  # data parallel keeps every weight whole on each chip
        assert not rows[name]["compiled"] and rows[name]["fits"] is False
        assert rows[name]["error"] == refusal
    fsdp = rows["fsdp"]
    assert fsdp["compiled"] and fsdp["fits"]
    assert fsdp["peak_bytes"] == oracle["adam_step fsdp"]["peak_bytes"]
    assert fsdp["flops"] == oracle["adam_step fsdp"]["flops"]
    # Placed as the oracle placed it by hand.
    specs = {row["path"]: row["spec"] for row in fsdp["placement"]}
    assert specs["params.w1"] == specs["m.w1"] == "P(None, 'data')"
    assert specs["params.w2"] == specs["v.w2"] == "P('data', None)"
    assert data["what_if"]["winner"] == "fsdp"


@pytest.mark.slow
def test_report_try_audits_flags(cache, monkeypatch, tmp_path):
    flags = tmp_path / "flags.txt"
    flags.write_text(
        "--xla_hloscope_no_such_flag=true  # copied from a thread\n"
        "--xla_cpu_enable_fast_math=false\n"  # XLA:CPU's: nothing to do with a TPU compile
        "--xla_disable_hlo_passes=algsimp\n"
    )
    result, page = _report(cache, monkeypatch, tmp_path, MESH, f"--audit-flags {flags}")
    assert result.exit_code == 0, result.output
    what_if = _data(page)["what_if"]
    audit = {v["flag"]: v for v in what_if["audit"]}
    assert list(audit) == [
        "--xla_hloscope_no_such_flag=true",
        "--xla_cpu_enable_fast_math=false",
        "--xla_disable_hlo_passes=algsimp",
    ]
    unknown = audit["--xla_hloscope_no_such_flag=true"]
    # libtpu's own words, from the compile child that stopped on it; nothing compiled with it.
    assert unknown["verdict"] == "unknown" and "Unknown flag" in unknown["words"]
    assert unknown["without"] is None
    idle = audit["--xla_cpu_enable_fast_math=false"]
    assert idle["verdict"] == "no effect"
    assert _rows(what_if)[idle["without"]]["no_effect"]
    working = audit["--xla_disable_hlo_passes=algsimp"]
    assert working["verdict"] == "changes the module"
    assert not _rows(what_if)[working["without"]]["no_effect"]
    # The page's table says each, escaped; the notes do not say them again.
    section = _section(page)
    table = re.search(r'<table class="hs-small hs-flag-audit".*?</table>', section, re.S).group(0)
    found = re.findall(r'data-flag="([^"]*)" data-verdict="([^"]*)"', table)
    assert found == [(flag, v["verdict"]) for flag, v in audit.items()]
    notes = section[section.index("</table>", section.index("hs-flag-audit")) :]
    assert "no effect (the module without it is the same)" not in notes


@pytest.mark.parametrize(
    ("asked", "words"),
    [
        ("--audit-flags /no/such/flags.txt", "--audit-flags /no/such/flags.txt: No such file"),
        ("--audit-flags", "--audit-flags: no flags in XLA_FLAGS and LIBTPU_INIT_ARGS"),
    ],
)
def test_report_try_audit_problems_are_one_line_usage_errors(asked, words, monkeypatch, tmp_path):
    needs_libtpu()
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    monkeypatch.delenv("LIBTPU_INIT_ARGS", raising=False)
    out = tmp_path / "r.html"
    args = ["report", MESH, "--device", SLICE, "--try", asked, "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert words in line
    assert not out.exists()


# ---- the failed page's section, from outcomes written by hand (no compile) -------------------


def _refused_result():
    refusal = "UNIMPLEMENTED: Only <F32> & C64"
    baseline = VariantOutcome("baseline", {}, compiled=False, error=refusal)
    variants = [
        VariantOutcome(
            "cast=a=f32",
            {"cast": {"a": "f32"}},
            compiled=True,
            peak_bytes=1 << 20,
            flops=1e6,
            hbm_bytes=2 << 20,
            collective_bytes=0,
            exposed_comm_s=0.0,
            step_s=1e-6,
            fingerprint="b",
        ),
        VariantOutcome("cast=a=bf16", {"cast": {"a": "bf16"}}, compiled=False, error=refusal),
    ]
    return judge("solve.py:solve", "tpu-v5e:2x2", baseline, variants, goal="fit")


def test_the_failed_page_says_the_what_if_it_is_handed(monkeypatch):
    import hloscope.drivers.variants as variants

    page = FailedReport(target="solve.py:solve", error="XLA refused it")
    plain = page.to_html()
    assert 'id="hs-what-if"' not in plain and "<script>" not in plain
    monkeypatch.setattr(variants, "try_variants", lambda *args, **kwargs: _refused_result())
    add_what_if(page, "solve.py:solve", "tpu-v5e:2x2", None, "fit")
    html = page.to_html()
    section = re.search(r'<section id="hs-what-if">(.*?)</section>', html, re.S).group(1)
    # Every word of the compiler escaped; the compiled variant ranked first.
    assert "Only <F32>" not in section and "Only &lt;F32&gt; &amp; C64" in section
    names = [unescape(n) for n in re.findall(r'data-variant="([^"]*)"', section)]
    assert names[0] == "cast=a=f32" and set(names) == {"baseline", "cast=a=f32", "cast=a=bf16"}
    # Its rows sort in the page: the report's script comes with the section.
    assert "data-hs-sortable" in section and "<script>" in html
    data = _data(html)
    assert data["what_if"]["winner"] == "cast=a=f32"
    assert data["what_if"]["baseline"]["error"] == "UNIMPLEMENTED: Only <F32> & C64"


def test_a_what_if_that_cannot_be_made_is_a_note_on_the_failed_page(monkeypatch):
    import hloscope.drivers.variants as variants
    from hloscope.errors import HloscopeError

    def refuse(*args, **kwargs):
        raise HloscopeError("no compiler for it here")

    monkeypatch.delenv("HLOSCOPE_DEBUG", raising=False)
    monkeypatch.setattr(variants, "try_variants", refuse)
    page = FailedReport(target="solve.py:solve", error="XLA refused it")
    add_what_if(page, "solve.py:solve", "tpu-v5e:2x2", None, "fit")
    assert page.what_if is None and "what_if" not in page.to_dict()
    assert "what if left out: no compiler for it here" in page.notes


def test_the_audit_table_says_each_flags_verdict():
    from hloscope.render.html.try_section import try_section

    figures = {"peak_bytes": 1 << 20, "flops": 1e6, "hbm_bytes": 1 << 21}
    figures.update(collective_bytes=0, exposed_comm_s=0.0, step_s=1e-6)
    baseline = VariantOutcome("baseline", {}, compiled=True, fingerprint="a", **figures)
    idle = VariantOutcome(
        "without --a", {"without_flags": ["--a"]}, compiled=True, fingerprint="a", **figures
    )
    changed = {**figures, "peak_bytes": 2 << 20}
    working = VariantOutcome(
        "without --b", {"without_flags": ["--b"]}, compiled=True, fingerprint="c", **changed
    )
    result = judge("m.py:f", "tpu-v5e:2x2", baseline, [idle, working], goal="fit")
    result.audit = flag_audit(result.baseline, result.variants, {"--c<x>": "Unknown flag c"})
    verdicts = [(v.flag, str(v.verdict)) for v in result.audit]
    assert verdicts == [
        ("--c<x>", "unknown"),
        ("--a", "no effect"),
        ("--b", "changes the module"),
    ]
    assert result.audit[2].words == "changes the module (peak 2.0 MiB -> 1.0 MiB)"
    assert result.to_dict()["audit"][1] == {
        "flag": "--a",
        "verdict": "no effect",
        "words": "no effect (the module without it is the same)",
        "without": "without --a",
    }
    page = FailedReport(target="m.py:f", error="")
    page.what_if, page.what_if_data = try_section(result), result.to_dict()
    html = page.to_html()
    assert "--c&lt;x&gt;" in html and "--c<x>" not in html
    assert re.findall(r'data-flag="([^"]*)" data-verdict="([^"]*)"', html) == [
        ("--c&lt;x&gt;", "unknown"),
        ("--a", "no effect"),
        ("--b", "changes the module"),
    ]
