import jax
import jax.numpy as jnp


@jax.jit
def resample(key, particles, weights, num_particles):
    keys = jax.random.split(key, num_particles)
    idx = jax.vmap(lambda k: jax.random.categorical(k, jnp.log(weights)))(keys)
    return particles[idx]


particles = jnp.linspace(-1.0, 1.0, 500)
weights = jnp.ones(500) / 500
print(resample(jax.random.key(0), particles, weights, 500).shape)
