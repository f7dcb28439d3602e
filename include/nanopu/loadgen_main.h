// A client program for any service in a few lines (docs/services.md, "A
// client for your service"): nanopu's command line (nanopu/flags.h) plus
// the load flags every client shares — where the server is, open loop
// (--rate, Poisson) or closed loop (--outstanding), --count or --duration,
// --json for tools/plot_latency.py, the *modelled* column — then the run,
// the table and the exit status. nanopu-loadgen reads the same flags.
//
//   int main(int argc, char** argv) {
//     nanopu::loadgen::ClientProgram p;
//     p.name = "kv-client";
//     p.make_load = [](nanopu::Thread& t, const nanopu::loadgen::Options& o,
//                      nanopu::loadgen::Result* r) { return std::make_unique<KvLoad>(t, o, r); };
//     return nanopu::loadgen::client_main(argc, argv, p);
//   }
//
// The same client is a program (nanopu/program.h) with client_program():
// one binary then runs it live, or beside its server on the modelled clock
// (program_main, nanopu/program_main.h).
//
// Link nanopu::loadgen (find_package(nanopu)) or pkg-config nanopu-loadgen.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nanopu/loadgen.h"
#include "nanopu/program.h"
#include "nanopu/thread.h"

namespace nanopu::loadgen {

// One kind of request of the service's mix, for the modelled column when
// the run's replies cannot give it (docs/design.md §10): its share, its
// sizes, and the work the server does on it besides reading and writing
// words, as the nanoPU core at the model's clock would take it.
struct DeclaredKind {
  double share = 1;
  uint32_t request_bytes = 0;
  uint32_t reply_bytes = 0;
  double work_ns = 0;
};

struct ClientProgram {
  std::string name;   // the prefix of its lines ("kv-client")
  std::string usage;  // what --help says it does, before the flags
  // The client's load, made on its own thread once bound to Options::context.
  std::function<std::unique_ptr<Load>(Thread& t, const Options& o, Result* r)> make_load;
  // The server as the modelled column replays it: requests spread over
  // `server_cores` cores, by JBSQ (any core takes any request) or one
  // context per core. The column is built from this run's replies (their
  // server core time) when the server stamps it (every nanopu server does).
  uint32_t server_cores = 1;
  bool server_jbsq = false;
  std::string what;  // names the requests in the column's line ("key-value calls")
  // Otherwise (a server that does not stamp core time, --calibrate=false),
  // from these (asked after the flags are read); unset or empty: no
  // modelled column.
  std::function<std::vector<DeclaredKind>()> declared;
  // Optional: one line printed after the result; members added to the JSON
  // object (",\"name\":value,...").
  std::function<std::string()> summary;
  std::function<std::string()> json_members;
  // Optional: checks the program's own flags after parsing; returns the
  // error line naming the bad one, or "".
  std::function<std::string(const Config&, Options*)> configure;
  // Optional: a thread beside the load's, on the same host, until the host
  // stops (it returns when the runtime stops): rpc::serve_calls answering
  // the other hosts' loads, when every host is a client and a server (an
  // all-to-all workload). It binds a context of its own, not the load's.
  std::function<void(Thread&)> beside;
};

// Parses the command line, runs the load, prints the result (and writes
// --json); returns the exit status: 0 every request answered and right, 3
// some lost, given up or wrong, 2 a bad flag (one line naming it), 1 the
// runtime could not start.
int client_main(int argc, char** argv, const ClientProgram& program);

// The load flags, read and checked against `c` (after absl::ParseCommandLine
// and Config::from_flags), for a program with a main of its own.
[[nodiscard]] absl::StatusOr<Options> options_from_flags(const Config& c);

// The client as a program (nanopu/program.h, a client: its host's run ends
// when its load has): the load flags and `configure` read when it is made,
// its load on one thread bound to --context, its result, modelled column
// (live), summary and JSON at its report. Its name is ClientProgram::name.
[[nodiscard]] ProgramSpec client_program(ClientProgram p);
// The same with a ClientProgram made per host (a client's own state, read
// from its flags, captured in the ClientProgram's functions: several
// clients of one simulation share nothing); an error names a bad flag.
[[nodiscard]] ProgramSpec client_program(std::string name, std::string help,
                                         std::function<absl::StatusOr<ClientProgram>(const ProgramArgs&)> make_client);

}  // namespace nanopu::loadgen
