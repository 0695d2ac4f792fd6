"""The pipeline of lesson 1 in numpy, for `make bench` to time side by side
with `qkvtutor --json 1`: three tokens of four features, weights drawn with
the legacy seed 42 and scaled by 0.3, unscaled scores and the plain softmax.
Prints Q, K, V, the scores, the weights and the output, as the tutorial's listing does."""
import numpy as np

np.random.seed(42)
tokens = ["我", "love", "猫"]
x = np.array([[1.0, 0.0, 0.0, 0.0],
              [0.0, 1.0, 0.0, 0.0],
              [0.0, 0.0, 1.0, 0.2]])
w_q = np.random.randn(4, 3) * 0.3
w_k = np.random.randn(4, 3) * 0.3
w_v = np.random.randn(4, 3) * 0.3

q, k, v = x @ w_q, x @ w_k, x @ w_v
scores = q @ k.T
e = np.exp(scores)
weights = e / e.sum(axis=1, keepdims=True)
out = weights @ v

# Print what the tutorial's listing prints: each matrix, row by token.
np.set_printoptions(precision=3, suppress=True)
for name, m in (("Q", q), ("K", k), ("V", v), ("scores", scores), ("weights", weights), ("output", out)):
    print(name)
    for t, row in zip(tokens, m):
        print(f"  {t}: {row}")
