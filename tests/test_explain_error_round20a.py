"""Round 20a of explain-error: the recognisers, read on the spent parts' misses and the
twentieth dev batch's, each fix on two wordings: a corpus log and a second real text (an older
thread's, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

import pytest
from round_logs import first, log

from hloscope.analysis.explain_error.record import Family

# ---- a module of JAX's gone, pasted under the import statement that asked for it ------------


@pytest.mark.parametrize(
    ("text", "module"),
    [
        # airsenal#658: jax.linear_util, removed in JAX 0.4.24, the statement then its error.
        (log("fresh13_b_airsenal_658"), "jax.linear_util"),
        # JAX 0.10.2's own error for jax.experimental.maps (removed in 0.4.31), the last two
        # lines of its traceback as a user pastes them.
        (
            "    from jax.experimental.maps import Mesh\n"
            "ModuleNotFoundError: No module named 'jax.experimental.maps'\n",
            "jax.experimental.maps",
        ),
    ],
)
def test_a_jax_module_gone_under_its_import_statement_is_a_release_mismatch(
    text: str, module: str
) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert module in failure.finding.op
    assert failure.advice_kind == "install"


def test_a_jax_module_gone_pasted_alone_is_not_read() -> None:
    # No importer shown: nothing says which release asked for it.
    from hloscope.analysis.explain_error import explain_error

    text = "ModuleNotFoundError: No module named 'jax.experimental.maps'\n"
    assert not explain_error(text).failures
