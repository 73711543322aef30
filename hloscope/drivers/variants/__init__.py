"""``hloscope try``: what-if variants of a function (meshes, shardings, remat, donation,
dtypes, flags), each a real XLA:TPU compile for the target chip or slice, made in parallel
child processes and cached (:mod:`.run`), planned from the options (:mod:`.plan`) and judged
by :mod:`hloscope.analysis.variants`."""

from .plan import Variant, VariantOptions, factorisations, parse_mesh, plan_variants
from .run import compile_variants, flags_to_audit, try_variants

__all__ = [
    "Variant",
    "VariantOptions",
    "compile_variants",
    "factorisations",
    "flags_to_audit",
    "parse_mesh",
    "plan_variants",
    "try_variants",
]
