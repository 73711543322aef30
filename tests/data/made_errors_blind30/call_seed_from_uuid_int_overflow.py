import jax
import jax.numpy as jnp
import uuid

run_id = uuid.uuid4()
# seed each experiment from its run id so every run differs but can be replayed
key = jax.random.key(run_id.int)
print(jax.random.uniform(key, (3,)))
