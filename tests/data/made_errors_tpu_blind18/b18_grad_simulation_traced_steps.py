import jax
import jax.numpy as jnp


def simulate(x0, v0, n_steps, dt=0.01):
    def step(_, state):
        x, v = state
        return x + dt * v, v - dt * x
    return jax.lax.fori_loop(0, n_steps, step, (x0, v0))[0]

@jax.jit
def loss(v0, n_steps):
    return jnp.sum((simulate(jnp.ones(16), v0, n_steps) - 1.0) ** 2)

print(jax.grad(loss)(jnp.zeros(16), 100))
