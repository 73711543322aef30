import jax
import jax.numpy as jnp


def sinusoidal_table(max_len, dim):
    positions = jnp.arange(max_len, dtype=jnp.float32)[:, None]
    freqs = 1.0 / 10000 ** (jnp.arange(0, dim, 2) / dim)
    angles = positions * freqs
    return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)


config = {"max_len": 1_500_000_000, "dim": 512}  # set to the corpus's token count
table = jax.jit(sinusoidal_table, static_argnums=(0, 1))(config["max_len"], config["dim"])
print(table.shape, table[-1, :4])
