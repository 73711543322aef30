import jax
import jax.numpy as jnp


def denoise(model_w, x, t):
    return x - 0.1 * jnp.tanh(x @ model_w) * t


@jax.jit
def sample(model_w, noise, num_steps):
    # fewer steps at eval time for speed
    timesteps = jnp.linspace(1.0, 0.0, num_steps)

    def step(x, t):
        return denoise(model_w, x, t), None

    x, _ = jax.lax.scan(step, noise, timesteps)
    return x


noise = jax.random.normal(jax.random.key(0), (4, 16))
print(sample(jnp.eye(16), noise, 50).shape)
