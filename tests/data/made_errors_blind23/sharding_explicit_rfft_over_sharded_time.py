import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("time",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def power_spectrum(audio):
    # one-sided spectrum of each clip, the samples split over devices
    return jnp.abs(jnp.fft.rfft(audio, axis=-1)) ** 2


audio = jax.device_put(jnp.ones((4, 16384)), NamedSharding(mesh, P(None, "time")))
print(power_spectrum(audio).shape)
