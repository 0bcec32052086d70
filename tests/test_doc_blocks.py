"""Every ```python block of README.md and docs/*.md runs, and every output it shows is what
srcad prints now (tools/run_doc_blocks.py, one process for every page: ~20 s; a fragment is
marked ``<!-- not run: why -->`` before its block)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).parent.parent


def test_the_pages_code_runs_and_shows_what_srcad_prints():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "run_doc_blocks.py")],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    failed = [line for line in done.stdout.splitlines()
              if line.startswith(("FAIL", "OUTPUT"))]
    assert done.returncode == 0 and not failed, "\n".join(failed) or done.stderr
    assert sum(line.startswith("PASS") for line in done.stdout.splitlines()) >= 30
