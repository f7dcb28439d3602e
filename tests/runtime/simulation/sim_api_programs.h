// The programs tests/runtime/simulation/sim_api_test.cc and
// sim_faults_api_test.cc run on the modelled clock, written as an author
// writes them (the public API only): a register server and its client, a
// client whose history hook throws, a ledger kept in a DurableFile, a
// ticker of 1 ms timeouts, a program that refuses its flags.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "nanopu/buggify.h"
#include "nanopu/durable_file.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/probe.h"
#include "nanopu/program.h"
#include "nanopu/rpc.h"
#include "nanopu/sim.h"

namespace nanopu {
namespace {

constexpr uint16_t kServerContext = 1;

// A register per key: w0 = 1 write (w1 key, w2 value) or 2 read (w1 key);
// a reply of one word: the value (0: never written). `cycles`: each call's
// work beside (the slow server's 2 us).
class RegisterServer final : public Program {
 public:
  explicit RegisterServer(uint64_t cycles = 0) : cycles_(cycles) {}
  absl::Status spawn(Runtime& rt) override {
    return rt.spawn([this](Thread& t) {
               (void)rpc::serve_calls(t, kServerContext, 0, [this, &t](rpc::ServerCall& c) {
                 if (cycles_ != 0) t.compute(cycles_);
                 if (buggify()) t.compute(3200);  // a slow step, sometimes (1 us of the nanoPU's core)
                 uint64_t w[3] = {};
                 (void)c.read_words(std::span<uint64_t>(w, c.request_words() < 3 ? c.request_words() : 3));
                 if (w[0] == 1) values_[w[1]] = w[2];
                 if (w[0] == 1 && values_.size() == 2) probe("reg.second_key_written");
                 (void)c.reply(8);
                 (void)c.write(w[0] == 1 ? w[2] : values_[w[1]]);
               });
             })
        .status();
  }

 private:
  uint64_t cycles_;
  std::map<uint64_t, uint64_t> values_;
};

// Appends 8 bytes a call to a DurableFile in its state directory, synced
// or not, and answers; reads back what survived when (re)started.
class LedgerServer final : public Program {
 public:
  LedgerServer(const std::string& state_dir, bool sync) : sync_(sync) {
    std::string bytes;
    absl::StatusOr<std::unique_ptr<DurableFile>> f = DurableFile::open(state_dir + "/ledger", &bytes);
    if (f.ok()) file_ = std::move(*f);
    recovered_ = bytes.size();
  }
  absl::Status spawn(Runtime& rt) override {
    if (file_ == nullptr) return absl::FailedPreconditionError("no ledger file");
    return rt.spawn([this](Thread& t) {
               (void)rpc::serve_calls(t, kServerContext, 0, [this](rpc::ServerCall& c) {
                 const uint64_t entry = 0x0102030405060708ull;
                 if (!file_->append(&entry, 8).ok() || (sync_ && !file_->sync().ok())) return;
                 (void)c.reply(8);
                 (void)c.write(entry);
               });
             })
        .status();
  }
  uint64_t recovered() const { return recovered_; }

 private:
  bool sync_;
  std::unique_ptr<DurableFile> file_;
  uint64_t recovered_ = 0;
};

// Counts its thread's 1 ms timeouts (Thread::wait_for) while the run lasts.
class Ticker final : public Program {
 public:
  absl::Status spawn(Runtime& rt) override {
    return rt.spawn([this](Thread& t) {
               while (!t.wait_for(std::chrono::milliseconds(1)) && !t.stopping()) ++ticks_;
             })
        .status();
  }
  uint64_t ticks() const { return ticks_; }

 private:
  uint64_t ticks_ = 0;
};

class RegisterLoad final : public loadgen::CallLoad {
 public:
  RegisterLoad(Thread& t, const loadgen::Options& o, loadgen::Result* r, bool hook_throws = false)
      : CallLoad(t, o, r), rng_(o.seed), hook_throws_(hook_throws) {}

 private:
  uint32_t request(uint64_t seq, std::vector<uint64_t>* words) override {
    const uint64_t key = rng_() % 2;
    if (rng_() % 2) words->assign({1, key, (o_seed() << 32) | (seq + 1)});
    else words->assign({2, key});
    return static_cast<uint32_t>(words->size() * 8);
  }
  bool check(uint64_t, std::span<const uint64_t> reply, uint32_t bytes) override { return bytes == 8 && reply.size() == 1; }
  rpc::CallRecorder recorder() override {
    rpc::CallRecorder r;
    r.invoke = [this](std::span<const uint64_t> w, uint32_t) {
      if (hook_throws_ && ++recorded_ == 5) throw std::runtime_error("the fifth call is too much");
      const auto key = static_cast<int64_t>(w[1]);
      return w[0] == 1 ? HistoryOp{"write", key, HistoryValue::of(static_cast<int64_t>(w[2]))}
                       : HistoryOp{"read", key, HistoryValue::null()};
    };
    r.ok = [](const HistoryOp& op, std::span<const uint64_t> reply, uint32_t) {
      if (op.f == "write") return HistoryOutcome{HistoryType::kOk, op.value};
      return HistoryOutcome{HistoryType::kOk, reply[0] == 0 ? HistoryValue::null()
                                                             : HistoryValue::of(static_cast<int64_t>(reply[0]))};
    };
    return r;
  }
  uint64_t o_seed() const { return opts_.seed & 0xffff; }
  std::mt19937_64 rng_;
  bool hook_throws_;
  int recorded_ = 0;
};

Programs programs() {
  Programs p;
  ProgramSpec server;
  server.name = "reg-server";
  server.help = "a register per key";
  server.has_flag = [](std::string_view) { return false; };
  server.make = [](const ProgramArgs&) -> absl::StatusOr<std::unique_ptr<Program>> {
    return std::make_unique<RegisterServer>();
  };
  EXPECT_TRUE(p.add(std::move(server)).ok());
  ProgramSpec slow;
  slow.name = "slow-server";
  slow.help = "a register per key, 2 us a call";
  slow.make = [](const ProgramArgs&) -> absl::StatusOr<std::unique_ptr<Program>> {
    return std::make_unique<RegisterServer>(6400);  // 2 us at the nanoPU's 3.2 GHz
  };
  EXPECT_TRUE(p.add(std::move(slow)).ok());
  loadgen::ClientProgram client;
  client.name = "reg-client";
  client.make_load = [](Thread& t, const loadgen::Options& o, loadgen::Result* r) {
    return std::make_unique<RegisterLoad>(t, o, r);
  };
  EXPECT_TRUE(p.add(loadgen::client_program(client)).ok());
  client.name = "thrower";  // its history hook throws on its fifth call
  client.make_load = [](Thread& t, const loadgen::Options& o, loadgen::Result* r) {
    return std::make_unique<RegisterLoad>(t, o, r, true);
  };
  EXPECT_TRUE(p.add(loadgen::client_program(client)).ok());
  for (const bool sync : {false, true}) {
    ProgramSpec ledger;
    ledger.name = sync ? "synced-ledger" : "ledger";
    ledger.make = [sync](const ProgramArgs& a) -> absl::StatusOr<std::unique_ptr<Program>> {
      return std::make_unique<LedgerServer>(a.state_dir, sync);
    };
    EXPECT_TRUE(p.add(std::move(ledger)).ok());
  }
  ProgramSpec ticker;
  ticker.name = "ticker";
  ticker.make = [](const ProgramArgs&) -> absl::StatusOr<std::unique_ptr<Program>> { return std::make_unique<Ticker>(); };
  EXPECT_TRUE(p.add(std::move(ticker)).ok());
  ProgramSpec refuses;
  refuses.name = "refuses";
  refuses.make = [](const ProgramArgs&) -> absl::StatusOr<std::unique_ptr<Program>> {
    return absl::InvalidArgumentError("--whatever: not today");
  };
  EXPECT_TRUE(p.add(std::move(refuses)).ok());
  ProgramSpec named_sim;
  named_sim.name = "sim";
  EXPECT_FALSE(p.add(std::move(named_sim)).ok()) << "a command's name";
  return p;
}

std::string write_topology(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/nanopu-sim-api-" + std::to_string(getpid()) + "-" + name + ".topo";
  std::ofstream(path) << text;
  return path;
}

const std::string kTopology =
    "switch sw\n"
    "host srv 10.0.0.1 02:00:00:00:00:01 reg-server\n"
    "host c1 10.0.0.2 02:00:00:00:00:02 reg-client --rate=200000 --max_in_flight=3 --count=300\n"
    "host c2 10.0.0.3 02:00:00:00:00:03 reg-client --rate=200000 --max_in_flight=3 --count=300\n"
    "link srv sw\nlink c1 sw\nlink c2 sw\n";

sim::Options quiet(uint64_t seed) {
  sim::Options o;
  o.seed = seed;
  o.progress = false;
  return o;
}

}  // namespace
}  // namespace nanopu
