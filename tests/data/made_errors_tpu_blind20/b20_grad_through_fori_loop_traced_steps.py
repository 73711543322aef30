import jax
import jax.numpy as jnp


def rollout_loss(velocity, n_steps):
    def body(i, position):
        return position + velocity * 0.01
    final = jax.lax.fori_loop(0, n_steps, body, jnp.zeros_like(velocity))
    return jnp.sum(final ** 2)

grad_fn = jax.jit(jax.grad(rollout_loss))
print(grad_fn(jnp.ones((1024,)), 100))
