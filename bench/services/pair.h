// nanopu-bench-services: a server and the load generator as two processes
// over one net_memif pair, as README shows.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/services/rig.h"
#include "bench/services/service_benches.h"

namespace nanopu::bench {

// Two processes over one net_memif pair, as README shows: the server (NIC
// loop and workers) on CPU 1, the load generator on CPU 0, busy polling.
class Pair {
 public:
  Pair(const ServicesOptions& o, const std::string& tag, std::vector<std::string> server_args)
      : rig_(o.work, tag), o_(o) {
    sock_ = rig_.path("pair.sock");
    unlink(sock_.c_str());
    std::vector<std::string> args = {NANOPU_SERVER_BIN, "--lcores=1",
                                     "--vdev=net_memif0,role=server,socket=" + sock_};
    args.insert(args.end(), server_args.begin(), server_args.end());
    ok_ = rig_.start("server", args);
  }
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] std::vector<std::string> load(std::vector<std::string> extra) const {
    std::vector<std::string> a = {NANOPU_LOADGEN_BIN, "--lcores=0",
                                  "--vdev=net_memif0,role=client,socket=" + sock_, "--drain_timeout=5",
                                  absl::StrFormat("--duration=%g", o_.seconds)};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  Rig& rig() { return rig_; }

 private:
  Rig rig_;
  ServicesOptions o_;
  std::string sock_;
  bool ok_ = false;
};

}  // namespace nanopu::bench
