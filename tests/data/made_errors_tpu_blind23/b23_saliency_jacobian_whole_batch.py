import jax
import jax.numpy as jnp


def logits(params, images):
    h = jax.nn.relu(images.reshape(images.shape[0], -1) @ params["w1"])
    return h @ params["w2"]

params = {"w1": jnp.full((150528, 512), 1e-3), "w2": jnp.full((512, 1000), 1e-3)}
images = jnp.ones((8, 224, 224, 3), jnp.float32)
saliency = jax.jit(jax.jacrev(logits, argnums=1))(params, images)
print(saliency.shape)
