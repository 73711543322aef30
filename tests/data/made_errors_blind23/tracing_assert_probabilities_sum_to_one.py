import jax
import jax.numpy as jnp


@jax.jit
def expected_calibration_error(probs, labels, n_bins=10):
    assert jnp.allclose(probs.sum(-1), 1.0), "probs must be normalised"
    confidence = probs.max(-1)
    correct = (probs.argmax(-1) == labels).astype(jnp.float32)
    bins = jnp.minimum((confidence * n_bins).astype(jnp.int32), n_bins - 1)
    gap = jax.ops.segment_sum(confidence - correct, bins, n_bins)
    return jnp.abs(gap).sum() / labels.shape[0]


probs = jax.nn.softmax(jnp.zeros((256, 10)))
print(expected_calibration_error(probs, jnp.zeros(256, jnp.int32)))
