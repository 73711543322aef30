"""Write a module N times the size of an HLO text file, for measuring hloscope at 200 MB.

XLA itself cannot make such a module here: compiling the 180-layer transformer that
``samples/regenerate.py --big-layers 180`` asks for ran out of this machine's 23 GB. So the
compiled 48-layer module (54 MB) is copied N times instead, each copy's computations renamed
with a ``_rK`` suffix, and a new entry computation calls every copy's entry with the same
parameters and returns their results as one tuple::

    python samples/regenerate.py --big /tmp/big48.txt --big-layers 48
    python benchmarks/replicate_module.py /tmp/big48.txt /tmp/big200.txt --copies 4

The result is what XLA's parser accepts (the script checks it when jax is installed) and what
a deep model's optimized dump looks like to every hloscope command: the same kernels, four
times over, under calls.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hloscope  # noqa: E402
from hloscope.hlo.opcodes import CALLED_COMPUTATION_ATTRS  # noqa: E402

NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
HEADER = re.compile(r"^(ENTRY )?%?(" + NAME + r")(?= .*\{$)", re.M)
# A callee attribute's value: one name, or a {list} of names.
CALLEE = re.compile(r"\b(" + "|".join(CALLED_COMPUTATION_ATTRS) + r")=(\{[^{}]*\}|%?" + NAME + ")")


def renamed(body: str, names: set[str], suffix: str) -> str:
    """``body`` with every computation name (headers and callee attributes) suffixed."""

    def one(name: str) -> str:
        bare = name.lstrip("%")
        return name + suffix if bare in names else name

    def callee(m: re.Match) -> str:
        value = m.group(2)
        if value.startswith("{"):
            inner = ", ".join(one(v.strip()) for v in value[1:-1].split(","))
            return f"{m.group(1)}={{{inner}}}"
        return f"{m.group(1)}={one(value)}"

    body = CALLEE.sub(callee, body)
    return HEADER.sub(lambda m: (m.group(1) or "") + one(m.group(2)), body)


def replicate(text: str, copies: int) -> str:
    module = hloscope.parse(text)
    names = {c.name for c in module.computations}
    entry = module.entry
    start = text.index("\n", text.index("HloModule")) + 1  # after the header line
    first = HEADER.search(text, start).start()  # the stack frame tables come before it, once
    body = text[first:].replace("ENTRY ", "", 1)  # each copy's entry becomes a callee
    out = [f"HloModule {module.name}_x{copies}\n", text[start:first]]
    for k in range(copies):
        out.append(renamed(body, names, f"_r{k}"))
        out.append("\n")
    params = entry.parameters
    signature = ", ".join(f"{p.name}: {p.shape_text}" for p in params)
    root_shape = entry.root.shape_text
    out.append(f"ENTRY main_x{copies} ({signature}) -> ({', '.join([root_shape] * copies)}) {{\n")
    for p in params:
        out.append(f"  {p.name} = {p.shape_text} parameter({p.parameter_number})\n")
    operands = ", ".join(p.name for p in params)
    for k in range(copies):
        out.append(f"  copy_{k} = {root_shape} call({operands}), to_apply={entry.name}_r{k}\n")
    results = ", ".join(f"copy_{k}" for k in range(copies))
    out.append(f"  ROOT all = ({', '.join([root_shape] * copies)}) tuple({results})\n}}\n")
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--no-check", action="store_true", help="skip XLA's parser")
    args = parser.parse_args()
    text = replicate(args.source.read_text(), args.copies)
    args.output.write_text(text)
    print(f"{args.output}: {len(text) / 1e6:.1f} MB, {args.copies} copies of {args.source}")
    if not args.no_check:
        try:
            from hloscope.backends import _jaxlib as jaxlib_adapter

            jaxlib_adapter.private_symbol("hlo_module_from_text")(text)
            print("XLA's parser accepts it")
        except ImportError:
            print("(jax is not installed: not checked with XLA's parser)")


if __name__ == "__main__":
    main()
