#include "nic/pipeline/swx_program.h"

#include <rte_errno.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>
#include <rte_swx_port_ring.h>  // the ring ports' parameters

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "lib/wire/big_endian.h"
#include "nic/pipeline/swx_spec.h"

namespace nanopu {
namespace {

constexpr unsigned kRingSize = 256;  // > kMaxBurst: a burst always fits
// Instructions run at a time while frames are in flight: a frame takes a
// few tens through a small program, and a step longer than the burst needs
// idles on an empty input (measured, nanopu.spec, 32 frames: 64 a step
// 3.35 us a burst, 256 5.15, 1024 7.95).
constexpr uint32_t kInstructionsPerStep = 64;
// Every frame leaves by some port (`drop` is the last one). Steps without
// one past this many are a program that never sends (a loop).
constexpr unsigned kStuckSteps = 1024;

// An entry rte_swx_ctl_pipeline_table_entry_read made (malloc'd, as DPDK's
// examples/pipeline frees it: no public call in 22.11); the table keeps a copy.
void free_entry(rte_swx_table_entry* e) {
  std::free(e->key);
  std::free(e->key_mask);
  std::free(e->action_data);
  std::free(e);
}

// Whether the spec declares the header nanopu_meta, which it must read as
// HopValues' bytes (its struct exactly) and take off every frame: the
// apply block begins `rx`, then, after moves into the metadata alone,
// `extract h.nanopu_meta`, and nothing emits it (else the hop's values would leave with a frame, to
// the fast path as a frame that is not IPv4, or onto the wire). An error
// names the line.
absl::StatusOr<bool> reads_hop_values(const SwxSpec& spec) {
  for (const SwxSpec::Instance& h : spec.headers) {
    if (h.name != "nanopu_meta") continue;
    bool exact = false;
    for (const SwxSpec::Struct& st : spec.structs)
      exact |= st.name == h.struct_name && st.fields.size() == 3 && st.fields[0].name == "time_ns" &&
               st.fields[0].bits == 64 && st.fields[1].name == "queue_depth" && st.fields[1].bits == 32 &&
               st.fields[2].name == "reserved" && st.fields[2].bits == 32;
    if (!exact)
      return absl::InvalidArgumentError(absl::StrCat(
          spec.file, ":", h.line,
          ": header nanopu_meta (the hop's values nanopu puts before each frame) must be an instance "
          "of a struct { bit<64> time_ns bit<32> queue_depth bit<32> reserved }"));
    // Before the extract, only `rx` and moves into the metadata: nothing
    // that sends, jumps, is a jump's target, or parses another header.
    size_t k = 0;
    while (k < spec.apply.size() &&
           (spec.apply[k].rfind("rx ", 0) == 0 || spec.apply[k].rfind("mov m.", 0) == 0))
      ++k;
    const bool first = k > 0 && spec.apply[0].rfind("rx ", 0) == 0 && k < spec.apply.size() &&
                       spec.apply[k] == "extract h.nanopu_meta";
    bool emitted = false;
    for (const std::string& i : spec.apply) emitted |= i.find("emit h.nanopu_meta") != std::string::npos;
    for (const SwxSpec::Action& a : spec.actions)
      for (const std::string& i : a.instructions) emitted |= i.find("emit h.nanopu_meta") != std::string::npos;
    if (!first || emitted)
      return absl::InvalidArgumentError(absl::StrCat(
          spec.file, ":", spec.apply_line,
          ": a program that declares nanopu_meta takes it off every frame: its apply block begins "
          "`rx ...`, then (after moves into the metadata alone) `extract h.nanopu_meta`, and "
          "nothing emits it"));
    return true;
  }
  return false;
}

absl::Status dpdk(int rc, const std::string& what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", rte_strerror(rc < 0 ? -rc : rc)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<SwxProgram>> SwxProgram::load(const std::string& text,
                                                             const std::string& file,
                                                             uint32_t outputs,
                                                             const std::string& name) {
  std::unique_ptr<SwxProgram> prog(new SwxProgram);
  if (absl::Status s = prog->build(text, file, outputs, name); !s.ok()) return s;
  return prog;
}

absl::Status SwxProgram::build(const std::string& text, const std::string& file, uint32_t outputs,
                               const std::string& name) {
  absl::StatusOr<SwxSpec> spec = read_swx_spec(text, file);
  if (!spec.ok()) return spec.status();
  if (outputs == 0) return absl::InvalidArgumentError("a program needs an output port");
  absl::StatusOr<bool> hop = reads_hop_values(*spec);
  if (!hop.ok()) return hop.status();
  reads_hop_ = *hop;
  const unsigned flags = RING_F_SP_ENQ | RING_F_SC_DEQ;
  in_ = rte_ring_create((name + "i").c_str(), kRingSize, SOCKET_ID_ANY, flags);
  if (in_ == nullptr) return dpdk(rte_errno, "rte_ring_create(" + name + "i)");
  for (uint32_t i = 0; i < outputs; ++i) {
    rte_ring* r =
        rte_ring_create(absl::StrCat(name, "o", i).c_str(), kRingSize, SOCKET_ID_ANY, flags);
    if (r == nullptr) return dpdk(rte_errno, absl::StrCat("rte_ring_create(", name, "o", i, ")"));
    out_.push_back(r);
  }
  if (absl::Status s = dpdk(rte_swx_pipeline_config(&p_, name.c_str(), SOCKET_ID_ANY),
                            "rte_swx_pipeline_config");
      !s.ok())
    return s;
  // rte_swx_pipeline_config registers the port types ("ring" among them)
  // and the table types ("exact", "wildcard").
  const std::string in_name = name + "i";
  rte_swx_port_ring_reader_params in{in_name.c_str(), kMaxBurst};
  if (absl::Status s = dpdk(rte_swx_pipeline_port_in_config(p_, 0, "ring", &in), "input port");
      !s.ok())
    return s;
  for (uint32_t i = 0; i < outputs; ++i) {
    const std::string out_name = absl::StrCat(name, "o", i);
    rte_swx_port_ring_writer_params out{out_name.c_str(), kMaxBurst};
    if (absl::Status s = dpdk(rte_swx_pipeline_port_out_config(p_, i, "ring", &out), "output port");
        !s.ok())
      return s;
  }
  if (absl::Status s = configure_swx(*spec, p_); !s.ok()) return s;
  for (const SwxSpec::Instance& h : spec->headers)
    for (const SwxSpec::Struct& st : spec->structs)
      if (st.name == h.struct_name)
        for (const SwxSpec::Field& f : st.fields) header_bytes_ += f.bits / 8;
  if (int rc = rte_swx_pipeline_build(p_); rc != 0)
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": DPDK could not build the pipeline (", rte_strerror(-rc), ")"));
  ctl_ = rte_swx_ctl_pipeline_create(p_);
  if (ctl_ == nullptr) return absl::InternalError("rte_swx_ctl_pipeline_create failed");
  return absl::OkStatus();
}

SwxProgram::~SwxProgram() {
  if (ctl_ != nullptr) rte_swx_ctl_pipeline_free(ctl_);
  if (p_ != nullptr) rte_swx_pipeline_free(p_);
  const auto drain_and_free = [](rte_ring* r) {
    rte_mbuf* m = nullptr;
    while (rte_ring_dequeue(r, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    rte_ring_free(r);
  };
  for (rte_ring* r : out_) drain_and_free(r);
  if (in_ != nullptr) drain_and_free(in_);
}

SwxProgram::RunResult SwxProgram::run(rte_mbuf** frames, uint16_t n,
                                      std::vector<std::vector<rte_mbuf*>>* out,
                                      const HopValues& hop) {
  std::lock_guard<std::mutex> lock(mu_);  // uncontended but for a commit
  RunResult r;
  if (reads_hop_) n = put_hop_values(frames, n, hop, &r);
  out->resize(out_.size());
  for (std::vector<rte_mbuf*>& o : *out) o.clear();
  const unsigned in = rte_ring_enqueue_burst(in_, reinterpret_cast<void**>(frames), n, nullptr);
  for (unsigned i = in; i < n; ++i) {  // the ring full of frames a looping program holds
    rte_pktmbuf_free(frames[i]);
    ++r.dropped;
  }
  unsigned left = in, idle_steps = 0;
  rte_mbuf* got[kMaxBurst];
  // Until every frame left by some port (or the program is stuck).
  while (left != 0 && idle_steps < kStuckSteps) {
    rte_swx_pipeline_run(p_, kInstructionsPerStep);
    rte_swx_pipeline_flush(p_);
    unsigned taken = 0;
    for (size_t i = 0; i < out_.size(); ++i) {
      const unsigned k =
          rte_ring_dequeue_burst(out_[i], reinterpret_cast<void**>(got), kMaxBurst, nullptr);
      for (unsigned j = 0; j < k; ++j) {
        const rte_mbuf* m = got[j];
        if (uint32_t{m->data_off} + m->data_len > m->buf_len || m->pkt_len < m->data_len ||
            (m->nb_segs == 1 && m->pkt_len != m->data_len)) [[unlikely]] {
          rte_pktmbuf_free(got[j]);
          ++r.dropped;
        } else {
          (*out)[i].push_back(got[j]);
        }
      }
      taken += k;
    }
    left -= std::min(left, taken);
    idle_steps = taken == 0 ? idle_steps + 1 : 0;
  }
  r.stuck = static_cast<uint16_t>(left);
  return r;
}

uint16_t SwxProgram::put_hop_values(rte_mbuf** frames, uint16_t n, const HopValues& hop,
                                    RunResult* r) {
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; ++i) {
    auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(frames[i], kHopValueBytes));
    if (p == nullptr) [[unlikely]] {  // no headroom: never a frame the program misreads
      rte_pktmbuf_free(frames[i]);
      ++r->dropped;
      continue;
    }
    wire::be::put32(p, static_cast<uint32_t>(hop.time_ns >> 32));
    wire::be::put32(p + 4, static_cast<uint32_t>(hop.time_ns));
    wire::be::put32(p + 8, hop.queue_depth);
    wire::be::put32(p + 12, 0);
    frames[kept++] = frames[i];
  }
  return kept;
}

absl::Status SwxProgram::add_entry(const std::string& table, const std::string& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  int blank = 0;
  rte_swx_table_entry* e =
      rte_swx_ctl_pipeline_table_entry_read(ctl_, table.c_str(), entry.c_str(), &blank);
  if (e == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("table ", table, ": entry '", entry,
                     "' does not read (no such table, a field, action or argument "
                     "wrong)"));
  const int rc = rte_swx_ctl_pipeline_table_entry_add(ctl_, table.c_str(), e);
  free_entry(e);
  if (rc != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("table ", table, ": entry '", entry, "': ", rte_strerror(-rc)));
  return dpdk(rte_swx_ctl_pipeline_commit(ctl_, 1), "table " + table + ": commit");
}

std::vector<std::string> SwxProgram::table_counts() const {
  std::vector<std::string> lines;
  rte_swx_ctl_pipeline_info info{};
  if (rte_swx_ctl_pipeline_info_get(p_, &info) != 0) return lines;
  std::vector<uint64_t> per_action(info.n_actions);
  std::vector<std::string> action_names(info.n_actions);
  for (uint32_t a = 0; a < info.n_actions; ++a) {
    rte_swx_ctl_action_info ai{};
    if (rte_swx_ctl_action_info_get(p_, a, &ai) == 0) action_names[a] = ai.name;
  }
  for (uint32_t t = 0; t < info.n_tables; ++t) {
    rte_swx_ctl_table_info ti{};
    if (rte_swx_ctl_table_info_get(p_, t, &ti) != 0) continue;
    rte_swx_table_stats st{0, 0, per_action.data()};
    std::fill(per_action.begin(), per_action.end(), 0);
    if (rte_swx_ctl_pipeline_table_stats_read(p_, ti.name, &st) != 0) continue;
    std::string line =
        absl::StrCat(ti.name, ": hit ", st.n_pkts_hit, " miss ", st.n_pkts_miss, ";");
    for (uint32_t a = 0; a < info.n_actions; ++a)
      if (per_action[a] != 0) absl::StrAppend(&line, " ", action_names[a], " ", per_action[a]);
    lines.push_back(line);
  }
  for (uint32_t a = 0; a < info.n_regarrays; ++a) {
    rte_swx_ctl_regarray_info ri{};
    if (rte_swx_ctl_regarray_info_get(p_, a, &ri) != 0) continue;
    std::string line = absl::StrCat("regarray ", ri.name, ":");
    for (uint32_t k = 0; k < std::min<uint32_t>(ri.size, 8); ++k) {
      uint64_t v = 0;
      if (rte_swx_ctl_pipeline_regarray_read(p_, ri.name, k, &v) == 0) absl::StrAppend(&line, " ", v);
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace nanopu
