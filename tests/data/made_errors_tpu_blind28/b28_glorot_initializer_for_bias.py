import jax
import jax.numpy as jnp


init = jax.nn.initializers.glorot_normal()
k1, k2 = jax.random.split(jax.random.key(0))
params = {"w": init(k1, (784, 256)), "b": init(k2, (256,))}
print(params["w"].shape)
