import tensorflow as tf

# ten hours of 48 kHz field recordings, analysed with a hop of one sample
audio = tf.zeros([48_000 * 3600 * 10])
spec = tf.signal.stft(audio, frame_length=2048, frame_step=1)
print(spec.shape)
