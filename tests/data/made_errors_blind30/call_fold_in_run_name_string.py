import jax
import jax.numpy as jnp


def make_stream_keys(seed, names):
    root = jax.random.key(seed)
    # one independent stream per purpose, named for readability
    return {name: jax.random.fold_in(root, name) for name in names}


keys = make_stream_keys(0, ["params", "dropout", "augment"])
print(jax.random.normal(keys["params"], (3,)))
