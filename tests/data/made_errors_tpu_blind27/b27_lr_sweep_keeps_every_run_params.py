import jax
import jax.numpy as jnp


@jax.jit
def init_mlp(key):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (16384, 32768)) * 0.01,
            "w2": jax.random.normal(k2, (32768, 16384)) * 0.01}

results = {}
for lr in [1e-2, 3e-3, 1e-3, 3e-4, 1e-4]:
    params = init_mlp(jax.random.key(0))
    results[lr] = params
    print("lr", lr, "runs kept", len(results), "params", 4 * len(results), "GiB")
