import jax
import jax.numpy as jnp


def init_mlp(key, sizes=(784, 256, 10)):
    init = jax.nn.initializers.glorot_normal()
    params = []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        key, k_w, k_b = jax.random.split(key, 3)
        params.append({"w": init(k_w, (d_in, d_out)), "b": init(k_b, (d_out,))})
    return params


params = init_mlp(jax.random.key(0))
print([p["w"].shape for p in params])
