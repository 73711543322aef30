"""The text inside what wraps a pasted error: a notebook's JSON, a process tag on every line.

A log reaches explain-error in the container someone copied it from:

* a notebook (``.ipynb``) or its cell outputs as JSON: the error is in an output's
  ``"traceback"`` list (one string per line, ANSI colours escaped as ``\\u001b[...``), its
  ``"evalue"``, or a stream's ``"text"`` -- every newline an escaped ``\\n``;
* a multi-process launcher that tags each line with its worker: Ray's
  ``(pid=24892, ip=10.128.0.52)`` and ``(train_task pid=24892, ip=...)``, vLLM's
  ``(VllmWorker rank=0 pid=225)``, and the logger's own prefix after it
  (``ERROR 06-17 19:23:59 [multiproc_executor.py:527]``);
* a test runner's id before what the test printed (pytest -v's ``tests/t.py::test_x WARNING:...``;
  pytest's ``E   `` prefixes are dropped by :func:`~.log.normalise_log`);
* torch.distributed's ``[rank0]: `` before each line, and a glog prefix before the lines of a
  Python traceback a launcher relayed (``I1213 13:02:06.025116 1406 run_docker.py:222] File
  "..."``), so the traceback's frames are read.

:func:`unwrap` returns the text those hold, so a traceback's frames start their lines again
and a message is on one line, as every recogniser reads them. Text that is not wrapped comes
back unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["unwrap"]

# The keys of a notebook output that hold an error's text, as they appear in its JSON.
_NOTEBOOK_KEYS = re.compile(r'"(?:traceback|evalue|ename|output_type)"\s*:')
# One JSON string literal (escapes kept), and an array of them after a key.
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_ARRAY_OR_STRING = re.compile(
    rf'"(?P<key>traceback|text|evalue)"\s*:\s*(?P<value>\[\s*(?:{_STRING}\s*,?\s*)*\]|{_STRING})'
)
_ONE_STRING = re.compile(_STRING)
# A worker's tag before each line: a name and key=value pairs in brackets, one of them the pid;
# launchers nest, so a line may carry several ("(pid=1, ip=...) (EngineCore pid=2) ...").
_PROCESS_TAG = re.compile(
    r"^(?:\((?:[\w.:-]+ )?(?:[\w.-]+=[^\s,()]+,? ?)*pid=\d+(?:,? ?[\w.-]+=[^\s,()]+)*\) ?)+",
    re.M,
)
# pytest -v's test id before what the test printed on the same line ("tests/t.py::T::test_x
# WARNING:..."); its verdict words alone are not a log line to keep apart.
_TEST_ID = re.compile(
    r"^[\w./-]+\.py::[\w.:\[\]-]+ (?!(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b)", re.M
)
# vLLM's (and similar) logger prefix: level, month-day, time, [file:line].
_LOGGER_PREFIX = re.compile(
    r"^(?P<level>ERROR|WARNING|INFO|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
    r"\[[\w./-]+:\d+\] ",
    re.M,
)


# A reply's quote of a log (Markdown's "> ", nested "> > "), on every line of the text.
_QUOTE = re.compile(r"^(?:> ?)+", re.M)


def _unquoted(text: str) -> str:
    """``text`` out of a Markdown quote when every line of it is quoted (pytest's ``>`` lines
    are some lines of a report, never all of them)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if lines and all(line.startswith(">") for line in lines):
        return _QUOTE.sub("", text)
    return text


def unwrap(text: str) -> str:
    """``text`` with a notebook's JSON replaced by the outputs it holds, out of a reply's
    quote, and the process tags and logger prefixes of a multi-process run taken off each
    line."""
    if _NOTEBOOK_KEYS.search(text):
        text = _notebook_text(text) or text
    # Plain substring tests first: a regex anchored at every line start costs a scan of the
    # whole text, and most logs have neither tags nor prefixes.
    if "pid=" in text and _PROCESS_TAG.search(text):
        text = _PROCESS_TAG.sub("", text)
    if ".py::" in text:
        text = _TEST_ID.sub("", text)
    if _has_level_word(text) and _LOGGER_PREFIX.search(text):
        text = _LOGGER_PREFIX.sub(_logger_prefix, text)
    if "[rank" in text:
        text = _RANK_TAG.sub("", text)
    if "] " in text and _GLOG_TRACEBACK.search(text):
        text = _GLOG_TRACEBACK.sub("", text)
    if text.lstrip().startswith(">"):  # after the tags: a worker's line may quote a log
        text = _unquoted(text)
    if _ESCAPED_HEADER in text:
        text = _ESCAPED_LITERAL.sub(_decoded_literal, text)
    if _HEADER in text:
        text = _without_line_prefix(text)
    return text


# A traceback held in a string of a structured log line (a JSON logger's "exc_info", Cloud
# Logging's "textPayload", a dict's repr): its newlines escaped, every frame on one line.
_ESCAPED_HEADER = "Traceback (most recent call last):\\n"
_ESCAPED_LITERAL = re.compile(
    r'"(?:[^"\\\n]|\\.)*Traceback \(most recent call last\):\\n(?:[^"\\\n]|\\.)*"'
    r"|'(?:[^'\\\n]|\\.)*Traceback \(most recent call last\):\\n(?:[^'\\\n]|\\.)*'"
)
_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = {"n": "\n", "t": "\t", "r": ""}


def _decoded_literal(m: re.Match[str]) -> str:
    """The string literal ``m`` decoded (its escapes as the characters they stand for), on
    lines of its own."""
    body = _ESCAPE.sub(lambda e: _ESCAPED.get(e[1], e[1]), m[0][1:-1])
    return f"\n{body}\n"


# A prefix a log collector writes before every line, whatever its words: a timestamp (Docker's
# and GitHub Actions' ISO time, Kubernetes' "... stderr F "), a rank (srun's "0: ", Open MPI's
# "[1,0]<stderr>:"), a service (docker compose's "trainer-1  | "), a logger's fields. It is read
# off the line that opens a Python traceback, and taken off every line that starts the same way
# (its digits any digits), when the traceback's next line carries it too.
_HEADER = "Traceback (most recent call last):"
_PREFIX_MAX = 100
_DIGITS = re.compile(r"\d+")


def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    """``prefix`` as a pattern of every line's prefix: its digits any digits, its blanks any
    run of blanks."""
    parts = [re.escape(part) for part in _DIGITS.split(prefix)]
    pattern = r"\d+".join(parts).replace(r"\ ", " ")
    return re.compile("^" + re.sub(r" +", " +", pattern), re.M)


def _without_line_prefix(text: str) -> str:
    """``text`` with the prefix before its tracebacks' opening lines (:data:`_HEADER`) taken
    off every line that carries it; unchanged where the traceback's lines do not."""
    seen: set[str] = set()
    at = text.find(_HEADER)
    while at >= 0 and len(seen) < 4:
        start = text.rfind("\n", 0, at) + 1
        prefix = text[start:at]
        at = text.find(_HEADER, at + len(_HEADER))
        if not prefix.strip() or len(prefix) > _PREFIX_MAX or prefix in seen:
            continue
        seen.add(prefix)
        pattern = _prefix_pattern(prefix)
        next_line = text.find("\n", start) + 1
        if next_line and pattern.match(text, next_line):
            text = pattern.sub("", text)
            at = text.find(_HEADER)
    return text


# torch.distributed's rank before each line a worker printed: "[rank0]: Traceback ...".
_RANK_TAG = re.compile(r"^\[rank\d+\]: ?", re.M)
# A glog prefix (absl's, a launcher relaying a child's output) before a line of a Python
# traceback: "I1213 13:02:06.025116 140646328219456 run_docker.py:222] File ...". Taken off
# only there -- a glog line of XLA's own is read with its prefix (a fatal check's file).
_GLOG_TRACEBACK = re.compile(
    r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\] "
    r"(?=[ \t]*(?:File \"|Traceback \(most recent call last\)))",
    re.M,
)


_LEVELS = ("ERROR ", "WARNING ", "INFO ", "DEBUG ", "CRITICAL ")


def _has_level_word(text: str) -> bool:
    """Whether some line starts with a logging level and a space (a logger prefix's start)."""
    return text.startswith(_LEVELS) or any("\n" + level in text for level in _LEVELS)


def _logger_prefix(m: re.Match[str]) -> str:
    """A logger prefix dropped; a warning's level kept as a word (a warning is no failure)."""
    return "WARNING: " if m["level"] == "WARNING" else ""


def _notebook_text(text: str) -> str | None:
    """The outputs' text of a notebook, or of a fragment of one (a cell's outputs pasted
    alone, not valid JSON on its own): each traceback, error value and stream text, in order.
    ``None`` when it holds none."""
    try:
        parts = list(_outputs_of(json.loads(text)))
    except ValueError:
        parts = list(_fragment_outputs(text))
    joined = "\n".join(part.rstrip("\n") for part in parts if part.strip())
    return joined or None


def _outputs_of(document: Any) -> Iterator[str]:
    """The text of every output in a parsed notebook, a cell, or a list of outputs."""
    if isinstance(document, list):
        for item in document:
            yield from _outputs_of(item)
    elif isinstance(document, dict):
        if "traceback" in document and isinstance(document["traceback"], list):
            yield "\n".join(str(line) for line in document["traceback"])
        elif "evalue" in document:
            yield f"{document.get('ename', 'Error')}: {document['evalue']}"
        elif "text" in document and "output_type" in document:
            text = document["text"]
            yield "".join(text) if isinstance(text, list) else str(text)
        for key in ("cells", "outputs"):
            if key in document:
                yield from _outputs_of(document[key])


def _fragment_outputs(text: str) -> Iterator[str]:
    """The ``"traceback"``, ``"text"`` and ``"evalue"`` values of JSON that does not parse
    whole, each string literal decoded on its own. An error's evalue is its traceback's last
    line again: it is read only where the text holds no traceback."""
    has_traceback = '"traceback"' in text
    for found in _ARRAY_OR_STRING.finditer(text):
        strings = [json.loads(s) for s in _ONE_STRING.findall(found["value"])]
        if found["key"] == "traceback":
            yield "\n".join(strings)
        elif found["key"] == "text" or not has_traceback:
            yield "".join(strings)
