import jax
import jax.numpy as jnp


def lora_dense(params, x, alpha=16.0, rank=8):
    # frozen weight plus the low-rank update x A B
    lora = (x @ params["lora_a"]) @ params["lora_b"]
    return x @ params["w"] + (alpha / rank) * lora


key_a, _ = jax.random.split(jax.random.key(0))
params = {
    "w": jnp.zeros((512, 256)),  # (in, out)
    "lora_a": jax.random.normal(key_a, (512, 8)) * 0.01,  # (in, rank)
    "lora_b": jnp.zeros((256, 8)),  # (out, rank), as the PyTorch checkpoint stores it
}
print(jax.jit(lora_dense)(params, jnp.ones((32, 512))).shape)
