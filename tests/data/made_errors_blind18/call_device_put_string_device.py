import jax
import jax.numpy as jnp


params = {"w": jnp.ones((512, 512)), "b": jnp.zeros(512)}
# move the weights to the host before saving, as with torch's .to("cpu")
host_params = jax.device_put(params, "cpu")
print(jax.tree.map(lambda p: p.shape, host_params))
