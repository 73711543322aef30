import jax
import jax.numpy as jnp


def fit_linear_probe(features, targets):
    # least-squares readout on frozen features
    coef, *_ = jnp.linalg.lstsq(features, targets)
    return coef


train_features = jnp.ones((800, 64))
val_targets = jnp.ones((200,))  # the targets of the validation split, picked by mistake
print(jax.jit(fit_linear_probe)(train_features, val_targets).shape)
