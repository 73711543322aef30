"""``hloscope recompiles``: what JAX's persistent compilation cache did for each compile, and
against a kept run (``--vs DIR``) the part of the cache key that changed.

The scripts are real child processes run twice against one cache folder, the second time with
one planted change each. Each script writes JAX's own debug log of the cache (the
``jax._src.cache_key`` and ``jax._src.compiler`` loggers at DEBUG, to a file): the oracle. Per
module it holds the hash of every part of the key and whether the lookup hit or missed; a miss
must name exactly the parts whose hashes differ between the two logs.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.analysis.recompiles import build_ledger, cache_notes, cache_verdicts
from hloscope.capture.compile_watch import CompileRecord
from hloscope.capture.persistent_cache_watch import CacheObservation
from hloscope.cli import cli

SCRIPT = """\
import logging
import os
from functools import partial

# JAX's own debug log of the cache, to a file: the test's oracle.
logging.basicConfig(filename=os.environ["JAX_LOG"], level=logging.WARNING,
                    format="%(name)s|%(message)s")
for name in ("jax._src.cache_key", "jax._src.compiler", "jax._src.compilation_cache"):
    logging.getLogger(name).setLevel(logging.DEBUG)

import jax
import jax.numpy as jnp

jax.config.update("jax_compilation_cache_dir", os.environ["CACHE"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", float(os.environ["MIN_S"]))


@partial(jax.jit, static_argnums=1)
def scale(x, k):
    return x * k + 1


@jax.jit
def wave(x):
    return jnp.sin(x) + 2


x = jnp.ones(4)
scale(x, int(os.environ.get("K", "3"))).block_until_ready()
wave(x).block_until_ready()
"""

_PART = re.compile(r"^jax\._src\.cache_key\|get_cache_key hash of serialized (.+): ([0-9a-f]+)$")
_RESULT = re.compile(
    r"^jax\._src\.compiler\|(Persistent compilation cache hit|PERSISTENT COMPILATION CACHE MISS)"
    r" for '([^']+)'"
)


def jax_log(path: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """Module name -> ("hit" or "miss", the hash of each key part), read from JAX's log."""
    found: dict[str, tuple[str, dict[str, str]]] = {}
    parts: dict[str, str] = {}
    for line in path.read_text().splitlines():
        part = _PART.match(line)
        if part is not None:
            parts[part.group(1)] = part.group(2)
            continue
        result = _RESULT.match(line)
        if result is not None:
            hit = result.group(1).startswith("Persistent")
            found[result.group(2)] = ("hit" if hit else "miss", parts)
            parts = {}
    return found


def changed_parts(before: dict[str, str], now: dict[str, str]) -> list[str]:
    return [name for name in now if before.get(name) != now.get(name)]


def run(*args: str, env: dict[str, str]):
    return CliRunner().invoke(cli, ["recompiles", *args], catch_exceptions=False, env=env)


def events_by_module(data: dict) -> dict[str, dict]:
    """Each compile's persistent_cache, by JAX's module name (its cache key's head)."""
    found = {}
    for function in data["functions"]:
        for event in function["events"]:
            cache = event["persistent_cache"]
            found[cache["key"].split("-")[0]] = cache | {"function": function["name"]}
    return found


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """The script run once with an empty cache, kept with -o."""
    needs_framework("jax")
    folder = tmp_path_factory.mktemp("cache_runs")
    script = folder / "prog.py"
    script.write_text(SCRIPT)
    env = {"CACHE": str(folder / "cache"), "JAX_LOG": str(folder / "first.log"), "MIN_S": "0"}
    result = run(str(script), "-o", str(folder / "first"), "--json", env=env)
    assert result.exit_code == 0, result.output
    return folder, json.loads(result.stdout)


def second_run(
    first_run, tmp_path: Path, cache: Path | None = None, **planted: str
) -> tuple[dict, dict, dict]:
    """The script run again on the first run's cache (or ``cache``) with ``planted`` in its
    environment, compared with the first: (its ledger, JAX's first log, JAX's second log).
    Each planted change makes keys of its own, so the runs share one cache folder."""
    folder, _ = first_run
    cache = cache or folder / "cache"
    env = {"CACHE": str(cache), "JAX_LOG": str(tmp_path / "second.log"), "MIN_S": "0", **planted}
    result = run(str(folder / "prog.py"), "--vs", str(folder / "first"), "--json", env=env)
    assert result.exit_code == 0, result.output
    return (
        json.loads(result.stdout),
        jax_log(folder / "first.log"),
        jax_log(tmp_path / "second.log"),
    )


def check_against_jax(data: dict, before: dict, now: dict) -> dict[str, dict]:
    """Every compile's result is JAX's, and every miss names exactly the parts JAX hashed
    differently; returns the compiles by module."""
    caches = events_by_module(data)
    assert set(caches) == set(now)
    for module, cache in caches.items():
        result, parts = now[module]
        assert cache["result"] == result, (module, cache)
        if result == "miss":
            expected = changed_parts(before[module][1], parts)
            assert expected, module  # the planted change shows in JAX's own hashes
            assert [c["part"] for c in cache["changed"]] == expected, (module, cache)
            assert cache["fix"]
        else:
            assert cache["changed"] == []
    return caches


def test_first_run_misses_and_writes_every_compile(first_run):
    folder, data = first_run
    caches = events_by_module(data)
    log = jax_log(folder / "first.log")
    assert {m: c["result"] for m, c in caches.items()} == {m: r for m, (r, _) in log.items()}
    assert {"jit_scale", "jit_wave"} <= set(caches)
    assert all(c["result"] == "miss" for c in caches.values())
    assert all(str(folder / "cache") in c["reason"] for c in caches.values())
    # JAX wrote an entry under each key, named as the key the ledger gives.
    written = {p.name for p in (folder / "cache").iterdir()}
    assert {c["key"] for c in caches.values()} <= {n.removesuffix("-cache") for n in written}


def test_unchanged_run_hits_every_compile(first_run, tmp_path):
    data, before, now = second_run(first_run, tmp_path)
    caches = check_against_jax(data, before, now)
    assert {c["result"] for c in caches.values()} == {"hit"}


def test_a_static_argument_changes_the_computation(first_run, tmp_path):
    data, before, now = second_run(first_run, tmp_path, K="4")
    caches = check_against_jax(data, before, now)
    assert caches["jit_scale"]["result"] == "miss"
    [change] = caches["jit_scale"]["changed"]
    assert change["part"] == "computation"
    assert "static argument k: 3 -> 4" in change["detail"]
    # The first line of the module text that differs: the constant the static value became.
    assert re.search(
        r"first differing line \d+: .*4\.0+e\+00.*\(was: .*3\.0+e\+00", change["detail"]
    )
    assert "static" in caches["jit_scale"]["fix"]
    others = [c for m, c in caches.items() if m != "jit_scale"]
    assert others and all(c["result"] == "hit" for c in others)


def test_an_xla_flag_that_enters_the_key(first_run, tmp_path):
    flag = "--xla_backend_optimization_level=1"
    data, before, now = second_run(first_run, tmp_path, XLA_FLAGS=flag)
    caches = check_against_jax(data, before, now)
    assert {c["result"] for c in caches.values()} == {"miss"}
    for cache in caches.values():
        by_part = {c["part"]: c for c in cache["changed"]}
        assert f"added {flag}" in by_part["XLA flags"]["detail"]
        assert "XLA_FLAGS" in cache["fix"]
        # The flag also set XLA's debug option of the same name inside the compile options.
        assert "xla_backend_optimization_level" in by_part["compile_options"]["detail"]


def test_jax_enable_x64_changes_the_computation(first_run, tmp_path):
    data, before, now = second_run(first_run, tmp_path, JAX_ENABLE_X64="1")
    caches = check_against_jax(data, before, now)
    wave = caches["jit_wave"]
    [change] = wave["changed"]
    assert change["part"] == "computation"
    assert "jax_enable_x64: False -> True" in change["detail"]
    assert "f32[4] -> f64[4]" in change["detail"]
    assert "tensor<4xf64>" in change["detail"] and "tensor<4xf32>" in change["detail"]
    assert "jax_enable_x64" in wave["fix"]


def test_the_number_of_host_devices_changes_the_accelerator_config(first_run, tmp_path):
    flag = "--xla_force_host_platform_device_count=4"
    data, before, now = second_run(first_run, tmp_path, XLA_FLAGS=flag)
    caches = check_against_jax(data, before, now)
    for cache in caches.values():
        # JAX leaves this flag out of the key; the topology it makes enters it.
        [change] = cache["changed"]
        assert change["part"] == "accelerator_config"
        assert change["detail"] == "the host has 4 devices, the cached run 1"


def test_a_cache_copied_to_another_path_misses_on_the_path_in_xla_options(first_run, tmp_path):
    folder, _ = first_run
    moved = tmp_path / "moved"
    shutil.copytree(folder / "cache", moved)
    data, before, now = second_run(first_run, tmp_path, cache=moved)
    caches = check_against_jax(data, before, now)
    for cache in caches.values():
        [change] = cache["changed"]
        assert change["part"] == "compile_options"
        assert f"{moved}/xla_gpu_per_fusion_autotune_cache_dir" in change["detail"]
        assert "jax_persistent_cache_enable_xla_caches" in cache["fix"]


def test_an_entry_not_written_is_said_so_and_then_explains_the_next_miss(first_run, tmp_path):
    folder, _ = first_run
    env = {"CACHE": str(tmp_path / "cache"), "JAX_LOG": str(tmp_path / "a.log"), "MIN_S": "30"}
    result = run(str(folder / "prog.py"), "-o", str(tmp_path / "a"), "--json", env=env)
    assert result.exit_code == 0, result.output
    caches = events_by_module(json.loads(result.stdout))
    log = (tmp_path / "a.log").read_text()
    for module, cache in caches.items():
        assert cache["result"] == "not_written"
        assert f"Not writing persistent cache entry for '{module}' because it took < 30.00" in log
        assert "jax_persistent_cache_min_compile_time_secs (30 s)" in cache["reason"]
        assert "jax_persistent_cache_min_compile_time_secs to 0" in cache["fix"]
    # The fix taken: the next run writes, and its misses say the first run did not.
    env |= {"JAX_LOG": str(tmp_path / "b.log"), "MIN_S": "0"}
    result = run(str(folder / "prog.py"), "--vs", str(tmp_path / "a"), env=env)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "persistent cache: 4 misses; misses compared with" in text
    said = " ".join(text.split())  # the lines are wrapped at 80 columns
    assert said.count("which did not write it") == 2  # the user's two functions are listed
    assert all(len(line) <= 80 for line in text.splitlines())
    result = run(str(folder / "prog.py"), "--vs", str(tmp_path / "a"), "--json", env=env)
    caches = events_by_module(json.loads(result.stdout))
    assert {c["result"] for c in caches.values()} == {"hit"}  # written by the run before


def test_no_cache_directory_is_off_and_prints_nothing_about_it(tmp_path):
    needs_framework("jax")
    script = tmp_path / "plain.py"
    script.write_text(
        textwrap.dedent(
            """\
            import jax
            import jax.numpy as jnp
            jax.jit(lambda x: x + 1)(jnp.ones(3)).block_until_ready()
            """
        )
    )
    result = run(str(script), "--json", env={"JAX_COMPILATION_CACHE_DIR": ""})
    assert result.exit_code == 0, result.output
    caches = [
        e["persistent_cache"] for f in json.loads(result.stdout)["functions"] for e in f["events"]
    ]
    assert caches and {c["result"] for c in caches} == {"off"}
    assert all("jax_compilation_cache_dir" in c["reason"] for c in caches)
    result = run(str(script), env={"JAX_COMPILATION_CACHE_DIR": ""})
    assert "persistent cache" not in result.stdout
    # With a cache, the records the watcher lowered levels for reach no one: the script's
    # stderr holds none of JAX's cache messages.
    cache, kept = tmp_path / "cache", tmp_path / "kept"
    env = {
        "JAX_COMPILATION_CACHE_DIR": str(cache),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }
    result = run(str(script), "-o", str(kept), env=env)
    assert result.exit_code == 0, result.output
    assert "persistent cache: 3 misses" in result.stdout  # jnp.ones compiles two ops first
    stderr = (kept / "stderr.txt").read_text()
    for said in ("get_cache_key", "PERSISTENT COMPILATION CACHE", "to persistent compilation"):
        assert said not in stderr


def test_vs_a_folder_without_a_kept_run_is_one_line(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print(1)\n")
    result = CliRunner().invoke(cli, ["recompiles", str(script), "--vs", str(tmp_path)])
    assert result.exit_code == 2  # a folder typed wrong: a usage error
    assert "no recompiles.json here" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


# ---- the comparison alone, on versions no single environment can plant --------------------------


def _record(name: str, parts: dict[str, str], **facts) -> CompileRecord:
    seen = CacheObservation(
        result="miss",
        module_name=f"jit_{name}",
        key=f"jit_{name}-{hash(tuple(parts.values()))}",
        parts=parts,
        **facts,
    )
    return CompileRecord(framework="jax", kind="compile", name=name, persistent_cache=seen)


def test_a_jaxlib_and_libtpu_upgrade_name_the_versions():
    same = {"computation": "a", "XLA flags": "b"}
    before = _record(
        "f",
        {**same, "jax_lib version": "1", "backend version": "2"},
        versions={"jax": "0.9.0", "jaxlib": "0.9.0", "libtpu": "0.0.40"},
        devices={"platform": "tpu", "platform_version": "libtpu 0.0.40"},
    )
    now = _record(
        "f",
        {**same, "jax_lib version": "3", "backend version": "4"},
        versions={"jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.42"},
        devices={"platform": "tpu", "platform_version": "libtpu 0.0.42"},
    )
    verdict = cache_verdicts([now], [before], "old")[id(now)]
    details = {c.part: c.detail for c in verdict.changed}
    assert details["jax_lib version"] == "jaxlib 0.9.0 -> 0.10.2; jax 0.9.0 -> 0.10.2"
    assert "libtpu 0.0.40 -> 0.0.42" in details["backend version"]
    assert verdict.reason == "the cache key's jax_lib version, backend version changed since old"


def test_a_miss_is_compared_with_the_closest_compile_of_its_module():
    # Two compiles of one module before (two shapes); now the second one's flags changed.
    one = _record("f", {"computation": "a", "XLA flags": "x"}, xla_flags=[])
    two = _record("f", {"computation": "b", "XLA flags": "x"}, xla_flags=[])
    now = _record("f", {"computation": "b", "XLA flags": "y"}, xla_flags=["--xla_z=1"])
    verdict = cache_verdicts([now], [one, two], "old")[id(now)]
    assert verdict.previous == 1
    assert [c.part for c in verdict.changed] == ["XLA flags"]
    ledger = build_ledger([now], previous=[one, two], previous_label="old")
    [event] = ledger.functions[0].events
    assert event.to_dict()["persistent_cache"]["changed"][0]["part"] == "XLA flags"


def test_a_jax_outside_the_checked_releases_is_noted():
    checked = _record("f", {"computation": "a"}, versions={"jax": "0.10.2"})
    newer = _record("g", {"computation": "a"}, versions={"jax": "0.12.0"})
    assert cache_notes([checked]) == []
    [note] = cache_notes([checked, newer])
    assert "jax 0.12.0 may log it differently" in note
    blind = _record("h", {"computation": "a"})  # hashes logged, the key's inputs not readable
    assert "without the details" in cache_notes([blind])[0]
