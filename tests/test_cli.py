"""The command line, run as users run it: ``python -m srcad ...`` in a subprocess."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

MODULE = textwrap.dedent(
    """
    import math

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

    def looped(x, n):
        s = 0.0
        for i in range(n):
            s = s + math.sin(x) * i
        return s

    def refused(x):
        try:
            return x
        except ValueError:
            return 0.0

    def divides_by_zero(x):
        return x / 0.0
    """
)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "model.py"
    path.write_text(MODULE)
    return path


def srcad_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "srcad", *map(str, args)],
                          capture_output=True, text=True, timeout=60, env=env)


def assert_one_line_error(done, *fragments):
    assert done.returncode == 1, done
    assert done.stdout == "" or "Traceback" not in done.stdout
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("srcad: error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_show_prints_the_derivative(model):
    done = srcad_cli("show", f"{model}:f", "--wrt", "x,w")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("def grad_f(x, w")
    assert "# backward" in done.stdout and "return dx, dw" in done.stdout
    assert "\x1b[" not in done.stdout  # not a terminal: no colours
    compile(done.stdout, "grad_f", "exec")  # plain Python


def test_show_ssa_and_specialised_args(model):
    done = srcad_cli("show", f"{model}:looped", "--ssa")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("def looped(x, n):") and "# phi" in done.stdout
    done = srcad_cli("show", f"{model}:looped", "--args", "1.0", "3")
    assert done.returncode == 0, done.stderr
    assert "def grad_looped(x, n" in done.stdout and "dx" in done.stdout


def test_show_colours_on_request(model):
    if importlib.util.find_spec("pygments") is None:
        pytest.skip("pygments is not installed")
    done = srcad_cli("show", f"{model}:f", "--color", "always")
    assert done.returncode == 0 and "\x1b[" in done.stdout


def test_show_forward(model):
    done = srcad_cli("show", f"{model}:f", "--forward")
    if done.returncode == 2:  # until srcad has a forward mode
        assert "forward mode is not available yet" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("def jvp_f(x, w") and "return" in done.stdout


def test_compare_prints_the_table(model):
    done = srcad_cli("compare", f"{model}:g", "--args", "2.0", "1.0", "--engines",
                     "tape,fd", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "g(a=2.0, o=1.0), gradient with respect to a, o" in out
    assert "srcad (generated)" in out and "srcad.tape" in out and "finite differences" in out
    assert "-432.0" in out and "agrees with srcad" in out


def test_compare_wrt_and_failures(model):
    done = srcad_cli("compare", f"{model}:f", "--args", "2.0", "1.0", "--wrt", "w",
                     "--engines", "tape", "--repeat", "0")
    assert done.returncode == 0, done.stderr
    assert "d/dw" in done.stdout and "d/dx" not in done.stdout
    done = srcad_cli("compare", f"{model}:divides_by_zero", "--args", "1.0", "--engines",
                     "tape", "--repeat", "0")
    assert_one_line_error(done, "srcad failed", "ZeroDivisionError")


def test_graph_to_stdout_and_files(model, tmp_path):
    done = srcad_cli("graph", f"{model}:g")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('digraph "g"') and '"a" -> "b"' in done.stdout
    out = tmp_path / "g.dot"
    done = srcad_cli("graph", f"{model}:g", "--args", "2.0", "1.0", "-o", out)
    assert done.returncode == 0, done.stderr
    assert "grad = -432.0" in out.read_text()


def test_graph_image_without_graphviz_falls_back_to_dot(model, tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}  # no dot program on this PATH
    done = srcad_cli("graph", f"{model}:g", "-o", tmp_path / "g.svg", env=env)
    assert done.returncode == 0, done.stderr
    assert "not installed" in done.stderr
    assert (tmp_path / "g.dot").read_text().startswith("digraph")
    assert not (tmp_path / "g.svg").exists()


def test_errors_are_one_line(model, tmp_path):
    assert_one_line_error(srcad_cli("show", tmp_path / "missing.py:f"), "no such file")
    assert_one_line_error(srcad_cli("show", f"{model}:nope"), "no function 'nope'", "f, g")
    assert_one_line_error(srcad_cli("show", str(model)), "expected FILE.py:FUNC")
    assert_one_line_error(srcad_cli("show", f"{model}:refused"), "try", "line")
    assert_one_line_error(srcad_cli("show", f"{model}:f", "--wrt", "z"), "'z'")
    assert_one_line_error(srcad_cli("compare", f"{model}:f", "--args", "2.0", "oops"),
                          "not a Python literal")
    broken = tmp_path / "broken.py"
    broken.write_text("def f(x):\n    return x +\n")
    assert_one_line_error(srcad_cli("show", f"{broken}:f"), "syntax error")

