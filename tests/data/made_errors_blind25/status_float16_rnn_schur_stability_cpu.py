import jax
import jax.numpy as jnp


def recurrent_modes(w_hh):
    # stability of the trained RNN: the real Schur form of its recurrent matrix
    t, _ = jax.scipy.linalg.schur(w_hh)
    return jnp.diag(t)


w_hh = jnp.eye(64, dtype=jnp.float16) * 0.9  # the checkpoint is stored in fp16
print(jax.jit(recurrent_modes)(w_hh)[:4])
