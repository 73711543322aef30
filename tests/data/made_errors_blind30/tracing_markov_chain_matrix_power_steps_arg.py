import jax
import jax.numpy as jnp


@jax.jit
def state_distribution(transition, initial, num_steps):
    # where the chain is after num_steps transitions
    return initial @ jnp.linalg.matrix_power(transition, num_steps)


transition = jnp.full((5, 5), 0.2)
print(state_distribution(transition, jnp.eye(5)[0], 10))
