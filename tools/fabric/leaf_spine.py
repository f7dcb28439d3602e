#!/usr/bin/env python3
"""Writes a leaf-spine fabric's topology file for nanopu-sim (docs/running.md,
"Fabrics"). The defaults are the Homa paper's evaluation fabric (SIGCOMM'18
§5.2): 9 racks of 16 hosts under their top-of-rack switches, 4 spines,
10 Gb/s host links, 40 Gb/s between the switches.

Each rack's first host runs an echo server; every other host a closed-loop
load generator against the server of the next rack, so every request
crosses a leaf, a spine and another leaf. The leaves spray packets over the
spines (--spray; --no-spray: ECMP by flow hash).

  python3 tools/fabric/leaf_spine.py > fabric.topo
  build/nanopu-sim fabric.topo
  python3 tools/fabric/leaf_spine.py --racks=2 --hosts=4 --spines=2 --count=100
"""
import argparse
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--racks", type=int, default=9, help="top-of-rack (leaf) switches (1..99)")
    ap.add_argument("--hosts", type=int, default=16, help="hosts per rack (2..99)")
    ap.add_argument("--spines", type=int, default=4, help="spine switches (1..99)")
    ap.add_argument("--host_gbps", type=float, default=10, help="host links, Gb/s")
    ap.add_argument("--core_gbps", type=float, default=40, help="leaf-to-spine links, Gb/s")
    ap.add_argument("--size", type=int, default=1000, help="request bytes (1..65535)")
    ap.add_argument("--count", type=int, default=200, help="requests per load generator")
    ap.add_argument("--no-spray", dest="spray", action="store_false", help="ECMP by flow hash, not per packet")
    a = ap.parse_args()
    for name, v, lo, hi in (("racks", a.racks, 1, 99), ("hosts", a.hosts, 2, 99), ("spines", a.spines, 1, 99),
                            ("size", a.size, 1, 65535), ("count", a.count, 1, 10**9)):
        if not lo <= v <= hi:
            print(f"leaf_spine.py: --{name}={v}: want {lo}..{hi}", file=sys.stderr)
            return 2
    if a.racks < 2 and a.spines > 0:
        print("leaf_spine.py: --racks=1 has no traffic between racks: use 2 or more", file=sys.stderr)
        return 2
    out = [f"# Leaf-spine: {a.racks} racks x {a.hosts} hosts, {a.spines} spines, "
           f"{a.host_gbps:g} Gb/s hosts, {a.core_gbps:g} Gb/s core (tools/fabric/leaf_spine.py)"]
    spray = " --spray" if a.spray else ""
    out += [f"switch leaf{r} --switch_gbps={a.host_gbps:g}{spray}" for r in range(a.racks)]
    out += [f"switch spine{s} --switch_gbps={a.core_gbps:g}" for s in range(a.spines)]
    for r in range(a.racks):
        server = f"10.0.{(r + 1) % a.racks + 1}.1"
        for h in range(a.hosts):
            name, ip, mac = f"r{r}h{h}", f"10.0.{r + 1}.{h + 1}", f"02:00:00:00:{r + 1:02x}:{h + 1:02x}"
            if h == 0:
                out.append(f"host {name} {ip} {mac} server --app=echo --context=1")
            else:
                out.append(f"host {name} {ip} {mac} loadgen --server_ip={server} --server_context=1 "
                           f"--size={a.size} --outstanding=1 --count={a.count}")
    for r in range(a.racks):
        out += [f"link r{r}h{h} leaf{r}" for h in range(a.hosts)]
        out += [f"link leaf{r} spine{s} gbps={a.core_gbps:g}" for s in range(a.spines)]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
