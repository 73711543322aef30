"""``hloscope fleet``: its rows against the single-module commands, labels, the output formats,
regressions against a baseline, memory:// roots, failing modules, and the missing extra.

These run the tasks in this process (``--scheduler sync``); tests/test_fleet_dask.py runs them
on a real Dask cluster and checks the rows are the same.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DATA

import hloscope
from hloscope.cli import cli
from hloscope.fleet import COLUMNS, METRIC_COLUMNS, read_fleet, regressions, to_frame

GENERATED = DATA / "generated"
# Small dumps with something to count: recompiles (4 compiles of one function), a training
# step (fusions, buffer assignments) and 8-device collectives.
DUMPS = ("jax_recompiles", "jax_mlp_train", "jax_collectives")
ROOT = Path(__file__).resolve().parent.parent


def run(*args: str):
    return CliRunner().invoke(cli, ["fleet", *args], catch_exceptions=False)


def fleet_json(*args: str) -> list[dict]:
    result = run(*args, "--scheduler", "sync", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["rows"]


def command_json(*args: str):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def rows() -> dict[str, list[dict]]:
    """Each sample dump's fleet rows, in module-id order (the order --all-modules reports)."""
    out = {}
    for name in DUMPS:
        found = fleet_json(str(GENERATED / name))
        out[name] = sorted(found, key=lambda r: r["id"])
    return out


# ---- the numbers are the single-module commands' ------------------------------------------


@pytest.mark.parametrize("name", DUMPS)
def test_rows_equal_summary_and_fusions_json(rows, name):
    dump = str(GENERATED / name)
    summaries = command_json("summary", dump, "--all-modules", "--json")
    fusions = command_json("fusions", dump, "--all-modules", "--json")["modules"]
    mine = rows[name]
    assert [r["module"] for r in mine] == [s["module"] for s in summaries]
    assert [r["module"] for r in mine] == [f["module"] for f in fusions]
    for row, summary, report in zip(mine, summaries, fusions, strict=True):
        s = report["summary"]
        assert row["instructions"] == summary["instructions"]
        assert row["kernels"] == s["kernel_count"]
        assert row["fusions"] == s["fusion_count"]
        assert row["bytes"] == s["bytes"]
        assert row["flops"] == s["flops"]
        by_kind: dict[str, int] = {}
        for key, n in s["fusions_by_kind"].items():
            by_kind[key.split("/")[0]] = by_kind.get(key.split("/")[0], 0) + n
        for kind in ("kLoop", "kInput", "kOutput", "kCustom"):
            assert row[f"fusions_{kind}"] == by_kind.get(kind, 0)
        assert (
            sum(row[f"fusions_{k}"] for k in ("kLoop", "kInput", "kOutput", "kCustom"))
            == (row["fusions"])
        )
        assert row["error"] is None and row["stage"] == "after"


@pytest.mark.parametrize("name", DUMPS)
def test_rows_equal_memory_and_collectives_json(rows, name):
    dump = str(GENERATED / name)
    memory = command_json("memory", dump, "--all-modules", "--json")["modules"]
    collectives = command_json("collectives", dump, "--all-modules", "--json")["modules"]
    mine = rows[name]
    for row, mem, coll in zip(mine, memory, collectives, strict=True):
        assert row["module"] == mem["module"] == coll["module"]
        assert row["peak_bytes"] == mem["peak_bytes"]
        assert row["memory_source"] == mem["source"]
        totals = coll["totals"]
        assert row["collectives"] == totals["count"]
        assert row["collective_bytes"] == totals["bytes"]
        assert row["collective_executed_bytes"] == totals["executed_bytes"]


def test_the_numbers_say_something(rows):
    # The oracle comparisons above would pass on zeros: the samples do have what they count.
    assert any(r["collective_bytes"] > 0 for r in rows["jax_collectives"])
    assert all(r["memory_source"] == "buffer_assignment" for r in rows["jax_mlp_train"])
    step = [r for r in rows["jax_mlp_train"] if r["function"] == "step"]
    assert step and step[0]["kernels"] > 5 and step[0]["flops"] > 0


def test_compiles_count_the_modules_of_a_function(rows):
    norm = [r for r in rows["jax_recompiles"] if r["function"] == "norm"]
    assert [r["compiles"] for r in norm] == [4, 4, 4, 4]
    assert sorted(r["compile"] for r in norm) == [1, 2, 3, 4]
    listed = command_json("ls", str(GENERATED / "jax_recompiles"), "--json")
    compiles = {f["name"]: f["compiles"] for f in listed["functions"]}
    assert {r["function"]: r["compiles"] for r in rows["jax_recompiles"]} == compiles


def test_a_dump_without_buffer_assignment_is_simulated(tmp_path):
    dump = tmp_path / "nobuffers"
    dump.mkdir()
    for f in (GENERATED / "jax_mlp_train").glob("*optimizations.txt"):
        shutil.copy(f, dump / f.name)
    found = fleet_json(str(dump))
    memory = command_json("memory", str(dump), "--all-modules", "--json")["modules"]
    assert {r["memory_source"] for r in found} == {"simulated"}
    by_id = sorted(found, key=lambda r: r["id"])
    assert [r["peak_bytes"] for r in by_id] == [m["peak_bytes"] for m in memory]


# ---- discovery and labels -------------------------------------------------------------------


def copy_dump(name: str, where: Path) -> Path:
    where.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(GENERATED / name, where)
    return where


def test_dumps_at_any_depth_are_found_and_labelled_by_their_path(tmp_path):
    run_dir = tmp_path / "run-17"
    copy_dump("jax_recompiles", run_dir / "pod" / "host-0")
    copy_dump("jax_recompiles", run_dir / "pod" / "host-1")
    copy_dump("jax_mlp_train", run_dir / "models" / "mlp")
    (run_dir / "notes.txt").write_text("not a dump file\n")
    found = fleet_json(str(run_dir))
    assert sorted({(r["label"], r["dump"]) for r in found}) == [
        ("models/mlp", "run-17/models/mlp"),
        ("pod/host-0", "run-17/pod/host-0"),
        ("pod/host-1", "run-17/pod/host-1"),
    ]
    # A root that is itself a dump is labelled by its own name.
    alone = fleet_json(str(run_dir / "pod" / "host-0"))
    assert {r["label"] for r in alone} == {"host-0"} and {r["dump"] for r in alone} == {"host-0"}
    strip = [{k: v for k, v in r.items() if k not in ("label", "dump")} for r in alone]
    host0 = [r for r in found if r["label"] == "pod/host-0"]
    assert strip == [{k: v for k, v in r.items() if k not in ("label", "dump")} for r in host0]


def test_label_regex_first_group_and_named_group(tmp_path):
    copy_dump("jax_recompiles", tmp_path / "run" / "host-3" / "xla")
    copy_dump("jax_recompiles", tmp_path / "run" / "host-12" / "xla")
    found = fleet_json(str(tmp_path / "run"), "--label", r"host-(\d+)")
    assert sorted({r["label"] for r in found}) == ["12", "3"]
    named = fleet_json(str(tmp_path / "run"), "--label", r"(h)ost-(?P<label>\d+)/xla$")
    assert sorted({r["label"] for r in named}) == ["12", "3"]
    whole = fleet_json(str(tmp_path / "run"), "--label", r"host-\d+")
    assert sorted({r["label"] for r in whole}) == ["host-12", "host-3"]


def test_bad_label_regex_and_unmatched_dump_are_usage_errors(tmp_path):
    copy_dump("jax_recompiles", tmp_path / "run" / "a")
    bad = run(str(tmp_path / "run"), "--scheduler", "sync", "--label", "host-(")
    assert bad.exit_code == 2
    assert "--label 'host-(' is not a regular expression" in bad.stderr
    unmatched = run(str(tmp_path / "run"), "--scheduler", "sync", "--label", r"host-(\d+)")
    assert unmatched.exit_code == 2
    assert "does not match the dump" in unmatched.stderr and len(unmatched.stderr.splitlines()) == 1


def test_missing_folder_and_folder_without_dump(tmp_path):
    missing = run(str(tmp_path / "nope"), "--scheduler", "sync")
    assert missing.exit_code == 2 and "no such folder or prefix" in missing.stderr
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README").write_text("hi")
    empty = run(str(tmp_path / "empty"), "--scheduler", "sync")
    assert empty.exit_code == 1 and "no XLA dump files found" in empty.stderr
    assert len(empty.stderr.splitlines()) == 1


# ---- output formats --------------------------------------------------------------------------


def test_json_csv_and_parquet_hold_the_same_rows(tmp_path):
    dump = str(GENERATED / "jax_recompiles")
    out = tmp_path / "metrics.parquet"
    as_json = run(dump, "--scheduler", "sync", "--json", "-o", str(out))
    assert as_json.exit_code == 0, as_json.output
    payload = json.loads(as_json.stdout)
    assert list(payload) == ["rows"]
    rows = payload["rows"]
    assert rows and all(list(r) == list(COLUMNS) for r in rows)
    assert all(r["error"] is None for r in rows)
    # parquet: read back, the same values and the fleet's dtypes.
    back = read_fleet(str(out))
    assert back.to_dict("records") == to_frame(rows).to_dict("records")
    assert [str(t) for t in back.dtypes] == [str(t) for t in to_frame(rows).dtypes]
    assert back["id"].tolist() == [r["id"] for r in rows]
    # csv: the same cells, as text.
    as_csv = run(dump, "--scheduler", "sync", "--csv")
    assert as_csv.exit_code == 0
    parsed = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert list(parsed[0]) == list(COLUMNS)
    assert [dict(r) for r in parsed] == [
        {k: "" if v is None else str(v) for k, v in r.items()} for r in rows
    ]


def test_api_returns_a_dataframe_with_fixed_dtypes():
    frame = hloscope.fleet([str(GENERATED / "jax_recompiles")], scheduler="sync")
    assert list(frame.columns) == list(COLUMNS)
    assert str(frame["kernels"].dtype) == "Int64" and str(frame["label"].dtype) == "string"
    assert frame.groupby("function")["compiles"].first().to_dict() == {
        "broadcast_in_dim": 4,
        "norm": 4,
    }


def test_json_and_csv_exclude_each_other():
    result = run(str(GENERATED / "jax_recompiles"), "--json", "--csv")
    assert result.exit_code == 2 and "exclude each other" in result.stderr


def test_table_fits_80_columns_and_escapes_names(tmp_path):
    dump = copy_dump("jax_recompiles", tmp_path / "run" / "host\x1b]0;evil\x07-with-a-long-name")
    assert dump.is_dir()
    result = CliRunner().invoke(
        cli, ["fleet", str(tmp_path / "run"), "--scheduler", "sync"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "8 modules in 1 dump" in result.stdout


# ---- failing modules -------------------------------------------------------------------------


def test_a_corrupt_module_is_an_error_row_and_exit_1(tmp_path):
    dump = copy_dump("jax_recompiles", tmp_path / "run" / "broken")
    target = next(dump.glob("module_0008.*after_optimizations.txt"))
    text = target.read_text().splitlines()
    text[3] = "  this is not an instruction ((("
    target.write_text("\n".join(text) + "\n")
    binary = next(dump.glob("module_0012.*after_optimizations.txt"))
    binary.write_bytes(b"HloModule x\n\0\0\0")
    result = run(str(tmp_path / "run"), "--scheduler", "sync", "--json")
    assert result.exit_code == 1
    rows = {r["id"]: r for r in json.loads(result.stdout)["rows"]}
    assert len(rows) == 8
    for bad in (8, 12):
        assert rows[bad]["error"] is not None
        assert all(rows[bad][c] is None for c in METRIC_COLUMNS)
    assert str(target) in rows[8]["error"] and ":4:" in rows[8]["error"]
    assert "binary data" in rows[12]["error"]
    assert all(r["error"] is None for i, r in rows.items() if i not in (8, 12))
    # The errors on stderr, one line each.
    assert result.stderr.splitlines() == [rows[8]["error"], rows[12]["error"]]
    table = run(str(tmp_path / "run"), "--scheduler", "sync")
    assert table.exit_code == 1 and "2 failed" in table.stdout


# ---- regressions -----------------------------------------------------------------------------


def baseline_and_new(tmp_path: Path) -> tuple[Path, Path]:
    """Baseline: jax_recompiles with two of norm's compiles missing; new: all four."""
    old = copy_dump("jax_recompiles", tmp_path / "old" / "model")
    for module_id in ("0012", "0018"):
        for f in old.glob(f"module_{module_id}.*"):
            f.unlink()
    new = copy_dump("jax_recompiles", tmp_path / "new" / "model")
    return old.parent, new.parent


def test_vs_pairs_by_label_and_function(tmp_path):
    old, new = baseline_and_new(tmp_path)
    base = tmp_path / "base.parquet"
    assert run(str(old), "--scheduler", "sync", "-o", str(base)).exit_code == 0
    result = run(str(new), "--scheduler", "sync", "--vs", str(base), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    pairs = {p["function"]: p for p in payload["regressions"]}
    assert set(pairs) == {"broadcast_in_dim", "norm"}
    norm = pairs["norm"]
    assert norm["label"] == "model" and norm["status"] == "changed"
    assert (norm["old"]["compiles"], norm["new"]["compiles"]) == (2, 4)
    rows = payload["rows"]
    new_norm = [r for r in rows if r["function"] == "norm"]
    old_norm = [r for r in new_norm if r["id"] in (4, 8)]
    assert norm["new"]["bytes"] == sum(r["bytes"] for r in new_norm)
    assert norm["old"]["bytes"] == sum(r["bytes"] for r in old_norm)
    assert norm["new"]["peak"] == max(r["peak_bytes"] for r in new_norm)
    expected = 100 * (norm["new"]["bytes"] - norm["old"]["bytes"]) / norm["old"]["bytes"]
    assert math.isclose(norm["percent"]["bytes"], expected)
    assert payload["failures"] == []


def test_fail_on_exits_3_past_the_threshold(tmp_path):
    old, new = baseline_and_new(tmp_path)
    base = tmp_path / "base.parquet"
    assert run(str(old), "--scheduler", "sync", "-o", str(base)).exit_code == 0
    args = [str(new), "--scheduler", "sync", "--vs", str(base)]
    failed = run(*args, "--fail-on", "bytes,peak", "--threshold", "5")
    assert failed.exit_code == 3, failed.output
    assert "regression: model norm: bytes" in failed.stdout
    assert "regression: model norm: peak" in failed.stdout
    # The same fleet within a generous threshold, and against itself, passes.
    assert run(*args, "--fail-on", "bytes,peak", "--threshold", "100000").exit_code == 0
    same = tmp_path / "same.parquet"
    assert run(str(new), "--scheduler", "sync", "-o", str(same)).exit_code == 0
    itself = run(str(new), "--scheduler", "sync", "--vs", str(same), "--fail-on", "bytes")
    assert itself.exit_code == 0 and "2 same" in itself.stdout
    # The reverse (the new run shrank) fails no check.
    shrank = run(str(old), "--scheduler", "sync", "--vs", str(same), "--fail-on", "bytes,peak")
    assert shrank.exit_code == 0


def test_fail_on_needs_vs_and_known_metrics(tmp_path):
    dump = str(GENERATED / "jax_recompiles")
    alone = run(dump, "--scheduler", "sync", "--fail-on", "bytes")
    assert alone.exit_code == 2 and "--fail-on needs --vs" in alone.stderr
    base = tmp_path / "b.parquet"
    run(dump, "--scheduler", "sync", "-o", str(base))
    unknown = run(dump, "--scheduler", "sync", "--vs", str(base), "--fail-on", "bytes,speed")
    assert unknown.exit_code == 2 and "unknown metric 'speed'" in unknown.stderr


def test_vs_a_file_that_is_not_a_fleet(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    result = run(str(GENERATED / "jax_recompiles"), "--scheduler", "sync", "--vs", str(bad))
    assert result.exit_code == 1 and "not a parquet file" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_vs_a_parquet_file_of_something_else(tmp_path):
    import pandas as pd

    other = tmp_path / "other.parquet"
    pd.DataFrame({"model": ["a"], "bytes": [1]}).to_parquet(other)
    result = run(str(GENERATED / "jax_recompiles"), "--scheduler", "sync", "--vs", str(other))
    assert result.exit_code == 1 and "not a fleet (no column label, dump" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_regressions_count_failed_modules_apart(tmp_path):
    rows = fleet_json(str(GENERATED / "jax_recompiles"))
    broken = [dict(r) for r in rows]
    for r in broken:
        if r["id"] == 8:
            r.update(dict.fromkeys(METRIC_COLUMNS), error="x: error: broken")
    result = regressions(to_frame(broken), to_frame(rows))
    norm = next(p for p in result.pairs if p.function == "norm")
    assert norm.failed == 1 and norm.new is not None and norm.old is not None
    assert norm.new["compiles"] == 3 and norm.old["compiles"] == 4


# ---- object storage (memory://) --------------------------------------------------------------


def upload_to_memory(local: Path, prefix: str) -> str:
    import fsspec

    fs = fsspec.filesystem("memory")
    for f in local.rglob("*"):
        if f.is_file():
            fs.pipe(f"{prefix}/{f.relative_to(local).as_posix()}", f.read_bytes())
    return f"memory://{prefix.lstrip('/')}"


def test_memory_url_rows_equal_local_rows(tmp_path):
    copy_dump("jax_recompiles", tmp_path / "run-9" / "host-0")
    copy_dump("jax_collectives", tmp_path / "run-9" / "host-1")
    url = upload_to_memory(tmp_path / "run-9", f"/fleet-{uuid.uuid4().hex}/run-9")
    local = fleet_json(str(tmp_path / "run-9"))
    remote = fleet_json(url)
    assert local and remote == local
    labelled = fleet_json(url + "/", "--label", r"host-(\d)")
    assert sorted({r["label"] for r in labelled}) == ["0", "1"]


def test_each_root_is_listed_once(tmp_path, monkeypatch):
    from hloscope.dump import storage

    copy_dump("jax_recompiles", tmp_path / "run" / "pod" / "host-0")
    copy_dump("jax_recompiles", tmp_path / "run" / "pod" / "host-1")
    url = upload_to_memory(tmp_path / "run", f"/fleet-{uuid.uuid4().hex}/run")
    listed: list[str] = []
    walk = storage.walk_files

    def counting_walk(location, **kwargs):
        listed.append(location)
        return walk(location, **kwargs)

    def no_listing(location):
        raise AssertionError(f"listed {location} again")

    monkeypatch.setattr(storage, "walk_files", counting_walk)
    monkeypatch.setattr(storage, "list_folder", no_listing)
    found = fleet_json(url, str(tmp_path / "run" / "pod"))
    assert listed == [url, str(tmp_path / "run" / "pod")]
    assert len({r["dump"] for r in found}) == 4 and len(found) == 32


# ---- without the dask extra ------------------------------------------------------------------


@pytest.mark.slow  # subprocesses
@pytest.mark.parametrize("scheduler", [None, "tcp://127.0.0.1:1"])
def test_without_dask_one_line_naming_the_extra(scheduler):
    prelude = "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
    args = ["fleet", str(GENERATED / "jax_recompiles")]
    if scheduler:
        args += ["--scheduler", scheduler]
    code = prelude + f"from hloscope.cli import main; sys.argv = ['hloscope', *{args!r}]; main()"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "pip install 'hloscope[dask]'" in lines[0]
    if scheduler:
        assert f"--scheduler {scheduler}" in lines[0]
    # In this process it still runs, without Dask.
    sync = subprocess.run(
        [
            sys.executable,
            "-c",
            code.replace("main()", "sys.argv += ['--scheduler', 'sync']; main()"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert sync.returncode == 0, sync.stderr
