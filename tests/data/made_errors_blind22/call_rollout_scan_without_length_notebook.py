import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


def rollout(policy_w, state0):
    def step(state, _):
        action = jnp.tanh(state @ policy_w)
        state = state + 0.1 * action
        return state, state

    # simulate 200 steps of the controller
    _, states = jax.lax.scan(step, state0, None)
    return states


print(rollout(jnp.eye(4), jnp.ones(4)).shape)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
