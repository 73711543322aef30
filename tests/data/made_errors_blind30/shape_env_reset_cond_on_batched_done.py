import jax
import jax.numpy as jnp


def reset(state):
    return jnp.zeros_like(state)


def env_step(state, action):
    state = state + action
    done = jnp.abs(state).sum(axis=-1) > 10.0  # one flag per parallel environment
    return jax.lax.cond(done, reset, lambda s: s, state)


states = jnp.ones((16, 4))
print(jax.jit(env_step)(states, jnp.ones((16, 4))).shape)
