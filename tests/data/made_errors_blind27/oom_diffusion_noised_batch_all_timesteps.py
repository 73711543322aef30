import jax
import jax.numpy as jnp


@jax.jit
def noised_for_every_timestep(key, images, alphas_cumprod):
    # precompute x_t for all 1000 timesteps at once instead of sampling one t per image
    noise = jax.random.normal(key, (alphas_cumprod.shape[0],) + images.shape)
    a = alphas_cumprod[:, None, None, None, None]
    return jnp.sqrt(a) * images[None] + jnp.sqrt(1 - a) * noise


alphas = jnp.linspace(0.9999, 0.98, 1000).cumprod()
x_t = noised_for_every_timestep(jax.random.key(0), jnp.ones((256, 256, 256, 3)), alphas)
print(x_t[0, 0, 0, 0])
