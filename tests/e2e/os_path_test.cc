// The usual DMA path to the OS (nanoPU (OSDI'21) §2; nic/link/os_path.h,
// Config::os_port), with real parts nobody here wrote: a nanopu echo server
// on net_af_packet over a veth pair, its OS port a TAP (net_tap) moved into
// a namespace of its own that holds the host's address — a kernel beside
// the one that sees the veth. From the client's namespace the Linux
// kernel's own ping and arping reach the nanopu host's address, a kernel
// UDP socket talks to a UDP server behind the OS path, and nanopu-loadgen
// runs its echo on the fast path of the same port meanwhile; the server
// polls adaptively, woken by the TAP's RX interrupt as by its port. A
// device DPDK cannot make is refused at start, named.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)
#include "tests/support/netns.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"

using nanopu::testing::Netns;
using nanopu::testing::netns_unavailable;
using nanopu::testing::read_file;
using nanopu::testing::run_ip;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

// A UDP echo in python3 (Debian's, which deploy/setup.sh installs): the
// server says it is ready, answers one datagram; the client sends one and
// prints the answer.
const char* kUdpServer =
    "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.bind(('0.0.0.0', "
    "7007))\n"
    "print('ready', flush=True)\nd, a = s.recvfrom(100)\ns.sendto(d[::-1], a)\n";
const char* kUdpClient =
    "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.settimeout(5)\n"
    "s.sendto(b'nanopu', ('10.78.0.1', 7007))\nprint(s.recvfrom(100)[0].decode())\n";

TEST(OsPathTest, PingArpAndAKernelSocketReachTheHostBesideItsFastPath) {
  if (const std::string why = netns_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(
      std::system(
          "(command -v ping && command -v arping && command -v ethtool && command -v python3) "
          ">/dev/null 2>&1"),
      0)
      << "deploy/setup.sh installs iputils-ping, iputils-arping, ethtool and python3";
  const std::string dir = ::testing::TempDir() + "nanopu-ospath-" + std::to_string(getpid());
  mkdir(dir.c_str(), 0755);
  const std::string tag = "npo" + std::to_string(getpid() % 100000);
  Netns srv(tag + "s"), cli(tag + "c"), os(tag + "o");
  ASSERT_TRUE(srv.ok() && cli.ok() && os.ok());
  ASSERT_TRUE(nanopu::testing::veth(srv, "x0", cli, "x0"));
  const std::string lcore = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  const std::string tap = "np" + std::to_string(getpid() % 100000);
  const pid_t server =
      spawn(srv.exec({NANOPU_SERVER_BIN, "--lcores=" + lcore, "--huge=off", "--poll=adaptive",
                      "--vdev=net_af_packet0,iface=x0", "--ip=10.78.0.1", "--app=echo",
                      "--context=1", "--os_port=net_tap0,iface=" + tap}),
            dir + "/server.log");
  ASSERT_GT(server, 0);
  ASSERT_TRUE(wait_for_line(dir + "/server.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir + "/server.log");
  // The OS's interface to a kernel of its own, with the host's address.
  ASSERT_TRUE(run_ip("-n " + srv.name() + " link set " + tap + " netns " + os.name()));
  ASSERT_TRUE(run_ip("-n " + os.name() + " addr add 10.78.0.1/24 dev " + tap));
  ASSERT_TRUE(os.set_link(tap, true));
  ASSERT_TRUE(run_ip("-n " + cli.name() + " addr add 10.78.0.3/24 dev x0"));
  // A veth leaves the sender's UDP and TCP checksums to an offload that
  // never runs (af_packet hands the frame on unfinished, the OS's kernel
  // counts InCsumErrors); a NIC's wire has them whole. Computed by the
  // sending kernel, then.
  ASSERT_EQ(cli.shell("ethtool -K x0 tx off >/dev/null 2>&1"), 0)
      << "ethtool (deploy/setup.sh installs it)";
  const pid_t udp = spawn(os.exec({"/usr/bin/python3", "-c", kUdpServer}), dir + "/udp_server.log");
  ASSERT_GT(udp, 0);
  ASSERT_TRUE(wait_for_line(dir + "/udp_server.log", "ready", std::chrono::seconds(30)))
      << read_file(dir + "/udp_server.log");
  // The fast path, on the same port, while the kernels talk.
  const pid_t load =
      spawn(cli.exec({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off", "--poll=adaptive",
                      "--vdev=net_af_packet0,iface=x0", "--ip=10.78.0.2", "--server_ip=10.78.0.1",
                      "--server_context=1", "--progress=false", "--rate=20000", "--duration=3",
                      "--expect=echo", "--drain_timeout=10"}),
            dir + "/loadgen.log");
  ASSERT_GT(load, 0);
  EXPECT_EQ(cli.shell("ping -c 3 -i 0.3 -W 5 10.78.0.1 >" + dir + "/ping.log 2>&1"), 0)
      << read_file(dir + "/ping.log");
  EXPECT_EQ(cli.shell("arping -c 2 -w 5 -I x0 10.78.0.1 >" + dir + "/arping.log 2>&1"), 0)
      << read_file(dir + "/arping.log");
  ASSERT_TRUE(nanopu::testing::write_file(dir + "/udp_client.py", kUdpClient));
  EXPECT_EQ(cli.shell("python3 " + dir + "/udp_client.py >" + dir + "/udp.log 2>&1"), 0)
      << read_file(dir + "/udp.log");
  EXPECT_NE(read_file(dir + "/udp.log").find("uponan"), std::string::npos)
      << read_file(dir + "/udp.log");
  EXPECT_EQ(wait_for(load, std::chrono::seconds(60)), 0) << read_file(dir + "/loadgen.log");
  kill(udp, SIGKILL);
  (void)wait_for(udp, std::chrono::seconds(10));
  kill(server, SIGINT);
  EXPECT_EQ(wait_for(server, std::chrono::seconds(30)), 0) << read_file(dir + "/server.log");
  const std::string log = read_file(dir + "/server.log");
  EXPECT_NE(log.find("nic.rx_to_os"), std::string::npos) << log;
  EXPECT_NE(log.find("nic.tx_from_os"), std::string::npos) << log;
  nanopu::testing::remove_if_passed(dir);
}

TEST(OsPathTest, ADeviceDpdkCannotMakeIsRefusedAtStartAndNamed) {
  const std::string dir = ::testing::TempDir() + "nanopu-ospath-bad-" + std::to_string(getpid());
  mkdir(dir.c_str(), 0755);
  const pid_t p = spawn({NANOPU_SERVER_BIN, "--lcores=0", "--huge=off", "--vdev=net_null0",
                         "--app=echo", "--os_port=net_bogus0,iface=x"},
                        dir + "/server.log");
  ASSERT_GT(p, 0);
  EXPECT_NE(wait_for(p, std::chrono::seconds(60)), 0);
  EXPECT_NE(read_file(dir + "/server.log").find("--os_port=net_bogus0,iface=x"), std::string::npos)
      << read_file(dir + "/server.log");
  nanopu::testing::remove_if_passed(dir);
}

}  // namespace
