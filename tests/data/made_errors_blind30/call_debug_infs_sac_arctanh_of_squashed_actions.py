import jax
import jax.numpy as jnp

jax.config.update("jax_debug_infs", True)


@jax.jit
def tanh_gaussian_log_prob(mean, log_std, actions):
    # SAC: recover the pre-tanh sample of the replayed actions
    pre_tanh = jnp.arctanh(actions)
    normal_lp = -0.5 * ((pre_tanh - mean) / jnp.exp(log_std)) ** 2 - log_std
    return jnp.sum(normal_lp - jnp.log(1.0 - actions**2 + 1e-6), axis=-1)


actions = jnp.array([[0.3, -1.0], [1.0, 0.5]])  # actions at the limits of the action space
print(tanh_gaussian_log_prob(jnp.zeros(2), jnp.zeros(2), actions))
