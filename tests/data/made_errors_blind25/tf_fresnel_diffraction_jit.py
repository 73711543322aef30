import tensorflow as tf


@tf.function(jit_compile=True)
def edge_diffraction_intensity(x, wavelength=0.5e-6, distance=1.0):
    # Fresnel diffraction past a straight edge
    u = x * tf.sqrt(2.0 / (wavelength * distance))
    c = tf.math.special.fresnel_cos(u)
    s = tf.math.special.fresnel_sin(u)
    return 0.5 * ((c + 0.5) ** 2 + (s + 0.5) ** 2)


print(edge_diffraction_intensity(tf.linspace(-1e-3, 1e-3, 512)).shape)
