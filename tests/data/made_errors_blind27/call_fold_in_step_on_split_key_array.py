import jax
import jax.numpy as jnp

keys = jax.random.split(jax.random.key(42), 4)  # one stream per data-loader worker

for step in range(3):
    step_keys = jax.random.fold_in(keys, step)
    noise = jax.vmap(lambda k: jax.random.normal(k, (8,)))(step_keys)
    print(step, noise.shape)
