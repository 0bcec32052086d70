"""Higher-order Python, as people write it, for tests/test_higher_order_python.py: functions
passed as values, methods, partials, map/filter, unpacking in calls, generators, and
derivatives called inside differentiated code. Plain NumPy and math: the reference tape runs
them too."""

import functools
import math

import numpy as np

import srcad

# ---------------------------------------------------------------- functions as values


def cube(t):
    return t * t * t


def wave(t):
    return math.sin(t) * t


def apply(f, x):
    return f(x)


def apply_twice(f, x):
    return f(f(x))


def apply_default(x, f=np.tanh):
    return f(x) * 2.0


def apply_through(f, x):
    return apply(f, x) + 1.0


def passes_ufunc(x):
    return apply(np.sin, x) + apply(np.exp, 0.5 * x)


def passes_user_function(x):
    return apply(cube, x) + apply_twice(wave, x)


def passes_lambda(x):
    return apply(lambda t: t * t + 1.0, x)


def passes_lambda_holding(x, w):
    return apply(lambda t: t * w + math.sin(t * x), x) + apply_twice(lambda t: t * w, x)


def named_lambda_passed(x, w):
    g = lambda t: t * w + 1.0  # noqa: E731
    return apply(g, x) + apply_twice(g, x)


def nested_def_passed(x, w):
    def h(t):
        return math.sin(t) * w

    return apply(h, x)


def lambda_in_loop(x, w):
    s = 0.0
    for i in range(3):
        s = s + apply(lambda t: t * w * i, x)  # noqa: B023 (called at once)
    return s


def uses_default_function(x):
    return apply_default(x) + apply_default(x, f=np.cos)


def passes_through_two_levels(x):
    return apply_through(wave, x)


def local_alias(x):
    g = cube
    return g(x) + g(2.0 * x)


def local_choice(x):
    g = cube if x > 0.5 else wave  # which one is known only when it runs
    return g(x) * x


def three_way_choice(x, a):
    g = cube if a > 1.0 else (wave if a > 0.0 else np.tanh)
    return g(x) * x


FLAG = True


def global_choice(x):
    g = cube if FLAG else wave
    return g(x)


def array_map(w):
    return np.sum(apply(np.tanh, w) * apply(lambda v: v * v, w))


# ---------------------------------------------------------------- methods


class Model:
    K = 3.0

    def __init__(self, a):
        self.a = a

    def predict(self, x):
        return self.a * x * x

    @property
    def scale(self):
        return self.a * 2.0

    @staticmethod
    def act(z):
        return z / (1.0 + z * z)  # (plain arithmetic: the tape does not rebind methods)

    @classmethod
    def unit(cls, z):
        return z * cls.K

    def loss(self, x):
        return self.predict(x) + self.scale * x + self.act(x) + self.unit(x) + Model.act(x)

    def __call__(self, x):
        return self.loss(x) * 2.0


class Sub(Model):
    def predict(self, x):
        return self.a * x * x * x


class Child(Model):
    def predict(self, x):
        return Model.predict(self, x) + x


class WithSuper(Model):
    def predict(self, x):
        return super().predict(x)  # the base class's method (frontend.lower_super)


MODEL = Model(1.5)


def method_of_global(x):
    return MODEL.loss(x) + MODEL(x)


def method_of_argument(model, x):
    return model.loss(x) + model(x)


def method_of_built(x):
    m = Sub(0.7)
    return m.loss(x)


def calls_base_method(x):
    return Child(0.5).loss(x)


def calls_super(x):
    return WithSuper(0.5).loss(x)


# ---------------------------------------------------------------- partial, map, filter, *, **


def power3(x):
    p = functools.partial(np.power, 3.0)
    q = functools.partial(wave)
    return p(x) + q(x)


def partial_holding(x, w):
    h = functools.partial(scaled, w)
    return h(x) + apply(h, x) + apply(functools.partial(scaled, t=x), w)


def scaled(w, t, b=1.0):
    return w * t * b


def maps(x):
    xs = [x, 2.0 * x, 3.0]
    total = sum(map(cube, xs)) + sum(list(map(lambda t: t * x, xs)))
    return total + sum(filter(lambda t: t > 1.0, xs)) + sum(map(scaled, xs, xs))


def for_over_map(x):
    s = 0.0
    for v in map(wave, [x, x * x]):
        s = s + v
    return s


def splats(x):
    t = (x, 2.0, x)
    kw = {"b": x, "t": 1.5}
    return scaled(*t) + scaled(x, **kw) + scaled(*[x, x], **{"b": x})


def zips(x):
    pairs = [(x, 1.0), (2.0, x), (x, x)]
    xs, ys = zip(*pairs)
    s = 0.0
    for a, b, c in zip(*pairs):  # (x, 2.0, x), then (1.0, x, x)
        s = s + a * b * c
    return s + xs[2] * ys[1]


RS = np.random.RandomState(0)
SHAPE = (3,)


def shape_of(n):
    return (n, 1)


def random_shape(x):
    noise = RS.randn(*SHAPE)  # no gradient flows through the draw
    more = RS.rand(*shape_of(2))  # a length srcad cannot know: runs as written
    return np.sum(x * noise * 0.0 + x) + np.sum(more * 0.0 + x)


# ---------------------------------------------------------------- generators


def evens(n):
    for i in range(n):
        yield i * 2


def windows(xs):
    for i in range(len(xs) - 1):
        yield xs[i] * xs[i + 1]
    yield from xs


def loops_over_generator(x):
    s = 0.0
    for b in evens(3):
        s += b * x
    return s + sum(evens(2)) * x


def generator_of_values(x):
    return sum(windows([x, math.sin(x), 2.0 * x])) + sum(v * v for v in windows([x, x]))


# ---------------------------------------------------------------- derivatives inside


def inner(x):
    return math.sin(x) * x * x


def calls_grad(x):
    return srcad.grad(inner)(x)


def calls_stored_grad(x):
    g = srcad.grad(inner)
    return g(x) * x


def calls_value_and_grad(x):
    v, g = srcad.value_and_grad(inner)(x)
    return v * g


def inner_loss(w):
    return (w * 1.5 - 2.0) ** 2 + math.sin(w)


def meta_step(w):
    w2 = w - 0.1 * srcad.grad(inner_loss)(w)
    return inner_loss(w2)


def array_loss(w):
    return np.sum(np.tanh(w) ** 2 + 0.5 * w)


def array_meta(w):
    adapted = w - 0.3 * srcad.grad(array_loss)(w)
    return array_loss(adapted)


# ---------------------------------------------------------------- refused


def passes_holding_on(x, w):
    return apply_through(lambda t: t * w, x) + apply_through(functools.partial(scaled, w), x)


def keeps_map(x):
    m = map(cube, [x, x])  # refused: an iterator kept (read twice: empty the second time)
    return sum(m) + len(list(m))


def keeps_generator(x):
    it = evens(3)  # refused: an iterator kept
    return sum(it) * x


def changes_what_generator_reads(x):
    xs = [x, 2.0 * x]
    s = 0.0
    for v in windows(xs):
        s = s + v
        if len(xs) < 4:
            xs.append(v * x)  # refused: windows(xs) would see it
    return s


def _picked():
    return math.sin


def unknown_local(x):
    g = _picked()
    return g(x)  # refused: not known while transforming


def reassigned_after_lambda(x, w):
    g = lambda t: t * w  # noqa: E731
    h = g  # refused: h(x) reads w when it is called
    w = w * 2.0
    return h(x)


def splat_active(x, rest):
    return scaled(x, *rest)  # a run-time length: differentiated when it runs (round 16)
