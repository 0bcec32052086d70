"""GradBench ``particle`` in JAX, written in this repository (GradBench's stock ``jax`` tool has
no ``particle`` module), from the eval's definition: Euler steps (dt = 0.1) of a unit charge
from (0, 8) with velocity (0.75, 0) under the force ``-grad_x p(x; w)`` of unit charges at
(10, 10 - w) and (10, 0), stopped at the step that would cross the x axis, linear
interpolation to the crossing, ``x0(t_f)^2`` minimised over ``w`` by GradBench's gradient
descent (step 1e-5, doubled after ten successes, halved on a failure, stopped when the gradient
or the step is below 1e-5).

JAX cannot differentiate a ``lax.while_loop`` in reverse mode, so the flight is a ``lax.scan``
of ``MAX_STEPS`` steps that leave the state as it is once the particle has landed
(``jnp.where``; the flights here take about 355 steps; a ``lax.cond`` body instead took twice
as long in reverse mode, 2.95 against 1.37 ms for one gradient of ``miss``); a flight that has
not landed by then makes the answer an error, never a wrong number. The descent is one
``lax.while_loop`` and each variant (outer mode, inner mode: ``r`` reverse ``jax.grad``, ``f``
forward ``jax.jvp`` / ``jax.jacfwd``) is one ``jax.jit`` function."""

import jax
import jax.numpy as jnp
from gradbench import wrap
from jax import lax

jax.config.update("jax_enable_x64", True)

DELTA_T = 0.1
MAX_STEPS = 1000


def potential(x, w):
    first = jnp.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    second = jnp.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)
    return 1.0 / first + 1.0 / second


FORCES = {"r": jax.grad(potential), "f": jax.jacfwd(potential)}


def miss(w, force):
    """``(x0(t_f)^2, landed)``: where the particle crosses the axis (squared), and whether it
    did within ``MAX_STEPS`` steps."""

    def step(carry, _):
        x, xdot, landed = carry
        xddot = -force(x, w)
        x_new = x + DELTA_T * xdot
        land = landed | (x_new[1] <= 0.0)
        return (jnp.where(land, x, x_new), jnp.where(land, xdot, xdot + DELTA_T * xddot),
                land), None

    start = (jnp.array([0.0, 8.0]), jnp.array([0.75, 0.0]), jnp.array(False))
    (x, xdot, landed), _ = lax.scan(step, start, None, length=MAX_STEPS)
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0], landed


def argmin(f, grad, x):
    """GradBench's descent on ``x`` (a 1-vector); ``f`` and ``grad`` return ``(value,
    landed)``; the result is ``(x, every flight landed)``."""

    def norm(v):
        return jnp.sqrt(jnp.sum(v * v))

    def body(s):
        x, fx, gx, eta, i, done, ok = s

        def double(_):
            return x, fx, gx, 2.0 * eta, jnp.zeros_like(i), done, ok

        def attempt(_):
            x_prime = x - eta * gx

            def small(_):
                return x, fx, gx, eta, i, True, ok

            def evaluate(_):
                fx_prime, landed = f(x_prime)

                def accept(_):
                    g, landed_g = grad(x_prime)
                    return x_prime, fx_prime, g, eta, i + 1, done, ok & landed & landed_g

                def reject(_):
                    return x, fx, gx, eta / 2.0, jnp.zeros_like(i), done, ok & landed

                return lax.cond(fx_prime < fx, accept, reject, None)

            return lax.cond(norm(x - x_prime) <= 1e-5, small, evaluate, None)

        return lax.cond(i == 10, double, attempt, None)

    def going(s):
        return ~s[5] & (norm(s[2]) > 1e-5)

    fx, landed_f = f(x)
    gx, landed_g = grad(x)
    start = (x, fx, gx, jnp.asarray(1e-5), jnp.asarray(0), jnp.array(False),
             landed_f & landed_g)
    out = lax.while_loop(going, body, start)
    return out[0], out[6]


def _solver(outer, inner):
    force = FORCES[inner]

    def f(x):
        return miss(x[0], force)

    if outer == "r":
        def grad(x):
            g, landed = jax.grad(lambda w: miss(w, force), has_aux=True)(x[0])
            return jnp.reshape(g, (1,)), landed
    else:
        def grad(x):
            (_, landed), (g, _) = jax.jvp(lambda w: miss(w, force), (x[0],),
                                               (jnp.ones_like(x[0]),))
            return jnp.reshape(g, (1,)), landed

    return jax.jit(lambda w0: argmin(f, grad, jnp.reshape(w0, (1,))))


def _make(name):
    solve = _solver(name[0], name[1])

    def post(result):
        w, landed = result
        if not bool(landed):
            raise RuntimeError(f"a flight took more than {MAX_STEPS} steps")
        return float(w[0])

    @wrap.multiple_runs(pre=lambda raw: jnp.asarray(float(raw["w"])), post=post)
    def run(w0):
        return solve(w0)

    return run


rr, rf, fr, ff = (_make(n) for n in ("rr", "rf", "fr", "ff"))
