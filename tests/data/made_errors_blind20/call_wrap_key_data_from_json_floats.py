import jax
import jax.numpy as jnp
import json

# the data loader's RNG state, saved as JSON by the last run
saved = json.loads('{"step": 1200, "rng": [0, 42]}')
key = jax.random.wrap_key_data(jnp.array(saved["rng"], jnp.float32))
print(jax.random.uniform(key, (3,)))
