"""Train the ANN surrogates of paper 001 (Sec. 4.1, 4.3.1) reproducibly and write their weights.

    python -m gpubench.problems.surrogates [OUTDIR]      # default functions/models/

The authors' networks are not published; these are ours, so B&B iteration counts and
times differ from the paper's and only its trends are compared.

* ``peaks_ann.npz``: Peaks on [-3, 3]^2, hidden tanh layers of 10 and 8 (Problems (1), (2)).
* ``alpine02_ann_{d}d.npz``, d = 2..7: Alpine02 on [3, 9]^d, one hidden tanh layer of 60
  (Problems (3), (4)).

Data: ``SAMPLES[d]`` points drawn uniformly in the box (numpy ``default_rng(SEED + d)``);
loss: mean squared error on inputs scaled to [-1, 1] and outputs standardised;
optimiser: SciPy L-BFGS-B from Glorot-uniform weights, ``MAXITER`` iterations.  The input
and output scalings are then folded into the first and last layers, so the stored arrays
define the network on the raw inputs (gpubench.forms.models reads each as the exact binary64
number it is).  Runs on one CPU core in about a minute.
"""
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

SEED = 20240601
SAMPLES = {2: 1500, 3: 2000, 4: 2500, 5: 3000, 6: 3500, 7: 4000}
MAXITER = {"peaks": 3000, "alpine02": 1500}


def peaks(X):
    x, y = X[:, 0], X[:, 1]
    return (3 * (1 - x) ** 2 * np.exp(-x**2 - (y + 1) ** 2)
            - 10 * (x / 5 - x**3 - y**5) * np.exp(-x**2 - y**2)
            - np.exp(-(x + 1) ** 2 - y**2) / 3)


def alpine02(X):
    return np.prod(np.sqrt(X) * np.sin(X), axis=1)


def _unpack(theta, sizes):
    out, k = [], 0
    for a, b in zip(sizes[:-1], sizes[1:]):
        W = theta[k:k + a * b].reshape(b, a)
        k += a * b
        c = theta[k:k + b]
        k += b
        out.append((W, c))
    return out


def _loss(theta, sizes, X, y):
    """MSE and its gradient by backpropagation (tanh hidden layers, linear output)."""
    layers = _unpack(theta, sizes)
    acts = [X]
    h = X
    for W, c in layers[:-1]:
        h = np.tanh(h @ W.T + c)
        acts.append(h)
    W, c = layers[-1]
    r = (h @ W.T + c)[:, 0] - y
    n = X.shape[0]
    loss = float(r @ r / n)
    delta = (2.0 / n) * r[:, None]
    grads = []
    for i in range(len(layers) - 1, -1, -1):
        W, c = layers[i]
        grads.append((delta.T @ acts[i], delta.sum(axis=0)))
        if i:
            delta = (delta @ W) * (1 - acts[i] ** 2)
    g = np.concatenate([np.concatenate([gW.ravel(), gc]) for gW, gc in reversed(grads)])
    return loss, g


def train(name, f, lo, hi, hidden, n_samples, maxiter, seed):
    d = lo.size
    rng = np.random.default_rng(seed)
    X = rng.uniform(lo, hi, size=(n_samples, d))
    Xt = rng.uniform(lo, hi, size=(1000, d))
    y, yt = f(X), f(Xt)
    m, s = 0.5 * (lo + hi), 0.5 * (hi - lo)              # inputs to [-1, 1]
    ym, ys = float(y.mean()), float(y.std())             # outputs standardised
    sizes = [d, *hidden, 1]
    theta0 = np.concatenate([np.concatenate([
        rng.uniform(-1, 1, (b, a)).ravel() * np.sqrt(6.0 / (a + b)), np.zeros(b)])
        for a, b in zip(sizes[:-1], sizes[1:])])
    t0 = time.perf_counter()
    r = minimize(_loss, theta0, args=(sizes, (X - m) / s, (y - ym) / ys), jac=True, method="L-BFGS-B",
                 options={"maxiter": maxiter, "maxfun": 2 * maxiter})
    layers = _unpack(r.x, sizes)
    W1, b1 = layers[0]
    layers[0] = (W1 / s, b1 - (W1 / s) @ m)               # fold the input scaling
    WL, bL = layers[-1]
    layers[-1] = (WL * ys, bL * ys + ym)                 # fold the output scaling
    pred = _forward(layers, Xt)
    rmse = float(np.sqrt(np.mean((pred - yt) ** 2)))
    info = {"name": name, "dim": d, "hidden": list(hidden), "samples": n_samples, "test_samples": 1000,
            "seed": seed, "maxiter": maxiter, "iterations": int(r.nit), "train_mse_scaled": float(r.fun),
            "test_rmse": rmse, "range_of_f_on_test": [float(yt.min()), float(yt.max())],
            "seconds": time.perf_counter() - t0}
    return layers, info


def _forward(layers, X):
    h = X
    for W, c in layers[:-1]:
        h = np.tanh(h @ W.T + c)
    W, c = layers[-1]
    return (h @ W.T + c)[:, 0]


def main(argv):
    from gpubench import functions
    out = Path(argv[0]) if argv else Path(functions.__path__[0]) / "models"
    out.mkdir(parents=True, exist_ok=True)
    jobs = [("peaks_ann", peaks, np.full(2, -3.0), np.full(2, 3.0), (10, 8), SAMPLES[2], MAXITER["peaks"], SEED)]
    jobs += [(f"alpine02_ann_{d}d", alpine02, np.full(d, 3.0), np.full(d, 9.0), (60,), SAMPLES[d],
              MAXITER["alpine02"], SEED + d) for d in range(2, 8)]
    meta = []
    for name, f, lo, hi, hidden, n, it, seed in jobs:
        layers, info = train(name, f, lo, hi, hidden, n, it, seed)
        arrays = {}
        for k, (W, c) in enumerate(layers, 1):
            arrays[f"W{k}"], arrays[f"b{k}"] = W, c
        np.savez(out / f"{name}.npz", **arrays)
        meta.append(info)
        print(f"{name}: test RMSE {info['test_rmse']:.4g} (f in [{info['range_of_f_on_test'][0]:.3g}, "
              f"{info['range_of_f_on_test'][1]:.3g}]), {info['iterations']} L-BFGS iterations, "
              f"{info['seconds']:.1f} s", flush=True)
    (out / "training.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
