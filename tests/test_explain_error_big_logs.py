"""explain-error on a long log reads the whole text as few times as it can (issue 35, big logs):
the words reader searches a log for the XLA stack's names only where its error lines name a
family, and the framework's marks run only where their texts are in the log. Each is the same
answer as before, sooner (the benchmark rows: benchmarks/bench_small_speeds.py bench_big_log)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from big_logs import cache_miss_log

from hloscope.analysis.explain_error import device, explain_error, framework
from hloscope.analysis.explain_error import family_words as words
from hloscope.analysis.explain_error.literal_gate import may_match
from hloscope.analysis.unsupported import Platform

DATA = Path(__file__).parent / "data"

# A training log of 1.4 MB with no error line.
_QUIET = "".join(f"INFO step {i} loss {i % 997 / 997:.4f} lr 3e-4\n" for i in range(40000))


def test_a_long_log_of_no_error_line_is_not_searched_for_the_stacks_names(monkeypatch) -> None:
    def searched(text: str) -> bool:
        raise AssertionError("the whole log searched for the stack's names")

    monkeypatch.setattr(words, "names_the_stack", searched)
    assert words.read_family(_QUIET) is None
    assert not explain_error(_QUIET).failures


def test_the_stacks_names_still_decide_where_the_words_name_a_family(monkeypatch) -> None:
    # The same error lines after a log that names the stack, and after one that does not.
    line = "RuntimeError: Resource exhausted: Out of memory while trying to allocate 1.5G\n"
    asked: list[bool] = []
    real = words.names_the_stack

    def names(text: str) -> bool:
        asked.append(real(text))
        return asked[-1]

    monkeypatch.setattr(words, "names_the_stack", names)
    assert words.read_family(_QUIET + line) is not None
    assert asked == [True]  # "Resource exhausted:" is XLA's status
    foreign = "OSError: libfoo.so: cannot open shared object file: No such file or directory\n"
    assert words.read_family(_QUIET + foreign) is None


@pytest.mark.parametrize("marks", [marks for _, marks in framework._MARKS])
def test_a_framework_mark_found_in_a_log_passes_its_gate(marks) -> None:
    logs = [path.read_text(errors="replace") for path in sorted(DATA.rglob("*.log"))]
    found = [text for text in logs if marks.search(text)]
    assert found  # every framework's marks are in some test log
    assert all(may_match(marks, text) for text in found)


def test_the_framework_of_a_long_log_without_marks_is_none_and_of_one_with_them_found() -> None:
    framework.framework_of.cache_clear()
    assert framework.framework_of(_QUIET) is None
    frame = '  File "/usr/lib/python3.11/site-packages/jax/_src/api.py", line 3, in jit\n'
    assert framework.framework_of(_QUIET + frame) is framework.Framework.JAX
    torch = '  File "/opt/venv/lib/python3.10/site-packages/torch_xla/core/xla_model.py"\n'
    assert framework.framework_of(_QUIET + torch + frame) is framework.Framework.PYTORCH_XLA


class _Unscanned:
    """A regex's source and flags, whose search must not run."""

    def __init__(self, source: str) -> None:
        self.pattern = source
        self.flags = re.compile(source).flags

    def search(self, text: str) -> None:
        raise AssertionError("the marks scanned a log that holds none of their texts")


def test_the_marks_do_not_scan_a_log_without_their_texts(monkeypatch) -> None:
    marks = _Unscanned(r"[\\/]jax[\\/]|\bjax\._src\.")
    monkeypatch.setattr(framework, "_MARKS", ((framework.Framework.JAX, marks),))
    framework.framework_of.cache_clear()
    assert framework.framework_of(_QUIET) is None
    framework.framework_of.cache_clear()


class _CountingSigns:
    """The platforms' signs, counting the characters each search of them reads."""

    def __init__(self, real: re.Pattern[str]) -> None:
        self.real = real
        self.read: list[int] = []

    def finditer(self, text: str):  # noqa: ANN201 (re's own iterator)
        self.read.append(len(text))
        return self.real.finditer(text)


@pytest.fixture
def counted_signs(monkeypatch) -> Iterator[_CountingSigns]:
    counting = _CountingSigns(device._LOG_SIGNS)
    monkeypatch.setattr(device, "_LOG_SIGNS", counting)
    device.forget_platform_reads()  # pieces read by earlier tests are not read again
    yield counting
    device.forget_platform_reads()


def test_a_long_log_of_many_failures_is_read_for_its_platform_at_most_once(counted_signs) -> None:
    # Each failure's platform is read at the log's ends and around it; a hundred failures
    # read their windows afresh before (97 windows of 96 KB: 9 MB of a 1.7 MB log).
    log = cache_miss_log()
    assert len(explain_error(log).failures) > 50
    assert 0 < sum(counted_signs.read) <= len(log)


def test_a_long_log_is_read_at_its_ends_and_around_the_failure(counted_signs) -> None:
    filler = "".join(f"I0000 step {i} loss 0.{i % 997}\n" for i in range(30000))
    failure = "E0000 the program on cuda:0 failed; cuda:1 too\n"
    text = "I0000 libtpu.so loaded\n" + filler + failure + filler
    assert len(text) > 1_000_000
    assert device.platform_in_log(text) is Platform.TPU  # only the start names one
    assert device.platform_in_log(text, around=text.index(failure)) is Platform.GPU
    assert sum(counted_signs.read) < 200_000  # pieces, not the whole log


def test_a_log_on_one_long_line_is_read_in_small_pieces(counted_signs) -> None:
    # A notebook's JSON output can hold a whole run on one line.
    text = "x" * 3_000_000 + " platform='tpu'"
    assert device.platform_in_log(text, around=1_500_000) is Platform.TPU
    assert sum(counted_signs.read) < 200_000
