#include "tools/simulator/builtin_programs.h"

#include <string_view>

#include "absl/flags/reflection.h"
#include "apps/server/server_program.h"
#include "runtime/client_main/load_flags.h"
#include "runtime/program/host_flags.h"
#include "tools/loadgen/loadgen_program.h"
#include "tools/simulator/workload_program.h"

namespace nanopu::sim {
namespace {

// A flag by name, as the program's own binary has it: nanopu-server has
// apps/'s; nanopu-loadgen the load flags, its services' and the flags a
// service's server and client share (apps/server/service_flags).
bool defined_in(std::string_view name, bool server) {
  const absl::CommandLineFlag* f = absl::FindCommandLineFlag(absl::string_view(name.data(), name.size()));
  if (f == nullptr) return false;
  if (server) return program::flag_defined_in(*f, {"apps", "*", "*"});
  return program::flag_defined_in(*f, {"runtime", "client_main", "*"}) ||
         program::flag_defined_in(*f, {"tools", "loadgen", "*"}) ||
         program::flag_defined_in(*f, {"tools", "loadgen", "cli", "*"}) ||
         program::flag_defined_in(*f, {"apps", "server", "service_flags"});
}

Programs make() {
  Programs p;
  ProgramSpec server;
  server.name = "server";
  server.help = "nanopu-server: a service of apps/ (--app)";
  server.has_flag = [](std::string_view f) { return defined_in(f, true); };
  server.make = [](const ProgramArgs& a) { return apps::make_server_program(a.config); };
  (void)p.add(std::move(server));
  ProgramSpec loadgen;
  loadgen.name = "loadgen";
  loadgen.help = "nanopu-loadgen: load on a service (--service), every reply checked";
  loadgen.client = true;
  loadgen.has_flag = [](std::string_view f) { return defined_in(f, false); };
  loadgen.defaults = loadgen::set_client_defaults;
  loadgen.make = [](const ProgramArgs& a) { return apps::make_loadgen_program(a.config, a.history); };
  (void)p.add(std::move(loadgen));
  (void)p.add(workload_program());
  return p;
}

}  // namespace

const Programs& builtin_programs() {
  static const Programs programs = make();
  return programs;
}

}  // namespace nanopu::sim
