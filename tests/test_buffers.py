"""Buffer-assignment, live-range and memory-usage reports (hloscope.dump.buffers)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hloscope.dump import DumpFormatError, load_dump
from hloscope.dump.buffers import MemorySummary, load_buffer_assignment, parse_buffer_assignment
from hloscope.dump.memory_report import load_memory_report, parse_memory_report
from hloscope.dump.report_text import parse_human_bytes


@pytest.fixture(scope="module")
def generated(corpus) -> Path:
    return corpus / "generated"


def _files(generated: Path, suffix: str) -> list[Path]:
    return sorted(generated.glob(f"*/*{suffix}"))


def _rounding(size_text: str) -> float:
    """How far a rounded size like "3.1KiB" may be from the exact bytes: half its last digit."""
    number, unit = re.match(r"([\d.]+)(\w+)", size_text).groups()
    decimals = len(number.split(".")[1]) if "." in number else 0
    return 0.5 * 10**-decimals * {"B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}[unit] + 1


# ---------------------------------------------------------------------------------------------
# Every corpus report parses, and its totals match the numbers printed in the file
# ---------------------------------------------------------------------------------------------


def test_corpus_buffer_assignments(generated):
    files = _files(generated, "-buffer-assignment.txt")
    assert len(files) >= 100
    for path in files:
        text = path.read_text()
        ba = load_buffer_assignment(path)
        assert ba.warnings == [], path
        # Counted independently of the parser: allocation headers and value lines.
        assert len(ba.allocations) == len(re.findall(r"(?m)^allocation \d+: size \d+", text))
        assert sum(len(a.values) for a in ba.allocations) == len(
            re.findall(r"(?m)^ value: <", text)
        )
        assert [a.index for a in ba.allocations] == sorted(a.index for a in ba.allocations)
        for a in ba.allocations:
            for v in a.values:
                assert v.offset >= 0 and v.offset + v.size <= a.size, (path, a.index, v.instruction)
        total = re.search(r"(?m)^Total bytes used: (\d+)", text)
        if total:  # TensorFlow's XLA keeps the total in this file
            assert ba.total_bytes == int(total.group(1)) == ba.allocated_bytes
        values_file = path.with_name(
            path.name.replace("-buffer-assignment.txt", "-buffer-assignment-values.txt")
        )
        if values_file.exists():  # newer XLA: the total is in the -values companion
            values = load_buffer_assignment(values_file)
            assert values.warnings == []
            assert values.total_bytes == ba.allocated_bytes
            assert len(values.values) == len(re.findall(r"(?m)^<\d+ ", values_file.read_text()))


def test_corpus_live_ranges(generated):
    sources = _files(generated, "-live-range.txt") + _files(generated, "-buffer-assignment.txt")
    seen = 0
    for path in sources:
        live = load_buffer_assignment(path).live_range
        if live is None:
            continue
        seen += 1
        text = path.read_text()
        stated = re.search(r"Stack trace breakdown for peak usage: ([\d ]+) bytes", text)
        assert live.peak_bytes == int(stated.group(1).replace(" ", "")) == live.breakdown_total
        assert live.max_time == int(re.search(r"HloLiveRange \(max (\d+)\)", text).group(1))
        assert len(live.sequence) == live.max_time
        assert live.peak_time == int(re.search(r"Live ranges at (\d+) \(peak\)", text).group(1))
        cumulative = 0
        for b in live.peak_buffers:
            cumulative += b.size
            assert b.cumulative == cumulative
        for start, end in live.ranges.values():
            assert 0 <= start <= end <= live.max_time
        assert live.breakdown[0].depth == 0 and live.breakdown[0].percent == 100.0
        assert live.breakdown[0].total == live.peak_bytes
    assert seen >= 100


def test_corpus_memory_reports(generated):
    files = _files(generated, "-memory-usage-report.txt")
    assert len(files) >= 100
    for path in files:
        report = load_memory_report(path)
        assert report.warnings == [], path
        ba = load_buffer_assignment(
            path.with_name(path.name.replace("-memory-usage-report", "-buffer-assignment"))
        )
        assert report.total_bytes == ba.allocated_bytes, path
        text = path.read_text()
        if text.startswith(
            "Total bytes used"
        ):  # TensorFlow's XLA: top list + per-allocation headers
            assert len(report.largest) + report.hidden_allocations == len(ba.allocations)
            assert [a.index for a in report.allocations] == [a.index for a in report.largest] + [
                a.index for a in report.allocations[len(report.largest) :]
            ]
            sizes = {a.index: a.size for a in ba.allocations}
            for a in report.allocations:  # rounded sizes in the report agree within rounding
                assert abs(a.size - sizes[a.index]) <= _rounding(a.size_text), (path, a.index)
        else:  # jaxlib's XLA: per memory space, header-less tables sorted by size
            assert [s.name for s in report.spaces] == ["default"]
            assert report.spaces[0].total_bytes == ba.allocated_bytes
            shown = report.allocations
            assert shown and len(shown) <= len(ba.allocations)
            biggest = max(a.size for a in ba.allocations)
            for a in shown:
                assert a.index is None and a.size is None
                for r in a.ranges:  # every range lies inside some allocation
                    assert r.offset + r.size <= biggest + _rounding(r.size_text)
                assert sum(r.value_count for r in a.ranges) >= 1
                assert [r.percent for r in a.ranges] == sorted(r.percent for r in a.ranges)


# What XLA printed, read with regular expressions of its lines, independently of the parser.
_HEADER = re.compile(r"(?m)^allocation (\d+): size (\d+)(.*):$")
_VALUE = re.compile(r"^ value: <(\d+) (\S+) @\d+> \(size=(\d+),offset=(\d+)\): (.+)$")
_BREAKDOWN = re.compile(r"^    (  (?:│   |    )*[├└]── )?(.+?) \(\d+\.\d%, total: ")


def _printed_allocations(text: str) -> dict[int, dict]:
    """``allocation N: size S, <flags>:`` headers and the value lines under each."""
    allocations: dict[int, dict] = {}
    for m in _HEADER.finditer(text):
        flags = m.group(3)
        parameter = re.search(r", parameter (\d+), shape \|([^|]*)\|", flags)
        output = re.search(r", output shape is \|([^|]*)\|", flags)
        body = text[m.end() :].split("\nallocation ", 1)[0]
        allocations[int(m.group(1))] = {
            "size": int(m.group(2)),
            "maybe_live_out": "maybe-live-out" in flags,
            "parameter": (int(parameter.group(1)), parameter.group(2)) if parameter else None,
            "output_shape": output.group(1) if output else None,
            "constant": ", constant" in flags,
            "thread_local": "thread-local" in flags,
            "preallocated_temp": "preallocated-temp" in flags,
            "values": [
                (int(v[1]), v[2], int(v[3]), int(v[4]), v[5])
                for v in map(_VALUE.match, body.splitlines())
                if v
            ],
        }
    return allocations


def _printed_live_range(text: str) -> dict:
    """The live-range file's max time, peak, instruction sequence, ranges and breakdown tree."""
    section = {"sequence": "  InstructionSequence:", "ranges": "  BufferLiveRange:"}
    lines = text.splitlines()
    part = None
    sequence, ranges, breakdown = [], {}, []
    for line in lines:
        part = next((k for k, v in section.items() if line == v), part)
        if line.startswith("  Live ranges at"):
            part = None
        if part == "sequence" and (m := re.fullmatch(r"    \d+:(\S+)", line)):
            sequence.append(m.group(1))
        if part == "ranges" and (m := re.fullmatch(r"    (\S+):(\d+)-(\d+)", line)):
            ranges[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        if m := _BREAKDOWN.match(line):
            # "  ├── " is one level down, each "│   " before it one more.
            breakdown.append(((len(m.group(1)) - 2) // 4 if m.group(1) else 0, m.group(2)))
    peak = re.search(r"Stack trace breakdown for peak usage: ([\d ]+) bytes", text).group(1)
    return {
        "max_time": int(re.search(r"HloLiveRange \(max (\d+)\)", text).group(1)),
        "peak_time": int(re.search(r"Live ranges at (\d+) \(peak\)", text).group(1)),
        "peak_bytes": int(peak.replace(" ", "")),
        "sequence": sequence,
        "ranges": ranges,
        "breakdown": breakdown,
    }


def _printed_values(text: str) -> dict[int, dict]:
    """``<id label @n>`` blocks of the -values file: positions, uses, from instruction."""
    values = {}
    for block in re.split(r"(?m)^(?=<\d+ )", text):
        if not (m := re.match(r"<(\d+) ", block)):
            continue
        listed = re.search(r"(?ms)^ positions:\n(.*?)^ uses:", block).group(1).splitlines()
        positions = [
            (name, tuple(int(i) for i in index.strip("{}").split(",") if i) if index else None)
            for name, _, index in (line.strip().partition(" ") for line in listed)
        ]
        uses = re.findall(r"(?m)^  (\S+), operand (\d+)", block)
        values[int(m.group(1))] = {
            "positions": positions,
            "uses": [(name, int(operand)) for name, operand in uses],
            "from_instruction": re.search(r"(?m)^ from instruction: (.*)$", block).group(1),
        }
    return values


def test_mlp_numbers(generated):
    """jit_step of jax_mlp_train: every number the parser reads equals what the files print."""
    (stem,) = (
        str(p).removesuffix("-buffer-assignment.txt")
        for p in (generated / "jax_mlp_train").glob("module_*.jit_step.*-buffer-assignment.txt")
    )
    ba = load_buffer_assignment(Path(f"{stem}-buffer-assignment.txt"))
    printed = _printed_allocations(Path(f"{stem}-buffer-assignment.txt").read_text())
    assert len(printed) > 10 and [a.index for a in ba.allocations] == list(printed)
    for a in ba.allocations:
        xla = printed[a.index]
        assert (a.size, a.maybe_live_out, a.output_shape) == (
            xla["size"],
            xla["maybe_live_out"],
            xla["output_shape"],
        ), a.index
        assert (a.parameter, a.parameter_shape) == (xla["parameter"] or (None, None)), a.index
        assert (a.constant, a.thread_local, a.preallocated_temp) == (
            xla["constant"],
            xla["thread_local"],
            xla["preallocated_temp"],
        ), a.index
        assert [(v.id, v.label, v.size, v.offset, v.shape_text) for v in a.values] == xla["values"]
        assert [v.instruction for v in a.values] == [
            label.split("{")[0] for _, label, *_ in xla["values"]
        ]
        if xla["parameter"]:
            assert a.parameter_index == () and a.kind == "parameter"
    # A training step has every kind of allocation.
    kinds = {a.kind for a in ba.allocations}
    assert {"parameter", "live-out", "output"} <= kinds
    (temp,) = (a for a in ba.allocations if a.preallocated_temp)
    assert temp.values and all(v.shape.dims for v in temp.values)
    sizes = [x["size"] for x in printed.values()]
    assert ba.allocated_bytes == sum(sizes)
    assert ba.argument_bytes == sum(x["size"] for x in printed.values() if x["parameter"])
    assert ba.temp_bytes == temp.size

    ba.merge(load_buffer_assignment(Path(f"{stem}-buffer-assignment-values.txt")))
    ba.merge(load_buffer_assignment(Path(f"{stem}-live-range.txt")))
    assert ba.total_bytes == ba.allocated_bytes
    values = _printed_values(Path(f"{stem}-buffer-assignment-values.txt").read_text())
    assert len(values) == len(ba.values) > 10
    for v in ba.values:
        xla = values[v.id]
        assert v.positions == xla["positions"], v.id
        assert [(u.instruction, u.operand) for u in v.uses] == xla["uses"], v.id
        assert v.from_instruction == xla["from_instruction"], v.id
    live, xla_live = ba.live_range, _printed_live_range(Path(f"{stem}-live-range.txt").read_text())
    assert (live.max_time, live.peak_time, live.peak_bytes) == (
        xla_live["max_time"],
        xla_live["peak_time"],
        xla_live["peak_bytes"],
    )
    assert live.sequence == xla_live["sequence"] and len(live.sequence) > 10
    assert live.ranges == xla_live["ranges"]
    assert [(b.depth, b.label) for b in live.breakdown] == xla_live["breakdown"]
    assert live.breakdown[1].label == "jit(step)/sub"  # the program's op names, under main

    report_text = Path(f"{stem}-memory-usage-report.txt").read_text()
    report = load_memory_report(Path(f"{stem}-memory-usage-report.txt"))
    assert report.total_bytes == int(re.search(r"Total bytes: (\d+)", report_text).group(1))
    assert report.total_bytes == ba.allocated_bytes
    first = report.allocations[0]
    rows = re.split(r"\n\s*\n", report_text.split("-" * 60, 1)[1], maxsplit=1)[0]
    printed_rows = [[cell.strip() for cell in row.split(";")] for row in rows.strip().splitlines()]
    assert first.index is None
    assert first.used_bytes == parse_human_bytes(printed_rows[-1][0].split("(")[0])
    assert [(r.offset, r.value_count) for r in first.ranges] == [
        (int(row[2]), int(row[3])) for row in printed_rows
    ]
    assert [r.shapes for r in first.ranges] == [
        [
            (int(n or 1), shape)
            for n, _, shape in (item.rpartition("\u00d7") for item in row[4].split(", "))
        ]
        for row in printed_rows
    ]

    # The module-level view joins all three files.
    (module,) = load_dump(generated / "jax_mlp_train").functions["step"].modules
    assert module.buffer_assignment().live_range.peak_bytes == xla_live["peak_bytes"]
    assert module.memory() == MemorySummary(
        peak_bytes=xla_live["peak_bytes"],
        peak_source="live-range",
        allocated_bytes=ba.allocated_bytes,
        argument_bytes=ba.argument_bytes,
        output_bytes=sum(x["size"] for x in printed.values() if x["maybe_live_out"]),
        alias_bytes=0,
        temp_bytes=temp.size,
    )


def _tf_report_facts(text: str) -> dict:
    """What TensorFlow's memory-usage report prints, read with regular expressions of its
    lines (independently of the parser): the total, the first row of the top list, how many
    allocations and values it hides, and the last shape of the first value row."""
    top = re.search(
        r"(?m)^ *[\d.]+\w+\( *(\d+)%\); +[\d.]+\w+; allocation (\d+): size ([\d.]+\w+), ([\w-]+):",
        text,
    )
    first_row = re.search(r"(?m)^\t *[\d.]+\w+\( *\d+%\); +[\d.]+\w+; +\d+; +\d+; (.+)$", text)
    count, _, shape = first_row.group(1).split(", ")[-1].rpartition("\u00d7")
    return {
        "total": int(re.search(r"(?m)^Total bytes used: (\d+)", text).group(1)),
        "top": (int(top.group(2)), top.group(3), top.group(4), int(top.group(1))),
        "hidden_allocations": int(re.search(r"The rest (\d+) allocations", text).group(1)),
        "hidden_values": int(re.search(r"The rest (\d+) values", text).group(1)),
        "last_shape": (int(count or 1), shape),
    }


def test_tensorflow_report_top_list(generated):
    path = next((generated / "tf_keras_resnet50").glob("*-memory-usage-report.txt"))
    report = load_memory_report(path)
    facts = _tf_report_facts(path.read_text())
    assert report.total_bytes == facts["total"]
    top = report.largest[0]
    assert (top.index, top.size_text, top.flags, top.percent) == facts["top"]
    assert top.flags == "preallocated-temp"  # the model's activations top the list
    assert report.hidden_allocations == facts["hidden_allocations"] > 0
    temp = report.allocations[0]
    assert temp.index == top.index and temp.hidden_values == facts["hidden_values"] > 0
    assert temp.ranges[0].shapes[-1] == facts["last_shape"]
    rows = report.largest_rows()
    assert rows[0]["allocation"] == top.index
    assert rows[0]["size"] == parse_human_bytes(top.size_text)


# ---------------------------------------------------------------------------------------------
# XLA as the oracle: jax's memory_analysis() against the dumped buffer assignment
# ---------------------------------------------------------------------------------------------

_ORACLE_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    os.environ["XLA_FLAGS"] = "--xla_dump_to=" + sys.argv[1]
    import jax, jax.numpy as jnp

    def step(w, x):
        h = jnp.tanh(x @ w)
        return w - 0.1 * (x.T @ h), h.sum()

    compiled = jax.jit(step, donate_argnums=0).lower(jnp.ones((64, 128)), \
jnp.ones((32, 64))).compile()
    m = compiled.memory_analysis()
    print(json.dumps({k: getattr(m, k) for k in
                      ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", \
"temp_size_in_bytes")}))
    """
)


@pytest.mark.slow
def test_memory_numbers_match_jax_memory_analysis(tmp_path):
    dump = tmp_path / "dump"
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run(
        [sys.executable, "-c", _ORACLE_SCRIPT, str(dump)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    index = load_dump(dump)
    (module,) = index.functions["step"].modules
    memory = module.memory()
    assert memory.argument_bytes == stats["argument_size_in_bytes"]
    assert memory.output_bytes == stats["output_size_in_bytes"]
    assert memory.alias_bytes == stats["alias_size_in_bytes"] > 0  # w was donated and reused
    assert memory.temp_bytes == stats["temp_size_in_bytes"]
    assert module.memory_report().total_bytes == memory.allocated_bytes


# ---------------------------------------------------------------------------------------------
# Tolerance: truncated, foreign and binary files
# ---------------------------------------------------------------------------------------------


def test_truncated_buffer_assignment_keeps_what_it_read(generated, tmp_path):
    (step_file,) = (generated / "jax_mlp_train").glob("module_*.jit_step.*-buffer-assignment.txt")
    source = step_file.read_text()
    middle = source.index("\n value: <", len(source) // 2)
    cut = source[: middle + 12]  # end in the middle of a value line
    path = tmp_path / "module_0018.jit_step.cpu_after_optimizations-buffer-assignment.txt"
    path.write_text(cut)
    ba = load_buffer_assignment(path)
    full = parse_buffer_assignment(source)
    assert 0 < len(ba.allocations) < len(full.allocations)
    assert [a.index for a in ba.allocations] == [
        a.index for a in full.allocations[: len(ba.allocations)]
    ]
    # The half line is reported, and so is the allocation it leaves without values.
    assert len(ba.warnings) == 2
    half_line = cut.rsplit("\n", 1)[1].strip()  # "value: <" and two digits of the value's id
    assert re.match(
        rf"{re.escape(str(path))}:\d+: warning: unexpected line: {re.escape(repr(half_line))}",
        ba.warnings[0],
    )
    assert ba.warnings[1].endswith(
        f"allocation {ba.allocations[-1].index} lists no values (truncated file?)"
    )
    # Cut at a line end right after an allocation header: the empty allocation is the clue.
    header_end = source.index("\n", source.index("\nallocation 9:") + 1) + 1
    ba = parse_buffer_assignment(source[:header_end], "ba.txt")
    assert ba.allocations[-1].index == 9 and ba.allocations[-1].values == []
    assert ba.warnings == [
        f"ba.txt:{ba.allocations[-1].line}: warning: allocation 9 lists no values (truncated file?)"
    ]


def test_truncated_memory_report_and_live_range(generated):
    text = next((generated / "tf_keras_resnet50").glob("*-memory-usage-report.txt")).read_text()
    report = parse_memory_report(text[: len(text) // 3], "r.txt")
    assert report.total_bytes == _tf_report_facts(text)["total"] and report.largest
    assert all(w.startswith("r.txt:") for w in report.warnings)
    (live_file,) = (generated / "jax_mlp_train").glob("module_*.jit_step.*-live-range.txt")
    live_text = live_file.read_text()
    live = parse_buffer_assignment(live_text[:400]).live_range
    assert live is not None and live.sequence and live.peak_bytes is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
        "just some words\nallocation banana\n value: <oops>\n",
        "\n".join(f"line {i}" for i in range(500)),  # warnings are capped
    ],
)
def test_foreign_text_gives_warnings_not_exceptions(text):
    ba = parse_buffer_assignment(text, "f.txt")
    assert ba.allocations == [] and ba.live_range is None
    assert ba.warnings and len(ba.warnings) <= 51
    report = parse_memory_report(text, "f.txt")
    assert report.total_bytes is None and report.warnings
    assert MemorySummary.of(ba, report) == MemorySummary()


def test_binary_and_undecodable_files_raise_dump_format_error(tmp_path):
    binary = tmp_path / "b-buffer-assignment.txt"
    binary.write_bytes(b"allocation 0: size 4\n\x00\x01\x02")
    with pytest.raises(DumpFormatError) as info:
        load_buffer_assignment(binary)
    assert info.value.one_line() == f"{binary}:2: error: binary data, not a text dump"
    latin = tmp_path / "r-memory-usage-report.txt"
    latin.write_bytes(b"Total bytes used: 4 (4B)\n\xff\xfe\n")
    with pytest.raises(DumpFormatError, match=r":2: error: bytes that are not UTF-8"):
        load_memory_report(latin)
    with pytest.raises(DumpFormatError, match="no such file"):
        load_memory_report(tmp_path / "missing.txt")


def test_unknown_allocation_flags_are_kept():
    ba = parse_buffer_assignment(
        "allocation 3: size 64, color 1, parameter 0, shape |(f32[2], s32[])| at ShapeIndex {1}, "
        "maybe-live-out, shiny-new-flag:\n"
        " value: <7 p{1} (phi) @1> (size=4,offset=8): s32[]\n"
    )
    (a,) = ba.allocations
    assert (a.color, a.parameter, a.parameter_shape, a.parameter_index) == (
        1,
        0,
        "(f32[2], s32[])",
        (1,),
    )
    assert a.maybe_live_out and a.other_flags == ["shiny-new-flag"]
    (v,) = a.values
    assert (v.index, v.is_phi, v.color, v.offset, v.label) == ((1,), True, 1, 8, "p{1}")
    assert ba.warnings == []
    row = ba.value_rows()[0]
    assert row["allocation"] == 3 and row["phi"] is True
    assert ba.allocation_rows()[0]["kind"] == "parameter"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("4B", 4),
        ("40B", 40),
        ("1.0KiB", 1024),
        ("1.2KiB", 1229),
        ("30.72MiB", 32212255),
        ("2GiB", 2 << 30),
        ("n/a", None),
        ("", None),
    ],
)
def test_human_bytes(text, expected):
    assert parse_human_bytes(text) == expected
