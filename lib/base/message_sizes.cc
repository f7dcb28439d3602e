// nanopu/message_sizes.h: the Homa paper's W1..W5 as quantile functions.
// Each CDF is a list of points (bytes, cumulative share) from the tables the
// paper's authors published (PlatformLab/HomaSimulation, sizeDistributions/),
// with how a draw between two points becomes a size, as those tables mean it:
//   kStep     the whole interval is the upper point's size (a discrete CDF);
//   kInverse  spread evenly in 1/size (the published W2 and W3 tables step
//             evenly in 1/size between powers of two, the share evenly);
//   kLinear   spread evenly in size (W5's web-search CDF, by packet).
#include "nanopu/message_sizes.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

namespace nanopu {
namespace {

enum class Interp : uint8_t { kStep, kInverse, kLinear };

struct Point {
  double bytes;
  double cdf;
  Interp how;  // of the interval that ends here
};

constexpr Interp kS = Interp::kStep;
constexpr Interp kI = Interp::kInverse;
constexpr Interp kL = Interp::kLinear;

// W1, Facebook's memcached (Atikoglu et al., SIGMETRICS'12, as the Homa
// simulator reads it): sizes 1..15 B as measured, then a generalized Pareto
// tail from 15 B on (below).
constexpr Point kW1[] = {{1, 0.00583, kS},  {2, 0.18403, kS},  {3, 0.27642, kS},  {4, 0.27660, kS},  {5, 0.30400, kS},
                         {6, 0.30465, kS},  {7, 0.31071, kS},  {8, 0.31094, kS},  {9, 0.31931, kS},  {10, 0.32768, kS},
                         {11, 0.41757, kS}, {12, 0.41849, kS}, {13, 0.42175, kS}, {14, 0.44155, kS}, {15, 0.47, kS}};
constexpr double kW1ParetoK = 0.348238, kW1ParetoSigma = 214.476;
constexpr double kW1MaxBytes = 1 << 30;  // the Homa simulator's cap on the tail

// W2, Google search RPCs: the shares at each power of two (and below 32 B).
constexpr Point kW2[] = {
    {1, 0, kS},           {2, 0.0756034, kS},   {3, 0.1323059, kS},   {4, 0.1512068, kS},   {8, 0.1701076, kS},
    {32, 0.1890085, kS},  {64, 0.3264359, kI},  {128, 0.3417032, kI}, {256, 0.4638395, kI}, {512, 0.9104006, kI},
    {1024, 0.9581101, kI}, {2048, 0.9810107, kI}, {4096, 0.9953236, kI}, {8192, 0.9984247, kI},
    {16384, 0.9989018, kI}, {32768, 0.9991403, kI}, {65536, 0.9993491, kI}, {131072, 0.9998709, kI},
    {262144, 0.9999752, kI}, {524288, 0.9999827, kI}, {3529904, 1, kI}};

// W3, every RPC in a Google datacenter.
constexpr Point kW3[] = {
    {1, 0, kS},           {2, 0.2766951, kS},   {3, 0.4611585, kS},   {4, 0.5533902, kS},   {7, 0.6456219, kS},
    {32, 0.7378536, kS},  {64, 0.7973579, kI},  {128, 0.8271101, kI}, {256, 0.8568622, kI}, {512, 0.9386807, kI},
    {1024, 0.9609948, kI}, {2048, 0.9740114, kI}, {4096, 0.9814494, kI}, {8192, 0.9898172, kI},
    {16384, 0.9956282, kI}, {32768, 0.9972553, kI}, {65536, 0.9980688, kI}, {131072, 0.9991729, kI},
    {262144, 0.9995504, kI}, {524288, 0.9998483, kI}, {12158197, 1, kI}};

// W4, Facebook's Hadoop cluster (Roy et al., SIGCOMM'15).
constexpr Point kW4[] = {
    {92, 0.0074, kS},     {217, 0.0149, kS},    {271, 0.0409, kS},    {300, 0.0520, kS},    {326, 0.1375, kS},
    {376, 0.2026, kS},    {425, 0.2230, kS},    {480, 0.2639, kS},    {600, 0.4591, kS},    {679, 0.5167, kS},
    {737, 0.5520, kS},    {800, 0.5762, kS},    {885, 0.5912, kS},    {1042, 0.6097, kS},   {1277, 0.6282, kS},
    {1413, 0.6394, kS},   {1534, 0.6468, kS},   {1664, 0.6673, kS},   {2214, 0.6747, kS},   {3396, 0.6840, kS},
    {5210, 0.6933, kS},   {7830, 0.7082, kS},   {31946, 0.7212, kS},  {36844, 0.7305, kS},  {39973, 0.7398, kS},
    {44260, 0.7584, kS},  {47050, 0.7788, kS},  {51046, 0.8160, kS},  {62583, 0.8234, kS},  {70722, 0.8327, kS},
    {75180, 0.8420, kS},  {81565, 0.8717, kS},  {102058, 0.8885, kS}, {115331, 0.8978, kS}, {133013, 0.9070, kS},
    {156563, 0.9164, kS}, {184284, 0.9257, kS}, {212546, 0.9349, kS}, {240177, 0.9442, kS}, {288520, 0.9535, kS},
    {470507, 0.9628, kS}, {736642, 0.9684, kS}, {940700, 0.9721, kS}, {1769244, 0.9814, kS}, {2169118, 0.9870, kS},
    {10000000, 1, kS}};

// W5, DCTCP's web search (Alizadeh et al., SIGCOMM'10, as pFabric tabled
// it): in packets of 1460 B, linear between the points, whole packets.
constexpr double kW5PacketBytes = 1460;
constexpr Point kW5[] = {{0, 0, kL},         {6, 0.15, kL},     {13, 0.2, kL},    {19, 0.3, kL},
                         {33, 0.4, kL},      {53, 0.53, kL},    {133, 0.6, kL},   {667, 0.7, kL},
                         {1333, 0.8, kL},    {3333, 0.9, kL},   {6667, 0.97, kL}, {20000, 1, kL}};

std::span<const Point> points(SizeWorkload w) {
  switch (w) {
    case SizeWorkload::kW1: return kW1;
    case SizeWorkload::kW2: return kW2;
    case SizeWorkload::kW3: return kW3;
    case SizeWorkload::kW4: return kW4;
    case SizeWorkload::kW5: return kW5;
  }
  return kW3;
}

// The quantile at u, from the table alone (bytes, or W5's packets).
double table_quantile(std::span<const Point> t, double u) {
  if (u <= t.front().cdf) return t.front().bytes;
  const auto it = std::lower_bound(t.begin(), t.end(), u, [](const Point& p, double x) { return p.cdf < x; });
  if (it == t.end()) return t.back().bytes;
  const Point& a = *(it - 1);
  const Point& b = *it;
  const double f = (u - a.cdf) / (b.cdf - a.cdf);
  switch (b.how) {
    case Interp::kStep: return b.bytes;
    case Interp::kInverse: return 1 / (1 / a.bytes + f * (1 / b.bytes - 1 / a.bytes));
    case Interp::kLinear: return a.bytes + f * (b.bytes - a.bytes);
  }
  return b.bytes;
}

double quantile(SizeWorkload w, double u) {
  u = std::clamp(u, 0.0, 1.0);
  if (w == SizeWorkload::kW1 && u > kW1[std::size(kW1) - 1].cdf) {
    const Point& last = kW1[std::size(kW1) - 1];
    if (u >= 1) return kW1MaxBytes;
    const double x = last.bytes + (std::pow((1 - last.cdf) / (1 - u), kW1ParetoK) - 1) * kW1ParetoSigma / kW1ParetoK;
    return std::min(kW1MaxBytes, std::round(x));
  }
  if (w == SizeWorkload::kW5) return std::max(1.0, std::ceil(table_quantile(kW5, u))) * kW5PacketBytes;
  return std::round(table_quantile(points(w), u));
}

}  // namespace

std::string_view size_workload_name(SizeWorkload w) {
  switch (w) {
    case SizeWorkload::kW1: return "W1";
    case SizeWorkload::kW2: return "W2";
    case SizeWorkload::kW3: return "W3";
    case SizeWorkload::kW4: return "W4";
    case SizeWorkload::kW5: return "W5";
  }
  return "?";
}

std::string_view size_workload_description(SizeWorkload w) {
  switch (w) {
    case SizeWorkload::kW1: return "Facebook key-value (memcached)";
    case SizeWorkload::kW2: return "Google search RPC";
    case SizeWorkload::kW3: return "Google, all RPCs";
    case SizeWorkload::kW4: return "Facebook Hadoop";
    case SizeWorkload::kW5: return "DCTCP web search";
  }
  return "?";
}

absl::StatusOr<SizeWorkload> parse_size_workload(std::string_view s) {
  for (SizeWorkload w : kSizeWorkloads) {
    const std::string_view n = size_workload_name(w);
    if (s.size() == 2 && (s[0] == 'W' || s[0] == 'w') && s[1] == n[1]) return w;
  }
  return absl::InvalidArgumentError("unknown workload '" + std::string(s) +
                                    "': want W1 (Facebook key-value), W2 (Google search RPC), W3 (Google, all "
                                    "RPCs), W4 (Facebook Hadoop) or W5 (DCTCP web search)");
}

uint32_t draw_message_bytes(SizeWorkload w, double u, uint32_t max_bytes) {
  const double b = std::max(1.0, quantile(w, u));
  return b >= max_bytes ? max_bytes : static_cast<uint32_t>(b);
}

SizeStats size_stats(SizeWorkload w, uint32_t max_bytes) {
  constexpr int kDraws = 1 << 16;
  double sum = 0, sum_whole = 0;
  int clipped = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double b = std::max(1.0, quantile(w, (i + 0.5) / kDraws));
    sum_whole += b;
    sum += std::min<double>(b, max_bytes);
    clipped += b > max_bytes;
  }
  return {sum / kDraws, static_cast<double>(clipped) / kDraws, 1 - sum / sum_whole};
}

}  // namespace nanopu
