"""A child's stdout or stderr written to a file, capped: the head and the tail are kept.

A script that prints in a loop can fill a disk (2 GiB of stdout in one capture); what a user
needs is how it started and how it ended. :class:`CappedWriter` copies the stream straight to
the file up to ``head`` bytes (so the file is current while the script runs), keeps only the
last ``tail`` bytes after that, and on :meth:`close` appends a line saying how much was left
out, then that tail.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from typing import BinaryIO

__all__ = ["CappedWriter", "DEFAULT_HEAD", "DEFAULT_TAIL"]

DEFAULT_HEAD = 32 << 20
DEFAULT_TAIL = 8 << 20
_CHUNK = 1 << 16


class CappedWriter:
    """Pump ``fd`` (a pipe's read end) into ``out`` in a thread, keeping head and tail."""

    def __init__(
        self, fd: int, out: BinaryIO, head: int = DEFAULT_HEAD, tail: int = DEFAULT_TAIL
    ) -> None:
        self._fd = fd
        self._out = out
        self._head_left = head
        self._tail_max = tail
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.dropped = 0
        self._thread = threading.Thread(target=self._pump, name="hloscope-output", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while chunk := os.read(self._fd, _CHUNK):
            if self._head_left > 0:
                part, chunk = chunk[: self._head_left], chunk[self._head_left :]
                self._out.write(part)
                self._out.flush()
                self._head_left -= len(part)
            if chunk:
                self._keep(chunk)
        os.close(self._fd)

    def _keep(self, chunk: bytes) -> None:
        self._tail.append(chunk)
        self._tail_size += len(chunk)
        while self._tail_size - len(self._tail[0]) >= self._tail_max:
            first = self._tail.popleft()
            self._tail_size -= len(first)
            self.dropped += len(first)

    def close(self, timeout: float | None = None) -> None:
        """Wait for the stream to end (every writer gone), then write the kept tail."""
        self._thread.join(timeout)
        # A process that escaped every net may still hold the pipe; write what came so far.
        tail, dropped = list(self._tail), self.dropped
        if dropped:
            note = f"\n[hloscope: {dropped} bytes of output left out here]\n"
            self._out.write(note.encode())
        for chunk in tail:
            self._out.write(chunk)
        self._out.flush()
