#!/usr/bin/env python3
"""Checks that files are histories in Jepsen's model as nanopu writes them
(nanopu/history.h): JSON lines with index (0, 1, 2, ...), time (ns), process,
type (invoke|ok|fail|info), f, key and value; each process alternates an
invoke and its completion (same f and key, no earlier in time), and a
process whose operation ended in info never invokes again. Exit 1 naming
the file and line on the first fault."""
import json
import sys


def check(path: str) -> int:
    open_ops: dict[int, dict] = {}
    retired: set[int] = set()
    events = 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            where = f"{path}:{number}"
            e = json.loads(line)
            for field, kind in (("index", int), ("time", int), ("process", int), ("type", str), ("f", str)):
                if not isinstance(e.get(field), kind):
                    raise SystemExit(f"{where}: '{field}' missing or not {kind.__name__}")
            if e["index"] != number - 1:
                raise SystemExit(f"{where}: index {e['index']}, expected {number - 1}")
            if not (e.get("key") is None or isinstance(e["key"], int)):
                raise SystemExit(f"{where}: key is neither an integer nor null")
            v = e.get("value")
            if not (v is None or isinstance(v, int) or (isinstance(v, list) and all(isinstance(x, int) for x in v))):
                raise SystemExit(f"{where}: value is not null, an integer or a list of integers")
            p, t = e["process"], e["type"]
            if t == "invoke":
                if p in open_ops or p in retired:
                    raise SystemExit(f"{where}: process {p} invokes while busy or after an info")
                open_ops[p] = e
            elif t in ("ok", "fail", "info"):
                inv = open_ops.pop(p, None)
                if inv is None:
                    raise SystemExit(f"{where}: process {p} completes what it never invoked")
                if (inv["f"], inv.get("key")) != (e["f"], e.get("key")) or e["time"] < inv["time"]:
                    raise SystemExit(f"{where}: completion does not match its invoke (line {inv['index'] + 1})")
                if t == "info":
                    retired.add(p)
            else:
                raise SystemExit(f"{where}: type '{t}'")
            events += 1
    if open_ops:
        raise SystemExit(f"{path}: {len(open_ops)} operations never completed (a run's end writes them as info)")
    if events == 0:
        raise SystemExit(f"{path}: empty")
    return events


def main() -> None:
    for path in sys.argv[1:]:
        print(f"   {path}: {check(path)} events, well formed")


if __name__ == "__main__":
    main()
