"""The offline ledger: a dump folder's (or an HLO file's) modules as compile records, one per
module, grouped by function and diffed by their entry signatures (:func:`ledger_of_dump`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...backends.compile_records import ArgSignature, CompileRecord
from ._advice import advice_for
from ._grouping import build_ledger
from ._ledger import Cause, FunctionLedger, Ledger

if TYPE_CHECKING:  # pragma: no cover
    from ...dump.index import DumpIndex, DumpModule
    from ...hlo.model import Module


def ledger_of_dump(index: DumpIndex) -> Ledger:
    """Group a dump folder's modules by function and diff their entry signatures (parameter
    and result shapes and dtypes), compile by compile. Reads the before-optimizations text of
    each module (after-optimizations where that is all there is); a module that cannot be read
    is left out and named in :attr:`Ledger.notes`."""
    from ...dump.errors import DumpFormatError
    from ...hlo.errors import HloParseError

    records: list[CompileRecord] = []
    notes = []
    modules = sorted(index.modules, key=lambda m: m.key)
    read: dict[str, tuple[Module, str]] = {}
    for m in modules:
        try:
            module = m.before() or m.after()
        except (HloParseError, DumpFormatError) as error:
            notes.append(error.one_line())
            continue
        if module is None:
            continue
        record = _module_record(module, m.function or module.name, m)
        records.append(record)
        read[record.module or ""] = (module, record.name)
    ledger = build_ledger(records, source="dump")
    for function in ledger.functions:
        _recreated_call_sites(function, read)
    ledger.notes.extend(notes)
    return ledger


def _recreated_call_sites(function: FunctionLedger, read: dict[str, tuple[Module, str]]) -> None:
    """A function made anew for each compile (``jax.jit(lambda ...)`` in a loop): its events
    get the line that called it, from the modules' stack frames, and its advice is given
    again with them, so that it names the loop to hoist the jit out of, as a script's does."""
    if not function.cause_counts().get(Cause.FUNCTION_RECREATED):
        return
    for event in function.events:
        module, name = read.get(event.module or "", (None, ""))
        if event.call_site is None and module is not None:
            event.call_site = _call_site(module, name)
    function.advice = advice_for(function)


def _call_site(module: Module, function: str) -> str | None:
    """``file:line (caller)`` of the frame that called ``function``, read from the stack of
    the first op that has one (frames innermost first: the frame after the function's own)."""
    entry = module.entry
    for inst in entry.instructions if entry is not None else ():
        stack = inst.stack
        for inner, outer in zip(stack, stack[1:]):
            own, caller = inner.function, outer.function
            if _is_frame_of(own, function) and not _is_frame_of(caller, function):
                column = f":{outer.column}" if outer.column else ""  # as a script's reads
                return f"{outer.file}:{outer.line}{column} ({caller})"
    return None


def _is_frame_of(frame_function: str, function: str) -> bool:
    """Whether a stack frame's function (``main.<locals>.<lambda>``, ``Model.step``) is
    ``function`` as the dump names it (``_lambda`` for a lambda, ``step``)."""
    own = frame_function.rsplit(".", 1)[-1]
    return own == function or (function.strip("_") == "lambda" and own == "<lambda>")


def ledger_of_modules(modules: Sequence[Module]) -> Ledger:
    """The ledger of parsed modules (an HLO text file with several), grouped by function."""
    from ...dump.filenames import function_name

    records = [_module_record(m, function_name(m.name), None) for m in modules]
    return build_ledger(records, source="dump")


_TF_MODULE = re.compile(r"^a?_*inference_(?P<fn>.+?)_(?P<uid>\d+)(?:__|$)")


def _module_record(module: Module, function: str, dumped: DumpModule | None) -> CompileRecord:
    layout = module.header_attrs.get("entry_computation_layout")
    parameters = list(getattr(layout, "parameters", ()) or ())
    result = getattr(layout, "result", None)
    entry = module.entry
    params = entry.parameters if entry is not None else []
    if not parameters:
        parameters = [p.shape for p in sorted(params, key=lambda p: p.parameter_number or 0)]
    if result is None and entry is not None and entry.root is not None:
        result = entry.root.shape
    names = {p.parameter_number: p.name for p in params}
    arguments = [
        _shape_argument(i, shape, _parameter_label(names.get(i), i))
        for i, shape in enumerate(parameters)
    ]
    results = [
        _shape_argument(i, leaf, f"result{i}")
        for i, leaf in enumerate(result.leaves() if result is not None else [])
    ]
    tf_name = _TF_MODULE.match(module.name)
    internal = _jax_internal(module, function)
    where = module.name
    if dumped is not None:
        where = f"module_{dumped.id:04d}.{module.name}"
        where = f"{dumped.folder}/{where}" if dumped.folder else where
    return CompileRecord(
        framework="xla",
        kind="module",
        name=function,
        module=where,
        arguments=arguments,
        results=results,
        trace_id=tf_name.group("uid") if tf_name else None,
        internal=internal,
    )


_JAX_MODULE = re.compile(r"^(?:jit|pmap)_")
_STAR_ARG = re.compile(r"^args\[\d+\]$")


def _jax_internal(module: Module, function: str) -> bool:
    """Whether a dumped JAX module is one of JAX's own eager or staging functions
    (``jit_broadcast_in_dim``, ``jit__multi_slice``, ``jit_stage``), as live mode marks the
    functions JAX does not explain. A user's function runs its own body, so its name is among
    the module's stack frames (JAX keeps only frames in the user's files); JAX's functions
    show only their callers. Without a frame table: JAX's ``*args`` wrappers name every
    parameter ``args[N]``."""
    if not _JAX_MODULE.match(module.name):
        return False
    frames = set(module.function_names.values())
    if frames:  # qualified names: 'main.<locals>.<lambda>' for a lambda made in main
        return not any(_is_frame_of(name, function) for name in frames)
    entry = module.entry
    parameters = entry.parameters if entry is not None else []
    names = [p.metadata.op_name if p.metadata is not None else None for p in parameters]
    return bool(names) and all(n is not None and _STAR_ARG.match(n) for n in names)


_UNIQUE = re.compile(r"\.\d+$")


def _parameter_label(name: str | None, number: int) -> str:
    """A parameter's name without XLA's ``.1`` suffix (JAX names parameters after the
    arguments: ``x.1``)."""
    if not name:
        return f"param{number}"
    return _UNIQUE.sub("", name) or f"param{number}"


def _shape_argument(index: int, shape: Any, path: str) -> ArgSignature:
    dims = getattr(shape, "dims", None)
    dtype = str(getattr(shape, "element_type", "?"))
    if shape is not None and getattr(shape, "is_tuple", False):
        return ArgSignature(index, path, shape=None, role="traced", text=str(shape), dtype="tuple")
    return ArgSignature(
        index,
        path,
        shape=tuple(dims) if dims is not None else (),
        dtype=dtype,
        text=shape.to_text(layout=False) if shape is not None else "?",
    )
