import jax
import jax.numpy as jnp


def rollout(state, n_steps):
    def step(s, _):
        s = 0.9 * s + 0.1
        return s, s
    _, trajectory = jax.lax.scan(step, state, None, length=n_steps)
    return trajectory


simulate = jax.jit(rollout)
print(simulate(jnp.zeros(2), 10).shape)
