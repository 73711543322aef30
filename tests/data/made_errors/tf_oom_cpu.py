import tensorflow as tf

x = tf.zeros((1 << 20, 1 << 20))
