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


def test_every_construct_and_call_refused_up_front_is_in_supported_python():
    """docs/supported-python.md's refusal table names every construct of
    ``validate.UNSUPPORTED``'s rewrites and every call of ``UNSUPPORTED_CALLS``."""
    import re

    from srcad.frontend.validate import UNSUPPORTED, UNSUPPORTED_CALLS

    text = (ROOT / "docs" / "supported-python.md").read_text()
    refused = text[text.index("## Refused, with a suggestion"):text.index("## Writes into")]
    for name in UNSUPPORTED_CALLS:
        assert f"`{name}" in refused, name
    words = {"Try": "try", "With": "with", "AsyncFunctionDef": "async", "Await": "await",
             "AsyncFor": "async", "AsyncWith": "async", "Yield": "generator",
             "YieldFrom": "generator", "Global": "global", "Nonlocal": "nonlocal",
             "Delete": "del", "ClassDef": "class", "Import": "import", "ImportFrom": "import",
             "SetComp": "set comprehension", "Set": "set literal", "Match": "match",
             "TryStar": "try"}
    for construct in UNSUPPORTED:
        word = words[construct.__name__]
        assert re.search(rf"\b{re.escape(word)}", refused), construct.__name__
