"""GradBench ``lstm``: ADBench's LSTM loss over a character sequence, a loop over time steps
and layers as written in its definition; the gradient w.r.t. the main and extra parameters."""

import numpy as np
from gradbench import wrap

import srcad


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_cell(weight, bias, hidden, cell, inp):
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    h = hidden.shape[0]
    forget = sigmoid(gates[0:h])
    ingate = sigmoid(gates[h:2 * h])
    outgate = sigmoid(gates[2 * h:3 * h])
    change = np.tanh(gates[3 * h:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def predict(main, extra, state, x):
    x = x * extra[0]
    new_state = []
    for i in range(0, len(state), 2):
        hidden, cell = lstm_cell(main[i], main[i + 1], state[i], state[i + 1], x)
        new_state.append(hidden)
        new_state.append(cell)
        x = hidden
    return x * extra[1] + extra[2], new_state


def lstm_objective(main, extra, state, sequence):
    total = 0.0
    count = 0
    layers = [state[i] for i in range(len(state))]
    for t in range(len(sequence) - 1):
        ypred, layers = predict(main, extra, layers, sequence[t])
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        total = total + np.sum(sequence[t + 1] * ynorm)
        count = count + len(ypred)
    return -total / count


_gradient = srcad.grad(lstm_objective, wrt=(0, 1))


def _input(raw):
    return tuple(np.array(raw[key], dtype=np.float64)
                 for key in ("main_params", "extra_params", "state", "sequence"))


@wrap.multiple_runs(pre=_input, post=float)
def objective(args):
    return lstm_objective(*args)


@wrap.multiple_runs(pre=_input, post=lambda g: np.concatenate(
    (g[0].ravel(), g[1].ravel())).tolist())
def jacobian(args):
    return _gradient(*args)


# warm-up; the arrays' shapes are unequal as the evals' are (which arguments share a shape is
# part of what the code is made for)
_gradient(np.ones((4, 8)), np.ones((3, 2)), np.ones((4, 2)), np.ones((5, 2)))
