// An overlay tunnel with the Linux kernel's own VXLAN device at the other
// end (issue 73; nic/pipeline/programs/vxlan_{decap,encap}.spec, nanoPU
// (OSDI'21) §2: the pipelines "can be programmed to do normal header
// processing, such as VXLAN, overlay tunnels"): a nanopu echo server on
// net_af_packet over a veth pair runs the decapsulation program on ingress
// and the encapsulation program on egress; in the client's namespace the
// kernel's vxlan0 (VNI 42, to the server's underlay address) carries a
// one-packet NDP request that python3 writes onto it as a raw frame. The
// kernel encapsulates it, the server's ingress program takes the tunnel
// off, the echo answers, its egress program puts the reply in the tunnel,
// and the kernel — which checks the outer IPv4 header and drops a frame of
// another network — decapsulates it onto vxlan0, where python3 reads the
// reply's payload back.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

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

// An interface's MAC in a namespace, as 12 hex digits ("" if unknown).
std::string mac_of(const Netns& ns, const std::string& ifname, const std::string& dir) {
  const std::string out = dir + "/mac-" + ifname;
  if (ns.shell("cat /sys/class/net/" + ifname + "/address >" + out) != 0) return "";
  std::string mac = read_file(out);
  std::string hex;
  for (char ch : mac)
    if (std::isxdigit(static_cast<unsigned char>(ch))) hex += ch;
  return hex.size() == 12 ? hex : "";
}

// One NDP DATA packet (docs/wire.md: 30-byte header, the prototype's
// fields only) from context 7 to the echo's context 1 over vxlan0; prints
// the payload of the first DATA packet back from 10.79.1.1.
const char* kNdpClient = R"(import socket, struct, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.bind(('vxlan0', 0))
s.settimeout(1)
payload = b'through-the-tunnel'
ndp = struct.pack('!BHHHBHHHBHHIBHHH', 0x01, 7, 1, len(payload), 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(ndp) + len(payload), 0, 0, 64, 0x99, 0,
                           socket.inet_aton('10.79.1.2'), socket.inet_aton('10.79.1.1')))
csum = sum(struct.unpack('!10H', ip))
while csum >> 16:
    csum = (csum & 0xffff) + (csum >> 16)
ip[10:12] = struct.pack('!H', ~csum & 0xffff)
frame = bytes.fromhex('02000a4f0101') + bytes.fromhex('02000a4f0102') + b'\x08\x00' + bytes(ip) + ndp + payload
for attempt in range(20):
    s.send(frame)
    try:
        while True:
            d = s.recv(2048)
            if len(d) >= 64 and d[12:14] == b'\x08\x00' and d[23] == 0x99 and d[26:30] == socket.inet_aton('10.79.1.1') and d[34] & 0x01:
                n = struct.unpack('!H', d[39:41])[0]
                print('reply', d[64:64 + n].decode(), flush=True)
                sys.exit(0)
    except socket.timeout:
        pass
print('no reply', flush=True)
sys.exit(1)
)";

TEST(VxlanKernelTest, ARequestThroughTheKernelsVxlanDeviceIsAnsweredThroughTheTunnel) {
  if (const std::string why = netns_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(std::system("command -v python3 >/dev/null 2>&1"), 0) << "deploy/setup.sh installs python3";
  const std::string dir = ::testing::TempDir() + "nanopu-vxlan-" + std::to_string(getpid());
  mkdir(dir.c_str(), 0755);
  const std::string tag = "npv" + std::to_string(getpid() % 100000);
  Netns srv(tag + "s"), cli(tag + "c");
  ASSERT_TRUE(srv.ok() && cli.ok());
  ASSERT_TRUE(nanopu::testing::veth(srv, "x0", cli, "x0"));
  const std::string srv_mac = mac_of(srv, "x0", dir), cli_mac = mac_of(cli, "x0", dir);
  ASSERT_FALSE(srv_mac.empty() || cli_mac.empty());
  // The underlay: the client's kernel at 10.79.0.2 reaches the server's
  // tunnel end 10.79.0.1 (nanopu answers no ARP without an OS port: a
  // static neighbour). The overlay: vxlan0 at 10.79.1.2, the nanopu host at
  // 10.79.1.1 (its MAC, as nanopu derives it from the address).
  ASSERT_TRUE(run_ip("-n " + cli.name() + " addr add 10.79.0.2/24 dev x0"));
  ASSERT_TRUE(run_ip("-n " + cli.name() + " neigh add 10.79.0.1 lladdr " + srv_mac.substr(0, 2) + ":" +
                     srv_mac.substr(2, 2) + ":" + srv_mac.substr(4, 2) + ":" + srv_mac.substr(6, 2) + ":" +
                     srv_mac.substr(8, 2) + ":" + srv_mac.substr(10, 2) + " dev x0"));
  ASSERT_TRUE(run_ip("-n " + cli.name() +
                     " link add vxlan0 address 02:00:0a:4f:01:02 type vxlan id 42 remote 10.79.0.1 local "
                     "10.79.0.2 dstport 4789 dev x0"));
  ASSERT_TRUE(run_ip("-n " + cli.name() + " addr add 10.79.1.2/24 dev vxlan0"));
  ASSERT_TRUE(cli.set_link("vxlan0", true));
  ASSERT_TRUE(run_ip("-n " + cli.name() + " neigh add 10.79.1.1 lladdr 02:00:0a:4f:01:01 dev vxlan0"));
  const std::string programs = std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/";
  const std::string egress_entries = dir + "/egress.entries";
  std::ofstream(egress_entries) << "tunnel match 0x0a4f0102 action encap dst_mac 0x" << cli_mac
                                << " src_mac 0x" << srv_mac
                                << " src_ip 0x0a4f0001 dst_ip 0x0a4f0002 vni 42\n";
  const std::string lcore = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  const pid_t server = spawn(
      srv.exec({NANOPU_SERVER_BIN, "--lcores=" + lcore, "--huge=off", "--poll=adaptive",
                "--vdev=net_af_packet0,iface=x0", "--ip=10.79.1.1", "--app=echo", "--context=1",
                "--pipeline=" + programs + "vxlan_decap.spec", "--pipeline_entries=" + programs + "vxlan.entries",
                "--egress_pipeline=" + programs + "vxlan_encap.spec", "--egress_pipeline_entries=" + egress_entries}),
      dir + "/server.log");
  ASSERT_GT(server, 0);
  ASSERT_TRUE(wait_for_line(dir + "/server.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir + "/server.log");
  ASSERT_TRUE(nanopu::testing::write_file(dir + "/ndp_client.py", kNdpClient));
  EXPECT_EQ(cli.shell("python3 " + dir + "/ndp_client.py >" + dir + "/client.log 2>&1"), 0)
      << read_file(dir + "/client.log") << read_file(dir + "/server.log");
  EXPECT_NE(read_file(dir + "/client.log").find("reply through-the-tunnel"), std::string::npos)
      << read_file(dir + "/client.log");
  kill(server, SIGINT);
  EXPECT_EQ(wait_for(server, std::chrono::seconds(30)), 0) << read_file(dir + "/server.log");
  const std::string log = read_file(dir + "/server.log");
  EXPECT_NE(log.find("pipeline tunnel: hit "), std::string::npos) << log;
  EXPECT_NE(log.find("pipeline egress tunnel: hit "), std::string::npos) << log;
  // af_packet sends from the transport's own frame (a second reference):
  // the program rewrites a copy, never the frame a retransmission resends.
  EXPECT_NE(log.find("nic.tx_program_copied"), std::string::npos) << log;
  nanopu::testing::remove_if_passed(dir);
}

}  // namespace
