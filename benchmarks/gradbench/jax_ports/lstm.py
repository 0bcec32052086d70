"""GradBench ``lstm`` in JAX, written in this repository (GradBench's stock ``jax`` tool has no
``lstm`` module): ADBench's LSTM loss as GradBench's eval defines it (diagonal weights, the
layers in turn at each character, a log-softmax with ``+ 2`` under the log), the time steps a
``lax.scan`` whose body scans over the layers, ``jax.jit(jax.grad(...))`` w.r.t. the main and
extra parameters. The layout of the answer is the eval's: the two gradients flattened by rows
and concatenated."""

import jax
import jax.numpy as jnp
import numpy as np
from gradbench import wrap
from jax import lax

jax.config.update("jax_enable_x64", True)


def _layer(x, params):
    """One LSTM cell: the layer's input ``x``, its weights, bias, hidden and cell state."""
    weight, bias, hidden, cell = params
    h = hidden.shape[0]
    gates = jnp.concatenate((x, hidden, x, hidden)) * weight + bias
    forget = jax.nn.sigmoid(gates[:h])
    ingate = jax.nn.sigmoid(gates[h:2 * h])
    outgate = jax.nn.sigmoid(gates[2 * h:3 * h])
    change = jnp.tanh(gates[3 * h:])
    cell = cell * forget + ingate * change
    hidden = outgate * jnp.tanh(cell)
    return hidden, (hidden, cell)


def lstm_objective(main, extra, state, sequence):
    weights, biases = main[0::2], main[1::2]
    hidden0, cell0 = state[0::2], state[1::2]

    def step(carry, pair):
        hidden, cell = carry
        char, following = pair
        out, (hidden, cell) = lax.scan(_layer, char * extra[0],
                                       (weights, biases, hidden, cell))
        ypred = out * extra[1] + extra[2]
        ynorm = ypred - jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)
        return (hidden, cell), jnp.sum(following * ynorm)

    _, totals = lax.scan(step, (hidden0, cell0), (sequence[:-1], sequence[1:]))
    count = (sequence.shape[0] - 1) * sequence.shape[1]
    return -jnp.sum(totals) / count


_objective = jax.jit(lstm_objective)
_gradient = jax.jit(jax.grad(lstm_objective, argnums=(0, 1)))


def _input(raw):
    return tuple(jnp.asarray(np.array(raw[key], dtype=np.float64))
                 for key in ("main_params", "extra_params", "state", "sequence"))


@wrap.multiple_runs(pre=_input, post=float)
def objective(args):
    return _objective(*args)


@wrap.multiple_runs(pre=_input, post=lambda g: np.concatenate(
    (np.asarray(g[0]).ravel(), np.asarray(g[1]).ravel())).tolist())
def jacobian(args):
    return _gradient(*args)
