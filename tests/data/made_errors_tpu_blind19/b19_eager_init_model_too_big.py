import jax
import jax.numpy as jnp


n_layers, d_model, d_ff = 24, 8192, 32768
layers = []
for i in range(n_layers):
    w = jax.random.normal(jax.random.key(i), (d_model, d_ff), jnp.float32) * 0.02
    layers.append(w)
    print("initialised layer", i)
