"""Reads that skip decoding give the decoded answer: source locations counted over a whole
body, a fusion's kind, the one computation an op calls, and the summary of a module whose
bodies were never built. Each is compared with the full decoder on the samples and the corpus,
and on hand-made texts where the quick read must step aside."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import SAMPLES, corpus_path
from corpus_files import module_files

import hloscope
from hloscope.analysis.summary import summarize
from hloscope.hlo.model import _single_called_name, quick_location_counts


def _modules(path):
    try:
        return hloscope.parse_modules(path)
    except hloscope.HloParseError:
        return []


def _files():
    return sorted((SAMPLES / "hlo").glob("*.txt"))


def _decoded_location(inst):
    md = inst.metadata  # the full decoder
    return (md.stack_frame_id, md.source_file, md.source_line)


def _check_module(module) -> int:
    checked = 0
    for comp in module.computations:
        texts = [i._attr_text for i in comp.instructions]
        quick = quick_location_counts(texts)
        if quick is not None:
            assert quick == Counter(map(_decoded_location, comp.instructions)), comp.name
            checked += 1
        for inst in comp.instructions:
            if inst.opcode == "fusion":
                quick_kind = inst.fusion_kind
                inst._attrs = None
                assert quick_kind == inst.attrs.get("kind"), inst.name
            callee = _single_called_name(inst._attr_text) if inst._attr_text else None
            if callee is not None:
                inst._called = None
                names = [c.name for c in inst._resolve_called()]
                inst._attrs = None
                assert names == [callee], inst.name
    return checked


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_quick_reads_equal_the_decoder_on_samples(path):
    assert sum(_check_module(m) for m in _modules(path)) > 0


def test_quick_reads_equal_the_decoder_on_the_corpus():
    corpus_path()  # skips without ../shared, fails under CI=true
    checked = sum(_check_module(m) for path in module_files() for m in _modules(path))
    assert checked > 100


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_the_summary_of_unbuilt_bodies_is_the_built_one(path):
    for lazy, built in zip(_modules(path), _modules(path)):
        for comp in built.computations:
            comp.instructions  # noqa: B018 - every body built first
        assert summarize(lazy) == summarize(built)


@pytest.mark.parametrize(
    "texts",
    [
        ['metadata={op_name="a" stack_frame_id=3 stack_frame_id=4}'],  # two on one line
        ["stack_frame_id=3, dimensions={0}"],  # outside any metadata
        ['metadata={op_name="a" xstack_frame_id=3}'],  # not after ' ' or '{'
        ['metadata={op_name="a" stack_frame_id=}'],  # no digits
        ['metadata={op_name="a" source_file="f.py" source_line=3}'],  # a file: one by one
    ],
)
def test_the_counted_read_steps_aside_where_it_could_differ(texts):
    assert quick_location_counts(texts) is None


def test_the_counted_read_counts_frames_and_ops_without_metadata():
    texts = [
        'metadata={op_name="a" stack_frame_id=3}',
        "metadata={stack_frame_id=3}",
        'metadata={op_name="b" stack_frame_id=7}',
        "dimensions={0}",
        "",
    ]
    assert quick_location_counts(texts) == {(3, "", 0): 2, (7, "", 0): 1, (0, "", 0): 2}


@pytest.mark.parametrize(
    "text",
    [
        'metadata={op_name="calls=f"}, calls=g',  # a string before it
        "backend_config={a=1, calls=f, b=2}",  # inside braces
        "condition=c, body=b",  # two callees
        'calls=f, metadata={op_name="to_apply=g"}',  # the word again, in a string
        "calls=f, frontend_attributes={xto_apply=g}",  # inside another word (counted alike)
    ],
)
def test_the_single_callee_read_steps_aside(text):
    assert _single_called_name(text) is None


def test_the_single_callee_read_finds_the_plain_form():
    assert _single_called_name("kind=kLoop, calls=%fused_computation.3") == "fused_computation.3"
    assert _single_called_name("dimensions={0}, to_apply=add, metadata={}") == "add"


def test_the_summary_builds_only_what_holds_fusions_or_custom_calls():
    module = hloscope.parse(SAMPLES / "hlo" / "transformer_train.after_optimizations.txt")
    summarize(module)
    built = [c for c in module.computations if c._body is None]
    unbuilt = [c for c in module.computations if c._body is not None]
    assert unbuilt and len(built) < len(module.computations) // 4
    assert all({"fusion", "custom-call"} & set(c.opcodes()) or c is module.entry for c in built)
    comp = unbuilt[0]
    comp.location_counts()
    assert comp._body is not None  # counted from the text
