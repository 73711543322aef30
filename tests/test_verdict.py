"""``report`` and ``check`` give one verdict for one program (issue 18): the page's heading of
each platform and ``hloscope check``'s last line are both :meth:`CheckReport.verdict`. For a
``SCRIPT.py:FUNCTION`` the page runs the check itself, which lowers the function with JAX for
each platform (the oracle); for an HLO file both read the same module with the offline rules,
whose host-callback rule agrees with JAX's lowering (tests/test_check_hlo.py).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.unsupported.findings import CheckReport, Finding, Platform, Reason
from hloscope.cli import cli
from hloscope.reporting import build_report

PROGRAMS = """
import jax, jax.numpy as jnp, numpy as np

def logged(x):
    y = jnp.sin(x) * 2.0
    jax.debug.callback(lambda v: None, y)
    return y.sum()

def through_numpy(x):
    z = jax.pure_callback(np.exp, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return jnp.tanh(z) @ x

def eigenvalues(a):
    return jnp.abs(jnp.linalg.eig(a)[0]).sum()

EXAMPLE_ARGS = {
    "logged": lambda: (jnp.ones((8, 8)),),
    "through_numpy": lambda: (jnp.ones((4, 4)),),
    "eigenvalues": lambda: (jnp.eye(3) + 0.1,),
}
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from frameworks_needed import needs_framework

    needs_framework("jax")
    path = tmp_path_factory.mktemp("verdict") / "programs.py"
    path.write_text(textwrap.dedent(PROGRAMS))
    return path


def check_says(target: str, platform: str) -> dict:
    result = CliRunner().invoke(cli, ["check", target, "--platform", platform, "--json"])
    assert result.exit_code in (0, 3), result.output
    data = json.loads(result.stdout)
    assert (result.exit_code == 0) == data["clean"]
    return data


@pytest.mark.parametrize(
    ("function", "supported"),
    [
        ("logged", {"cpu": True, "gpu": True, "tpu": True}),
        ("through_numpy", {"cpu": True, "gpu": True, "tpu": True}),
        # JAX lowers eig for GPU too (cusolver), which the captured CPU module's
        # lapack_sgeev_ffi cannot tell: the page asks the framework, as check does.
        ("eigenvalues", {"cpu": True, "gpu": True, "tpu": False}),
    ],
)
def test_the_page_and_check_agree_on_every_platform(script: Path, function: str, supported):
    target = f"{script}:{function}"
    page = {c.platform: c for c in build_report(target, graphs=0).checks}
    for platform in supported:
        by_jax = check_says(target, platform)
        # JAX's own lowering for the platform is the oracle; the table above says what it says.
        assert by_jax["clean"] is supported[platform], by_jax["verdict"]
        shown = page.get(platform)
        page_supported = shown.supported if shown is not None else True
        assert page_supported is by_jax["clean"], (platform, shown and shown.verdict)
        if shown is not None:  # the very line check prints
            assert shown.verdict == by_jax["verdict"] and shown.stage == "program"


def test_a_warning_only_verdict_names_its_reasons():
    report = CheckReport(Platform.TPU, "p")
    report.extend(
        [
            Finding("debug_callback", "cb.1", "<top>", Reason.HOST_CALLBACK),
            Finding("debug_callback", "cb.2", "<top>", Reason.HOST_CALLBACK),
            Finding("jax.export", "host_callbacks", "<top>", Reason.EXPORT),
        ]
    )
    verdict = report.verdict()
    assert verdict.supported and report.clean
    assert verdict.text == "OK for tpu: no problems found, 3 warnings (2 host_callback, 1 export)"
    report.extend([Finding("lapack_sgeev_ffi", "eig.3", "<top>", Reason.CUSTOM_CALL)])
    verdict = report.verdict()
    assert not verdict.supported and not report.clean
    assert verdict.text == (
        "NOT SUPPORTED on tpu: 1 problem (custom_call), 3 warnings (2 host_callback, 1 export)"
    )
    assert report.to_dict()["verdict"] == verdict.text
