import jax
import jax.numpy as jnp


def sequence_loss(params, inputs):
    def cell(h, x):
        h = jnp.tanh(h @ params["recurrent"] + x @ params["input"])
        return h, None
    h0 = jnp.zeros((inputs.shape[1], 2048), jnp.float32)
    h_last, _ = jax.lax.scan(cell, h0, inputs)
    return jnp.mean(h_last ** 2)

params = {"recurrent": jnp.eye(2048) * 0.5, "input": jnp.full((512, 2048), 1e-3)}
inputs = jnp.ones((4096, 256, 512), jnp.float32)
grads = jax.jit(jax.grad(sequence_loss))(params, inputs)
print(grads["recurrent"].shape)
