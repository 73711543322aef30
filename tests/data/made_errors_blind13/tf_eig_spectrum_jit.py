import tensorflow as tf


@tf.function(jit_compile=True)
def spectral_radius(adjacency):
    eigenvalues, _ = tf.linalg.eig(adjacency)
    return tf.reduce_max(tf.abs(eigenvalues))


graph = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
print(spectral_radius(graph))
