import jax
import jax.numpy as jnp


def orthonormalize_adapters(lora_a):
    # keep the LoRA down-projection orthonormal after each step (PiSSA-style)
    q, _ = jnp.linalg.qr(lora_a)
    return q


lora_a = jax.random.normal(jax.random.key(0), (4096, 16), jnp.bfloat16)
print(jax.jit(orthonormalize_adapters)(lora_a)[:2])
