"""Target: the one rule for "the main module", --module on every command, one error type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import hloscope
from hloscope.capture.target import Target, TargetError
from hloscope.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "hlo"


def _recompiles(corpus: Path) -> Path:
    return corpus / "generated" / "jax_recompiles"


def _after_sizes(folder: Path) -> dict[int, tuple[str, int]]:
    """Module id -> (name, size of its after-optimizations text), read straight off the disk."""
    sizes = {}
    for path in folder.glob("module_*.cpu_after_optimizations.txt"):
        module_id = int(path.name.split(".")[0].removeprefix("module_"))
        sizes[module_id] = (path.name.split(".")[1], path.stat().st_size)
    return sizes


def test_default_is_the_largest_module_with_a_note(corpus):
    folder = _recompiles(corpus)
    sizes = _after_sizes(folder)
    choice = Target.resolve(folder).choose_module()
    largest_id = max(sizes, key=lambda i: sizes[i][1])
    assert choice.rule == "largest" and choice.total == len(sizes)
    expected = hloscope.parse(
        next(folder.glob(f"module_{largest_id:04d}.*cpu_after_optimizations.txt"))
    )
    assert choice.module.to_text() == expected.to_text()
    assert choice.note is not None
    assert choice.module.name in choice.note and f"of {len(sizes)} modules" in choice.note


def test_module_by_name_id_and_part_of_a_name(corpus):
    folder = _recompiles(corpus)
    sizes = _after_sizes(folder)
    target = Target.resolve(folder)
    norms = {i: s for i, (n, s) in sizes.items() if n == "jit_norm"}
    assert len(norms) == 4
    by_name = target.choose_module(name="jit_norm")
    assert by_name.rule == "named" and by_name.note is None and by_name.module.name == "jit_norm"
    smallest = min(norms, key=norms.get)
    by_id = target.main_module(name=str(smallest))
    expected = hloscope.parse(
        next(folder.glob(f"module_{smallest:04d}.*cpu_after_optimizations.txt"))
    )
    assert by_id.to_text() == expected.to_text()
    assert target.main_module(name="broadcast").name == "jit_broadcast_in_dim"
    with pytest.raises(
        TargetError, match=r"no module named 'nothing' \(modules: jit_broadcast_in_dim, jit_norm\)"
    ):
        target.main_module(name="nothing")


def test_one_module_file_needs_no_note():
    choice = Target.resolve(SAMPLES / "keras_cnn.after_optimizations.txt").choose_module()
    assert choice.rule == "only" and choice.note is None


def test_several_modules_in_one_text_file(tmp_path):
    text = (SAMPLES / "fusion_refactor_fused.after_optimizations.txt").read_text()
    other = (SAMPLES / "transformer_train.after_optimizations.txt").read_text()
    both = tmp_path / "both.txt"
    both.write_text(text + "\n" + other)
    target = Target.resolve(both)
    assert len(target.modules()) == 2
    assert target.main_module().name == hloscope.parse(other).name  # the bigger one
    assert target.main_module(name="0").name == hloscope.parse(text).name  # ids count from 0


@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_target_is_an_error(spec):
    with pytest.raises(TargetError, match="empty TARGET"):
        Target.resolve(spec)
    result = CliRunner().invoke(cli, ["fusions", spec])
    assert result.exit_code == 2 and "empty TARGET" in result.output


def test_top_level_functions_take_modules_and_targets():
    path = SAMPLES / "fusion_refactor_fused.after_optimizations.txt"
    module = hloscope.parse(path)
    from_path = hloscope.fusions(path)
    from_module = hloscope.fusions(module)
    assert from_path.equals(from_module) and len(from_path) > 0
    assert (
        hloscope.diff(path, str(path)).to_dict()["counts"]
        == hloscope.diff(module, module).to_dict()["counts"]
    )
    with pytest.raises(TypeError, match="TARGET string"):
        hloscope.fusions(42)


def _json(args: list[str]) -> tuple[dict | list, str]:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def test_fusions_reads_the_main_module_and_names_it(corpus):
    folder = _recompiles(corpus)
    payload, err = _json(["fusions", "--json", str(folder)])
    main = Target.resolve(folder).main_module()
    assert payload["module"] == main.name
    assert payload["summary"]["kernel_count"] == hloscope.fusion_report(main).summary.kernel_count
    assert "hloscope: note: module" in err
    named, err = _json(["fusions", "--json", "--module", "jit_broadcast_in_dim", str(folder)])
    assert named["module"] == "jit_broadcast_in_dim" and "note" not in err


def test_module_option_on_summary_graph_and_diff(corpus, tmp_path):
    folder = str(_recompiles(corpus))
    (info,), _ = _json(["summary", "--json", "--module", "jit_broadcast_in_dim", folder])
    assert info["module"] == info["name"] == "jit_broadcast_in_dim"
    out = tmp_path / "g.dot"
    result = CliRunner().invoke(cli, ["graph", folder, "--module", "jit_norm", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "in jit_norm" in result.stderr and "digraph hlo {" in out.read_text()
    payload, _ = _json(["diff", "--json", "--module", "jit_norm", folder, folder])
    assert payload["module"] == {"a": "jit_norm", "b": "jit_norm"}
    missing = CliRunner().invoke(cli, ["fusions", "--module", "nothing", folder])
    assert missing.exit_code == 2
    assert (
        missing.stderr.startswith("hloscope: error: ")
        and "no module named 'nothing'" in missing.stderr
    )


def test_all_modules_on_fusions_summary_graph_and_diff(corpus, tmp_path):
    folder = _recompiles(corpus)
    modules = Target.resolve(folder).modules()
    names = [m.name for m in modules]
    payload, err = _json(["fusions", "--json", "--all-modules", str(folder)])
    assert [p["module"] for p in payload["modules"]] == names and "note" not in err
    for part, module in zip(payload["modules"], modules):
        assert (
            part["summary"]["kernel_count"] == hloscope.fusion_report(module).summary.kernel_count
        )
    text = CliRunner().invoke(cli, ["fusions", "--all-modules", str(folder)]).stdout
    assert text.count("module jit_norm") == names.count("jit_norm")
    infos, _ = _json(["summary", "--json", "--all-modules", str(folder)])
    assert [i["module"] for i in infos] == names
    result = CliRunner().invoke(
        cli, ["graph", "--all-modules", str(folder), "-o", str(tmp_path / "g.dot")]
    )
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in tmp_path.glob("g.*.dot"))
    assert len(written) == len(names) and "g.0.jit_broadcast_in_dim.dot" in written
    compared, _ = _json(["diff", "--json", "--all-modules", str(folder), str(folder)])
    assert [p["module"]["a"] for p in compared["modules"]] == names and compared["unpaired"] == []
    assert all(
        p["counts"]["unchanged"] == p["a"]["kernels"] and p["no_change"]
        for p in compared["modules"]
    )
    both = CliRunner().invoke(cli, ["fusions", "--all-modules", "--module", "x", str(folder)])
    assert both.exit_code == 2 and "exclude each other" in both.stderr


def _damaged_copy(corpus: Path, tmp_path: Path, largest: bool) -> tuple[Path, Path]:
    """jax_recompiles with one after-optimizations text broken in place (same size, so the
    largest stays the largest)."""
    import shutil

    folder = tmp_path / "dump"
    shutil.copytree(_recompiles(corpus), folder)
    texts = sorted(
        folder.glob("module_*.cpu_after_optimizations.txt"), key=lambda p: p.stat().st_size
    )
    victim = texts[-1] if largest else texts[0]
    text = victim.read_text()
    assert "ROOT " in text
    victim.write_text(text.replace("ROOT ", "RO)T ", 1))
    return folder, victim


@pytest.mark.parametrize("largest", [True, False], ids=["largest-bad", "small-bad"])
def test_a_bad_file_in_a_dump_is_left_out_with_a_warning(corpus, tmp_path, largest):
    folder, victim = _damaged_copy(corpus, tmp_path, largest)
    result = CliRunner().invoke(cli, ["fusions", "--json", str(folder)])
    assert result.exit_code == (1 if largest else 0), result.output  # read only when needed
    payload = json.loads(result.stdout)  # the report of a readable module still came out
    assert payload["module"] and payload["rows"]
    readable = [p for p in folder.glob("module_*.cpu_after_optimizations.txt") if p != victim]
    best = max(readable, key=lambda p: p.stat().st_size)
    assert payload["summary"]["kernel_count"] == (
        hloscope.fusion_report(hloscope.parse(best)).summary.kernel_count
    )
    bad_lines = [line for line in result.stderr.splitlines() if str(victim) in line]
    if largest:
        assert len(bad_lines) == 1 and bad_lines[0].startswith(f"{victim}:")
        assert bad_lines[0].endswith("(left out)")
    every = CliRunner().invoke(cli, ["summary", "--json", "--all-modules", str(folder)])
    assert every.exit_code == 1
    names = [info["module"] for info in json.loads(every.stdout)]
    assert len(names) == len(list(folder.glob("module_*.cpu_after_optimizations.txt"))) - 1
    assert any(str(victim) in line and "error" in line for line in every.stderr.splitlines())


def test_a_script_that_compiles_nothing_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "plain.py"
    script.write_text("print('no jax here')\n")
    result = CliRunner().invoke(cli, ["fusions", str(script)])
    assert result.exit_code == 1
    assert "compiled nothing with XLA (it never imported jax or tensorflow)" in result.stderr


def test_symbolic_link_loops_and_broken_links_say_so(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "broken").symlink_to(tmp_path / "nothing")
    loop = CliRunner().invoke(cli, ["fusions", str(tmp_path / "a")])
    assert loop.exit_code == 2 and "a symbolic link loop" in loop.stderr
    broken = CliRunner().invoke(cli, ["summary", str(tmp_path / "broken")])
    assert broken.exit_code == 2 and "a broken symbolic link" in broken.stderr


def test_a_dumped_module_without_a_name_is_listed_by_its_id(tmp_path):
    # XLA leaves the module name out of a file name that would pass 255 characters.
    text = (SAMPLES / "fusion_refactor_fused.after_optimizations.txt").read_text()
    (tmp_path / "module_0001.jit_f.cpu_after_optimizations.txt").write_text(text)
    (tmp_path / "module_0002.cpu_after_optimizations.txt").write_text(text)
    target = Target.resolve(tmp_path)
    with pytest.raises(TargetError, match=r"modules: #2, jit_f\)"):
        target.choose_module(name="nothing like it")
    assert target.choose_module(name="#2").rule == "named"


def test_an_hlo_file_is_parsed_once_however_often_its_modules_are_asked_for(monkeypatch):
    import hloscope.hlo.parser as parser

    calls = []
    real = parser.parse_modules

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(parser, "parse_modules", counting)
    target = Target.resolve(str(SAMPLES / "fusion_refactor_fused.after_optimizations.txt"))
    first = target.main_module("after")
    assert target.modules("after") == [first]
    assert target.choose_module("after").module is first
    assert len(calls) == 1


def test_a_dump_folder_is_indexed_and_its_main_module_parsed_once(monkeypatch):
    import hloscope.dump.index as index

    listed = []
    real = index.load_dump
    monkeypatch.setattr(index, "load_dump", lambda where: listed.append(where) or real(where))
    target = Target.resolve(str(ROOT / "tests" / "data" / "generated" / "jax_mlp_train"))
    first = target.main_module("after")
    assert target.choose_module("after").module is first
    assert first in target.modules("after")
    assert len(listed) == 1
