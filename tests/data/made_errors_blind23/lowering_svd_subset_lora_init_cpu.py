import jax
import jax.numpy as jnp


def lora_init_from_weight(w, rank=8):
    # PiSSA-style LoRA init: the top singular directions of the frozen weight
    u, s, vt = jax.lax.linalg.svd(w, full_matrices=False, subset_by_index=(0, rank))
    a = u * jnp.sqrt(s)
    b = jnp.sqrt(s)[:, None] * vt
    return a, b


a, b = jax.jit(lora_init_from_weight)(jnp.ones((512, 512)))
print(a.shape, b.shape)
