import jax
import jax.numpy as jnp


def class_score(params, image, label=3):
    logits = jnp.tanh(image.reshape(-1) @ params)
    return logits[label]


params = jnp.ones((28 * 28, 10)) / 100
image = jnp.ones((28, 28))
# the gradient with respect to the image (its second argument) is the saliency map
saliency = jax.grad(class_score, argnums=2)(params, image)
print(saliency.shape)
