#include "nanopu/policies.h"

#include <utility>

namespace nanopu {
namespace {

// Each enum's names, listed once: parsing and printing read the same table,
// so a flag value and the name printed for it cannot drift apart.
template <typename E>
using Names = std::pair<E, std::string_view>;

constexpr Names<CoreSelectPolicy> kCoreSelectNames[] = {
    {CoreSelectPolicy::kJbsq, "jbsq"}, {CoreSelectPolicy::kRss, "rss"}, {CoreSelectPolicy::kStatic, "static"},
    {CoreSelectPolicy::kRandom, "random"}};
constexpr Names<SchedMode> kSchedModeNames[] = {{SchedMode::kHts, "hts"}, {SchedMode::kTis, "tis"}};
constexpr Names<DemotionMode> kDemotionNames[] = {{DemotionMode::kPermanent, "permanent"},
                                                  {DemotionMode::kUntilDone, "until_done"}};
constexpr Names<PollMode> kPollModeNames[] = {{PollMode::kBusy, "busy"}, {PollMode::kAdaptive, "adaptive"}};
constexpr Names<HugePages> kHugePagesNames[] = {
    {HugePages::kAuto, "auto"}, {HugePages::kOn, "on"}, {HugePages::kOff, "off"}};
constexpr Names<Pinning> kPinningNames[] = {{Pinning::kOn, "on"}, {Pinning::kOff, "off"}};
constexpr Names<Backend> kBackendNames[] = {{Backend::kDpdk, "dpdk"}, {Backend::kUring, "uring"}};
constexpr Names<TransportProtocol> kTransportNames[] = {{TransportProtocol::kNdp, "ndp"},
                                                        {TransportProtocol::kHoma, "homa"}};

template <typename E, size_t N>
std::optional<E> parse(const Names<E> (&table)[N], std::string_view name) {
  for (const auto& [value, n] : table)
    if (n == name) return value;
  return std::nullopt;
}

template <typename E, size_t N>
std::string_view name_of(const Names<E> (&table)[N], E e) {
  for (const auto& [value, n] : table)
    if (value == e) return n;
  return "?";
}

}  // namespace

std::optional<CoreSelectPolicy> parse_core_select_policy(std::string_view name) {
  return parse(kCoreSelectNames, name);
}
std::string_view core_select_policy_name(CoreSelectPolicy p) { return name_of(kCoreSelectNames, p); }

std::optional<SchedMode> parse_sched_mode(std::string_view name) { return parse(kSchedModeNames, name); }
std::string_view sched_mode_name(SchedMode m) { return name_of(kSchedModeNames, m); }

std::optional<DemotionMode> parse_demotion_mode(std::string_view name) { return parse(kDemotionNames, name); }
std::string_view demotion_mode_name(DemotionMode m) { return name_of(kDemotionNames, m); }

std::optional<PollMode> parse_poll_mode(std::string_view name) { return parse(kPollModeNames, name); }
std::string_view poll_mode_name(PollMode m) { return name_of(kPollModeNames, m); }

std::optional<HugePages> parse_huge_pages(std::string_view name) { return parse(kHugePagesNames, name); }
std::string_view huge_pages_name(HugePages h) { return name_of(kHugePagesNames, h); }

std::optional<Pinning> parse_pinning(std::string_view name) { return parse(kPinningNames, name); }
std::string_view pinning_name(Pinning p) { return name_of(kPinningNames, p); }

std::optional<Backend> parse_backend(std::string_view name) { return parse(kBackendNames, name); }
std::string_view backend_name(Backend b) { return name_of(kBackendNames, b); }
std::optional<TransportProtocol> parse_transport_protocol(std::string_view name) {
  return parse(kTransportNames, name);
}
std::string_view transport_protocol_name(TransportProtocol t) { return name_of(kTransportNames, t); }

}  // namespace nanopu
