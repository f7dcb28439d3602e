"""A nanopu topology file: hosts, the switch, the links between them.

One file describes an experiment for both deployments: network namespaces
on one machine (deploy/netns/run.sh) and real machines through Ansible
(deploy/cluster/). Format, one statement a line, '#' starts a comment:

    switch NAME [nanopu-switch flags...]
    host   NAME IP MAC server|loadgen [program flags...]
    link   NAME NAME

A host runs nanopu-server (role server) or nanopu-loadgen (role loadgen)
with the flags given; the runner adds the port, address and EAL flags.
Every host has exactly one link: to the switch, or to one other host.
Errors name the line; nothing is created for a file with an error.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
import shlex
import subprocess

ROLES = {"server": "nanopu-server", "loadgen": "nanopu-loadgen"}
_NAME = re.compile(r"^[a-z][a-z0-9]{0,7}$")  # fits interface and namespace names
_MAC = re.compile(r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$")
# Flags the runner sets itself: a topology that sets them is refused.
_RUNNER_FLAGS = ("--vdev", "--pci", "--ip", "--lcores", "--pin", "--file_prefix", "--json")


class TopologyError(Exception):
    """A bad topology file: the message names the file and line."""


@dataclasses.dataclass
class Host:
    name: str
    ip: str
    mac: str
    role: str
    flags: list[str]
    line: int
    peer: str = ""  # the other end of its link


@dataclasses.dataclass
class Switch:
    name: str
    flags: list[str]
    line: int
    ports: list[str] = dataclasses.field(default_factory=list)  # host names, port order


@dataclasses.dataclass
class Topology:
    path: str
    hosts: list[Host]
    switch: Switch | None

    def host(self, name: str) -> Host:
        return next(h for h in self.hosts if h.name == name)

    def switch_vdev(self) -> str:
        """The switch's --vdev: one net_af_packet port per link, on p0, p1, ..."""
        assert self.switch is not None
        return ";".join(f"net_af_packet{i},iface=p{i}" for i in range(len(self.switch.ports)))

    def routes(self) -> str:
        """The switch's --routes: each host's address to its port."""
        assert self.switch is not None
        return ",".join(f"{self.host(n).ip}={i}" for i, n in enumerate(self.switch.ports))


def parse(path: str, bin_dir: str | None = None) -> Topology:
    """Reads and checks a topology file. With bin_dir, each host's flags are
    also checked by its own program (--check_flags), so an unknown service
    or a bad value is caught before anything is created."""
    hosts: list[Host] = []
    switch: Switch | None = None
    links: list[tuple[str, str, int]] = []
    seen: dict[str, tuple[str, int]] = {}

    def err(line: int, msg: str) -> TopologyError:
        return TopologyError(f"{path}:{line}: {msg}")

    def claim(kind: str, value: str, line: int) -> None:
        key = f"{kind} {value}"
        if key in seen:
            raise err(line, f"duplicate {kind} {value} (first on line {seen[key][1]})")
        seen[key] = (value, line)

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().splitlines()
    except OSError as e:
        raise TopologyError(f"{path}: cannot read it: {e.strerror}") from e
    for number, raw in enumerate(text, start=1):
        try:
            words = shlex.split(raw, comments=True)
        except ValueError as e:
            raise err(number, f"cannot split the line: {e}") from e
        if not words:
            continue
        kind, args = words[0], words[1:]
        if kind == "switch":
            if switch is not None:
                raise err(number, f"a second switch (the first is on line {switch.line}): a fabric of "
                          "several switches runs in nanopu-sim only (docs/running.md, \"Fabrics\")")
            if not args or not _NAME.match(args[0]):
                raise err(number, "expected: switch NAME [flags]; NAME: a-z then a-z0-9, 8 at most")
            claim("name", args[0], number)
            switch = Switch(args[0], args[1:], number)
        elif kind == "host":
            if len(args) < 4:
                raise err(number, "expected: host NAME IP MAC server|loadgen [flags]")
            name, ip, mac, role, flags = args[0], args[1], args[2].lower(), args[3], args[4:]
            if not _NAME.match(name):
                raise err(number, f"host name '{name}': a-z then a-z0-9, 8 characters at most")
            try:
                addr = ipaddress.IPv4Address(ip)
            except ValueError as e:
                raise err(number, f"'{ip}' is not an IPv4 address") from e
            if addr.is_multicast or addr.is_unspecified or int(addr) & 0xFF == 0xFF:
                raise err(number, f"{ip} cannot be a host's address")
            if not _MAC.match(mac) or int(mac[:2], 16) & 1:
                raise err(number, f"'{args[2]}' is not a unicast MAC address (aa:bb:cc:dd:ee:ff)")
            if role not in ROLES:
                raise err(number, f"unknown role '{role}': use server or loadgen")
            for flag in flags:
                if flag.split("=")[0] in _RUNNER_FLAGS:
                    raise err(number, f"{flag.split('=')[0]} is set by the runner, not the topology")
            claim("name", name, number)
            claim("address", ip, number)
            claim("MAC", mac, number)
            hosts.append(Host(name, ip, mac, role, flags, number))
        elif kind == "link":
            if len(args) > 2 and all(a.startswith(("gbps=", "latency_ns=")) for a in args[2:]):
                raise err(number, "a link's own gbps= or latency_ns= runs in nanopu-sim only: "
                          "netns links run at the switch's --switch_gbps")
            if len(args) != 2:
                raise err(number, "expected: link NAME NAME")
            if args[0] == args[1]:
                raise err(number, f"a link from {args[0]} to itself")
            links.append((args[0], args[1], number))
        else:
            raise err(number, f"unknown statement '{kind}': use switch, host or link")
    if not hosts:
        raise TopologyError(f"{path}: no host")
    names = {h.name: h for h in hosts}
    for a, b, number in links:
        for end in (a, b):
            if end not in names and (switch is None or end != switch.name):
                raise err(number, f"link to {end}, which no host or switch line names")
        for end, other in ((a, b), (b, a)):
            if end in names:
                if names[end].peer:
                    raise err(number, f"{end} already has a link; a host has one port")
                names[end].peer = other
        if switch is not None and switch.name in (a, b):
            switch.ports.append(b if a == switch.name else a)
    for h in hosts:
        if not h.peer:
            raise err(h.line, f"host {h.name} has no link")
    if switch is not None and len(switch.ports) < 2:
        raise err(switch.line, "the switch needs links to at least two hosts")
    if bin_dir is not None:
        for h in hosts:
            check = [f"{bin_dir}/{ROLES[h.role]}", *h.flags, "--check_flags"]
            try:
                r = subprocess.run(check, capture_output=True, text=True, timeout=60)
            except OSError as e:
                raise TopologyError(f"cannot run {check[0]}: {e.strerror} (build first)") from e
            if r.returncode != 0:
                why = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
                raise err(h.line, f"host {h.name}: {why}")
    return Topology(path, hosts, switch)


def pin_value(topo: Topology, cpus: int) -> str:
    """The --pin value for the topology's hosts: off when the topology's processes outnumber the machine's CPUs:
    pinned, a host can then wait seconds behind a busy neighbour on its CPU
    (docs/design.md §9, --pin); else DPDK's pinning."""
    processes = len(topo.hosts) + (1 if topo.switch else 0)
    return "off" if processes > cpus else "on"


def inventory(topo: Topology, machines: dict[str, dict[str, str]] | None) -> str:
    """An Ansible inventory (YAML) for deploy/cluster/playbook.yml.

    machines: per host and switch name, its connection ('ansible_host', and
    'pci' or 'iface' for the port). None: the namespaces of a netns run
    (connection local, every command prefixed with `ip netns exec`)."""
    lines = ["# Generated from %s by deploy/netns/nanopu_netns.py inventory" % topo.path, "all:",
             "  children:"]

    def host_vars(name: str, ns_run: str | None) -> list[str]:
        m = (machines or {}).get(name, {})
        out = []
        if machines is None:
            out += ["ansible_connection: local", f"nanopu_exec: ip netns exec {ns_run}-{name}",
                    "nanopu_port_flags: --vdev=net_af_packet0,iface=np0 --huge=off"]
        else:
            if "ansible_host" not in m:
                raise TopologyError(f"no machine given for {name}")
            out.append(f"ansible_host: {m['ansible_host']}")
            if "pci" in m:
                out += [f"nanopu_pci: '{m['pci']}'", f"nanopu_port_flags: --pci={m['pci']}"]
            elif "iface" in m:
                out.append(f"nanopu_port_flags: --vdev=net_af_packet0,iface={m['iface']}")
            else:
                raise TopologyError(f"machine {name}: give pci=ADDRESS or iface=NAME")
        return out

    ns_run = "@RUN@" if machines is None else None
    cpus = os.cpu_count() or 1
    order = ([topo.switch.name] if topo.switch else []) + [h.name for h in topo.hosts]
    groups = {"nanopu_switch": [topo.switch.name] if topo.switch else [],
              "nanopu_servers": [h.name for h in topo.hosts if h.role == "server"],
              "nanopu_loadgens": [h.name for h in topo.hosts if h.role == "loadgen"]}
    for group, members in groups.items():
        lines.append(f"    {group}:")
        lines.append("      hosts:" + ("" if members else " {}"))
        for name in members:
            lines.append(f"        {name}:")
            if topo.switch and name == topo.switch.name:
                args = ["nanopu-switch", *topo.switch.flags, f"--routes={topo.routes()}"]
                vars_ = host_vars(name, ns_run)
                if machines is None:
                    vars_[-1] = "nanopu_port_flags: --vdev='%s' --huge=off" % topo.switch_vdev()
            else:
                h = topo.host(name)
                args = [ROLES[h.role], f"--ip={h.ip}", *h.flags]
                vars_ = host_vars(name, ns_run)
            lcores = (machines or {}).get(name, {}).get("lcores", "1") if machines is not None \
                else str(order.index(name) % cpus)
            vars_.append(f"nanopu_lcores: '{lcores}'")
            if machines is None:
                vars_.append(f"nanopu_pin: '{pin_value(topo, cpus)}'")
            vars_.append("nanopu_args: %s" % _yaml_str(" ".join(shlex.quote(a) for a in args)))
            lines += [f"          {v}" for v in vars_]
    return "\n".join(lines) + "\n"


def _yaml_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"
