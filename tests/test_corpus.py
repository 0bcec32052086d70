"""The corpus, checked three ways: finite differences, PyTorch, and srcad.

The finite-difference-vs-torch tests validate the corpus itself (the inputs sit away from kinks,
the torch runner reproduces each function) and need no srcad core. The others check srcad.
"""

import math

import numpy as np
import pytest
from srcad.check import check_grads, numerical_grad

RTOL = 1e-6


def _atol(value):
    """Absolute tolerance: finite differences lose about 1e-12 of the function's magnitude."""
    return 1e-8 * (1.0 + abs(value))


def _assert_grads_close(case, args, got, expected, what, rtol=RTOL, atol=None):
    value = case.func(*args)
    atol = _atol(value) if atol is None else atol
    got = _as_tuple(got)
    assert len(got) == len(case.wrt), f"{case.name}{args}: {len(got)} gradients for {case.wrt}"
    for w, g, e in zip(case.wrt, got, expected, strict=True):
        g = 0.0 if g is None else g
        assert np.shape(g) == np.shape(e), f"{case.name}{args} d/d{w}: shape {np.shape(g)}"
        assert np.allclose(g, e, rtol=rtol, atol=atol), (
            f"{case.name}{args}: gradient with respect to {w!r}: {what} gives {g!r}, expected {e!r}"
        )


def _as_tuple(grads):
    return grads if isinstance(grads, tuple) else (grads,)


def _fd(case, args, eps=None):
    kwargs = {} if eps is None else {"eps": eps}
    return numerical_grad(case.func, args, case.wrt_indices(), **kwargs)


# --- the corpus itself (no srcad core needed) -----------------------------------------------


def test_runs(corpus_item):
    case, args = corpus_item
    value = case.func(*args)
    assert isinstance(value, (int, float)) and not isinstance(value, bool)
    assert math.isfinite(value)


def test_torch_runner_value(corpus_item):
    torch_runner = pytest.importorskip("torch_runner")
    case, args = corpus_item
    value, _ = torch_runner.torch_grad(case.func, args, case.wrt_indices())
    assert value == pytest.approx(case.func(*args), rel=1e-12, abs=1e-12)


def test_torch_runner_matches_fd(corpus_item):
    torch_runner = pytest.importorskip("torch_runner")
    case, args = corpus_item
    _, grads = torch_runner.torch_grad(case.func, args, case.wrt_indices())
    _assert_grads_close(case, args, grads, _fd(case, args), "torch")


def test_torch_runner_away_from_kinks(corpus_item):
    """Wide finite differences (points up to 1e-3 away) still match: no kink or jump nearby."""
    torch_runner = pytest.importorskip("torch_runner")
    case, args = corpus_item
    _, grads = torch_runner.torch_grad(case.func, args, case.wrt_indices())
    _assert_grads_close(case, args, grads, _fd(case, args, eps=1e-3), "torch", rtol=1e-5)


# --- srcad ----------------------------------------------------------------------------------


def test_grad_matches_fd(corpus_item):
    import srcad

    case, args = corpus_item
    grads = srcad.grad(case.func, wrt=case.wrt)(*args)
    _assert_grads_close(case, args, grads, _fd(case, args), "srcad.grad")


def test_grad_matches_torch(corpus_item):
    torch_runner = pytest.importorskip("torch_runner")
    import srcad

    case, args = corpus_item
    grads = srcad.grad(case.func, wrt=case.wrt)(*args)
    _, expected = torch_runner.torch_grad(case.func, args, case.wrt_indices())
    atol = 1e-10 * (1.0 + abs(case.func(*args)))
    _assert_grads_close(case, args, grads, expected, "srcad.grad", rtol=1e-9, atol=atol)


def test_value_and_grad(corpus_item):
    import srcad

    case, args = corpus_item
    value, grads = srcad.value_and_grad(case.func, wrt=case.wrt)(*args)
    assert value == pytest.approx(case.func(*args), rel=1e-12, abs=1e-12)
    _assert_grads_close(case, args, grads, _fd(case, args), "srcad.value_and_grad")


def test_ssa(corpus_item):
    import srcad

    case, _ = corpus_item
    text = srcad.ssa(case.func)
    assert isinstance(text, str) and text.strip()


def test_check_grads(corpus_item):
    case, args = corpus_item
    check_grads(case.func, *args, wrt=case.wrt, rtol=RTOL, atol=_atol(case.func(*args)))


def test_check_grads_second_order(straight_item):
    case, args = straight_item
    check_grads(case.func, *args, wrt=case.wrt, order=2, rtol=1e-5, atol=1e-6)


def test_optimisation_level_changes_no_gradient(corpus_item, monkeypatch):
    """Level 0 (the code as the reverse pass writes it) and level 1 (tidied) agree exactly
    up to round-off."""
    import srcad
    from srcad import pipeline

    case, args = corpus_item
    tidied = srcad.grad(case.func, wrt=case.wrt)(*args)
    monkeypatch.setattr(pipeline.switches, "OPTIMIZE", 0)
    raw = srcad.grad(case.func, wrt=case.wrt)(*args)
    assert raw == pytest.approx(tidied, rel=1e-12, abs=1e-12)


def test_no_stack_without_loops(corpus_item):
    """Straight-line code and branches keep values in locals: no stack, no push, no pop."""
    import inspect

    import srcad

    case, args = corpus_item
    if any(word in inspect.getsource(case.func) for word in ("for ", "while ")):
        pytest.skip("has a loop")
    text = srcad.source(srcad.grad(case.func, wrt=case.wrt), *args)
    assert "stack" not in text and ".pop(" not in text and ".append(" not in text
