#include "tools/loadgen/othello_reference.h"

#include <algorithm>
#include <vector>

namespace nanopu::apps {
namespace {

constexpr int kDr[8] = {0, 0, 1, -1, 1, 1, -1, -1};
constexpr int kDc[8] = {1, -1, 0, 0, 1, -1, 1, -1};

// The squares `s` would flip for the player to move (empty if none).
std::vector<int> flips(const RefPosition& p, int s) {
  std::vector<int> all;
  if (p.sq[s] != 0) return all;
  for (int d = 0; d < 8; ++d) {
    std::vector<int> run;
    int r = s / 8 + kDr[d], c = s % 8 + kDc[d];
    while (r >= 0 && r < 8 && c >= 0 && c < 8 && p.sq[r * 8 + c] == -1) {
      run.push_back(r * 8 + c);
      r += kDr[d];
      c += kDc[d];
    }
    if (!run.empty() && r >= 0 && r < 8 && c >= 0 && c < 8 && p.sq[r * 8 + c] == 1)
      all.insert(all.end(), run.begin(), run.end());
  }
  return all;
}

RefPosition swapped(const RefPosition& p) {
  RefPosition q;
  for (int i = 0; i < 64; ++i) q.sq[i] = static_cast<int8_t>(-p.sq[i]);
  return q;
}

std::vector<RefPosition> successors(const RefPosition& p) {
  std::vector<RefPosition> out;
  for (int s = 0; s < 64; ++s) {
    const std::vector<int> f = flips(p, s);
    if (f.empty()) continue;
    RefPosition q = p;
    q.sq[s] = 1;
    for (int x : f) q.sq[x] = 1;
    out.push_back(swapped(q));
  }
  if (out.empty()) {
    const RefPosition q = swapped(p);
    for (int s = 0; s < 64 && out.empty(); ++s)
      if (!flips(q, s).empty()) out.push_back(q);
  }
  return out;
}

int64_t disc_difference(const RefPosition& p) {
  int64_t d = 0;
  for (int8_t x : p.sq) d += x;
  return d;
}

}  // namespace

RefPosition ref_from_bitboards(uint64_t own, uint64_t opp) {
  RefPosition p;
  for (int i = 0; i < 64; ++i) p.sq[i] = static_cast<int8_t>((own >> i & 1) ? 1 : (opp >> i & 1) ? -1 : 0);
  return p;
}
uint64_t ref_own(const RefPosition& p) {
  uint64_t b = 0;
  for (int i = 0; i < 64; ++i) b |= uint64_t{p.sq[i] == 1} << i;
  return b;
}
uint64_t ref_opp(const RefPosition& p) {
  uint64_t b = 0;
  for (int i = 0; i < 64; ++i) b |= uint64_t{p.sq[i] == -1} << i;
  return b;
}

int64_t ref_negamax(const RefPosition& p, int depth) {
  const std::vector<RefPosition> next = successors(p);
  if (next.empty()) return disc_difference(p) * 1000;
  if (depth <= 0) return disc_difference(p);
  int64_t best = INT64_MIN;
  for (const RefPosition& q : next) best = std::max(best, -ref_negamax(q, depth - 1));
  return best;
}

RefPosition ref_random_position(SeededDraw& rng, int plies) {
  RefPosition p = ref_from_bitboards((uint64_t{1} << 28) | (uint64_t{1} << 35), (uint64_t{1} << 27) | (uint64_t{1} << 36));
  for (int i = 0; i < plies; ++i) {
    const std::vector<RefPosition> next = successors(p);
    if (next.empty()) break;
    p = next[rng() % next.size()];
  }
  return p;
}

}  // namespace nanopu::apps
