"""Reading one attribute: ``inst.metadata.op_name`` against the ad-hoc ``str.find`` scrape.

    python benchmarks/bench_attributes.py [--repeat N]

Over every instruction of the MobileNetV2 training step in ../shared/corpus (the largest
corpus module) it times, on freshly parsed modules (nothing decoded yet):

* the scrape that ``hloscope/analysis/fusions.py`` used (``_op_info`` and helpers, copied
  here as the baseline so the comparison survives its removal there);
* ``inst.metadata.op_name`` (the typed, fully checked :class:`Metadata`);
* ``inst.attrs.get(name)`` for a few attributes cost models read.

and prints the times and the ratio scrape / metadata (>= 1.0 means the typed read is at least
as fast as the scrape).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hloscope  # noqa: E402
from hloscope.hlo.escapes import c_unescape  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "generated" / "tf_keras_mobilenet_train"

# --- the baseline: the scrape from hloscope/analysis/fusions.py, as it was -------------------
_MD_BODY_RE = re.compile(r'([^}"]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^}"]*)*)\}')
_DIGITS_RE = re.compile(r"\d+")


def _md_string(block: str, key: str) -> str:
    at = block.find(key + '="')
    while at > 0 and block[at - 1] != " ":
        at = block.find(key + '="', at + 1)
    if at < 0:
        return ""
    start = at + len(key) + 2
    end = block.find('"', start)
    while end > 0 and block[end - 1] == "\\":
        end = block.find('"', end + 1)
    value = block[start:end] if end > 0 else block[start:]
    if "\\" in value:
        with contextlib.suppress(ValueError):
            value = c_unescape(value)
    return value


def _md_int(block: str, key: str) -> int:
    at = block.find(key + "=")
    while at > 0 and block[at - 1] != " ":
        at = block.find(key + "=", at + 1)
    if at < 0:
        return 0
    m = _DIGITS_RE.match(block, at + len(key) + 1)
    return int(m.group()) if m else 0


def scrape_op_name(inst) -> str:
    """``_op_info(inst).op_name`` without the stack-frame lookup it did on the side."""
    text = inst.attr_text
    pos = text.find("metadata={")
    while pos > 0 and text[pos - 1] not in ", ":
        pos = text.find("metadata={", pos + 1)
    if pos < 0:
        return ""
    m = _MD_BODY_RE.match(text, pos + 10)
    if m is None:
        return ""
    block = " " + m.group(1)
    if "source_file=" in block:
        f"{_md_string(block, 'source_file')}:{_md_int(block, 'source_line')}"
    return _md_string(block, "op_name") if "op_name=" in block else ""


# --- timing ----------------------------------------------------------------------------------


def timed(text: str, read, repeat: int) -> float:
    """Best time of ``read(inst)`` over all instructions of a freshly parsed module."""
    best = float("inf")
    for _ in range(repeat):
        insts = list(hloscope.parse(text).instructions())
        gc.collect()
        start = time.perf_counter()
        for inst in insts:
            read(inst)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    files = sorted(CORPUS.glob("*after_optimizations.txt"), key=lambda p: p.stat().st_size)
    if not files:
        sys.exit(f"no corpus module under {CORPUS}")
    path = files[-1]
    text = path.read_text()
    insts = list(hloscope.parse(text).instructions())
    assert [scrape_op_name(i) for i in insts] == [i.metadata.op_name for i in insts]
    print(f"{path.name[:70]}: {len(insts)} instructions")
    scrape = timed(text, scrape_op_name, args.repeat)
    typed = timed(text, lambda i: i.metadata.op_name, args.repeat)
    print(f"  scrape (fusions._op_info)     {scrape * 1e3:7.1f} ms")
    print(f"  inst.metadata.op_name         {typed * 1e3:7.1f} ms")
    print(f"  ratio scrape/metadata         {scrape / typed:7.2f}x  (target >= 1.0)")
    for name in ("window", "dim_labels", "dimensions", "backend_config"):
        t = timed(text, lambda i, n=name: i.attrs.get(n), args.repeat)
        print(f"  inst.attrs.get({name!r:16s}) {t * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
