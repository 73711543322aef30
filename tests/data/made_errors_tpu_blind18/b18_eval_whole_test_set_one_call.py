import jax
import jax.numpy as jnp


def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

@jax.jit
def predict(params, images):
    h = images
    for w in params[:-1]:
        h = jax.nn.relu(conv(h, w))
    return h.mean(axis=(1, 2)) @ params[-1]

keys = jax.random.split(jax.random.key(0), 4)
shapes = [(3, 3, 3, 64), (3, 3, 64, 64), (3, 3, 64, 128), (128, 1000)]
params = [jax.random.normal(k, s) * 0.05 for k, s in zip(keys, shapes)]
test_images = jnp.ones((10000, 224, 224, 3), jnp.float32)
logits = predict(params, test_images)
print("accuracy", float((logits.argmax(-1) == 0).mean()))
