import jax
import jax.numpy as jnp
import numpy as np

images = np.zeros((120_000, 224, 224, 3), np.uint8)
labels = np.zeros((120_000,), np.int32)
images_on_tpu = jax.device_put(images)
labels_on_tpu = jax.device_put(labels)
print(images_on_tpu.shape)
