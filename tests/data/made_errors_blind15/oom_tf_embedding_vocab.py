import tensorflow as tf

VOCAB = 2_000_000_000

embed = tf.keras.layers.Embedding(VOCAB, 256)
tokens = tf.constant([[1, 2, 3]])
print(embed(tokens).shape)
