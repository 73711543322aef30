import jax
import jax.numpy as jnp
import numpy as np
from jax import export


def flatten_features(feature_maps):
    # flatten every sample's feature map for the classifier head
    flat_dim = int(np.prod(feature_maps.shape[1:]))
    return feature_maps.reshape(feature_maps.shape[0], flat_dim)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, h, w, 64"), jnp.float32)
exported = export.export(jax.jit(flatten_features))(spec)
print(exported.out_avals)
