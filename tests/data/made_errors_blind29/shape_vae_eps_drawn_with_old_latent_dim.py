import jax
import jax.numpy as jnp

LATENT_DIM = 16  # the config before the latent space was widened to 32


def reparameterize(key, mu, logvar):
    eps = jax.random.normal(key, (mu.shape[0], LATENT_DIM))
    return mu + jnp.exp(0.5 * logvar) * eps


h = jnp.ones((64, 64))  # the encoder's head: mean and log-variance side by side
mu, logvar = jnp.split(h, 2, axis=-1)
print(jax.jit(reparameterize)(jax.random.key(0), mu, logvar).shape)
