import jax
import jax.numpy as jnp


params = {f"layer{i}": jnp.ones((256, 1024, 1024), jnp.float32) for i in range(11)}
jax.block_until_ready(params)
print("float32 params", sum(p.nbytes for p in params.values()) / 2**30, "GiB")
params_bf16 = {}
for name, p in params.items():
    params_bf16[name] = p.astype(jnp.bfloat16).block_until_ready()
    print("cast", name)
