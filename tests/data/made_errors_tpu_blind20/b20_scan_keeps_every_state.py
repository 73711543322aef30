import jax
import jax.numpy as jnp


def step(state, _):
    state = jnp.tanh(state @ state.T * 1e-3)
    return state, state

@jax.jit
def simulate(state0):
    final, trajectory = jax.lax.scan(step, state0, None, length=5000)
    return final, trajectory

final, trajectory = simulate(jnp.ones((1024, 1024), jnp.float32))
print(trajectory.shape)
