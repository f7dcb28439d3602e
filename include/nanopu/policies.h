// The policies a host is configured with: how the NIC picks a core for a
// message, and how each worker core schedules its threads. Enums in code;
// the names are what flags and reports use.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nanopu {

// nanoPU (OSDI'21) §2.3, §3.2: among the cores whose threads bind a message's
// context, JBSQ(n) picks the one holding the fewest of its messages (< n);
// RSS hashes the message's source; static always takes the first core;
// random draws a core for each message (the "random core assignment" JBSQ
// is compared with in nanoPU OSDI'21 §5.2.3: RSS over many sources, even
// when one client sends every request).
enum class CoreSelectPolicy : uint8_t { kJbsq, kRss, kStatic, kRandom };

// nanoPU (OSDI'21) §2.2 and §5.2.2: the hardware thread scheduler (HTS), or
// the timer-interrupt scheduler (TIS) baseline it is compared with.
enum class SchedMode : uint8_t { kHts, kTis };

// A priority-0 thread that runs past t0 on one message is demoted to
// priority 1 (nanoPU (OSDI'21) §2.2, §2.4). The papers leave open whether it
// gets priority 0 back for its next message. kPermanent (the default): it
// stays demoted, so a thread whose every message overruns cannot delay
// well-behaved priority-0 threads by up to t0 again and again (the tail-
// latency version §4: the misbehaving application "quickly becomes
// strictly" lower). kUntilDone: msg_done restores priority 0.
enum class DemotionMode : uint8_t { kPermanent, kUntilDone };

// How the NIC core, the worker cores and nanopu-switch wait for work
// (docs/design.md §9). kBusy: poll without pause (a core per poller, lowest
// latency; benchmarks). kAdaptive: poll for a bounded spin, then sleep until
// the next packet (the port's RX interrupt where the PMD has one, else short
// timed sleeps) or the next message, giving the CPU back.
enum class PollMode : uint8_t { kBusy, kAdaptive };

// 2 MiB hugepages for DPDK's memory: use them when reserved and mounted
// (auto), require them (on), or never (off: the EAL runs with --no-huge).
enum class HugePages : uint8_t { kAuto, kOn, kOff };

// Whether each lcore's thread is pinned to its CPU. kOn: DPDK's way, and
// the default: measured beside a CPU hog, an unpinned pair of hosts ran 25x
// slower than a pinned one (docs/design.md §9). kOff: the kernel may run it on
// any online CPU and move it, right where more busy processes than CPUs
// take turns: pinned there, a host can wait seconds behind a neighbour it
// cannot leave (docs/design.md §9).
enum class Pinning : uint8_t { kOn, kOff };

// What carries a host's frames (docs/design.md, "Backends"). kDpdk: a DPDK
// port (a real NIC or a virtual PMD). kUring: a kernel UDP socket driven by
// io_uring, the nanoPU transport header in the UDP payload (docs/wire.md,
// "UDP encapsulation"): no NIC, no hugepage, no device probed.
enum class Backend : uint8_t { kDpdk, kUring };

// Which transport a host's own messages use (docs/design.md §2,
// "Transports"). Every host receives both, by IPv4 protocol number, and
// answers a peer in the protocol that peer last spoke.
enum class TransportProtocol : uint8_t { kNdp, kHoma };

[[nodiscard]] std::optional<CoreSelectPolicy> parse_core_select_policy(std::string_view name);
[[nodiscard]] std::string_view core_select_policy_name(CoreSelectPolicy p);
[[nodiscard]] std::optional<SchedMode> parse_sched_mode(std::string_view name);
[[nodiscard]] std::string_view sched_mode_name(SchedMode m);
[[nodiscard]] std::optional<DemotionMode> parse_demotion_mode(std::string_view name);
[[nodiscard]] std::string_view demotion_mode_name(DemotionMode m);
[[nodiscard]] std::optional<PollMode> parse_poll_mode(std::string_view name);
[[nodiscard]] std::string_view poll_mode_name(PollMode m);
[[nodiscard]] std::optional<HugePages> parse_huge_pages(std::string_view name);
[[nodiscard]] std::string_view huge_pages_name(HugePages h);
[[nodiscard]] std::optional<Pinning> parse_pinning(std::string_view name);
[[nodiscard]] std::string_view pinning_name(Pinning p);
[[nodiscard]] std::optional<Backend> parse_backend(std::string_view name);
[[nodiscard]] std::string_view backend_name(Backend b);
[[nodiscard]] std::optional<TransportProtocol> parse_transport_protocol(std::string_view name);
[[nodiscard]] std::string_view transport_protocol_name(TransportProtocol t);

}  // namespace nanopu
