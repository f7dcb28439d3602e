#!/usr/bin/env python3
"""Runs a nanopu topology as hosts in network namespaces on this machine.

  nanopu_netns.py run TOPO [--out DIR] [--bin DIR]   the whole experiment
  nanopu_netns.py check TOPO [--bin DIR]             validate only
  nanopu_netns.py up TOPO --run ID                   namespaces and links only
  nanopu_netns.py down --run ID                      remove them
  nanopu_netns.py inventory TOPO [--machines FILE]   Ansible inventory

`run`: creates one namespace per host (and the switch), joins them with veth
pairs as the file's links say, starts nanopu-switch, then the servers (each
waits for its ready line), then every load generator at once on
net_af_packet over its veth; when the load generators are done, stops the
rest with SIGINT and writes a results folder: each program's log, the
counters it printed at exit, each load generator's JSON, and summary.json.
Everything is removed on exit, on Ctrl-C and on failure.

Exit status: 0 every load generator got every reply; 3 one reported lost,
given-up or wrong replies; 4 a host failed (the message names it); 2 a bad
topology (nothing created); 1 anything else.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import topology  # noqa: E402

READY_LINE = "Ctrl-C stops"
NS_PREFIX = "nanopu-"


def ip(*args: str, check: bool = True) -> bool:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r.returncode == 0


def ns_name(run: str, name: str) -> str:
    return f"{NS_PREFIX}{run}-{name}"


def namespaces_of(run: str) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.startswith(f"{NS_PREFIX}{run}-")]


def up(topo: topology.Topology, run: str) -> None:
    """Namespaces, veth pairs, MACs; every interface up. Undone by down()."""
    members = [h.name for h in topo.hosts] + ([topo.switch.name] if topo.switch else [])
    for m in members:
        ns = ns_name(run, m)
        ip("netns", "add", ns)
        ip("-n", ns, "link", "set", "lo", "up")
        # Only the experiment's frames on its links: no IPv6 chatter.
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                        "net.ipv6.conf.default.disable_ipv6=1"], capture_output=True)
    done = set()
    for h in topo.hosts:
        if h.name in done:
            continue
        if topo.switch and h.peer == topo.switch.name:
            port = topo.switch.ports.index(h.name)
            ip("link", "add", "np0", "netns", ns_name(run, h.name), "type", "veth", "peer", "name",
               f"p{port}", "netns", ns_name(run, topo.switch.name))
            ip("-n", ns_name(run, topo.switch.name), "link", "set", f"p{port}", "up")
        else:
            peer = topo.host(h.peer)
            # Both ends are np0, each in its own namespace: create under
            # temporary names, then rename inside.
            ip("link", "add", "npa", "netns", ns_name(run, h.name), "type", "veth", "peer", "name", "npb",
               "netns", ns_name(run, peer.name))
            ip("-n", ns_name(run, h.name), "link", "set", "npa", "name", "np0")
            ip("-n", ns_name(run, peer.name), "link", "set", "npb", "name", "np0")
            done.add(peer.name)
        done.add(h.name)
    for h in topo.hosts:
        ip("-n", ns_name(run, h.name), "link", "set", "np0", "address", h.mac)
        ip("-n", ns_name(run, h.name), "link", "set", "np0", "up")


def down(run: str) -> list[str]:
    """Removes every namespace of the run (their veths go with them)."""
    gone = namespaces_of(run)
    for ns in gone:
        # A process still inside (left by a failed playbook, say) would keep
        # its interfaces alive: end it first.
        pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        ip("netns", "del", ns, check=False)
    return gone


class Experiment:
    def __init__(self, topo: topology.Topology, run: str, bin_dir: str, out: str, cpus: int):
        self.topo, self.run, self.bin, self.out, self.cpus = topo, run, bin_dir, out, cpus
        self.procs: dict[str, subprocess.Popen] = {}
        self.next_cpu = 0

    def command(self, name: str) -> list[str]:
        lcore = str(self.next_cpu % self.cpus)
        self.next_cpu += 1
        common = [f"--lcores={lcore}", f"--pin={topology.pin_value(self.topo, self.cpus)}", "--huge=off", "--poll=adaptive", f"--file_prefix={ns_name(self.run, name)}"]
        if self.topo.switch and name == self.topo.switch.name:
            return [f"{self.bin}/nanopu-switch", *common, f"--vdev={self.topo.switch_vdev()}",
                    f"--routes={self.topo.routes()}", *self.topo.switch.flags]
        h = self.topo.host(name)
        cmd = [f"{self.bin}/{topology.ROLES[h.role]}", *common, "--vdev=net_af_packet0,iface=np0",
               f"--ip={h.ip}"]
        if h.role == "loadgen":
            cmd += [f"--json={self.out}/{name}.json", "--progress=false"]
        return cmd + h.flags

    def start(self, name: str) -> None:
        cmd = ["ip", "netns", "exec", ns_name(self.run, name), *self.command(name)]
        with open(f"{self.out}/{name}.cmd", "w") as f:
            f.write(" ".join(cmd) + "\n")
        log = open(f"{self.out}/{name}.log", "w")
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        print(f"netns: started {name}: {' '.join(cmd[4:])}", flush=True)

    def wait_ready(self, name: str, timeout_s: float = 120) -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.procs[name].poll() is not None:
                raise HostFailed(name, f"exited {self.procs[name].returncode} before it was ready")
            with open(f"{self.out}/{name}.log", errors="replace") as f:
                if READY_LINE in f.read():
                    return
            time.sleep(0.1)
        raise HostFailed(name, f"not ready after {timeout_s:.0f} s")

    def stop(self, name: str, timeout_s: float = 30) -> int | None:
        p = self.procs.get(name)
        if p is None or p.poll() is not None:
            return p.returncode if p else None
        p.send_signal(signal.SIGINT)
        try:
            return p.wait(timeout_s)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return None

    def kill_all(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


class HostFailed(Exception):
    def __init__(self, host: str, why: str):
        super().__init__(f"host {host} {why}")
        self.host = host


def counters(log_path: str) -> dict[str, int]:
    """The 'name value' counter lines a program printed at exit."""
    out: dict[str, int] = {}
    with open(log_path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and "." in parts[0] and parts[1].isdigit():
                out[parts[0]] = int(parts[1])
    return out


def run(args: argparse.Namespace) -> int:
    topo = topology.parse(args.topology, args.bin)
    run_id = f"{os.getpid() % 100000}"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(args.out or f"results/{os.path.splitext(os.path.basename(args.topology))[0]}-{stamp}")
    os.makedirs(out, exist_ok=True)
    shutil.copy(args.topology, f"{out}/topology")
    exp = Experiment(topo, run_id, os.path.abspath(args.bin), out, os.cpu_count() or 1)
    interrupted = []

    def on_signal(sig, _frame):
        interrupted.append(sig)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    status, failed = 1, ""
    try:
        up(topo, run_id)
        print(f"netns: {len(namespaces_of(run_id))} namespaces ({NS_PREFIX}{run_id}-*), results in {out}",
              flush=True)
        first = [topo.switch.name] if topo.switch else []
        for name in first + [h.name for h in topo.hosts if h.role == "server"]:
            exp.start(name)
            exp.wait_ready(name)
        loadgens = [h.name for h in topo.hosts if h.role == "loadgen"]
        for name in loadgens:
            exp.start(name)
        codes = {}
        for name in loadgens:
            codes[name] = exp.procs[name].wait()
        for name, code in codes.items():
            if code not in (0, 3):
                raise HostFailed(name, f"exited {code} (see {out}/{name}.log)")
        status = 3 if any(c == 3 for c in codes.values()) else 0
        for name in [h.name for h in topo.hosts if h.role == "server"] + first:
            code = exp.stop(name)
            if code != 0:
                raise HostFailed(name, f"exited {code} when stopped (see {out}/{name}.log)")
    except HostFailed as e:
        failed = e.host
        print(f"netns: {e}; stopping the others", file=sys.stderr)
        status = 4
    except KeyboardInterrupt:
        print("netns: interrupted; stopping every host", file=sys.stderr)
        status = 130
    except RuntimeError as e:
        print(f"netns: {e}", file=sys.stderr)
        status = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for name in list(exp.procs):
            exp.stop(name, timeout_s=10)
        exp.kill_all()
        removed = down(run_id)
        left = namespaces_of(run_id)
        if left:
            print(f"netns: could not remove {' '.join(left)}", file=sys.stderr)
    summary = {"topology": args.topology, "status": status, "failed_host": failed, "hosts": {}}
    for name, p in exp.procs.items():
        entry = {"exit": p.returncode, "log": f"{name}.log", "counters": counters(f"{out}/{name}.log")}
        if os.path.exists(f"{out}/{name}.json"):
            with open(f"{out}/{name}.json") as f:
                try:
                    entry["load"] = json.load(f)
                except json.JSONDecodeError:
                    pass
        summary["hosts"][name] = entry
    with open(f"{out}/summary.json", "w") as f:
        json.dump(summary, f, indent=1)
    for name, entry in summary["hosts"].items():
        load = entry.get("load")
        if load:
            lat = load.get("latency_ns", {})
            print(f"netns: {name}: {load.get('received', 0)}/{load.get('sent', 0)} replies, "
                  f"{load.get('throughput_msgs_per_s', 0):.0f} req/s, p50 {lat.get('p50', 0) / 1000:.1f} us, "
                  f"p99 {lat.get('p99', 0) / 1000:.1f} us")
    print(f"netns: removed {len(removed)} namespaces; status {status}; results in {out}", flush=True)
    return status


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    default_bin = os.path.normpath(os.path.join(here, "..", "..", "build"))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=topology.__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the experiment and tear it down")
    r.add_argument("topology")
    r.add_argument("--out", help="results folder (default results/<topology>-<time>)")
    r.add_argument("--bin", default=default_bin, help="where the nanopu programs are")
    c = sub.add_parser("check", help="validate a topology file")
    c.add_argument("topology")
    c.add_argument("--bin", default=default_bin)
    u = sub.add_parser("up", help="create the namespaces and links only")
    u.add_argument("topology")
    u.add_argument("--run", required=True, help="a short id naming this run's namespaces")
    d = sub.add_parser("down", help="remove a run's namespaces")
    d.add_argument("--run", required=True)
    i = sub.add_parser("inventory", help="an Ansible inventory for deploy/cluster/playbook.yml")
    i.add_argument("topology")
    i.add_argument("--machines", help="file of 'NAME ADDRESS pci=... | iface=...' lines; "
                   "without it, the inventory drives a netns run (--run)")
    i.add_argument("--run", default="", help="with no --machines: the run id given to `up`")
    args = p.parse_args()
    try:
        if args.cmd in ("run", "up") and os.geteuid() != 0:
            print("netns: needs root (network namespaces and veth pairs)", file=sys.stderr)
            return 1
        if args.cmd == "run":
            return run(args)
        if args.cmd == "check":
            topo = topology.parse(args.topology, args.bin)
            print(f"{args.topology}: {len(topo.hosts)} hosts{', 1 switch' if topo.switch else ''}: good")
            return 0
        if args.cmd == "up":
            topo = topology.parse(args.topology)
            try:
                up(topo, args.run)
            except RuntimeError:
                down(args.run)
                raise
            print(" ".join(namespaces_of(args.run)))
            return 0
        if args.cmd == "down":
            print(f"removed {len(down(args.run))} namespaces")
            return 0
        if args.cmd == "inventory":
            topo = topology.parse(args.topology)
            machines = None
            if args.machines:
                machines = {}
                with open(args.machines) as f:
                    for line in f:
                        words = line.split("#")[0].split()
                        if words:
                            m = {"ansible_host": words[1]} if len(words) > 1 else {}
                            m.update(w.split("=", 1) for w in words[2:] if "=" in w)
                            machines[words[0]] = m
            elif not args.run:
                print("netns: inventory without --machines needs --run (the id given to `up`)", file=sys.stderr)
                return 2
            sys.stdout.write(topology.inventory(topo, machines).replace("@RUN@", f"{NS_PREFIX}{args.run}"))
            return 0
    except topology.TopologyError as e:
        print(f"netns: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"netns: {e}", file=sys.stderr)
        return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
