"""GradBench ``ht`` in JAX, written in this repository (GradBench's stock ``jax`` tool has no
``ht`` module), from the eval's definition (ADBench's hand model): the 26 pose parameters
spread over the bones, each bone's rotation from its Euler angles, the bones' absolute
transforms composed along their parents (a ``lax.scan`` over the bones), linear blend
skinning, the global rotation (angle-axis), scale and translation; the error is the observed
points minus the matched model points (in the "complicated" variant a point of a triangle,
given by two barycentric coordinates per point). The Jacobian is ``jax.jacfwd`` over the pose
(dense, 26 columns), and in the complicated variant two ``jax.jvp`` passes give the columns of
the coordinates (each error depends only on its own point's two), in the eval's layout: the
two coordinate columns first. Each is one ``jax.jit`` function."""

import jax
import jax.numpy as jnp
import numpy as np
from gradbench import wrap
from gradbench.adbench.ht_data import HandInput
from jax import lax

jax.config.update("jax_enable_x64", True)


def pose_params(theta):
    """The (25, 3) pose: global rotation, scale (ones), translation, two empty rows, then per
    finger four rows (two angles of the first joint, one each of the next two, an empty one)."""
    zeros = jnp.zeros(3)
    rows = [theta[0:3], jnp.ones(3), theta[3:6], zeros, zeros]
    for finger in range(5):
        k = 6 + 4 * finger
        rows += [jnp.stack([theta[k], theta[k + 1], 0.0]), jnp.stack([theta[k + 2], 0.0, 0.0]),
                 jnp.stack([theta[k + 3], 0.0, 0.0]), zeros]
    return jnp.stack(rows)


def euler_angles_to_rotation(xzy):
    tx, ty, tz = xzy[0], xzy[2], xzy[1]
    cx, sx = jnp.cos(tx), jnp.sin(tx)
    cy, sy = jnp.cos(ty), jnp.sin(ty)
    cz, sz = jnp.cos(tz), jnp.sin(tz)
    rx = jnp.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    ry = jnp.array([[cy, 0.0, -sy], [0.0, 1.0, 0.0], [sy, 0.0, cy]])
    rz = jnp.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    return rz @ ry @ rx


def angle_axis_to_rotation(aa):
    norm = jnp.sqrt(jnp.sum(aa * aa))
    small = norm < 0.0001
    n = jnp.where(small, 1.0, norm)  # the other branch's value, never used, kept finite
    x, y, z = aa[0] / n, aa[1] / n, aa[2] / n
    s, c = jnp.sin(n), jnp.cos(n)
    rotation = jnp.array([
        [x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
        [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
        [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c]])
    return jnp.where(small, jnp.eye(3), rotation)


def skinned_vertices(pose, parents, base_relatives, inverse_base_absolutes, base_positions,
                     weights):
    nbones = parents.shape[0]

    def bone(absolutes, item):
        i, parent, base, angles = item
        relative = jnp.concatenate((base[:, :3] @ euler_angles_to_rotation(angles),
                                    base[:, 3:]), axis=1)
        above = jnp.where(parent < 0, jnp.eye(4), absolutes[parent])
        return absolutes.at[i].set(above @ relative), None

    absolutes, _ = lax.scan(bone, jnp.zeros((nbones, 4, 4)),
                            (jnp.arange(nbones), parents, base_relatives, pose[3:3 + nbones]))
    transforms = (absolutes @ inverse_base_absolutes)[:, :3, :]
    # linear blend skinning: each vertex's weighted sum of the bones' transforms (one matrix
    # product over the bones), applied to the vertex
    blended = (weights @ transforms.reshape(nbones, 12)).reshape(-1, 3, 4)
    skinned = jnp.einsum("vij,vj->vi", blended, base_positions)
    rotation = angle_axis_to_rotation(pose[0]) * pose[1]
    return skinned @ rotation.T + pose[2]


def hand_error(theta, model, points, correspondences):
    vertices = skinned_vertices(pose_params(theta), *model)
    return (points - vertices[correspondences]).ravel()


def hand_error_us(theta, us, model, points, corners):
    vertices = skinned_vertices(pose_params(theta), *model)
    u0, u1 = us[:, 0:1], us[:, 1:2]
    hand = (u0 * vertices[corners[:, 0]] + u1 * vertices[corners[:, 1]]
            + (1.0 - u0 - u1) * vertices[corners[:, 2]])
    return (points - hand).ravel()


@jax.jit
def jacobian_simple(theta, model, points, correspondences):
    return jax.jacfwd(hand_error)(theta, model, points, correspondences)


@jax.jit
def jacobian_complicated(theta, us, model, points, corners):
    def along(seed):
        tangent = (jnp.zeros_like(theta), jnp.tile(seed, (us.shape[0], 1)))
        return jax.jvp(lambda t, u: hand_error_us(t, u, model, points, corners), (theta, us),
                       tangent)[1]

    du = jnp.stack([along(jnp.array([1.0, 0.0])), along(jnp.array([0.0, 1.0]))], axis=1)
    return jnp.concatenate((du, jax.jacfwd(hand_error_us)(theta, us, model, points, corners)),
                           axis=1)


_OBJECTIVES = {"simple": jax.jit(hand_error), "complicated": jax.jit(hand_error_us)}
_JACOBIANS = {"simple": jacobian_simple, "complicated": jacobian_complicated}


def _input(raw):
    data = HandInput.from_dict(raw)
    model = data.data.model
    packed = (jnp.asarray(np.asarray(model.parents, dtype=np.int64)),
              jnp.asarray(np.asarray(model.base_relatives, dtype=np.float64)),
              jnp.asarray(np.asarray(model.inverse_base_absolutes, dtype=np.float64)),
              jnp.asarray(np.asarray(model.base_positions, dtype=np.float64)),
              jnp.asarray(np.asarray(model.weights, dtype=np.float64)))
    points = jnp.asarray(np.asarray(data.data.points, dtype=np.float64))
    correspondences = np.asarray(data.data.correspondences, dtype=np.int64)
    theta = jnp.asarray(np.asarray(data.theta, dtype=np.float64))
    if len(data.us) == 0:
        return "simple", (theta, packed, points, jnp.asarray(correspondences))
    us = jnp.asarray(np.asarray(data.us, dtype=np.float64).reshape(-1, 2))
    corners = jnp.asarray(np.asarray(model.triangles, dtype=np.int64)[correspondences])
    return "complicated", (theta, us, packed, points, corners)


@wrap.multiple_runs(pre=_input, post=lambda e: np.asarray(e).tolist())
def objective(prepared):
    variant, args = prepared
    return _OBJECTIVES[variant](*args)


@wrap.multiple_runs(pre=_input, post=lambda j: np.asarray(j).tolist())
def jacobian(prepared):
    variant, args = prepared
    return _JACOBIANS[variant](*args)
