"""The child of one variant's compile: ``python -m hloscope.drivers.variants._child ORDERS``.

``ORDERS`` is a JSON file: ``script``, ``function``, ``device``, ``backend`` (the label of
the registry's row the parent chose), ``changes`` (a
:class:`~hloscope.backends.variant_compile.Changes` as a dict) and ``out``, a folder. The child
loads the script's function and example arguments (:mod:`hloscope.capture.script_loader`),
compiles it with the changes (:func:`~hloscope.backends.variant_compile.compile_variant`),
reads the optimized module's figures (:func:`~hloscope.analysis.variants.module_figures`) and
writes ``result.json`` and the optimized module (``optimized.hlo.txt``) into ``out``. The
parent started it with libtpu's environment and the variant's flags; what the compile logged
is in its stderr, which the parent keeps.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def _load(script: str, function: str) -> tuple[Any, Any, tuple[Any, ...], dict[str, Any]]:
    from ...capture.script_loader import load_function, module_name

    fn, args, kwargs = load_function(script, function)
    return sys.modules.get(module_name(os.path.abspath(script))), fn, args, kwargs


def _argument_axes(args: Any, kwargs: Any) -> list[str]:
    """The axis names of the first mesh the example arguments carry (``[]``: none)."""
    from ...backends.variant_compile import mesh_axes_of

    return mesh_axes_of((args, kwargs))


def _argument_mesh(args: Any, kwargs: Any) -> dict[str, int] | None:
    """That mesh's axes and sizes, in its order (the specs of the partitioner's warnings name
    them; ``None``: no mesh)."""
    from ...backends.variant_compile import mesh_of

    return mesh_of((args, kwargs))


def compile_one(orders: dict[str, Any]) -> dict[str, Any]:
    """The result of one variant's compile, as ``result.json`` holds it."""
    from ...analysis.variants import module_figures
    from ...backends.errors import CaptureUsageError, TpuCompileError
    from ...backends.variant_compile import Changes, NotApplicable, compile_variant
    from ...capture.cache import hash_files, local_module_files
    from ...devices import parse_device
    from ...hlo.parser import parse

    spec = parse_device(orders["device"])
    result: dict[str, Any] = {"applicable": True, "compiled": False, "error": None}
    started = time.perf_counter()
    module, fn, args, kwargs = _load(orders["script"], orders["function"])
    result["argument_axes"] = _argument_axes(args, kwargs)
    result["argument_mesh"] = _argument_mesh(args, kwargs)
    try:
        changes = Changes.from_dict(orders["changes"])
        made = compile_variant(module, fn, args, kwargs, spec, changes, orders.get("backend"))
    except NotApplicable as error:
        result.update(applicable=False, error=str(error))
        return result
    except (TpuCompileError, CaptureUsageError) as error:
        result["error"] = str(error)
        return result
    finally:
        result["compile_s"] = time.perf_counter() - started
        result["local_modules"] = hash_files(
            local_module_files(user_folders=(os.path.dirname(os.path.abspath(orders["script"])),))
        )
    capture = made.capture
    result["placement"] = made.placement
    result["mesh"] = made.mesh
    result["fingerprint"] = made.fingerprint
    text = capture.stages.get("optimized_hlo") or ""
    if text:
        Path(orders["out"], "optimized.hlo.txt").write_text(text)
    if capture.compile_error is not None:
        result["error"] = capture.compile_error
        return result
    memory = capture.memory or {}
    cost = capture.cost or {}
    result.update(
        compiled=True,
        peak_bytes=memory.get("peak_memory_in_bytes"),
        flops=cost.get("flops"),
        memory=memory,
        cost={k: v for k, v in cost.items() if k in ("flops", "bytes accessed", "transcendentals")},
    )
    result.update(module_figures(parse(text), spec))
    return result


def main(argv: list[str]) -> int:
    orders = json.loads(Path(argv[0]).read_text())
    try:
        result = compile_one(orders)
        status = 0
    except BaseException as error:  # noqa: BLE001 - the parent says it as this variant's error
        import traceback

        traceback.print_exc()
        lines = str(error).strip().splitlines()
        said = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
        result = {"applicable": True, "compiled": False, "error": said}
        status = 1
    out = Path(orders["out"], "result.json")
    out.with_suffix(".tmp").write_text(json.dumps(result, default=str))
    os.replace(out.with_suffix(".tmp"), out)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # everything is written: skip JAX's and libtpu's clean-up at exit


if __name__ == "__main__":
    main(sys.argv[1:])
