"""Every example runs and prints what it promises; the README's first example runs."""

import ast
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest
from sampling import sample

ROOT = pathlib.Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _missing(path):
    """The modules ``path`` imports that are not installed (an optional extra: Dask, Numba,
    array-api-strict...), sorted."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.partition(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    local = {p.stem for p in path.parent.glob("*.py")}  # the examples' own modules
    return sorted(n for n in names if n not in local and importlib.util.find_spec(n) is None)


@pytest.mark.parametrize("path", sample(EXAMPLES, 2), ids=[p.stem for p in sample(EXAMPLES, 2)])
def test_example_runs(path):
    missing = _missing(path)
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (an optional extra)")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_seed_graphs_prints_the_articles_numbers():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "seed_graphs.py")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert "dy/dx = 2.0" in done.stdout and "dy/dw = 5.0" in done.stdout
    assert "dg/do = -1.0" in done.stdout


def test_readme_first_example(tmp_path):
    text = (ROOT / "README.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    namespace = {}
    source = block.replace("f(2.0, 1.0)             # (2.0, 5.0)", "result = f(2.0, 1.0)")
    path = tmp_path / "readme_example.py"  # srcad reads source from a real file
    path.write_text(source)
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102
    assert namespace["result"] == (2.0, 5.0)
