import jax
import jax.numpy as jnp


def sample_balanced_batch(key, labels, num_classes=10, batch=64):
    # inverse-frequency weights per class, used to draw a class-balanced batch of examples
    counts = jnp.bincount(labels, length=num_classes)
    p = 1.0 / counts
    return jax.random.choice(key, labels.shape[0], (batch,), p=p / p.sum())


labels = jnp.arange(50_000) % 10
print(sample_balanced_batch(jax.random.key(0), labels)[:8])
