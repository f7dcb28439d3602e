#include "runtime/host/telemetry.h"

#include <rte_telemetry.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "nanopu/address.h"
#include "nanopu/runtime.h"
#include "nanopu/thread.h"
#include "runtime/host/pipeline_programs.h"

namespace nanopu {
namespace {

// The telemetry thread reads while the host's cores write: each counter is
// one aligned 64-bit word written by one core, so a read sees an old or a
// new value, never a torn one. The mutex keeps a host from going away
// under a reader.
std::mutex g_mu;
std::vector<Runtime*> g_hosts;  // the pipeline command changes a host's tables
bool g_registered = false;

Runtime* first_host() { return g_hosts.empty() ? nullptr : g_hosts.front(); }

template <typename Counters>
void add_counters(rte_tel_data* d, const Counters& c) {
  c.for_each([&](std::string_view name, uint64_t v) {
    const std::string key(name);
    rte_tel_data_add_dict_u64(d, key.c_str(), v);
  });
}

// The one numeric parameter of /nanopu/core and /nanopu/thread.
bool numeric_param(const char* params, uint32_t* out) {
  return params != nullptr && absl::SimpleAtoi(params, out);
}

int on_info(const char*, const char*, rte_tel_data* d) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Runtime* h = first_host();
  if (h == nullptr) return -1;
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, "ip", format_ipv4(h->config().ip).c_str());
  rte_tel_data_add_dict_u64(d, "port", h->port_id());
  rte_tel_data_add_dict_u64(d, "worker_cores", h->worker_count());
  rte_tel_data_add_dict_u64(d, "threads", h->threads().size());
  rte_tel_data_add_dict_u64(d, "hosts_in_process", g_hosts.size());
  return 0;
}

int on_nic(const char*, const char*, rte_tel_data* d) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Runtime* h = first_host();
  if (h == nullptr) return -1;
  rte_tel_data_start_dict(d);
  add_counters(d, h->nic_counters());
  return 0;
}

int on_core(const char*, const char* params, rte_tel_data* d) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Runtime* h = first_host();
  uint32_t core = 0;
  if (h == nullptr || !numeric_param(params, &core) || core >= h->worker_count()) return -1;
  rte_tel_data_start_dict(d);
  add_counters(d, h->core_counters(core));
  return 0;
}

int on_thread(const char*, const char* params, rte_tel_data* d) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Runtime* h = first_host();
  uint32_t id = 0;
  if (h == nullptr || !numeric_param(params, &id)) return -1;
  for (const Thread* t : h->threads()) {
    if (t->id() != id) continue;
    rte_tel_data_start_dict(d);
    add_counters(d, t->counters());
    return 0;
  }
  return -1;
}

// The --pipeline and --egress_pipeline programs' tables: per table,
// DPDK's hit, miss and per-action counts; per register array
// ("regarray NAME"), its first registers (int_sink.spec's hop records).
int on_pipeline(const char*, const char*, rte_tel_data* d) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Runtime* h = first_host();
  if (h == nullptr) return -1;
  rte_tel_data_start_dict(d);
  for (const std::string& line : h->pipeline_table_counts()) {
    const size_t colon = line.find(':');
    rte_tel_data_add_dict_string(d, line.substr(0, colon).c_str(), line.substr(colon + 2).c_str());
  }
  return 0;
}

// Parameter "TABLE ENTRY": added to every NIC core's program (the ingress
// one, or with egress the egress one), effective on the next frame; the
// answer says "added" or why not.
int add_entry(const char* params, rte_tel_data* d, bool egress) {
  std::lock_guard<std::mutex> lock(g_mu);
  Runtime* h = first_host();
  if (h == nullptr || params == nullptr) return -1;
  const std::string p(params);
  std::string table, entry;
  absl::Status s = absl::InvalidArgumentError("expected TABLE ENTRY");
  if (split_entry_line(p, &table, &entry))
    s = egress ? h->add_egress_entry(table, entry) : h->add_pipeline_entry(table, entry);
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, s.ok() ? "added" : "error", s.ok() ? p.c_str() : std::string(s.message()).c_str());
  return 0;
}

int on_pipeline_add(const char*, const char* params, rte_tel_data* d) { return add_entry(params, d, false); }
int on_egress_add(const char*, const char* params, rte_tel_data* d) { return add_entry(params, d, true); }

}  // namespace

void telemetry_expose(Runtime* host) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_registered) {
    // Fails only for a malformed name or after the EAL ran with
    // --no-telemetry; then there is simply nothing to read.
    (void)rte_telemetry_register_cmd("/nanopu/info", on_info,
                                     "The nanopu host: address, port, worker cores, threads.");
    (void)rte_telemetry_register_cmd("/nanopu/nic", on_nic, "Every NIC counter of the host.");
    (void)rte_telemetry_register_cmd("/nanopu/core", on_core,
                                     "A worker core's scheduler counters. Parameter: core index.");
    (void)rte_telemetry_register_cmd("/nanopu/thread", on_thread,
                                     "A thread's counters. Parameter: thread id.");
    (void)rte_telemetry_register_cmd("/nanopu/pipeline", on_pipeline,
                                     "The pipeline programs' tables: hits, misses, frames per action.");
    (void)rte_telemetry_register_cmd("/nanopu/pipeline_add", on_pipeline_add,
                                     "Adds an entry to a --pipeline program's table. Parameter: TABLE ENTRY.");
    (void)rte_telemetry_register_cmd("/nanopu/egress_add", on_egress_add,
                                     "Adds an entry to an --egress_pipeline program's table. Parameter: TABLE ENTRY.");
    g_registered = true;
  }
  if (std::find(g_hosts.begin(), g_hosts.end(), host) == g_hosts.end()) g_hosts.push_back(host);
}

void telemetry_withdraw(const Runtime* host) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_hosts.erase(std::remove(g_hosts.begin(), g_hosts.end(), host), g_hosts.end());
}

}  // namespace nanopu
