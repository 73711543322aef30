import jax
import jax.numpy as jnp


def triplet_loss(anchor, positive, negative, margin=0.2):
    d_pos = jnp.sum((anchor - positive) ** 2, axis=-1)
    d_neg = jnp.sum((anchor - negative) ** 2, axis=-1)
    return jnp.mean(jax.nn.relu(d_pos - d_neg + margin))


emb = jax.random.normal(jax.random.key(0), (64, 128))
hard_negatives = emb[::2]  # mined from every other example
print(jax.jit(triplet_loss)(emb, jnp.roll(emb, 1, axis=0), hard_negatives))
