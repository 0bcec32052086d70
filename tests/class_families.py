"""Shared by the tests of classes srcad follows (tests/test_classes16_plain.py,
tests/test_objects17_*.py): a module of classes and a function ``f`` written to a file and
imported (on NumPy or on autograd.numpy), and central differences of a function of one array."""

import importlib.util

import numpy as np


def module_of(tmp_path, classes, stem, body, numpy="numpy"):
    """``classes`` (source importing numpy as np) then ``body``, on ``numpy``, imported from
    ``tmp_path/stem.py``."""
    text = classes.replace("import numpy as np", f"import {numpy} as np") + body
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fd(f, x, h=1e-6):
    """Central differences of ``f`` at ``x``: shape ``f``'s output shape + ``x``'s."""
    x = np.asarray(x, dtype=float)
    cols = []
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(cols[0]) + x.shape)
