import jax
import jax.numpy as jnp

CONFIG = {"layers": 4, "max_len": 128, "heads": 8, "head_dim": 32}


@jax.jit
def init_cache(config, prompt_ids):
    # one key and one value buffer per layer for incremental decoding
    shape = (config["layers"], prompt_ids.shape[0], config["max_len"], config["heads"],
             config["head_dim"])
    return {"k": jnp.zeros(shape, jnp.bfloat16), "v": jnp.zeros(shape, jnp.bfloat16)}


cache = init_cache(CONFIG, jnp.zeros((2, 16), jnp.int32))
print(cache["k"].shape)
