"""A stand-in for CuPy's arrays on a machine without a GPU: as strict as CuPy where srcad's
helpers could go wrong, so that the CuPy path is exercised here.

``Device`` wraps a NumPy array and implements NumPy's dispatch protocols as CuPy does
(``__array_ufunc__``, ``__array_function__``: every NumPy call on it returns a ``Device``), and
refuses what CuPy refuses:

* ``np.asarray(x)`` / ``__array__`` (CuPy will not copy a device array to the host behind the
  user's back: ``TypeError``);
* a NumPy array of more than zero dimensions beside it in one operation (CuPy's ufuncs and
  functions take its own arrays and numbers only: ``TypeError``);
* ``.flags``, ``.base``, ``out=`` into a NumPy array.

It has what CuPy has that NumPy's dispatch reaches: ``np.add.at`` (CuPy's ufuncs have ``at``),
``float()`` and ``bool()`` of one element (a copy to the host, as CuPy's), item reads and
writes with any index, NumPy arrays of indices among them. It does not model a device: it
checks what srcad's code asks of the array's library.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin


class DeviceError(TypeError):
    """What CuPy raises for an implicit copy to the host or a NumPy array beside its own."""


def _unwrap(value, what, index=False):
    if isinstance(value, Device):
        return value._a
    if type(value) is np.ndarray and value.ndim and not index:
        raise DeviceError(f"{what}: a NumPy array beside a device array (CuPy refuses)")
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v, what, index) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v, what) for k, v in value.items()}
    return value


def _wrap(value):
    if type(value) is np.ndarray or isinstance(value, np.generic):  # 0-d: on the device too
        return Device(value)
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Device(NDArrayOperatorsMixin):
    """A device array (see the module's docstring). Its module's name makes srcad take it
    for CuPy's (``srcad.runtime.arrays.library``), so CuPy's branches run."""

    __slots__ = ("_a",)
    __module__ = "cupy.standin"

    def __init__(self, a):
        self._a = np.asarray(a)

    # what srcad reads of an array
    shape = property(lambda self: self._a.shape)
    ndim = property(lambda self: self._a.ndim)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    T = property(lambda self: Device(self._a.T))
    real = property(lambda self: Device(self._a.real))
    imag = property(lambda self: Device(self._a.imag))

    def __repr__(self):
        return f"Device({self._a!r})"

    def __array__(self, dtype=None, copy=None):
        raise DeviceError("implicit conversion of a device array to a NumPy array")

    @property
    def flags(self):
        raise AttributeError("a device array's flags are not read by srcad")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out is not None and not all(isinstance(o, Device) for o in out):
            raise DeviceError("out= a NumPy array")
        if method == "at":  # (a, indices, b): the indices may be NumPy's, as CuPy's
            args = (_unwrap(inputs[0], "at"), _unwrap(inputs[1], "at", index=True),
                    *_unwrap(inputs[2:], "at"))
        else:
            args = _unwrap(inputs, ufunc.__name__)
        if out is not None:
            kwargs["out"] = tuple(o._a for o in out)
        result = getattr(ufunc, method)(*args, **kwargs)
        return None if method == "at" else _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj,
                    np.isrealobj):
            return func(*_unwrap(args, func.__name__), **kwargs)
        if func in (np.asarray, np.array):  # np.asarray(x, like=d): a copy to the device
            return Device(func(*_unwrap(args, func.__name__, index=True), **kwargs))
        return _wrap(func(*_unwrap(args, func.__name__), **_unwrap(kwargs, func.__name__)))

    # methods a NumPy array has that generated code and helpers call
    def __getitem__(self, index):
        return _wrap(self._a[_unwrap(index, "an index", index=True)])

    def __setitem__(self, index, value):
        self._a[_unwrap(index, "an index", index=True)] = _unwrap(value, "an item write")

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) if type(v) is np.ndarray else Device(v) for v in self._a)

    def __float__(self):
        return float(self._a)

    def __complex__(self):
        return complex(self._a)

    def __bool__(self):
        return bool(self._a)

    def __index__(self):
        return self._a.__index__()

    def astype(self, dtype, **kwargs):
        return Device(self._a.astype(dtype, **kwargs))

    def copy(self):
        return Device(self._a.copy())

    def reshape(self, *shape, **kwargs):
        return Device(self._a.reshape(*shape, **kwargs))

    def ravel(self):
        return Device(self._a.ravel())

    def item(self):
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def conj(self):
        return Device(self._a.conj())

    def get(self):
        """A NumPy copy, as ``cupy.ndarray.get``."""
        return self._a.copy()

    def __getattr__(self, name):  # sum, mean, max, transpose, ...: through NumPy's functions
        fn = getattr(np, name, None)
        if fn is None or name.startswith("_") or name in ("flags", "base"):
            raise AttributeError(name)
        return lambda *args, **kwargs: fn(self, *args, **kwargs)


def on_device(a):
    """A NumPy array (or number) as a device array (a number stays one)."""
    return Device(a) if isinstance(a, np.ndarray) and a.ndim else a


def to_host(x):
    if isinstance(x, Device):
        return x.get()
    if isinstance(x, (list, tuple)):
        return type(x)(to_host(v) for v in x)
    return x
