import tensorflow as tf

edges = [[0, 1], [1, 0], [1, 2], [2, 1], [2, 3], [3, 2]]
adjacency = tf.sparse.SparseTensor(edges, [0.5] * len(edges), dense_shape=[4, 4])


@tf.function(jit_compile=True)
def gcn_layer(node_features, kernel):
    # graph convolution: aggregate the neighbours, then transform
    aggregated = tf.sparse.sparse_dense_matmul(adjacency, node_features)
    return tf.nn.relu(aggregated @ kernel)


print(gcn_layer(tf.ones((4, 16)), tf.ones((16, 8))).shape)
