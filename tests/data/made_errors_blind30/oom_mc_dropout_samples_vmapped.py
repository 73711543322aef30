import jax
import jax.numpy as jnp


def forward(key, w, x):
    h = jax.nn.relu(x @ w)
    keep = jax.random.bernoulli(key, 0.9, h.shape)
    return jnp.where(keep, h / 0.9, 0.0)


@jax.jit
def mc_dropout_features(key, w, x):
    # 200 stochastic passes over the whole evaluation set at once, kept for the analysis
    keys = jax.random.split(key, 200)
    return jax.vmap(forward, in_axes=(0, None, None))(keys, w, x)


x_eval = jnp.ones((50_000, 256))
samples = mc_dropout_features(jax.random.key(0), jnp.ones((256, 4096)), x_eval)
print(samples.std(axis=0).mean())
