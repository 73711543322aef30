import jax
import jax.numpy as jnp


VOCAB, DIM = 10_000_000, 1024

def init_params(key):
    k_emb, k_out = jax.random.split(key)
    return {
        "embedding": jax.random.normal(k_emb, (VOCAB, DIM), jnp.float32) * 0.02,
        "out": jax.random.normal(k_out, (DIM, 512), jnp.float32) * 0.02,
    }

def forward(params, ids):
    return jnp.take(params["embedding"], ids, axis=0) @ params["out"]

params = jax.jit(init_params)(jax.random.key(0))
print(forward(params, jnp.arange(8)).shape)
