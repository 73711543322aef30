import jax
import jax.numpy as jnp


def denoiser(w, image):
    return jnp.tanh(image * w)


@jax.jit
def input_jacobian(w, image):
    # how each output pixel depends on each input pixel
    return jax.jacfwd(denoiser, argnums=1)(w, image)


jac = input_jacobian(jnp.ones((512, 512, 3)), jnp.ones((512, 512, 3)))
print(jac.shape, jac[0, 0, 0, 0, 0, 0])
