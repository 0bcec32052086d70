"""A library function without a rule is refused, never differentiated by reading its source
(:func:`srcad.core.functions.is_library_function`); a user's own package is read wherever it
is installed."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import srcad

USER_PACKAGE = '''
import numpy as np


def energy(x):
    return np.sum(x ** 2) / 2
'''


def test_user_package_in_site_packages_is_read(tmp_path, monkeypatch):
    site = tmp_path / "lib" / "site-packages" / "myproject_srcad_test"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text(USER_PACKAGE)
    monkeypatch.syspath_prepend(str(site.parent))
    import myproject_srcad_test as user

    def f(x):
        return user.energy(x) * 3.0

    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcad.grad(f)(x), 3.0 * x)
    sys.modules.pop("myproject_srcad_test", None)


LIBRARY_CALLS = {
    "signal.fftconvolve": "np.sum(signal.fftconvolve(x, x))",
    "linalg.funm": "np.sum(linalg.funm(np.outer(x, x) + np.eye(2), np.exp))",
    "special.spherical_jn": "np.sum(special.spherical_jn(1, x))",
}


@pytest.mark.parametrize("name", sorted(LIBRARY_CALLS))
def test_library_function_without_rule_is_refused(name, tmp_path):
    pytest.importorskip("scipy")
    path = tmp_path / f"guard_{name.replace('.', '_')}.py"
    path.write_text("import numpy as np\nfrom scipy import linalg, signal, special\n\n\n"
                    f"def f(x):\n    return {LIBRARY_CALLS[name]}\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    import linecache

    linecache.checkcache(str(path))
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(namespace["f"])(np.array([0.5, 1.5]))
    message = str(info.value)
    assert name in message
    assert "defvjp" in message
    assert "with block" not in message  # never the library's own source


def test_library_function_differentiated_directly_is_refused():
    """``srcad.grad(scipy.signal.fftconvolve)``: a library's own source is not read either."""
    signal = pytest.importorskip("scipy.signal")
    with pytest.raises(srcad.SrcadError, match="library function"):
        srcad.grad(signal.fftconvolve)(np.array([0.5, 1.5]), np.array([1.0, 2.0]))
