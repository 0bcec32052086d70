"""Sample the refusals a run of ``tools/mutant_programs.py`` produced and print each whole
``SrcadError`` message, judged: does it name the file, the line, the construct (the source
line shown) and a rewrite (a ``hint:``)?

    python tools/refusal_sample.py RUN.json [--count 20] [--seed 0] [--kinds MUTATION ...]

RUN.json is the ``--json`` output of a fuzzer run (pass the same ``--seed`` and ``--kinds``
the run had). Each sampled mutant is rebuilt from its key and number (as ``--show`` does)
and differentiated again, by ``srcad.value_and_grad`` (or ``srcad.jvp`` when the refusal
was forward mode's), one distinct first line each.

Imports: argparse, collections, copy, json, os, random, signal, sys, tempfile, numpy,
tools/mutant_programs, tools/mutant_sources, and srcad.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import signal
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mutant_programs as mp  # noqa: E402
import mutant_sources  # noqa: E402


def judge(text, path):
    """The parts a refusal's message lacks, of: file, line, construct, rewrite."""
    lines = text.splitlines()
    lacks = []
    if os.path.basename(path) not in text:
        lacks.append("file")
    if "line " not in lines[0]:
        lacks.append("line")
    if len(lines) < 2 or lines[1].startswith("  hint:"):
        lacks.append("construct")
    if "hint:" not in text:
        lacks.append("rewrite")
    return lacks


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run")
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kinds", nargs="*", default=None)  # the run's --kinds, if it had some
    args = p.parse_args(argv)
    if args.kinds:
        mp.mutations.MUTATIONS[:] = [m for m in mp.mutations.MUTATIONS
                                     if m.__name__ in args.kinds]
    import srcad
    refused, firsts = [], set()
    with open(args.run) as fh:
        for line in fh:
            item = json.loads(line)
            row = next((r for r in item.get("rows", []) if r[1] == "REFUSED"), None)
            if row and row[2].split(":", 1)[-1] not in firsts:
                firsts.add(row[2].split(":", 1)[-1])
                refused.append((item["key"], item["k"], row[0]))
    random.Random(args.seed).shuffle(refused)
    files = sorted({":".join(k.split(":")[:2]) for k, _, _ in refused})
    by_key = {f.key: f for f in mutant_sources.harvest(files)}
    folder = tempfile.mkdtemp(prefix="refusals-")
    sys.path.insert(0, folder)
    signal.signal(signal.SIGALRM, mp._alarm)
    shown = 0
    for key, k, check in refused:
        if shown >= args.count or key not in by_key:
            continue
        fn = by_key[key]
        prepared = mp.prepare(fn, folder, np.random.RandomState(mp._seed(key, args.seed)))
        node, _ = mp.make_mutant(fn, prepared, args.seed, k)
        direct, copies, weights = mp.how_called(prepared, k)
        mod = mp.load(mp.module_text(fn, node, direct, copies=copies), folder, prepared.data)
        if not direct:
            mod._W = weights
        target = getattr(mod, fn.name if direct else "_srcad_F")
        try:
            if check == "fwd":
                vs = tuple(np.ones(np.shape(prepared.args[j])) if np.ndim(prepared.args[j])
                           else 1.0 for j in prepared.wrt)
                srcad.jvp(target, tuple(copy.deepcopy(prepared.args)), vs, wrt=prepared.wrt)
            else:
                srcad.value_and_grad(target, wrt=prepared.wrt)(*copy.deepcopy(prepared.args))
            continue  # not refused this time
        except srcad.SrcadError as e:
            text = str(e)
        shown += 1
        lacks = judge(text, mod.__file__)
        verdict = "LACKS " + ", ".join(lacks) if lacks else "OK"
        print(f"--- {shown}. {key}#{k} ({check}): {verdict}")
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
