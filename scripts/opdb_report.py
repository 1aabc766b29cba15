"""Run PyTorch's operator database against core (uncapped by default) and print the figures:
OpInfos with a counterpart, and per family the share of forward samples, gradients, method and
in-place variants and error inputs that agree with torch.

    python scripts/opdb_report.py [--cap N] [--failures] [--write-baseline]
"""
from __future__ import annotations

import argparse
import re
import json
import pathlib
import sys
from collections import Counter, defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import torch  # noqa: E402

import opdb  # noqa: E402

KINDS = ("forward", "grad", "method", "inplace", "error")


def family(op):
    if "." in op.name:
        return op.name.rsplit(".", 1)[0]
    return type(op).__name__.replace("Info", "").replace("Op", "").lower() or "op"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, default=None, help="samples per OpInfo and dtype (default: all)")
    ap.add_argument("--failures", action="store_true", help="list every disagreement")
    ap.add_argument("--write-baseline", action="store_true", help="write tests/opdb_baseline.json")
    ap.add_argument("--only", metavar="REGEX", help="run only the OpInfos whose id matches (not with --write-baseline)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    db = opdb.load_op_db()
    fams = defaultdict(Counter)
    total = Counter()
    baseline = {}
    missing = []
    for op in db:
        if opdb.OUT_OF_SCOPE.match(op.name):
            continue
        if args.only and not re.search(args.only, opdb.opinfo_id(op)):
            continue
        res = opdb.run_opinfo(op, torch, cap=args.cap)
        if res is None:
            missing.append(opdb.opinfo_id(op))
            continue
        fams[family(op)].update(res.counts)
        fams[family(op)]["opinfos"] += 1
        total.update(res.counts)
        total["opinfos"] += 1
        counts = Counter(k for k, _, _ in res.failures)
        if counts:
            baseline[res.id] = dict(counts)
        if args.failures:
            for kind, dtype, detail in res.failures:
                print(f"{res.id}\t{kind}\t{dtype}\t{detail[:300]}")
    print(f"OpInfos in op_db: {len(db)}; in scope with a core counterpart: {total['opinfos']}; "
          f"in scope without: {len(missing)}")
    header = f"{'family':<22}{'ops':>5}" + "".join(f"{k:>18}" for k in KINDS)
    print(header)
    for name, c in sorted(fams.items()) + [("ALL", total)]:
        cells = "".join(f"{c[k + '_agree']:>8}/{c[k + '_total']:<5}" + (
            f"{100 * c[k + '_agree'] / c[k + '_total']:>4.0f}%" if c[k + "_total"] else "    -") for k in KINDS)
        print(f"{name:<22}{c['opinfos']:>5}{cells}")
    if args.write_baseline and not args.only:
        path = ROOT / "tests" / "opdb_baseline.json"
        path.write_text(json.dumps(dict(sorted(baseline.items())), indent=1) + "\n")
        print(f"wrote {path} ({len(baseline)} OpInfos with known disagreements)")
    print("without a counterpart:", " ".join(missing))


if __name__ == "__main__":
    main()
