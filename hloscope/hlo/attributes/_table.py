"""The decoder table: which grammar reads the value of each attribute name.

:func:`decode_attribute` is the one entry point; :class:`~._mapping.Attributes` calls it
lazily. Names not in the table decode to their raw text with an
:class:`UnknownAttributeWarning` (once per name): newer XLA versions add attributes all the
time, and a tool that reads dumps must not fail on them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..errors import DecodeError
from ..opcodes import COMPUTATION_LIST_ATTRS, SINGLE_COMPUTATION_ATTRS
from ._values import (
    decode_bool,
    decode_bool_list,
    decode_bool_or_list,
    decode_computation,
    decode_computation_list,
    decode_enum,
    decode_enum_list,
    decode_float,
    decode_int,
    decode_int_list,
    decode_raw,
    decode_string,
)
from .configs import (
    decode_backend_config,
    decode_domain,
    decode_frontend_attributes,
    decode_result_accuracy,
    decode_statistics,
)
from .layouts import (
    decode_buffer_donor,
    decode_entry_computation_layout,
    decode_input_output_alias,
    decode_literal,
    decode_output_to_operand_aliasing,
    decode_shape,
    decode_shape_list,
)
from .metadata import decode_metadata
from .sharding import decode_replica_groups, decode_sharding, decode_source_target_pairs
from .windows import decode_dim_labels, decode_padding, decode_slice, decode_window

__all__ = ["UnknownAttributeWarning", "KNOWN_ATTRIBUTE_NAMES", "decode_attribute"]


class UnknownAttributeWarning(UserWarning):
    """An attribute name hloscope does not know (probably from a newer XLA); kept as raw text."""


# Which computations are called, and through which attributes, is one table in opcodes.py.
_SINGLE_COMPUTATION = SINGLE_COMPUTATION_ATTRS
# control-predecessors lists instructions, not computations, in the same {%a, %b} grammar.
_COMPUTATION_LISTS = (*COMPUTATION_LIST_ATTRS, "control-predecessors")
_INT_LISTS = (
    "dimensions",
    "slice_sizes",
    "dynamic_slice_sizes",
    "fft_length",
    "lhs_batch_dims",
    "rhs_batch_dims",
    "lhs_contracting_dims",
    "rhs_contracting_dims",
    "offset_dims",
    "collapsed_slice_dims",
    "start_index_map",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "update_window_dims",
    "inserted_window_dims",
    "scatter_dims_to_operand_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "lhs_ragged_dims",
    "rhs_ragged_dims",
    "rhs_group_dims",
)
_INTS = (
    "index",
    "iota_dimension",
    "feature_index",
    "feature_group_count",
    "batch_group_count",
    "index_vector_dim",
    "channel_id",
    "k",
    "exponent_bits",
    "mantissa_bits",
    "delta",
    "inferred_dimension",
    "cross_program_prefetch_index",
    "num_carries",
    "replica_count",
    "num_partitions",
)
_FLOATS = ("epsilon",)
_BOOLS = (
    "is_stable",
    "largest",
    "indices_are_sorted",
    "unique_indices",
    "constrain_layout",
    "use_global_device_ids",
    "is_host_transfer",
    "left_side",
    "lower",
    "unit_diagonal",
    "custom_call_has_side_effect",
    "is_composite",
    "is_reverse",
    "is_associative",
    "is_scheduled",
    "alias_passthrough_params",
    "is_cross_program_prefetch",
)
_ENUMS = (
    "kind",
    "direction",
    "type",
    "fft_type",
    "distribution",
    "algorithm",
    "padding_type",
    "schedule",
    "custom_call_schedule",
    "api_version",
    "transpose_a",
    "conv_kind",
    "mode",
)
_STRINGS = ("custom_call_target", "infeed_config", "outfeed_config", "async_execution_thread")
_RAW = ("origin", "sparsity", "origin_recovery_table")

_DECODERS: dict[str, Callable[[str, str | None], Any]] = {}
for _name in _SINGLE_COMPUTATION:
    _DECODERS[_name] = decode_computation
for _name in _COMPUTATION_LISTS:
    _DECODERS[_name] = decode_computation_list
for _names, _decoder in (
    (_INT_LISTS, decode_int_list),
    (_INTS, decode_int),
    (_FLOATS, decode_float),
    (_BOOLS, decode_bool),
    (_ENUMS, decode_enum),
    (_STRINGS, decode_string),
    (_RAW, decode_raw),
):
    for _name in _names:
        _DECODERS[_name] = _decoder
_DECODERS.update(
    {
        "metadata": decode_metadata,
        "window": decode_window,
        "dim_labels": decode_dim_labels,
        "padding": decode_padding,
        "slice": decode_slice,
        "sharding": decode_sharding,
        "replica_groups": decode_replica_groups,
        "source_target_pairs": decode_source_target_pairs,
        "frontend_attributes": decode_frontend_attributes,
        "backend_config": decode_backend_config,
        "statistics": decode_statistics,
        "output_to_operand_aliasing": decode_output_to_operand_aliasing,
        "input_output_alias": decode_input_output_alias,
        "buffer_donor": decode_buffer_donor,
        "entry_computation_layout": decode_entry_computation_layout,
        "operand_precision": decode_enum_list,
        "operand_layout_constraints": decode_shape_list,
        "outfeed_shape": decode_shape,
        "literal": decode_literal,
        "parameter_replication": decode_bool_list,
        "allow_spmd_sharding_propagation_to_parameters": decode_bool_or_list,
        "allow_spmd_sharding_propagation_to_output": decode_bool_or_list,
        "domain": decode_domain,
        "result_accuracy": decode_result_accuracy,
    }
)
del _name, _names, _decoder

#: Every attribute name hloscope decodes (instruction and module attributes).
KNOWN_ATTRIBUTE_NAMES: frozenset[str] = frozenset(_DECODERS)

_warned: set[str] = set()


def decode_attribute(name: str, raw: str, opcode: str | None = None) -> Any:
    """Decode one attribute value; unknown names give ``raw`` back (with a warning once).

    Raises :class:`DecodeError` with an offset into ``raw``.
    """
    decoder = _DECODERS.get(name)
    if decoder is None:
        if name not in _warned:
            _warned.add(name)
            warnings.warn(
                f"unknown HLO attribute {name!r} (from a newer XLA?); kept as raw text",
                UnknownAttributeWarning,
                stacklevel=3,
            )
        return raw
    if not raw:
        raise DecodeError(f"{name} has no value", 0)
    return decoder(raw, opcode)
