"""``--remat`` policies with arguments, read by a small grammar (never ``eval``): the object
built is the one ``jax.checkpoint_policies`` gives, as JAX itself tells by what each saves
(``jax.ad_checkpoint.saved_residuals``) on two different functions."""

from __future__ import annotations

import pytest

from hloscope.backends.remat_policy import (
    POLICIES,
    parse_policy,
    split_policies,
    split_target,
)
from hloscope.errors import UsageProblem


def _mlp(x):
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    up = checkpoint_name(jnp.tanh(x @ x.T), "up")
    mid = checkpoint_name(jnp.sin(up @ x), "mid")
    return jnp.sum(jnp.cos(mid) * x)


def _attention(q):
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    scores = checkpoint_name(q @ q.T / 8.0, "scores")
    weights = checkpoint_name(jax.nn.softmax(scores), "weights")
    return jnp.sum(checkpoint_name(weights @ q, "attn.out") ** 2)


def _saved(fn, policy):
    """What the backward pass of ``fn`` finds saved under ``policy``, as JAX prints it
    (``jax.ad_checkpoint.print_saved_residuals``: each residual's type and why it is kept)."""
    import contextlib
    import io

    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import print_saved_residuals

    x = jnp.ones((16, 16), jnp.float32)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_saved_residuals(jax.checkpoint(fn, policy=policy), x)
    return printed.getvalue().splitlines()


def _jax_policies():
    import jax

    cp = jax.checkpoint_policies
    return {
        "save_only_these_names(up)": cp.save_only_these_names("up"),
        "save_only_these_names('up', mid)": cp.save_only_these_names("up", "mid"),
        "save_any_names_but_these(up)": cp.save_any_names_but_these("up"),
        "save_anything_except_these_names(mid)": cp.save_anything_except_these_names("mid"),
        "save_from_both_policies(dots_saveable, save_only_these_names(mid))": (
            cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("mid"))
        ),
        "save_only_these_names(scores, 'attn.out')": cp.save_only_these_names("scores", "attn.out"),
        "save_any_names_but_these(weights)": cp.save_any_names_but_these("weights"),
        "dots_saveable": cp.dots_saveable,
    }


@pytest.mark.parametrize("fn", [_mlp, _attention], ids=["mlp", "attention"])
def test_each_policy_saves_what_jaxs_own_saves(fn):
    for text, theirs in _jax_policies().items():
        ours = parse_policy(text).build()
        assert _saved(fn, ours) == _saved(fn, theirs), text


def test_a_policy_that_names_something_saves_what_it_names():
    # Not the same as saving nothing or everything: the names reach JAX.
    import jax

    only = _saved(_mlp, parse_policy("save_only_these_names(up)").build())
    nothing = _saved(_mlp, jax.checkpoint_policies.nothing_saveable)
    everything = _saved(_mlp, jax.checkpoint_policies.everything_saveable)
    assert len(nothing) < len(only) < len(everything)
    assert any("'up'" in line for line in only)


def test_offloading_policies_are_built_with_their_memory_kinds():
    import jax

    built = parse_policy("offload_dot_with_no_batch_dims(device, pinned_host)").build()
    theirs = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
    assert type(built) is type(theirs)
    text = (
        "save_and_offload_only_these_names(names_which_can_be_saved=[up], "
        "names_which_can_be_offloaded=[mid], offload_src=device, offload_dst=pinned_host)"
    )
    policy = parse_policy(text)
    assert policy.kwargs[0] == ("names_which_can_be_saved", ("up",))
    assert callable(policy.build())


@pytest.mark.parametrize(
    ("text", "spelled", "python"),
    [
        ("nothing_saveable", "nothing_saveable", "jax.checkpoint_policies.nothing_saveable"),
        (
            " save_only_these_names( up , 'a b' ) ",
            "save_only_these_names(up,'a b')",
            "jax.checkpoint_policies.save_only_these_names('up', 'a b')",
        ),
        (
            "offload_dot_with_no_batch_dims(offload_dst=pinned_host, offload_src=device)",
            "offload_dot_with_no_batch_dims(device,pinned_host)",
            "jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host')",
        ),
        (
            "save_from_both_policies(dots_saveable,save_only_these_names(x))",
            "save_from_both_policies(dots_saveable,save_only_these_names(x))",
            "jax.checkpoint_policies.save_from_both_policies("
            "jax.checkpoint_policies.dots_saveable, "
            "jax.checkpoint_policies.save_only_these_names('x'))",
        ),
    ],
)
def test_one_canonical_spelling_and_the_python_call(text, spelled, python):
    policy = parse_policy(text)
    assert policy.spelled() == spelled
    assert policy.python() == python
    assert parse_policy(policy.spelled()) == policy


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("foo", "'foo' is not a policy"),
        ("__import__('os')", "'__import__' is not a policy"),
        ("nothing_saveable.__class__('x')", "is not a policy"),
        ("save_only_these_names()", "at least one"),
        ("save_only_these_names(a", "expected ',' or ')'"),
        ("save_only_these_names(a)b", "unexpected 'b'"),
        ("offload_dot_with_no_batch_dims(device)", "takes 2 arguments"),
        ("offload_dot_with_no_batch_dims(device, disk)", "memory kind"),
        ("save_from_both_policies(a, b)", "policy_1 is a policy"),
        ("nothing_saveable(x)", "no positional arguments"),
        ("save_only_these_names(up=a)", "takes no argument up="),
        ("save_and_offload_only_these_names(names_which_can_be_saved=[a])", "give "),
        ("save_only_these_names(a; b)", "cannot read"),
        ("", "give a policy"),
    ],
)
def test_a_wrong_policy_is_one_line_listing_the_policies(text, words):
    with pytest.raises(UsageProblem) as raised:
        parse_policy(text)
    line = raised.value.one_line()
    assert "\n" not in line and words in line
    assert all(name in line for name in POLICIES)


def test_the_list_and_the_target_split_outside_parentheses_and_quotes():
    text = "save_only_these_names(a,b)@layer, nothing_saveable,save_only_these_names('x,@y')"
    parts = split_policies(text)
    assert parts == [
        "save_only_these_names(a,b)@layer",
        "nothing_saveable",
        "save_only_these_names('x,@y')",
    ]
    assert [split_target(p) for p in parts] == [
        ("save_only_these_names(a,b)", "layer"),
        ("nothing_saveable", ""),
        ("save_only_these_names('x,@y')", ""),
    ]


def test_every_policy_of_this_jax_is_known():
    # The table is written out (the parent process of `try` never imports jax): it must
    # cover what jax.checkpoint_policies offers.
    import jax

    offered = {n for n in dir(jax.checkpoint_policies) if not n.startswith("_")}
    assert offered <= set(POLICIES)


@pytest.mark.parametrize("text", ["nothing_saveable@", "nothing_saveable@a b", "dots_saveable@1x"])
def test_a_target_after_at_is_a_function_name(text):
    with pytest.raises(UsageProblem) as raised:
        split_target(text)
    assert "after @, the name of the script's function" in raised.value.one_line()
