"""explain-error scored against real logs users pasted into public threads.

``tests/data/error_logs/`` holds one ``NAME.log`` per log (the text as the user pasted it,
trimmed to the error) and a ``NAME.json`` beside it: the thread's URL, the ``split``, the
truth the thread established -- ``kind`` (the family), ``device``, ``op`` (the failing op or
buffer), ``user_line`` (the line to fix) and ``advice`` (the kind of fix that worked); ``null``
where the log or the thread does not say -- and, for the date-split corpus, the thread's
``date`` (see :mod:`explain_error_scoring` for the two corpora and the scores).

The test prints the scores (``pytest -s``) and asserts the floors reached, so a recogniser
that regresses fails it. Run: ``python -m pytest -q -s tests/test_explain_error_corpus.py``;
the per-family table: ``python tests/explain_error_scoring.py``.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.explain_error_scoring import (
    DEV20,
    DEV21,
    FIRST_TEST,
    FRESH2_TEST,
    FRESH3_TEST,
    FRESH4_TEST,
    FRESH5_TEST,
    FRESH6_TEST,
    FRESH7_TEST,
    FRESH8_TEST,
    FRESH9_TEST,
    FRESH10_TEST,
    FRESH11_TEST,
    FRESH12_TEST,
    FRESH13_TEST,
    FRESH14_TEST,
    FRESH15_TEST,
    FRESH16_TEST,
    FRESH17_TEST,
    FRESH_TEST,
    SEALED_PARTS,
    TRUTH_KEYS,
    Case,
    cases,
    family_table,
    line,
    tally,
)

# The floors reached (right, of the logs scored); raise them as recognisers improve. The
# date-split corpus's test part: its first 37 logs (threads of 2024-12-26 to 2026-05-05, truths
# committed before any scoring run) scored 25/37 and 22/37 blind; their families were then
# named and rules written from other, older threads (dev): 34/37 and 30/37. Then 46 fresh logs
# (threads of 2024-11-19 to 2026-09-23, taken blind by generic searches, truths committed
# before anyone ran explain-error on them, never read to write a rule): 21/46 and 17/46 at
# their first scoring, the honest measure of logs never seen (issue 35 asks 0.90 and 0.75).
# Then a second fresh part, 45 logs (threads of 2024-11-19 to 2026-08-26, collected blind while
# the second round of rules was written from older threads): 27/45 and 18/45 at its first
# scoring (the first fresh part, not read since, moved to 22/46 and 17/46). A third fresh part,
# 30 logs (threads of 2024-12-23 to 2026-09-16, collected blind during the third round of rules):
# 16/30 and 10/30 at its first scoring. A fourth, 37 logs (threads of 2024-11-22 to 2026-09-15,
# collected blind while rounds 4 and 5 learnt from the three spent parts): 19/37 and 12/37.
# The floors guard what was measured; no rule may be written for a test log to raise them.
FLOORS = {
    # Measured after the recognisers keyed on stable tokens (49/49 and 48/49, 24/24 and
    # 24/24; the date corpus's dev part 55/55 and 54/55).
    ("first", "dev", None): {"recognised": 1.00, "fully_right": 0.97},
    ("first", "heldout", None): {"recognised": 1.00, "fully_right": 1.00},
    # The date corpus's dev part after the structural user line and the crash, Pallas and
    # explicit-sharding families (issue 35, second round): 61/61 and 60/61.
    # With the twentieth dev batch (38 logs of 2023-2026 threads, the half of the fifteenth
    # pool drawn at random by a hash of the URL; the other half is the sealed fresh15 part),
    # before any rule read it (at bf5d4ab): 141/150 and 128/150 (the floor moves down by
    # what the batch adds, not by a loss). With the twenty-first (33 logs, the dev half of the
    # sixteenth pool) at its first sight (34b743d; round 20 had read dev20): 170/183 and
    # 151/183.
    ("date", "dev", None): {"recognised": 0.95, "fully_right": 0.85},
    # The dev batches alone at their first sight: 29/38 (76%) and 17/38 (45%); 22/33 (67%)
    # and 14/33 (42%).
    ("date", "dev", DEV20): {"recognised": 0.94, "fully_right": 0.68},
    ("date", "dev", DEV21): {"recognised": 0.81, "fully_right": 0.60},
    # Round 12 (the eighth and ninth parts read; tuned on since 3b03119): 367/404 and 299/404;
    # with the tenth part, spent after its blind scoring (2fbc900) and not yet read: 389/441
    # and 310/441; round 13 (the tenth part read; tuned on since 8af8fb6): 394/441 and 315/441;
    # round 14 (14a's rules and 14b's module that raised): 408/441 and 319/441. With the
    # eleventh part, spent after its blind scoring (35/47 and 25/47 at d54bbf8) and not yet
    # read: 443/488 and 344/488 (the floor moves down by what a blind part adds, not by a loss);
    # round 15 (the eleventh part read): 452/488 and 357/488; with the twelfth, spent after its
    # blind scoring (41/52 and 23/52 at 2f8a9cc) and not yet read: 496/540 and 380/540; round 16
    # (the twelfth part read): 503/540 and 400/540; round 17 (threads before 2023) and the
    # words refitted with the thirteenth: 502/540 and 403/540. With the thirteenth, spent
    # after its blind scoring (32/49 and 20/49) and not yet read: 535/589 and 423/589. Round 18
    # (the thirteenth read) and the fourteenth, spent after its blind scoring (32/41 and 24/41
    # at 847b039), words refitted: 579/630 (92%) and 462/630 (73%); round 19 (the fourteenth
    # read): 582/630 and 466/630. Round 20, a library's failed import filed as jax_call (ten
    # older truths harmonised), and the fifteenth and sixteenth parts spent after their blind
    # scoring, words refitted: 651/698 (93%) and 513/698 (73%); round 21: 658/698 and 523/698.
    # With the seventeenth, spent after its blind scoring (30/51 and 14/51 at 878f92e) and not
    # read by any rule, words refitted: 690/749 (92%) and 537/749 (72%); the structural
    # rules read from its misses (a size a user replaced, a class's own name, an object
    # lacking a name at an installed package's import): 696/749 and 540/749.
    ("date", "test", None): {"recognised": 0.92, "fully_right": 0.72},
    # After round 5's field and family rules (tuned on since 5f1c0dd): 37/37 and 34/37; round 7
    # (a platform given as a value, tuned on since f113984): 35/37 fully right; the op named on
    # a line the message wrapped onto: 36/37.
    ("date", "test", FIRST_TEST): {"recognised": 1.00, "fully_right": 0.97},
    # The three fresh parts, spent, then read to learn causes from (round 4): tuned on since
    # 619dfa6, so no longer blind measures: 28/46 and 20/46, 37/45 and 26/45, 20/30 and 13/30;
    # round 5 (the user's line, the op, the listed wordings; tuned on since 5f1c0dd): 35/46 and
    # 26/46, 38/45 and 28/45, 21/30 and 15/30; round 6 (from fresh4): fresh2 29/45 fully right;
    # round 7 (the fields' structure, tuned on since f113984): fresh2 30/45 fully right;
    # round 8 (from fresh5; tuned on since 1102b09): fresh 37/46 and 28/46, fresh3 22/30 and
    # 16/30.
    # The family read from the words where no recogniser reads (issue 35; its table fitted on
    # every unsealed log, these included, so in-sample here): fresh2 39/45 and 31/45, fresh3
    # 23/30 and 17/30, fresh4 34/37 recognised.
    # Round 12 (tuned on since 3b03119): fresh 41/46 and 33/46, fresh2 43/45 and 35/45,
    # fresh3 28/30 and 21/30. Round 14: fresh 43/46 recognised.
    ("date", "test", FRESH_TEST): {"recognised": 0.93, "fully_right": 0.73},
    ("date", "test", FRESH2_TEST): {"recognised": 0.95, "fully_right": 0.77},
    ("date", "test", FRESH3_TEST): {"recognised": 0.93, "fully_right": 0.70},
    # The fourth fresh part, blind at its first scoring (after round 5): 19/37 and 12/37; then
    # spent and read (round 6: other frontends' and runtimes' words, the TPU's on-device
    # checks, CUDA graphs, LLVM, the op of checks and custom calls, the user's line past a
    # library or a probe; tuned on since e28cae4): 33/37 and 27/37; round 12 (tuned on since
    # 3b03119): 35/37 and 29/37.
    ("date", "test", FRESH4_TEST): {"recognised": 0.94, "fully_right": 0.78},
    # The fifth fresh part, blind: 16/33 and 13/33 before round 7 and after it (its rules of
    # the fields' structure moved nothing here); then spent and read (round 8: a framework's
    # compiled code the loader refused, tracers in other libraries' code, Mosaic's and
    # Triton's kernel words, an import-time API mismatch, serialization versions, Shardy's
    # ops, an editor's links; tuned on since 1102b09): 30/33 and 28/33. Round 12: 29/33 and
    # 28/33 -- the words table refitted with the eighth and ninth parts no longer answers
    # tpuinf_3399's bare 'ioctl failed' (bee1f69), and diffrax_659's jax-metal 'UNIMPLEMENTED:
    # default_memory_space is not supported' is read as the start-up, as the first fresh
    # part's truth files the same message (this part's truth says xla_status; 0b61439); and
    # equinox_1166's device, null in its truth, is now read as the GPU its autotuner's words
    # name (6a39a41): 27/33 fully right. Round 14: 31/33 and 28/33. The words table refitted
    # with the eleventh part: tpuinf_3399's bare 'ioctl failed' again below the threshold (it
    # was read from words at 0.75, as in round 12): 30/33 and 28/33.
    ("date", "test", FRESH5_TEST): {"recognised": 0.96, "fully_right": 0.87},
    # The sixth fresh part (forums, blogs and new repositories), blind: 19/44 and 9/44 before
    # the words (82d0e50), 21/44 and 9/44 after them (8fcc0fe); spent since, and read (round
    # 9: messages no reader knew -- StableHLO ops another compiler cannot legalize, LLVM not
    # knowing the GPU, JAX waiting for the TPU hosts, TF's constants and element types, a
    # wrapped function's keywords, an IPython header, a flattened traceback -- devices named
    # indirectly or only as options, the program over the limit rematerialization reported;
    # tuned on since c6f185b): 37/44 and 22/44; round 10 (an app's own copy of a library
    # importing a removed JAX name, met at import): 38/44 and 22/44; round 12 (tuned on since
    # 3b03119): 38/44 and 24/44.
    ("date", "test", FRESH6_TEST): {"recognised": 0.90, "fully_right": 0.61},
    # The seventh fresh part (36 repositories new to the corpus), blind at 4b96a0f: 30/45 and
    # 19/45; spent since, and read (round 11, its families and advice: a CUDA error before
    # cuDNN's handle, a constant the GPU could not load, XLA:CPU's host out of memory, Mosaic's
    # pass pipeline, a mesh of more devices than there are, libdevice, the distributed runtime
    # never joined, JAX's deprecation module and internal classes, keywords pasted alone,
    # XlaCallModule's platforms, Triton's dot tile, IPython's header; and its fields: devices,
    # ops, user lines; tuned on since d9c5ab6): 41/45 and 36/45; round 12 (tuned on since
    # 3b03119): 41/45 and 38/45; round 14: 42/45 and 39/45.
    ("date", "test", FRESH7_TEST): {"recognised": 0.93, "fully_right": 0.86},
    # The eighth fresh part (45 logs), blind at 49e4466: 34/45 and 22/45; spent since, and read
    # (round 12: a remat warning alone and a failed request with XLA's buffer report, a gdb
    # backtrace in XLA's pass, Flax's TraceContextError, XlaCallModule's version in the
    # kernel's words, JAX's compile log tracing one function twice, a mesh reshaped by hand
    # from the device list, a TPU core's HBM full; tuned on since 3b03119): 41/45 and 31/45.
    ("date", "test", FRESH8_TEST): {"recognised": 0.95, "fully_right": 0.75},
    # The ninth fresh part (42 logs), blind at f923796: 21/42 and 15/42; spent since, and read
    # by round 12 (a library's import of a removed JAX name in notebooks, pytest's collection
    # and with no frames; a JAX module gone) and round 12b: 34/42 and 25/42; round 14: 37/42
    # and 26/42; round 15 (Intel XPU as a GPU): 27/42 fully right.
    ("date", "test", FRESH9_TEST): {"recognised": 0.90, "fully_right": 0.66},
    # The tenth fresh part (37 logs), blind at 9f6269b after round 12: 21/37 and 11/37; spent
    # since (2fbc900); the words table refitted with it (its first sight: 9f6269b's
    # recognisers alone, 19/37): 22/37 and 11/37; read by round 13 (GPU device reprs, a
    # backtrace pasted from a middle frame, warnings on any line, shape polymorphism's
    # inconclusive comparison, a peak-buffer list pasted alone, Pallas without its backend,
    # no PTX compiler, TF's string inputs, TF's kernel registry's op, a mesh axis used twice;
    # tuned on since 8af8fb6): 27/37 and 16/37. Round 14 (shard_map's closing advice, a
    # custom_partitioning rule that raised, PyTorch/XLA's device set-up, the module that
    # raised): 33/37 and 17/37.
    ("date", "test", FRESH10_TEST): {"recognised": 0.94, "fully_right": 0.56},
    # The eleventh fresh part (47 logs), blind at d54bbf8 after round 14 and the words read
    # from a traceback's last lines: 35/47 and 25/47; spent since; the words table refitted
    # with it: 40/47 and 29/47; read by round 15 (compiler asserts and LLVM's unreachable,
    # jax2tf newer than XlaCallModule, the LLVM IR verifier, a pass refusing an op after its
    # own error, a wrapped tf2xla line; TPU signs in libtpu's paths, Intel's XPU as a GPU, the
    # op of an unhashable static argument and of a core halt; tuned on since 15a186a): 45/47
    # and 37/47.
    ("date", "test", FRESH11_TEST): {"recognised": 0.97, "fully_right": 0.80},
    # The twelfth fresh part (52 logs), blind at 2f8a9cc after round 15: 41/52 and 23/52;
    # spent since; the words table refitted with it: 43/52 and 23/52; read by round 16 (shape
    # polymorphism's refused dimension variables, shard_map's cut divisibility refusal, XLA's
    # own "unsupported" as a refusal, no supported devices for a platform, older foreign
    # tracers, a shell's signal line; ops named as HLO operations, PyTorch/XLA's IR node, TF's
    # node, XLA's visitor handler, MLIR's generic op; TPU tile layouts, JAX_PLATFORMS=cpu,
    # Julia's expression line; tuned on since 1d1069f): 50/52 and 43/52.
    ("date", "test", FRESH12_TEST): {"recognised": 0.98, "fully_right": 0.86},
    # The thirteenth fresh part (49 logs), blind at 8b2ceca after round 16: 32/49 and 20/49,
    # and the same at 77965bb after round 17 (rules from threads before 2023 and from JAX
    # 0.10.2's own errors: none carried to it); spent since; the words table refitted with it:
    # 33/49 and 20/49; read by round 18 (HLO verifier refusals, opt_einsum's labels, Pallas
    # stores and refs, Flax's and optax's misuse, a shell's segfault, with_sharding_constraint
    # as an assert, cuDNN's RET_CHECK, PyTorch/XLA's profiler and unsupported types, symbolic
    # dimensions as ints, Equinox's trace guard, TF's bounded dynamic dimensions; callbacks'
    # lines and device, IREE's platforms; tuned on since 5322a9c): 43/49 and 33/49.
    ("date", "test", FRESH13_TEST): {"recognised": 0.91, "fully_right": 0.75},
    # The fourteenth fresh part (41 logs), blind at 7220f01 after round 17: 31/41 and 23/41,
    # and at 847b039 after round 18: 32/41 and 24/41; spent since; the words table refitted
    # with it: 34/41 and 25/41; read by round 19 (a reshape's integer shapes that cannot
    # divide, newer XLA's 64-bit rewriting words, tt-metal's fatal assert; TPU compile sources
    # as a TPU sign, a checkout's python/ package as a library; tuned on since c2cb89f): 37/41
    # and 29/41.
    ("date", "test", FRESH14_TEST): {"recognised": 0.95, "fully_right": 0.78},
    # The fifteenth and sixteenth parts (the test halves of two pools split by a hash of each
    # URL), blind: 30/40 and 18/40, 18/28 and 10/28 at their first scoring and after round 20
    # alike; then spent, and the words refitted with them: 34/40 and 18/40, 20/28 and 10/28;
    # round 21 (both read): 38/40 and 26/40, 23/28 and 12/28.
    ("date", "test", FRESH15_TEST): {"recognised": 0.95, "fully_right": 0.65},
    ("date", "test", FRESH16_TEST): {"recognised": 0.82, "fully_right": 0.42},
    # The seventeenth (51 logs, a whole pool), blind at 878f92e: 30/51 and 14/51; spent, the
    # words refitted with it (no rule has read it): 32/51 and 14/51; the structural rules
    # read from its misses (tuned on since 04c7b44): 38/51 and 17/51.
    ("date", "test", FRESH17_TEST): {"recognised": 0.74, "fully_right": 0.33},
}
_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def test_corpus_is_well_formed():
    found = cases()
    assert len(found) >= 100
    for case in found:
        # A public thread: GitHub's issues and discussions, or (from the sixth part on) a
        # question-and-answer site or forum the log was pasted in.
        assert re.match(r"https://[\w.-]+\.\w+/", case.url), case.name
        assert set(case.truth) == TRUTH_KEYS, case.name
        assert case.text.strip(), case.name
        if case.corpus == "first":
            assert case.split in ("dev", "heldout"), case.name
        else:
            assert case.split in ("dev", "test"), case.name
            assert case.date is not None and _DATE.fullmatch(case.date), case.name
    first = [case for case in found if case.corpus == "first"]
    assert len([c for c in first if c.split == "heldout"]) >= len(first) // 4


def test_date_split_is_by_date():
    """The test part is the newest third of the date-split corpus: every test log is newer
    than (or as new as) every dev log, and it holds at least a third of them. A fresh part
    collected blind later (its own ``part``) is test by never having been seen, whatever its
    date: the sixth reached forums and blogs of 2023-2024, older than some dev threads. So is a
    dev batch (its own ``part``, ``dev20-2026-12-07``) dev by being read, whatever its date: it
    was drawn at random from the same pool as a blind part, the other half of that pool."""
    dated: list[Case] = [case for case in cases() if case.corpus == "date"]
    dev = [case.date for case in dated if case.split == "dev" and case.part is None]
    test = [case.date for case in dated if case.split == "test"]
    by_date = [case.date for case in dated if case.split == "test" and case.part is None]
    assert len(dated) >= 45
    assert len(test) >= len(dated) // 3
    assert by_date and max(d for d in dev if d) <= min(d for d in by_date if d)


@pytest.mark.parametrize("corpus,split,part", list(FLOORS))
def test_corpus_scores(corpus, split, part, capsys):
    totals, families, misses = tally(corpus, split, part=part)
    with capsys.disabled():
        print(f"\n{corpus} corpus {part or ''} " + line(split, totals))
        for kind, scores in families.items():
            print(f"  {kind:18} " + line("", scores).strip())
        if split != "test":  # the test part's misses are not read: no rule is written for them
            for miss in misses:
                print(f"  miss {miss}")
    for name, floor in FLOORS[(corpus, split, part)].items():
        right, of = totals[name]
        assert right / of >= floor, (name, right, of)


def test_family_table_lists_every_family_of_the_date_corpus():
    table = family_table()
    kinds = {str(case.truth["kind"]) for case in cases() if case.corpus == "date"}
    for kind in kinds:
        assert f"| {kind} |" in table
    assert table.splitlines()[-1].startswith("| **all** |")


def test_a_part_collected_blind_is_left_out_until_unsealed(tmp_path, monkeypatch):
    # A part still being collected must reach no score a rule writer prints (not even the
    # whole test split's line), until its one blind scoring unseals it.
    import tests.explain_error_scoring as scoring

    assert isinstance(SEALED_PARTS, frozenset)
    sealed = "fresh9-being-collected"
    monkeypatch.setattr(scoring, "SEALED_PARTS", SEALED_PARTS | {sealed})
    for name, part in (("open", None), ("blind", sealed)):
        meta = {"url": "https://github.com/o/r/issues/1", "split": "test", "truth": {}}
        (tmp_path / f"{name}.json").write_text(json.dumps({**meta, "part": part}))
        (tmp_path / f"{name}.log").write_text("RESOURCE_EXHAUSTED: out of memory")
    monkeypatch.delenv("HLOSCOPE_UNSEAL", raising=False)
    assert [c.name for c in cases(tmp_path)] == ["open"]
    monkeypatch.setenv("HLOSCOPE_UNSEAL", f"other,{sealed}")
    assert [c.name for c in cases(tmp_path)] == ["blind", "open"]
