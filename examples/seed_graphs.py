"""The two graphs srcad starts from, differentiated by srcad.

    python examples/seed_graphs.py

f: y = (x + w) * (w + 1) at x = 2, w = 1 gives dy/dx = 2 and dy/dw = 5.
g: b = 5 - 3a, c = 2b + 3, d = 5b + 6, e = 7c + d**2, f = 2e, g = 3f - o at a = 2, o = 1
   gives dg/da = -252 - 180 d and dg/do = -1.
"""

import srcad


def f(x, w):
    a = x + w
    b = w + 1
    return a * b


def g(a, o):
    b = 5 - 3 * a
    c = 2 * b + 3
    d = 5 * b + 6
    e = 7 * c + d**2
    f = 2 * e
    g = 3 * f - o
    return g


def main():
    df = srcad.value_and_grad(f, wrt=("x", "w"))
    y, (dx, dw) = df(2.0, 1.0)
    print(f"f(2, 1) = {y}   dy/dx = {dx}   dy/dw = {dw}")
    print(srcad.source(df))

    dg = srcad.value_and_grad(g, wrt=("a", "o"))
    value, (da, do) = dg(2.0, 1.0)
    d = 5 * (5 - 3 * 2.0) + 6
    print(f"g(2, 1) = {value}   dg/da = {da} (-252 - 180 d = {-252 - 180 * d})   dg/do = {do}")
    print(srcad.source(dg))


if __name__ == "__main__":
    main()
