import jax
import jax.numpy as jnp
import anomalib_lite

train = jnp.ones((1000, 8))
detector = anomalib_lite.GaussianDetector.fit(train)
print(detector.score(jnp.ones((5, 8))))
