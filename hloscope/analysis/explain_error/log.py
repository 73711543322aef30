"""The log as text: decoding, normalising, and the look-around every recogniser reads with."""

from __future__ import annotations

import codecs
import re
from bisect import bisect_left
from dataclasses import dataclass

from ...hlo.metadata import StackFrame
from .wrappers import unwrap

# ---- reading the text ---------------------------------------------------------------------------

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and two-byte escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# pytest shows an exception's lines as `E       message`.
_PYTEST_E = re.compile(r"^E   ", re.M)
# A line of pytest's short test summary, and the banners of the sections that show each
# failure in full before it.
_PYTEST_SUMMARY = re.compile(r"(?:FAILED|ERROR) \S+::\S* - ")
# A message quoted with `> ` (Markdown), not pytest's source line: `> TypeError: ...`.
# A line's text before a match that ends a sentence ("... entry. ") with no quote anywhere
# before it: no string literal holds the words that follow.
_PROSE_AFTER = re.compile(r"\A[^'\"]*[a-z]\. \Z")
_QUOTED_ERROR = re.compile(r">\s*[\w.]*(?:Error|Exception|Warning): ")
_PYTEST_SECTIONS = ("= FAILURES =", "= ERRORS =")
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_log(data: bytes) -> str:
    """Bytes of a log as text: UTF-8 (bad bytes replaced), or UTF-16 when a byte-order mark
    says so (PowerShell's ``>`` writes UTF-16)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


def normalise_log(text: str) -> str:
    """``text`` out of what wraps it (:func:`~.wrappers.unwrap`: a notebook's JSON, process
    tags), without ANSI escape sequences, with ``\\n`` line ends and without pytest's ``E   ``
    prefixes: the form every recogniser reads."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unwrap(text)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\nE   " in text or text.startswith("E   "):
        text = _PYTEST_E.sub("", text)
    if "](" in text:
        text = _EDITOR_LINK.sub(r"\g<text>", text)
    return text


def unflatten_tracebacks(text: str) -> str:
    """``text`` with each traceback whose line breaks were lost (a hosting page's "Reason:
    Traceback (most recent call last): File ..." on one line, a forum's paste) restored to
    lines of their own -- frames, source lines, the exception -- as Python printed it. (Kept
    apart from :func:`normalise_log`, whose lines the words' table was fitted on.)"""
    if _FLAT_TRACEBACK not in text:
        return text
    return _FLAT_LINE.sub(lambda m: _unflattened(m.group()), text)


_FLAT_TRACEBACK = 'Traceback (most recent call last): File "'
_FLAT_LINE = re.compile(r"[^\n]*Traceback \(most recent call last\): File \"[^\n]*")
_FLAT_FRAME = re.compile(r' ?File "(?P<file>[^"\n]+)", line (?P<line>\d+), in (?P<fn>[\w.<>]+) ?')
# The exception after the last frame's source: `... raise RuntimeError(msg) RuntimeError: x`.
_FLAT_RAISED = re.compile(r" (?=(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit): )")


def _unflattened(line: str) -> str:
    head, _, frames = line.partition("Traceback (most recent call last):")
    body = _FLAT_FRAME.sub(
        lambda m: f'\n  File "{m["file"]}", line {m["line"]}, in {m["fn"]}\n    ', frames
    )
    last = body.rfind("\n  File ")
    tail = _FLAT_RAISED.sub("\n", body[last:], count=1) if last >= 0 else body
    return f"{head}Traceback (most recent call last):{body[:last] if last >= 0 else ''}{tail}"


# A notebook run in VS Code links a traceback's line numbers to the editor (`x.py:[2](https://
# vscode-remote+...)`, `Cell In[1], [line 3](vscode-notebook-cell:?...)`, `----> [3](...)`):
# the number is the frame's, the link the editor's.
_EDITOR_LINK = re.compile(r"\[(?P<text>(?:line )?\d+)\]\((?:vscode[\w+-]*:|https?://)[^)\s]*\)")


# `__inference_train_step_53` (tf.function), `__forward_f_12`, `__wrapped__IteratorGetNext_...`
# A TensorFlow "The op is created at:" frame, and a Python traceback frame (or pytest's).
TF_FRAME = re.compile(r"[ \t]*File \"(?P<file>[^\"\n]*)\", line (?P<line>\d+)(?:, in (?P<fn>.*))?")
PY_FRAME = re.compile(
    # Python's frame; without the comma, faulthandler's (`File "x.py", line 3 in f`).
    r"^[ \t]*File \"(?P<file>[^\"\n]+)\", line (?P<line>\d+)(?:,? in (?P<fn>[^\n]*))?$"
    r"|^(?P<pfile>[^\s:][^:\n]*\.py):(?P<pline>\d+): (?:in (?P<pfn>\S+))?$"
    # IPython 8 and pasted short forms: `File ~/lib/klujax.py:249, in analyze(...)`.
    r"|^[ \t]*(?:File )?(?P<zfile>(?:[A-Za-z]:)?[^\s:,\"]+\.py):(?P<zline>\d+)"
    r", in (?P<zfn>[\w<>.]+)"
    # IPython 8's frame of module-level code (a script run with %run or `ipython x.py`):
    # `File ~/proj/train.py:5`, nothing after it.
    r"|^[ \t]*File (?P<wfile>(?:[A-Za-z]:)?[^\s:,\"]+\.py):(?P<wline>\d+)[ \t]*$"
    # Rich's traceback (typer's CLIs, `rich.traceback.install()`), each frame in its box:
    # `│ /home/u/proj/train.py:12 in main        │`.
    r"|^[│|] (?P<rfile>(?:[A-Za-z]:)?[^\s:│|]+\.py):(?P<rline>\d+) in (?P<rfn>[\w<>.]+)"
    r"[ \t]*[│|]?[ \t]*$"
    # IPython 8's notebook cell: `Cell In[3], line 7` (`, in f(x)` inside a function).
    r"|^[ \t]*(?P<cfile>Cell In ?\[\d*\]), line (?P<cline>\d+)(?:, in (?P<cfn>[\w<>.]+))?"
    # IPython 8.0 to 8.4's cell: `Input In [5], in <cell line: 1>()`, then `----> 1` lines on.
    r"|^[ \t]*(?P<ifile>Input In ?\[\d*\]), in (?P<ifn><cell line: \d+>|[\w<>.]+)[^\n]*\n"
    r"(?:[^\n]*\n){0,12}?-+> ?(?P<iline>\d+)"
    # Older IPython: `/path/x.py in step(self, x)` (or a Colab link, or a cell's
    # `<ipython-input-3-2a4d1c0e7b5b>`), then `---> 110` lines on.
    r"|^\[?(?P<yfile>[^\s\[\]]+?\.py|<ipython-input-[\w-]+>)\]?(?:\([^)\n]*\))?"
    r" in (?P<yfn><cell line: \d+>|[\w<>.]+)[^\n]*\n(?:[^\n]*\n){0,12}?-+> ?(?P<yline>\d+)",
    re.M,
)
# faulthandler's dump of the Python stack at a crash (a CHECK failure's abort, a segfault),
# innermost frame first: `Current thread 0x00007f... (most recent call first):`.
_CRASH_STACK = re.compile(
    r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):", re.M
)
_CRASH_LOOKAHEAD = 16 * 1024
# pytest's long report names the frame that raised after the message: `test_x.py:17: Error`;
# a line of `_ _ _` or `____ test_y ____` starts another entry or another test's report.
_PYTEST_RAISED = re.compile(r"^(?P<file>[^\s:][^:\n]*\.py):(?P<line>\d+): [A-Z][\w.]*$", re.M)
_PYTEST_SEPARATOR = re.compile(r"^(?:_ _ _|_{3,} |={3,} )", re.M)
_PYTEST_LOOKAHEAD = 8 * 1024
# The most lines of source (and markers under it) a traceback shows for one frame.
_SOURCE_LINES_MAX = 8
# A chained exception: the cause's message, then this line, then the traceback of the one it
# caused, which ends at that one's message (`NameError: ...`, no spaces before the colon).
_CAUSED = "The above exception was the direct cause of the following exception:"
_CAUSE_LOOKAHEAD = 4096
# An exception raised while another was handled: the handled one, then this line, then the
# traceback of the one that propagated (the program stopped for that one).
_DURING = "During handling of the above exception, another exception occurred:"
# The most characters between Python's line of a chain and the traceback it introduces (a
# blank line; JAX's notice of the frames it removed may stand between them).
_CHAIN_GAP = 512
# The most links of a chain of exceptions followed to its last.
_CHAIN_MAX = 8
_MESSAGE_LINE = re.compile(r"^[\w.]*(?:Error|Exception|Exit|Interrupt)\b:", re.M)
# How much of a message is compared to find it again at the end of a later traceback, and the
# least that counts as the same message.
_REPEAT_KEY = 120
_REPEAT_KEY_MIN = 24


def frame_of(found: re.Match[str]) -> StackFrame:
    """The frame a :data:`PY_FRAME` match reads, whichever of its forms matched."""
    forms = ("", "p", "z", "w", "r", "c", "i", "y")
    file = next(found[f"{x}file"] for x in forms if found[f"{x}file"])
    line = next(found[f"{x}line"] for x in forms if found[f"{x}line"])
    groups = found.groupdict()
    fn = next((groups[f"{x}fn"] for x in forms if groups.get(f"{x}fn")), "")
    # (TensorFlow marks a frame of the program's own, "in user code", with " *" or " **"
    # after the function's name: not part of it.)
    return StackFrame(file, int(line), fn.rstrip(" *"))


# TF's stand-in frame for graphs made without Python (tf.data functions).
_DUMMY_FILE = "dummy_file_name"
TRACEBACK_HEADER = "Traceback (most recent call last):"
_FRAME_HEADERS = ("The op is created at:", "Stack trace for op definition:")
# How far to look around a match (characters), and the most lines allowed between the last
# traceback frame and the message for the traceback to be the message's own.
WINDOW = 64 * 1024
_PYTEST_LOOKBACK = 16 * 1024
_MAX_GAP_LINES = 200
_HEADLINE_MAX = 500
# Messages that end the region of the message before them.
_REGION_STOPS = ("Detected unsupported operations", TRACEBACK_HEADER)


@dataclass(slots=True)
class Log:
    """The normalised text and the look-around helpers every handler uses."""

    text: str
    _heads: list[int] | None = None

    def line_end(self, pos: int) -> int:
        end = self.text.find("\n", pos)
        return len(self.text) if end < 0 else end

    def line_start(self, pos: int) -> int:
        """Where the line holding ``pos`` starts."""
        return self.text.rfind("\n", 0, pos) + 1

    def previous_line_start(self, pos: int) -> int:
        """Where the line before ``pos``'s starts (its own start on the first line)."""
        return self.line_start(max(self.line_start(pos) - 1, 0))

    def before_on_line(self, pos: int) -> str:
        """The text from the start of ``pos``'s line up to ``pos``."""
        return self.text[self.text.rfind("\n", 0, pos) + 1 : pos]

    def headline(self, start: int) -> str:
        """The message's first line from ``start``, capped, without what a copy from Python
        source leaves at its end (:func:`clean_message`)."""
        return clean_message(self.text[start : self.line_end(start)][:_HEADLINE_MAX])

    def in_source_line(self, pos: int) -> bool:
        """Whether ``pos`` is on a line of source code a traceback shows (the indented line
        after ``File "...", line N``, pytest's ``>`` line, IPython's ``---->`` line): the
        ``raise`` statement that holds a message's words is not the message."""
        start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[start : self.line_end(start)]
        if line.startswith((">", "---->")):
            return _QUOTED_ERROR.match(line) is None
        if not line[:1].isspace() or start == 0:
            return False
        if _PROSE_AFTER.search(line[: pos - start]):
            # Words after a sentence's end, no quote before them: another process's output
            # pasted into the code line (interleaved hosts), not the source's string.
            return False
        previous = self.text.rfind("\n", 0, start - 1) + 1
        return PY_FRAME.match(self.text, previous, start - 1) is not None

    def in_test_summary(self, pos: int) -> bool:
        """Whether ``pos`` is on a line of pytest's short test summary (``FAILED t.py::test -
        Error: message``) of a report whose failure section, above it, showed the error in
        full: the summary repeats it (whole under ``CI=true``, cut to the terminal
        elsewhere) and is no second occurrence."""
        start = self.text.rfind("\n", 0, pos) + 1
        if _PYTEST_SUMMARY.match(self.text, start) is None:
            return False
        return any(self.text.find(banner, 0, start) >= 0 for banner in _PYTEST_SECTIONS)

    def region_end(self, pos: int) -> int:
        """Where the message that continues at ``pos`` ends, at the latest: the next message
        of the same kind, the next traceback, or :data:`WINDOW` characters on."""
        end = min(len(self.text), pos + WINDOW)
        for stop in _REGION_STOPS:
            found = self.text.find(stop, pos, end)
            if found >= 0:
                end = found
        return end

    def frames_after(self, pos: int, end: int) -> list[StackFrame]:
        """The frames of the first "The op is created at:" (or "Stack trace for op
        definition:") block between ``pos`` and ``end``, innermost first."""
        starts = [self.text.find(h, pos, end) for h in _FRAME_HEADERS]
        starts = [s for s in starts if s >= 0]
        if not starts:
            return []
        at = self.line_end(min(starts)) + 1
        frames: list[StackFrame] = []
        while at < end:
            found = TF_FRAME.match(self.text, at, self.line_end(at))
            if not found:
                break
            if found["file"] != _DUMMY_FILE:
                frames.append(StackFrame(found["file"], int(found["line"]), found["fn"] or ""))
            at = self.line_end(found.end()) + 1
        return frames[::-1]

    def innermost_code(self, pos: int) -> str:
        """The line of code Python quotes under the last frame of the traceback before
        ``pos`` (its innermost call, as :meth:`traceback_before` reads it first), stripped;
        empty where there is none."""
        frames = list(PY_FRAME.finditer(self.text, max(0, pos - WINDOW), pos))
        if not frames:
            return ""
        last = frames[-1]
        start = self.line_end(last.end()) + 1
        return self.text[start : self.line_end(start)].strip() if start < pos else ""

    def code_of(self, frame: StackFrame) -> str:
        """The line of code Python quotes under ``frame`` where the log shows it first,
        stripped; empty where it shows none."""
        at = self.text.find(f'File "{frame.file}", line {frame.line},')
        if at < 0:
            return ""
        start = self.line_end(at) + 1
        code = self.text[start : self.line_end(start)]
        return "" if PY_FRAME.match(code) else code.strip()

    def traceback_before(self, pos: int) -> list[StackFrame]:
        """The frames of the Python traceback the message at ``pos`` ends, innermost first;
        none when the last traceback before it belongs to something else (it ended more
        than :data:`_MAX_GAP_LINES` lines earlier). Where the exception caused the next one
        (``raise ... from``: JAX re-raising a rule's error at the user's call), that one's
        frames follow as the outer ones: the cause's own frames may all be a library's."""
        own = self._own_traceback(pos)
        return own + self._caused_frames(pos) if own else own

    def outer_frames(self, pos: int) -> list[StackFrame]:
        """The frames of the last exception of the chain the message at ``pos`` starts (each
        exception the cause of the next, as a library re-raises an error at its caller's
        line), innermost first; none where it caused none."""
        links = self._chain(pos)
        return self.traceback_caused(links[-1]) if links else []

    def caused_messages(self, pos: int) -> list[str]:
        """The message lines of the exceptions the one at ``pos`` caused in turn (each the
        cause of the next), first to last: a library's own words for the same failure."""
        said = []
        for link in self._chain(pos):
            found = _MESSAGE_LINE.search(self.text, link, link + WINDOW)
            if found is not None:
                said.append(self.text[found.start() : self.line_end(found.start())])
        return said

    def _chain(self, pos: int) -> list[int]:
        """Where Python's line of each link of the chain the message at ``pos`` starts stands
        (its "direct cause" line, first to last); none where it caused no exception. A next
        link counts only where the one traceback between the two is this link's."""
        link = self.text.find(_CAUSED, pos, pos + _CAUSE_LOOKAHEAD)
        if link < 0 or self.text.find(TRACEBACK_HEADER, pos, link) >= 0:
            return []
        links = [link]
        while len(links) < _CHAIN_MAX:
            start = links[-1] + len(_CAUSED)
            further = self.text.find(_CAUSED, start, start + WINDOW)
            if further < 0 or self.text.count(TRACEBACK_HEADER, start, further) != 1:
                break
            links.append(further)
        return links

    def handled(self, pos: int) -> bool:
        """Whether the exception whose message is at ``pos`` was being handled when another
        was raised (Python's "During handling ..." line follows it, before any traceback):
        the program stopped for the other one."""
        during = self.text.find(_DURING, pos, pos + _CAUSE_LOOKAHEAD)
        return during >= 0 and self.text.find(TRACEBACK_HEADER, pos, during) < 0

    def caused_another(self, pos: int) -> bool:
        """Whether the exception whose message is at ``pos`` directly caused another (Python's
        "direct cause" line follows it, before any traceback)."""
        return bool(self._chain(pos))

    def in_chain(self, pos: int) -> bool:
        """Whether the message at ``pos`` is one of a chain of exceptions: it caused the next
        one, or the one before it caused it (Python's line just above its traceback)."""
        if self._chain(pos):
            return True
        head = self._last_head(pos)
        return head >= 0 and _CAUSED in self.text[max(0, head - _CHAIN_GAP) : head]

    def _caused_frames(self, pos: int) -> list[StackFrame]:
        """The frames of the exception the message at ``pos`` directly caused, innermost
        first; none where another traceback starts before the chain's line."""
        cause = self.text.find(_CAUSED, pos, pos + _CAUSE_LOOKAHEAD)
        if cause < 0 or self.text.find(TRACEBACK_HEADER, pos, cause) >= 0:
            return []
        return self.traceback_caused(pos)

    def _own_traceback(self, pos: int) -> list[StackFrame]:
        """The frames of the traceback the message at ``pos`` ends (see
        :meth:`traceback_before`), without the chain after it."""
        head = self._last_head(pos)
        begin = max(head, pos - WINDOW) if head >= 0 else max(0, pos - _PYTEST_LOOKBACK)
        frames, last = [], begin
        for found in PY_FRAME.finditer(self.text, begin, pos):
            frames.append(frame_of(found))
            last = found.end()
        raised_at = self._pytest_raised_at(pos) if head < 0 else None
        own = [raised_at] if raised_at else []
        if not frames or self.text.count("\n", last, pos) > _MAX_GAP_LINES:
            # pytest's report of an exception with one entry (a chain's cause, a test that
            # raised itself) names its frame only after the message.
            return own
        return own + frames[::-1]

    def _pytest_raised_at(self, pos: int) -> StackFrame | None:
        """The innermost frame of pytest's long report, which it prints after the message's
        ``E`` lines (``test_x.py:17: ValueError``); none past the report's next section."""
        found = _PYTEST_RAISED.search(self.text, pos, pos + _PYTEST_LOOKAHEAD)
        if found is None or _PYTEST_SEPARATOR.search(self.text, pos, found.start()):
            return None
        return StackFrame(found["file"], int(found["line"]), "")

    def traceback_after(self, pos: int, within: int = 4096) -> list[StackFrame]:
        """The frames of a traceback that starts within ``within`` characters after ``pos``
        (TF 1.x prints "... (see above for traceback)" and then the traceback), innermost
        first; its frames end at the first line that is neither a frame nor its code."""
        head = self.text.find(TRACEBACK_HEADER, pos, pos + within)
        if head < 0:
            return []
        return self._frame_lines(self.line_end(head) + 1, with_source=True)[::-1]

    def frames_pasted_after(self, pos: int, within: int = 4096) -> list[StackFrame]:
        """The frames of a traceback pasted after the message at ``pos`` without its header
        (the message first, then ``Full error:`` and the ``File "...", line N`` lines), within
        ``within`` characters and the message's region, innermost first."""
        end = min(self.region_end(pos), pos + within)
        found = PY_FRAME.search(self.text, self.line_end(pos), end)
        if found is None:
            return []
        return self._frame_lines(found.start(), with_source=True)[::-1]

    def crash_stack_after(self, pos: int) -> list[StackFrame]:
        """The Python frames faulthandler printed when the process died after the message at
        ``pos`` (a CHECK failure's abort, a segfault), innermost first; none when no such dump
        starts within :data:`_CRASH_LOOKAHEAD` characters."""
        heads = list(_CRASH_STACK.finditer(self.text, pos, pos + _CRASH_LOOKAHEAD))
        if not heads:
            return []
        # faulthandler dumps every thread; the one that crashed is the "Current thread".
        head = next((h for h in heads if h[0].startswith("Current")), heads[0])
        return self._frame_lines(self.line_end(head.end()) + 1, with_source=False)

    def _frame_lines(self, at: int, *, with_source: bool) -> list[StackFrame]:
        """The frames of the ``File "...", line N`` lines that follow each other from ``at``,
        outermost first; ``with_source``: each may be followed by its indented source line (a
        traceback's; faulthandler prints none, and indents the frames themselves)."""
        frames = []
        while at < len(self.text):
            found = PY_FRAME.match(self.text, at, self.line_end(at))
            if found is None:
                break
            frames.append(frame_of(found))
            at = self.line_end(found.end()) + 1
            if with_source:
                at = self._past_source(at)
        return frames

    def _past_source(self, at: int) -> int:
        """Where the next frame may start after a frame's source at ``at``: its indented lines
        (the code, Python 3.11's ``^^^^`` markers under it, a statement over several lines)
        up to the next frame."""
        for _ in range(_SOURCE_LINES_MAX):
            if at >= len(self.text) or not self.text[at : at + 1].isspace():
                break
            if PY_FRAME.match(self.text, at, self.line_end(at)):
                break
            at = self.line_end(at) + 1
        return at

    def traceback_repeating(self, pos: int) -> list[StackFrame]:
        """The frames of a traceback after ``pos`` that ends with the message at ``pos`` again
        (a logger printed the message, then Python its traceback), innermost first."""
        key = self.text[pos : self.line_end(pos)][:_REPEAT_KEY]
        head = self.text.find(TRACEBACK_HEADER, pos, pos + WINDOW)
        if len(key) < _REPEAT_KEY_MIN or head < 0:
            return []
        again = self.text.find(key, head, head + WINDOW)
        return self.traceback_before(again) if again >= 0 else []

    def traceback_caused(self, pos: int) -> list[StackFrame]:
        """The frames of the traceback of the exception the message at ``pos`` caused (Python's
        "The above exception was the direct cause of the following exception:" and the
        traceback after it, up to its message), innermost first: where a chain was pasted
        without the cause's own traceback."""
        cause = self.text.find(_CAUSED, pos, pos + _CAUSE_LOOKAHEAD)
        if cause < 0:
            return []
        end = _MESSAGE_LINE.search(self.text, cause + len(_CAUSED), cause + WINDOW)
        stop = end.start() if end else min(len(self.text), cause + WINDOW)
        # A message of another shape (JAX's "JaxStackTraceBeforeTransformation: ...") ends
        # it where that one caused the next in turn.
        further = self.text.find(_CAUSED, cause + len(_CAUSED), stop)
        stop = further if further >= 0 else stop
        return [frame_of(f) for f in PY_FRAME.finditer(self.text, cause, stop)][::-1]

    def traceback_start(self, pos: int) -> int:
        """Where the traceback the message at ``pos`` ends begins: its ``Traceback (most
        recent call last):`` line, else (pytest's report has none) the text a pytest report
        of the message may hold."""
        head = self._last_head(pos)
        return max(head, pos - WINDOW) if head >= 0 else max(0, pos - _PYTEST_LOOKBACK)

    def _last_head(self, pos: int) -> int:
        if self._heads is None:
            heads, at = [], self.text.find(TRACEBACK_HEADER)
            while at >= 0:
                heads.append(at)
                at = self.text.find(TRACEBACK_HEADER, at + 1)
            self._heads = heads
        index = bisect_left(self._heads, pos)
        return self._heads[index - 1] if index else -1


# What a message copied out of Python source ends with: the closing quote of the string and the
# brackets of the call (`raise NotImplementedError("... not yet implemented")`), a comma.
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_QUOTES = "\"'`"


def clean_message(text: str) -> str:
    """``text`` without trailing punctuation it does not open itself: a quote whose opening is
    not in it, closing brackets beyond those it opens, a trailing comma or semicolon. What
    it opens and closes stays (``... (bad operands at: 1, 3)``)."""
    text = text.rstrip()
    while text:
        last = text[-1]
        unopened_quote = last in _QUOTES and _quotes_in(text, last) % 2 == 1
        unopened_bracket = last in _CLOSERS and text.count(last) > text.count(_CLOSERS[last])
        if not (last in ",;" or unopened_quote or unopened_bracket):
            return text
        text = text[:-1].rstrip()
    return text


def _quotes_in(text: str, quote: str) -> int:
    """How many ``quote`` characters ``text`` has, apostrophes inside words (``can't``) not
    counted."""
    return len(re.findall(rf"(?<!\w){quote}|{quote}(?!\w)", text))


# `jax.errors.ConcretizationTypeError: ` / `XlaRuntimeError: INVALID_ARGUMENT: ` before a message.
_CLASS_BEFORE = re.compile(r"(?P<cls>[A-Za-z_][\w.]*?(?:Error|Exception|Warning)): $")
# A status code, and the stage XLA names after it (`INVALID_ARGUMENT: [execute] ...`,
# `INVALID_ARGUMENT: during context [hlo verifier]: ...`).
_STATUS_BEFORE = re.compile(
    r"\b(?P<status>[A-Z][A-Z_]+[A-Z]): (?:\[[\w ]+\] |during context \[[^\]\n]*\]: )?$"
)


def class_before(log: Log, pos: int) -> str | None:
    """The exception class named just before ``pos`` on its line (``ValueError: ...``),
    skipping a status code (``XlaRuntimeError: INVALID_ARGUMENT: ...``)."""
    before = log.before_on_line(pos)[-300:]
    status = _STATUS_BEFORE.search(before)
    if status:
        before = before[: status.start()]
    found = _CLASS_BEFORE.search(before)
    return found.group("cls").rsplit(".", 1)[-1] if found else None


def status_before(log: Log, pos: int) -> str | None:
    found = _STATUS_BEFORE.search(log.before_on_line(pos)[-300:])
    return found.group("status") if found else None
