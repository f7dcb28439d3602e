#include "nanopu/policies.h"

namespace nanopu {

std::optional<CoreSelectPolicy> parse_core_select_policy(std::string_view name) {
  if (name == "jbsq") return CoreSelectPolicy::kJbsq;
  if (name == "rss") return CoreSelectPolicy::kRss;
  if (name == "static") return CoreSelectPolicy::kStatic;
  return std::nullopt;
}

std::string_view core_select_policy_name(CoreSelectPolicy p) {
  switch (p) {
    case CoreSelectPolicy::kJbsq: return "jbsq";
    case CoreSelectPolicy::kRss: return "rss";
    case CoreSelectPolicy::kStatic: return "static";
  }
  return "?";
}

std::optional<SchedMode> parse_sched_mode(std::string_view name) {
  if (name == "hts") return SchedMode::kHts;
  if (name == "tis") return SchedMode::kTis;
  return std::nullopt;
}

std::string_view sched_mode_name(SchedMode m) {
  switch (m) {
    case SchedMode::kHts: return "hts";
    case SchedMode::kTis: return "tis";
  }
  return "?";
}

std::optional<DemotionMode> parse_demotion_mode(std::string_view name) {
  if (name == "permanent") return DemotionMode::kPermanent;
  if (name == "until_done") return DemotionMode::kUntilDone;
  return std::nullopt;
}

std::string_view demotion_mode_name(DemotionMode m) {
  switch (m) {
    case DemotionMode::kPermanent: return "permanent";
    case DemotionMode::kUntilDone: return "until_done";
  }
  return "?";
}

std::optional<PollMode> parse_poll_mode(std::string_view name) {
  if (name == "busy") return PollMode::kBusy;
  if (name == "adaptive") return PollMode::kAdaptive;
  return std::nullopt;
}

std::string_view poll_mode_name(PollMode m) {
  switch (m) {
    case PollMode::kBusy: return "busy";
    case PollMode::kAdaptive: return "adaptive";
  }
  return "?";
}

std::optional<HugePages> parse_huge_pages(std::string_view name) {
  if (name == "auto") return HugePages::kAuto;
  if (name == "on") return HugePages::kOn;
  if (name == "off") return HugePages::kOff;
  return std::nullopt;
}

std::string_view huge_pages_name(HugePages h) {
  switch (h) {
    case HugePages::kAuto: return "auto";
    case HugePages::kOn: return "on";
    case HugePages::kOff: return "off";
  }
  return "?";
}

}  // namespace nanopu
