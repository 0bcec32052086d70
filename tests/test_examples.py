"""Every example runs and prints what it promises; the README's first example runs."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path):
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
