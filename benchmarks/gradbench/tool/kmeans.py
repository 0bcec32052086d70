"""GradBench ``kmeans``: the k-means cost, and one Newton direction for the centroids
(gradient divided by the diagonal Hessian, both from one forward pass over the gradient)."""

import numpy as np
from gradbench import wrap

import srcad


def kmeans_cost(points, centroids):
    p2 = np.sum(points * points, axis=1)
    c2 = np.sum(centroids * centroids, axis=1)
    dists = p2[:, None] + c2[None, :] - 2.0 * (points @ centroids.T)
    return np.sum(np.min(dists, axis=1))


_gradient = srcad.grad(kmeans_cost, wrt=1)


def direction(points, centroids):
    # forward over reverse, as the eval's JAX tool does: one pass gives the gradient and the
    # Hessian times ones (the Hessian is diagonal)
    g, h = srcad.jvp(_gradient, (points, centroids), (np.ones_like(centroids),), wrt=(1,))
    return g / h


def _input(raw):
    return (np.array(raw["points"], dtype=np.float64),
            np.array(raw["centroids"], dtype=np.float64))


@wrap.multiple_runs(pre=_input, post=float)
def cost(args):
    return kmeans_cost(*args)


@wrap.multiple_runs(pre=_input, post=lambda d: d.tolist())
def dir(args):  # noqa: A001 - the eval's name
    return direction(*args)


direction(np.eye(3), np.eye(3)[:2] + 0.1)  # warm-up: the code is made at define time
