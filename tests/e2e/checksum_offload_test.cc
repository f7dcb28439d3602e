// RX checksum offload (issue 73; Port::checks_ipv4_checksums, Pipeline):
// on a port whose PMD checks received IPv4 header checksums (net_tap here,
// as most NICs), the NIC core takes the port's verdict instead of summing
// each header again. A nanopu echo server on net_tap, its TAP's kernel end
// in the server's namespace, where python3 writes three one-packet NDP
// requests onto it as raw frames: one whose IPv4 checksum is wrong, one
// right, one 0 (nanopu's "not computed", accepted either way). The right
// and the zero one are answered; the wrong one is not, and is counted as a
// bad checksum; and the port, not the NIC core, checked all three.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)
#include "tests/support/netns.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"

using nanopu::testing::Netns;
using nanopu::testing::netns_unavailable;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

// argv[1]: the TAP's kernel interface. NDP DATA requests (docs/wire.md:
// 30-byte header, the prototype's fields only) from 10.77.0.2 context 7 to
// the echo's context 1 at 10.77.0.1, each its own message id; the wrong
// one sent once, the others until answered; prints each reply's payload.
const char* kNdpClient = R"(import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
mac = s.getsockname()[4]
def frame(msg_id, payload, checksum):
    ndp = struct.pack('!BHHHBHHHBHHIBHHH', 0x01, 7, 1, len(payload), 0, 0, msg_id, msg_id, 0, 0, 0, 0, 0, 0, 0, 0)
    ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(ndp) + len(payload), 0, 0, 64, 0x99, 0,
                               socket.inet_aton('10.77.0.2'), socket.inet_aton('10.77.0.1')))
    csum = sum(struct.unpack('!10H', ip))
    while csum >> 16:
        csum = (csum & 0xffff) + (csum >> 16)
    value = {'right': ~csum & 0xffff, 'wrong': (~csum + 1) & 0xffff, 'zero': 0}[checksum]
    ip[10:12] = struct.pack('!H', value)
    return bytes.fromhex('02000a4d0001') + mac + b'\x08\x00' + bytes(ip) + ndp + payload
s.send(frame(1, b'wrong', 'wrong'))
want = {b'right': frame(2, b'right', 'right'), b'zero': frame(3, b'zero', 'zero')}
got = set()
end = time.time() + 20
while time.time() < end and (len(got) < 2 or time.time() < settle):
    for p, f in want.items():
        if p not in got:
            s.send(f)
    try:
        while True:
            d = s.recv(2048)
            if len(d) >= 64 and d[12:14] == b'\x08\x00' and d[23] == 0x99 and d[26:30] == socket.inet_aton('10.77.0.1') and d[34] & 0x01:
                n = struct.unpack('!H', d[39:41])[0]
                p = d[64:64 + n]
                if p not in got:
                    print('reply', p.decode(), flush=True)
                got.add(p)
                settle = time.time() + 0.5
    except socket.timeout:
        pass
sys.exit(0 if got == {b'right', b'zero'} else 1)
)";

TEST(ChecksumOffloadTest, ThePortsVerdictOnEachIpv4ChecksumStandsAndAWrongOneIsDropped) {
  if (const std::string why = netns_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(std::system("command -v python3 >/dev/null 2>&1"), 0) << "deploy/setup.sh installs python3";
  const std::string dir = ::testing::TempDir() + "nanopu-csum-" + std::to_string(getpid());
  mkdir(dir.c_str(), 0755);
  Netns srv("npk" + std::to_string(getpid() % 100000));
  ASSERT_TRUE(srv.ok());
  const std::string tap = "npk" + std::to_string(getpid() % 100000);
  const std::string lcore = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  const pid_t server = spawn(
      srv.exec({NANOPU_SERVER_BIN, "--lcores=" + lcore, "--huge=off", "--poll=adaptive",
                "--vdev=net_tap0,iface=" + tap + ",mac=02:00:0a:4d:00:01", "--ip=10.77.0.1", "--app=echo",
                "--context=1"}),
      dir + "/server.log");
  ASSERT_GT(server, 0);
  ASSERT_TRUE(wait_for_line(dir + "/server.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir + "/server.log");
  ASSERT_TRUE(srv.set_link(tap, true));
  ASSERT_TRUE(nanopu::testing::write_file(dir + "/ndp_client.py", kNdpClient));
  EXPECT_EQ(srv.shell("python3 " + dir + "/ndp_client.py " + tap + " >" + dir + "/client.log 2>&1"), 0)
      << read_file(dir + "/client.log") << read_file(dir + "/server.log");
  const std::string client = read_file(dir + "/client.log");
  EXPECT_NE(client.find("reply right"), std::string::npos) << client;
  EXPECT_NE(client.find("reply zero"), std::string::npos) << client;
  EXPECT_EQ(client.find("reply wrong"), std::string::npos) << client;
  kill(server, SIGINT);
  EXPECT_EQ(wait_for(server, std::chrono::seconds(30)), 0) << read_file(dir + "/server.log");
  const std::string log = read_file(dir + "/server.log");
  EXPECT_EQ(nanopu::testing::log_counter(log, "nic.rx_drop_bad_checksum"), 1) << log;
  // Three requests, the right and the zero one resent until answered: the
  // port checked at least those (the unit tests show its verdict standing).
  EXPECT_GE(nanopu::testing::log_counter(log, "nic.rx_checksum_by_port"), 3)
      << "the port checked them, not the NIC core: " << log;
  nanopu::testing::remove_if_passed(dir);
}

}  // namespace
