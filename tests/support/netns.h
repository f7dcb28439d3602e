// Test hosts in network namespaces joined by veth pairs, for multi-process
// tests over net_af_packet: the kernel owns the veth, so a process killed
// with SIGKILL leaves nothing half torn down for its peer (DPDK 22.11's
// memif unmaps a dead peer's rings under the polling thread: docs/design.md
// §9, "memif's teardown, fenced"). Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) and iproute2's `ip`.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace nanopu::testing {

// The `ip` program (iproute2), or "" if there is none.
inline std::string ip_program() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

// Runs `ip <args>` quietly; true if it succeeded.
inline bool run_ip(const std::string& args) {
  const std::string ip = ip_program();
  return !ip.empty() && std::system((ip + " " + args + " >/dev/null 2>&1").c_str()) == 0;
}

// A network namespace, deleted (with its interfaces) when this goes.
class Netns {
 public:
  // name: unique on the machine (put the test's pid in it).
  explicit Netns(std::string name) : name_(std::move(name)) {
    run_ip("netns del " + name_);  // left over by a killed earlier run
    ok_ = run_ip("netns add " + name_) && run_ip("-n " + name_ + " link set lo up");
    // No IPv6 router solicitations or MLD reports on the test links: the
    // hosts under test should see only each other's frames.
    if (ok_)
      std::system((ip_program() + " netns exec " + name_ +
                   " sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6; "
                   "echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6' >/dev/null 2>&1")
                      .c_str());
  }
  ~Netns() {
    if (ok_) run_ip("netns del " + name_);
  }
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;

  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  // A command line run inside this namespace (`ip netns exec` execs it in
  // place, so the pid is the program's own).
  [[nodiscard]] std::vector<std::string> exec(std::vector<std::string> args) const {
    args.insert(args.begin(), {ip_program(), "netns", "exec", name_});
    return args;
  }
  // A shell command line run inside this namespace; its exit status (-1:
  // it did not exit).
  [[nodiscard]] int shell(const std::string& cmd) const {
    const int rc = std::system((ip_program() + " netns exec " + name_ + " sh -c '" + cmd + "'").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  // Sets one of this namespace's interfaces up or down.
  bool set_link(const std::string& ifname, bool up) const {
    return run_ip("-n " + name_ + " link set " + ifname + (up ? " up" : " down"));
  }

 private:
  std::string name_;
  bool ok_ = false;
};

// A veth pair, end a_if in a and b_if in b, both up.
inline bool veth(const Netns& a, const std::string& a_if, const Netns& b, const std::string& b_if) {
  return run_ip("link add " + a_if + " netns " + a.name() + " type veth peer name " + b_if +
                " netns " + b.name()) &&
         a.set_link(a_if, true) && b.set_link(b_if, true);
}

// Why namespaces cannot be made here ("" if they can): the tests that need
// them skip when not root and fail when root cannot make them.
inline std::string netns_unavailable() {
  if (ip_program().empty()) return "no `ip` program (Debian: apt-get install iproute2)";
  if (geteuid() != 0) return "not root: network namespaces and veth pairs need CAP_SYS_ADMIN";
  return "";
}

}  // namespace nanopu::testing
