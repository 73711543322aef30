import jax
import jax.numpy as jnp


@jax.jit
def depth_l1(pred_depth, gt_depth):
    # the lidar ground truth is sparse: score only the pixels that have a return
    valid = gt_depth > 0
    err = jnp.extract(valid, jnp.abs(pred_depth - gt_depth))
    return err.mean()


gt = jnp.zeros((64, 64)).at[::4, ::4].set(10.0)
print(depth_l1(jnp.ones((64, 64)), gt))
