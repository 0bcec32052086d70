"""The generated text of loops a NumPy user writes (``break``, ``continue``, early
``return``, items read twice) reads as a careful person would write it, and the gradients
stay exact: each text property is asserted beside central differences
(tests/twin_checks.central), srcad's tape (:mod:`srcad.tape`) and the tangent, over a
generated family (a few vectors by default, more under ``SRCAD_LONG_PROPERTIES=1``).
Also: a discarded mean stays where something that acts lies before the gradient's
division (:func:`srcad.backend.tidy_dead._covered_divisions`)."""

import ast
import re

import numpy as np
import pytest
from sampling import LONG
from twin_checks import central, close

import srcad
from srcad import tape
from srcad.backend import tidy_dead


def squares_by_index(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
    return s


def skip_negatives(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0.0:
            continue
        s = s + x[i] ** 2
    return s


def break_and_continue(x):
    s = 0.0
    for v in x:
        if v > 2.0:
            break
        if v < 0.0:
            continue
        s = s + np.sqrt(v)
    return s


def first_big(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 1.0:
            return s * x[i]
        s = s + x[i]
    return s


def product_until(x):
    p = 1.0
    for v in x:
        p = p * v
        if p > 2.0:
            return p
    return p


def squares_or_negations(x):
    vals = []
    for i in range(len(x)):
        if x[i] > 0.0:
            vals.append(x[i] * x[i])
        else:
            vals.append(-x[i])
    return sum(vals)


def damped(x):
    s = 0.0
    for i in range(len(x)):
        s = s + np.exp(-x[i]) / (1.0 + x[i] * x[i])
    return s


def abs_until(x):
    k = 0
    s = 0.0
    while k < len(x) and s < 3.0:
        s = s + abs(x[k])
        k += 1
    return s * 2.0


def neighbours(x):
    s = 0.0
    for i in range(1, len(x)):
        d = x[i] * x[i] - x[i - 1]
        s = s + d * x[i - 1]
    return s


def mean_of(x):
    n = len(x)
    return np.sum(x) / n


def pairs_until(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s = s + x[i] * x[j]
        if s > 2.0:  # the outer loop may stop: its indices stay saved
            break
    return s


CASES = [pairs_until, mean_of, neighbours, squares_by_index, skip_negatives, break_and_continue,
         first_big,
         product_until,
         squares_or_negations, damped, abs_until]

#: what each text must not hold (the form a person would not write), and must hold
TEXT = {
    neighbours: ([], []),
    pairs_until: ([], []),
    mean_of: (["dx = 1.0 / n"], [r"np\.full\(np\.shape\(x\), 1\.0 / n\)"]),
    # (saves37) items of an array nothing changes are read again, not saved
    squares_by_index: (["t_1", "stack"], [r"dx\[i\] \+= x\[i\]"]),
    skip_negatives: (["t_3", "stack.append(t"], [r"dx\[i\] \+= 2\.0 \* x\[i\]"]),
    break_and_continue: (["= not ", "t_2"], [r"if not broke_1:"]),
    first_big: (["= not ", "returned_1 = True", "returned_1 = t"], [r"if not returned_1:"]),
    product_until: (["returned_1 = True", "returned_1 = False"], []),
    squares_or_negations: (["t_3"], []),
    damped: (["+= -"], [r"-= "]),
    abs_until: (["del "], []),
}


def _vectors(rng, n):
    sizes = [1, 3, 4, 6]
    return [rng.uniform(-1.5, 2.5, size=sizes[k % len(sizes)]) for k in range(n)]


def _check(f, x):
    g = srcad.grad(f)(x)
    assert close(g, central(f, (x,), 0), 1e-5), (f.__name__, x)
    assert close(g, tape.grad(f)(x), 1e-12), (f.__name__, x)
    value, g2 = srcad.value_and_grad(f)(x)
    assert close(value, f(x), 1e-14) and close(g2, g, 1e-14)
    t = np.linspace(-1.0, 1.0, x.size)
    _, tangent = srcad.jvp(f, (x,), (t,))
    assert close(tangent, np.dot(g, t), 1e-10), (f.__name__, x)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_text_and_gradients(f):
    rng = np.random.default_rng(31)
    for x in _vectors(rng, 12 if LONG else 3):
        _check(f, x)
    for kind in (srcad.grad, srcad.value_and_grad):
        g = kind(f)
        text = srcad.source(g, np.array([0.5, -1.2, 2.0, 0.3]))
        absent, present = TEXT[f]
        for part in absent:
            assert part not in text, (f.__name__, part, text)
        for pattern in present:
            assert re.search(pattern, text), (f.__name__, pattern, text)


@pytest.mark.parametrize("f", [skip_negatives, break_and_continue], ids=lambda f: f.__name__)
def test_a_tangents_continue_flag_is_the_test_itself(f):
    """``if c: skip_1 = True else: skip_1 = False`` then ``if not skip_1:`` is ``skip_1 =
    c`` in the tangent code too."""
    text = srcad.api.jvp_source(f, np.array([0.5, -1.2, 2.0, 0.3]))
    assert "skip_1 = True" not in text, text
    assert re.search(r"skip_1 = (x\[i\]|t) < 0\.0", text), text


def test_two_ifs_on_an_early_return_flag_are_one():
    """``if returned_1: ... else: ...`` then ``if not returned_1:``: one ``if``, in the
    forward and in the backward sweep (and the ``break``'s own)."""
    text = srcad.source(srcad.grad(first_big), np.array([0.5, -1.2, 2.0, 0.3]))
    tests = [line for line in text.splitlines()
             if re.fullmatch(r"\s*if (not )?returned_1:", line)]
    assert len(tests) == 3, text


def pairs(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s = s + x[i] * x[j]
    return s


@pytest.mark.parametrize("n", [1, 3, 5] if LONG else [3])
def test_a_sum_only_its_own_loop_reads_is_not_computed(n):
    """``s_1 = s``, ``s_1 = s_1 + t * t_1``, ``s = s_1``: read only by one another, all go
    from the gradient (``value_and_grad`` keeps them: ``s`` is returned); the inner loop's
    ``len(x)`` is taken once, before the outer loop, and not saved."""
    x = np.linspace(-1.0, 2.0, n)
    _check(pairs, x)
    text = srcad.source(srcad.grad(pairs), x)
    assert "s_1 = s" not in text and "s = s_1" not in text, text
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum(line.count("len(x)") for line in code) == 1, text
    assert "for i in reversed(range(len_" in text and "stack_1" not in text, text
    assert "s = s_1" in srcad.source(srcad.value_and_grad(pairs), x)


def test_an_item_read_twice_in_a_loop_is_read_and_saved_once():
    text = srcad.source(srcad.grad(squares_or_negations), np.array([0.5, -1.0]))
    # read once where it is saved, or (saves37: x changed by nothing) read again, not saved
    assert sum(line.strip().endswith("= x[i]") for line in text.splitlines()) <= 1, text
    assert "stack" not in text, text


def rows_until(m):
    s = 0.0
    for row in m:
        if row > 1.0:  # a row of two: an ambiguous truth, the user's function raises
            break
        s = s + np.sum(row)
    return s


def test_an_ambiguous_test_still_raises():
    m = np.array([[0.5, -2.0], [3.0, 4.0]])
    for f in (rows_until, first_big):
        with pytest.raises(ValueError):
            f(m)
        with pytest.raises(ValueError):
            srcad.grad(f)(m)


# ------------------------------------------------- a discarded mean and its covering division

def _dead(src):
    fdef = ast.parse(src).body[0]
    tidy_dead._dead_code(fdef)
    return ast.unparse(fdef)


_COVERED = """
def g(x, total, count, log):
    y = -total / count
    {between}
    dt = {covering}
    return dt
"""


@pytest.mark.parametrize("between, covering, kept", [
    ("z = x * 2.0", "-(1.0 / count) * z", False),  # nothing acts between: the mean goes
    ("log.append(x)", "-(1.0 / count)", True),  # an append would run before the error
    ("z = f(x)", "-(1.0 / count) * z", True),  # a call of the user's
    ("log[0] = x", "-(1.0 / count)", True),  # an item written
    ("z = math.log(x)", "-(1.0 / count) * z", True),  # may fail first, another error
    ("z = x * 2.0", "f(x) * (1.0 / count)", True),  # the covering statement acts first
    ("z = x / count", "-(1.0 / count) * z", False),  # fails only as the mean would
])
def test_a_discarded_mean_goes_only_where_nothing_acts_before_the_division(between, covering,
                                                                            kept):
    text = _dead(_COVERED.format(between=between, covering=covering))
    assert ("y = -total / count" in text) == kept, text


@pytest.mark.parametrize("f", CASES + [pairs] if LONG else [first_big, pairs],
                         ids=lambda f: f.__name__)
def test_second_order(f):
    """The tidied gradient code differentiated again (``hessian`` in both modes) against
    central differences of the gradient."""
    x = np.array([0.5, -1.2, 0.8, 0.3])
    g = srcad.grad(f)
    e = 1e-6 * np.eye(4)
    rows = np.array([(g(x + e[i]) - g(x - e[i])) / 2e-6 for i in range(4)])
    for mode in ("fwd", "rev"):
        assert close(srcad.hessian(f, mode=mode)(x), rows, 1e-5), (f.__name__, mode)


def pull(x, w):
    return np.array([x[0] - w, x[1] * w + 1.0])


def potential(x, w):
    first = np.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    return 1.0 / first + 1.0 / np.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)


def flight(w, force):
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    while True:
        xddot = -force(x, w)  # computed in the last turn too, before the break
        x_new = x + 0.1 * xdot
        if x_new[1] <= 0.0:
            break
        x = x_new
        xdot = xdot + 0.1 * xddot
    return x[0] * x[0] + xdot[1]


@pytest.mark.parametrize("force", [pull, srcad.grad(potential)], ids=["pull", "grad"])
def test_a_flag_copied_for_its_value_is_not_negated_away(force):
    """GradBench's particle: ``nz_dxddot_1 = t_5`` (a copy of ``t_5 = not broke_1``, one node
    in two places) kept ``t_5`` from becoming ``not broke_1`` in place (a gradient of 0.0
    when it did)."""
    for w in ((0.3, 0.6, 0.45) if LONG else (0.3, 0.6)):
        got = srcad.grad(flight)(w, force)
        h = 1e-6
        want = (flight(w + h, force) - flight(w - h, force)) / (2 * h)
        assert close(got, want, 1e-5), (w, got, want)
        _, tangent = srcad.jvp(flight, (w, force), (1.0,), wrt=(0,))  # the other mode
        assert close(got, tangent, 1e-10), (w, got, tangent)
