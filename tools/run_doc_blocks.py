"""Run every ```python block of README.md and docs/*.md, in order, one namespace a page.

    python tools/run_doc_blocks.py              # every page
    python tools/run_doc_blocks.py docs/api.md  # some pages

Each block is written to a file of its own (srcad reads a function's source from its file)
and run in the page's namespace, so a block may use what an earlier block of the page made;
the pages take ``import math``, ``import numpy as np`` and ``import srcad`` as read. A block
that shows output (generated code: it opens with ``def grad_``, ``def jvp_``...) is only
compiled, and when the block before it printed, what it printed must be that text (OUTPUT:
the page shows code srcad no longer writes). A block that needs a module not installed (an
optional extra) is skipped. A block written as a session (``>>>`` prompts) runs as a doctest
(``# doctest: +SKIP`` honoured), its output checked. A block after ``<!-- not run: why -->``
(a fragment: lines of a larger function, an excerpt of generated code) is skipped, saying
why. Prints one line a block, PASS / SKIP / FAIL / OUTPUT with the
error or the first differing line, and exits 1 when one failed.
Imports srcad from the checkout this file is in.
"""

from __future__ import annotations

import contextlib
import difflib
import doctest
import io
import re
import sys
import tempfile
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: (.*?) -->\s*$")
#: generated code shown as output: compiled, not run (its helpers are srcad's runtime's)
SHOWN = re.compile(r"^(def (grad|jvp|vjp|hvp)_|def \w+_(fwd|bwd)\b)", re.M)


def blocks(page):
    """``(line, code, why not run or None)`` for each block of ``page``."""
    text = page.read_text()
    for match in BLOCK.finditer(text):
        before = NOT_RUN.search(text[:match.start()].rstrip("\n").rpartition("\n")[2])
        yield (text.count("\n", 0, match.start()) + 2, match.group(1),
               before.group(1) if before else None)


def run_page(page, directory):
    module = types.ModuleType(f"doc_{page.stem.replace('-', '_')}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    namespace = module.__dict__
    exec("import math\nimport numpy as np\nimport srcad", namespace)  # noqa: S102
    results = []
    printed = None  # what the block before printed
    for line, code, why in blocks(page):
        where = f"{page.relative_to(ROOT)}:{line}"
        if why:
            results.append((where, "SKIP", f"not run: {why}"))
            printed = None
            continue
        if code.lstrip().startswith(">>>"):
            results.append(_session(where, code, namespace))
            printed = None
            continue
        path = Path(directory) / f"{page.stem}_{line}.py"
        path.write_text(code)
        try:
            compiled = compile(code, str(path), "exec")
        except SyntaxError as e:
            results.append((where, "FAIL", f"SyntaxError: {e}"))
            printed = None
            continue
        if SHOWN.search(code):
            if printed:
                results.append(_compared(where, printed, code))
            else:
                results.append((where, "PASS", "output shown (compiled only)"))
            printed = None
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compiled, namespace)  # noqa: S102
        except ModuleNotFoundError as e:
            results.append((where, "SKIP", f"needs {e.name}"))
        except Exception as e:  # noqa: BLE001 - every failure is reported
            tb = traceback.extract_tb(e.__traceback__)
            here = next((f"line {f.lineno}" for f in reversed(tb) if f.filename == str(path)),
                        "")
            results.append((where, "FAIL", f"{type(e).__name__} ({here}): {e}"[:300]))
        else:
            results.append((where, "PASS", ""))
        printed = out.getvalue()
    return results


def _session(where, code, namespace):
    """A ``>>>`` block run by :mod:`doctest` in the page's namespace."""
    test = doctest.DocTestParser().get_doctest(code, namespace, where, where, 0)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    runner.run(test, out=report.write, clear_globs=False)
    if runner.failures:
        text = " | ".join(ln.strip() for ln in report.getvalue().splitlines()
                          if ln.strip() and not ln.startswith("*"))
        return where, "OUTPUT", text[:400]
    return where, "PASS", "session as shown"


def _compared(where, printed, shown):
    """OUTPUT with the first differing lines when ``printed`` is not the ``shown`` text
    (trailing spaces and blank lines aside)."""
    def lines(text):
        return [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    got, want = lines(printed), lines(shown)
    if got == want:
        return where, "PASS", "output as shown"
    diff = [d for d in difflib.unified_diff(want, got, "shown", "printed", n=0, lineterm="")
            if d[:1] in "+-" and not d.startswith(("+++", "---"))]
    return where, "OUTPUT", " | ".join(diff[:4])[:300]


def main(argv):
    pages = [ROOT / p for p in argv] if argv else [ROOT / "README.md"] + sorted(
        (ROOT / "docs").glob("*.md"))
    failed = 0
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        for page in pages:
            for where, verdict, note in run_page(page, directory):
                failed += verdict in ("FAIL", "OUTPUT")
                print(f"{verdict:4} {where} {note}".rstrip())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
