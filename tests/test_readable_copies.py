"""The generated code of functions srcad copies (a helper taking a list of objects, a method
taking an object's fields) reads as the user's code: its comments give the user's lines and
text and the user's function names, its values the user's names; a small callee written into
its caller is headed by the callee's name."""

import inspect

import numpy as np

import srcad


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


def run(layers, x):
    for layer in layers:
        x = layer(x)
    return x


def net(W1, W2, x):
    layers = [Dense(W1, 0.1), Dense(W2, 0.2)]
    return np.sum(run(layers, x))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def recurrent(W, xs):
    h = np.zeros(3)
    for x in xs:
        h = sigmoid(W @ x + h)
    return np.sum(h)


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_a_copys_comments_name_the_users_lines_and_functions():
    g = srcad.grad(net, wrt=(0, 1))
    W = np.full((3, 3), 0.1)
    g(W, W, np.ones(3))
    code = srcad.source(g, callees=True)
    assert f"# line {_line_of(run, 'x = layer(x)')}: x = layer(x)" in code
    call_line = _line_of(Dense.__call__, "return np.tanh")
    assert f"# Dense.__call__, line {call_line}: return np.tanh(self.W @ x + self.b)" in code
    assert "_fields, line" not in code and "__call___fields" not in code
    top = code.split("\ndef ")[0]
    assert "run, run_ctx = " in top  # the value named as the user calls it
    # and its gradient, if named, too (``drun = np.broadcast_to(1.0, ...)``, read once, may be
    # written into the call of the backward part)
    assert "drun_" not in top and "d_run" not in top, top


def test_a_forward_part_written_in_is_headed_by_its_callee():
    g = srcad.grad(recurrent)
    W, xs = np.full((3, 3), 0.1), np.ones((4, 3))
    g(W, xs)
    code = srcad.source(g, callees=True)
    forward = code.split("# backward")[0]
    assert "# sigmoid\n" in forward and "np.exp(" in forward.split("# sigmoid\n")[1]


def double(x):
    return x * 2.0


def sum_of_doubled_sines(x):
    return np.sum(double(np.sin(x)))


def test_a_helpers_default_arguments_are_left_out():
    df = srcad.grad(sum_of_doubled_sines)
    code = srcad.source(df)  # the code for any argument (before a call specialises it)
    x = np.array([0.3, -1.2, 2.0])
    assert np.allclose(df(x), 2.0 * np.cos(x))
    assert "grad_sum(1.0, " in code and "None, False)" not in code
