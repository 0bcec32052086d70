"""The first article's PyTorch session, three ways: the reference tape, srcad, and PyTorch.

    python examples/pytorch_session.py

y = (x + w) * (w + 1) at w = 1, x = 2, built as a = x + w, b = w + 1, y = a * b:
dy/dw = b + a = 5 and dy/dx = b = 2. The session asks four questions of the graph:
the gradients, which values are leaves, which operation made each value (grad_fn), and how to
keep the gradient of a value that is not a leaf (retain_grad).
"""

import importlib.util

from seed_graphs import f  # y = (x + w) * (w + 1), as a = x + w; b = w + 1; return a * b

import srcad
from srcad import graph, tape


def rule(title):
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


def with_tape():
    """srcad.tape: a dynamic graph, recorded while the arithmetic runs, as in PyTorch."""
    rule("srcad.tape: the graph is recorded while the code runs")
    w = tape.Var(1.0)  # a leaf: a value we made ourselves (requires grad by default)
    x = tape.Var(2.0)
    a = x + w
    b = w + 1
    y = a * b
    y.backward()
    print(f"y = {y.value}   dy/dw = {w.grad}   dy/dx = {x.grad}")

    names = {"w": w, "x": x, "a": a, "b": b, "y": y}
    print("is_leaf: " + "  ".join(f"{n}={v.is_leaf}" for n, v in names.items()))
    print("grad:    " + "  ".join(f"{n}={v.grad}" for n, v in names.items()))
    print("  (only the leaves keep a gradient after backward)")
    print("grad_fn: " + "  ".join(f"{n}={v.grad_fn}" for n, v in names.items()))
    print("  (None for a leaf; otherwise the rule that made the value)")

    # A fresh graph, keeping the gradient of the intermediate a.
    w, x = tape.Var(1.0), tape.Var(2.0)
    a = x + w
    a.retain_grad()
    b = w + 1
    y = a * b
    y.backward()
    print(f"after a.retain_grad(): a.grad = {a.grad} (dy/da = b = 2), b.grad = {b.grad}")

    # The same plain function can be run on the tape unchanged.
    value, (dx, dw) = tape.value_and_grad(f, wrt=("x", "w"))(2.0, 1.0)
    print(f"tape.value_and_grad(f)(2, 1) = {value}, (dy/dx, dy/dw) = ({dx}, {dw})")


def with_srcad():
    """srcad: the derivative is generated once, from the source, before anything runs."""
    rule("srcad: the derivative is written once, as Python source")
    df = srcad.value_and_grad(f, wrt=("x", "w"))
    y, (dx, dw) = df(2.0, 1.0)
    print(f"y = {y}   dy/dw = {dw}   dy/dx = {dx}")
    print("\nThe SSA form (one operation per line; this is the graph):")
    print(srcad.ssa(f))
    print("The generated code (forward sweep, then backward sweep):")
    print(srcad.source(df))

    print("The same questions, answered from the code instead of a recorded graph:")
    g = graph.build(f, args=(2.0, 1.0), wrt=("x", "w"))
    for node in g.nodes.values():
        made_by = "leaf (a parameter)" if node.kind == "leaf" else f"made by {node.expr}"
        print(f"  {node.id:>2} = {node.value!r:<5} {made_by:<20} gradient {node.grad}")
    print("  The leaves are the parameters named in wrt. 'made by' is the line of SSA code")
    print("  that computes the value: the counterpart of grad_fn. An intermediate gradient")
    print("  (da above) is a local variable of the generated function: nothing to retain,")
    print("  and nothing kept once it returns. (The gradients listed here are computed by")
    print("  srcad.graph, which runs the SSA lines on the tape and retains every one.)")


def with_torch():
    rule("PyTorch itself")
    if importlib.util.find_spec("torch") is None:
        print("(torch is not installed: skipped)")
        return
    import torch

    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    a = w + x
    a.retain_grad()
    b = w + 1
    y = a * b
    y.backward()
    print(f"dy/dw = {w.grad.item()}   dy/dx = {x.grad.item()}")
    names = {"w": w, "x": x, "a": a, "b": b, "y": y}
    print("is_leaf: " + "  ".join(f"{n}={v.is_leaf}" for n, v in names.items()))
    # reading .grad of a non-leaf that did not call retain_grad() warns: b and y are left out
    print(f"grad:    w={w.grad.item()}  x={x.grad.item()}  a={a.grad.item()} (retained)")
    print("grad_fn: " + "  ".join(
        f"{n}={type(v.grad_fn).__name__ if v.grad_fn else None}" for n, v in names.items()))


def main():
    with_tape()
    with_srcad()
    with_torch()


if __name__ == "__main__":
    main()
