"""GradBench ``ba``: bundle adjustment (ADBench's objective). The reprojection error of each
observation is a function of one camera, one point and one weight; its 2 x 15 Jacobian is
taken per observation, as ADBench's Python tools do, into GradBench's sparse layout. The block
is ``srcad.jacfwd``'s with either backend (``--backend numba`` compiles it): its 15 columns in
one batched pass cost less than reverse mode's two rows, a backward pass each, over vectors
this small (docs/performance.md); the objective is the same NumPy code in both modes."""

import numpy as np
from gradbench import wrap
from gradbench.adbench.ba_sparse_mat import BASparseMat

import srcad

ROT, CENTRE, FOCAL, X0, RAD = 0, 3, 6, 7, 9


def cross(a, b):
    # written out, as ADBench's C++ does: np.cross of two 3-vectors costs twice the objective
    # (measured), in the primal and in the gradient alike
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def rodrigues_rotate_point(rot, X):
    sqtheta = np.sum(rot * rot)
    if sqtheta != 0.0:
        theta = np.sqrt(sqtheta)
        w = rot / theta
        w_cross_X = cross(w, X)
        tmp = np.dot(w, X) * (1.0 - np.cos(theta))
        return X * np.cos(theta) + w_cross_X * np.sin(theta) + w * tmp
    return X + cross(rot, X)


def radial_distort(rad, proj):
    rsq = np.sum(proj * proj)
    return proj * (1.0 + rad[0] * rsq + rad[1] * rsq * rsq)


def project(cam, X):
    Xcam = rodrigues_rotate_point(cam[ROT:ROT + 3], X - cam[CENTRE:CENTRE + 3])
    distorted = radial_distort(cam[RAD:RAD + 2], Xcam[0:2] / Xcam[2])
    return distorted * cam[FOCAL] + cam[X0:X0 + 2]


def reproj_err(cam, X, w, feat):
    return w * (project(cam, X) - feat)


def w_err(w):
    return 1.0 - w * w


# the 2 x 15 block: forward mode, the 15 columns in one batched pass (``srcad.jacfwd``) with
# either backend
_reproj_jacobian = srcad.jacfwd(reproj_err, wrt=(0, 1, 2))
_w_gradient = srcad.grad(w_err)


def _input(raw):
    n, m, p = raw["n"], raw["m"], raw["p"]
    cams = np.tile(np.array(raw["cam"], dtype=np.float64), (n, 1))
    X = np.tile(np.array(raw["x"], dtype=np.float64), (m, 1))
    w = np.full(p, float(raw["w"]))
    feats = np.tile(np.array(raw["feat"], dtype=np.float64), (p, 1))
    obs = np.stack([np.arange(p) % n, np.arange(p) % m], axis=1)
    return cams, X, w, obs, feats


def objective_(cams, X, w, obs, feats):
    p = len(obs)
    reproj = np.empty((p, 2))
    werr = np.empty(p)
    for j in range(p):
        reproj[j] = reproj_err(cams[obs[j, 0]], X[obs[j, 1]], w[j], feats[j])
        werr[j] = w_err(w[j])
    return reproj.ravel(), werr


@wrap.multiple_runs(pre=_input, post=lambda e: {
    "reproj_error": {"elements": e[0][:2].tolist(), "repeated": len(e[0]) // 2},
    "w_err": {"element": float(e[1][0]), "repeated": len(e[1])}})
def objective(args):
    return objective_(*args)


def jacobian_(cams, X, w, obs, feats):
    p = len(obs)
    mat = BASparseMat(len(cams), len(X), p)
    for j in range(p):
        cam, pt = int(obs[j, 0]), int(obs[j, 1])
        dcam, dx, dw = _reproj_jacobian(cams[cam], X[pt], float(w[j]), feats[j])
        block = np.concatenate((dcam, dx, dw[:, None]), axis=1)  # 2 x 15
        mat.insert_reproj_err_block(j, cam, pt, block.T.ravel())
    for j in range(p):
        mat.insert_w_err_block(j, _w_gradient(float(w[j])))
    return mat


def _sparse(mat):
    def ends(a):
        a = list(a)
        return a[:30] + [a[-1]]
    return {"rows": [int(v) for v in ends(mat.rows)], "cols": [int(v) for v in ends(mat.cols)],
            "vals": [float(v) for v in ends(mat.vals)]}


@wrap.multiple_runs(pre=_input, post=_sparse)
def jacobian(args):
    return jacobian_(*args)


jacobian_(*_input({"n": 1, "m": 1, "p": 1, "cam": [0.1] * 11, "x": [0.1, 0.2, 3.0], "w": 0.5,
                   "feat": [0.1, 0.2]}))  # warm-up: the code is made at define time
