import jax
import jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", True)  # for the int64 example ids

params = jnp.ones((1536, 1024, 1024), jnp.float32)
print("params", params.dtype, params.nbytes / 2**30, "GiB")
features = np.ones((1280, 1024, 1024))
features_on_device = jax.device_put(features)
print(features_on_device.dtype)
