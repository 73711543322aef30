import tensorflow as tf

# one hour of 16 kHz audio after a 4x downsampling front end
frames = tf.random.normal([1, 150_000, 64])
q = tf.keras.layers.Dense(64)(frames)
k = tf.keras.layers.Dense(64)(frames)
scores = tf.matmul(q, k, transpose_b=True) / 8.0
print(tf.nn.softmax(scores).shape)
