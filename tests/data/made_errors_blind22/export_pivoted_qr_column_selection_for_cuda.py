import jax
import jax.numpy as jnp
from jax import export


def select_columns(features, k=8):
    # rank-revealing QR: keep the k most informative feature columns
    _, _, perm = jax.lax.linalg.qr(features, pivoting=True, full_matrices=False)
    return features[:, perm[:k]]


# the feature selector runs on the GPU inference service
exp = export.export(jax.jit(select_columns), platforms=["cuda"])(
    jax.ShapeDtypeStruct((512, 64), jnp.float32))
print(exp.out_avals)
