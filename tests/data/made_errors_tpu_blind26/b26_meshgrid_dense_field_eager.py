import jax
import jax.numpy as jnp


x = jnp.linspace(-1.0, 1.0, 32768)
xx, yy = jnp.meshgrid(x, x)
print("grid", xx.shape, xx.nbytes / 2**30, "GiB each")
radius = jnp.sqrt(xx**2 + yy**2)
field = jnp.exp(-radius)
print(field.mean())
