#!/usr/bin/env python3
"""Checks a `streamscan bench --json` file: valid JSON (non-finite figures as
null), schema 2, and per row a sample count equal to the repeats, min <= median
<= max, a non-negative noise, a named baseline wherever a speedup is given, and
the --compare-defaults fields (tuning_entry, vs_default) in every row.
Usage: check_bench_json.py FILE REPEATS"""
import json
import math
import sys


def main():
    path, repeats = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        data = json.load(f, parse_constant=lambda c: sys.exit(f"{path}: {c} is not JSON"))
    problems = []
    if data.get("schema") != 2:
        problems.append(f"schema is {data.get('schema')!r}, not 2")
    rows = data.get("results", [])
    if not rows:
        problems.append("no results")
    for r in rows:
        where = f"{r.get('type')} 2^{r.get('log2n')} {r.get('algorithm')}"
        if r["samples"] != repeats:
            problems.append(f"{where}: {r['samples']} samples, not {repeats}")
        if not r["min_ms"] <= r["median_ms"] <= r["max_ms"]:
            problems.append(f"{where}: not min <= median <= max")
        if not (isinstance(r["noise_pct"], (int, float)) and r["noise_pct"] >= 0 and math.isfinite(r["noise_pct"])):
            problems.append(f"{where}: noise {r['noise_pct']!r}")
        if not isinstance(r.get("tuning_entry"), str) or not isinstance(r.get("vs_default"), (int, float)):
            problems.append(f"{where}: no tuning_entry or vs_default")
        if r["speedup"] and not r["baseline"]:
            problems.append(f"{where}: a speedup without its baseline")
    if not any(r["baseline"] and r["speedup"] for r in rows):
        problems.append("no row names its baseline")
    for p in problems:
        print(f"{path}: {p}")
    print(f"{path}: {len(rows)} rows, {'ok' if not problems else 'FAILED'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
