"""GradBench ``ht``: hand tracking (ADBench's objective): a skinned hand model posed by 26
parameters, the error at each observed point. The Jacobian is dense in the pose parameters
(``srcad.jacfwd``: one batched forward pass of 26 directions); in the "complicated" variant
each point also has its own two barycentric coordinates, whose Jacobian columns are two
directions more of the same pass (``srcad.jvp_batched``: each error depends only on its own
point's coordinates, as ADBench lays it out)."""

import inspect

import numpy as np
from gradbench import wrap
from gradbench.adbench.ht_data import HandInput

import srcad


def pose_params(theta, nbones):
    zeros = np.zeros(3)
    rows = [theta[0:3], np.ones(3), theta[3:6], zeros, zeros]
    k = 6
    for _ in range(5):  # fingers
        rows.append(np.array([theta[k], theta[k + 1], 0.0]))
        rows.append(np.array([theta[k + 2], 0.0, 0.0]))
        rows.append(np.array([theta[k + 3], 0.0, 0.0]))
        rows.append(zeros)
        k = k + 4
    return np.stack(rows)


def euler_angles_to_rotation(xzy):
    tx, ty, tz = xzy[0], xzy[2], xzy[1]
    cx, sx = np.cos(tx), np.sin(tx)
    cy, sy = np.cos(ty), np.sin(ty)
    cz, sz = np.cos(tz), np.sin(tz)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    ry = np.array([[cy, 0.0, -sy], [0.0, 1.0, 0.0], [sy, 0.0, cy]])
    rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    return rz @ ry @ rx


def angle_axis_to_rotation(aa):
    n = np.sqrt(np.sum(aa * aa))
    if n < 0.0001:
        return np.eye(3)
    x, y, z = aa[0] / n, aa[1] / n, aa[2] / n
    s, c = np.sin(n), np.cos(n)
    return np.array([
        [x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
        [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
        [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c]])


def skinned_vertices(pose, parents, base_relatives, inverse_base_absolutes, base_positions,
                     weights):
    absolutes = []
    for i in range(len(parents)):
        rotation = euler_angles_to_rotation(pose[i + 3])
        base = base_relatives[i]
        relative = np.concatenate((base[:, :3] @ rotation, base[:, 3:]), axis=1)
        if parents[i] == -1:
            absolutes.append(relative)
        else:
            absolutes.append(absolutes[parents[i]] @ relative)
    transforms = np.stack(absolutes) @ inverse_base_absolutes
    positions = np.einsum("bij,vj->vbi", transforms, base_positions)
    skinned = np.sum(positions * weights[:, :, None], axis=1)[:, :3]
    rotation = angle_axis_to_rotation(pose[0]) * pose[1]
    return skinned @ rotation.T + pose[2]


def hand_error(theta, model, points, correspondences):
    parents, base_relatives, inverse_base_absolutes, base_positions, weights = model
    pose = pose_params(theta, len(parents))
    vertices = skinned_vertices(pose, parents, base_relatives, inverse_base_absolutes,
                                base_positions, weights)
    return (points - vertices[correspondences]).ravel()


def hand_error_us(theta, us, model, points, corners):
    """The complicated variant: each point matched to a point of a triangle, ``corners`` the
    triangle's three vertex indices per point."""
    parents, base_relatives, inverse_base_absolutes, base_positions, weights = model
    pose = pose_params(theta, len(parents))
    vertices = skinned_vertices(pose, parents, base_relatives, inverse_base_absolutes,
                                base_positions, weights)
    u0, u1 = us[:, 0:1], us[:, 1:2]
    hand = (u0 * vertices[corners[:, 0]] + u1 * vertices[corners[:, 1]]
            + (1.0 - u0 - u1) * vertices[corners[:, 2]])
    return (points - hand).ravel()


_theta_jacobian = srcad.jacfwd(hand_error)


def _input(raw):
    data = HandInput.from_dict(raw)
    model = data.data.model
    parents = [int(p) for p in model.parents]
    packed = (parents, np.asarray(model.base_relatives, dtype=np.float64),
              np.asarray(model.inverse_base_absolutes, dtype=np.float64),
              np.asarray(model.base_positions, dtype=np.float64),
              np.asarray(model.weights, dtype=np.float64))
    points = np.asarray(data.data.points, dtype=np.float64)
    correspondences = np.asarray(data.data.correspondences, dtype=np.int64)
    theta = np.asarray(data.theta, dtype=np.float64)
    if len(data.us) == 0:
        return "simple", (theta, packed, points, correspondences)
    us = np.asarray(data.us, dtype=np.float64).reshape(-1, 2)
    corners = np.asarray(model.triangles, dtype=np.int64)[correspondences]
    return "complicated", (theta, us, packed, points, corners)


def objective_(variant, args):
    return hand_error(*args) if variant == "simple" else hand_error_us(*args)


def jacobian_(variant, args):
    if variant == "simple":
        return _theta_jacobian(*args)
    theta, us = args[0], args[1]
    # 2 + 26 directions in one batched forward pass: each point's two coordinates at once
    # (a column each, as ADBench lays them out), then the pose parameters one by one
    k = 2 + len(theta)
    dtheta = np.zeros((k, len(theta)))
    dtheta[2:] = np.eye(len(theta))
    dus = np.zeros((k,) + us.shape)
    dus[0, :, 0] = dus[1, :, 1] = 1.0
    return srcad.jvp_batched(hand_error_us, args, (dtheta, dus), wrt=(0, 1))[1].T


def _numba_mode():
    """Whether the tool runs with ``--backend numba`` (srcad's derivatives made by Numba)."""
    return inspect.signature(srcad.jacfwd).parameters["backend"].default == "numba"


@wrap.multiple_runs(pre=_input, post=lambda e: e.tolist())
def objective(prepared):
    return objective_(*prepared)


@wrap.multiple_runs(pre=_input, post=lambda j: j.tolist())
def jacobian(prepared):
    return jacobian_(*prepared)


def _warm_up():
    """Make the derivative code at define, as the other modules do, on a small model of the
    kinds the eval sends (a list of parent indices, float64 arrays, int64 indices): srcad
    specialises on kinds and ranks, not sizes. Under ``--backend numba`` only the variant
    GradBench's ht eval runs by default ("complicated"): compiling the "simple" one's batched
    code too took a quarter of the define (about 23 s of 86 s CPU with a cold cache); under
    ``--variant simple`` it compiles at its first evaluation."""
    nbones, nverts, npoints = 22, 8, 4
    rng = np.random.default_rng(0)
    model = ([-1] + list(range(nbones - 1)), rng.random((nbones, 4, 4)),
             rng.random((nbones, 4, 4)), rng.random((nverts, 4)), rng.random((nverts, nbones)))
    theta, points = rng.random(26), rng.random((npoints, 3))
    if not _numba_mode():
        jacobian_("simple", (theta, model, points, np.arange(npoints, dtype=np.int64)))
    corners = np.arange(3 * npoints, dtype=np.int64).reshape(npoints, 3) % nverts
    jacobian_("complicated", (theta, rng.random((npoints, 2)), model, points, corners))


_warm_up()
