// libFuzzer target for the compute services' request parsers (apps/setint,
// hdsearch, nbody, classifier, inttel through WordService::answer; Othello's
// parse_othello, then its move generation on whatever bitboards a MAP
// carries): the first byte picks the service, the rest is the request. Invariants: no
// read outside the words present (they sit exactly on the heap, for ASan);
// a reply never longer than the service's max_reply_words; a reply exactly
// when the outcome says answered or error; an error reply in the service's
// error shape; a set answer's ids ascending, below the document count, as
// many as its size word says; a classifier answer equal to a linear scan.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "apps/classifier/classifier_service.h"
#include "apps/compute/status_words.h"
#include "apps/hdsearch/hd_service.h"
#include "apps/inttel/int_collector.h"
#include "apps/nbody/nbody_service.h"
#include "apps/othello/othello_board.h"
#include "apps/othello/othello_protocol.h"
#include "apps/setint/setint_service.h"

namespace {

using namespace nanopu::apps;

struct Services {
  std::shared_ptr<const InvertedIndex> index;
  std::shared_ptr<const TupleSpace> rules = std::make_shared<const TupleSpace>(generate_rules(kDefaultRules));
  std::unique_ptr<WordService> all[5];
  Services() {
    absl::StatusOr<Corpus> c = load_corpus(kDefaultCorpusDir);
    if (!c.ok()) std::abort();
    index = std::make_shared<const InvertedIndex>(*c);
    all[0] = std::make_unique<SetIntersectionService>(index);
    all[1] = std::make_unique<HdSearchService>();
    all[2] = std::make_unique<NbodyService>();
    all[3] = std::make_unique<ClassifierService>(rules);
    all[4] = std::make_unique<IntCollector>(4);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Services s;
  if (size < 1) return 0;
  const size_t which = data[0] % 6;
  const auto n = static_cast<uint32_t>((size - 1) / 8);
  auto words = std::make_unique<uint64_t[]>(n == 0 ? 1 : n);
  if (n != 0) std::memcpy(words.get(), data + 1, size_t{n} * 8);
  // Small counts and ids most of the time, so that well-formed requests occur.
  if (which == 0 && n >= 3 && (words[2] & 0x100) == 0) words[2] %= 6;
  if (which == 0)
    for (uint32_t i = 3; i < n; ++i)
      if ((words[i] & 0x10000) == 0) words[i] %= 64;
  if (which == 2 && n >= 1 && (words[0] & 0x100) == 0) words[0] %= 3;
  if (which == 5) {
    if (n >= 1 && (words[0] & 0x100) == 0) words[0] %= 3;
    if (n >= 4 && (words[2] & 0x100) == 0) words[2] %= 4, words[3] %= 4;
    const OthelloMessage m = parse_othello(words.get(), n);
    if (m.kind == OthelloMessage::Kind::kMap) {
      if (m.max_depth > kOthelloMaxDepth || m.cur_depth > m.max_depth || (m.own & m.opp) != 0) std::abort();
      Board next[64];
      const Board b{m.own, m.opp};
      const int k = children(b, next);
      for (int i = 0; i < k; ++i)  // discs are conserved plus the one played (or a pass)
        if ((next[i].own & next[i].opp) != 0 ||
            std::popcount(next[i].own | next[i].opp) > std::popcount(b.own | b.opp) + 1)
          std::abort();
      if (m.max_depth - m.cur_depth <= 2) (void)negamax(b, static_cast<int>(m.max_depth - m.cur_depth));
    }
    if (m.kind == OthelloMessage::Kind::kError && m.code == 0) std::abort();
    if ((m.kind == OthelloMessage::Kind::kDrop) != (n == 0)) std::abort();
    return 0;
  }
  const std::span<const uint64_t> req(words.get(), n);
  std::vector<uint64_t> reply;
  WordService& svc = *s.all[which];
  const Outcome o = svc.answer(req, &reply);
  if (reply.size() > svc.max_reply_words()) std::abort();
  const bool replied = o == Outcome::kAnswered || o == Outcome::kError;
  if (replied != !reply.empty()) std::abort();
  if (which == 2) {  // N-body's own shapes
    if (o == Outcome::kError && (reply.size() != 3 || reply[0] != kNbodyError)) std::abort();
    if (o == Outcome::kAnswered && (reply.size() != 3 || reply[0] != kNbodyReply || n != 4)) std::abort();
    return 0;
  }
  if (o == Outcome::kConfig) std::abort();  // no other service has a CONFIG
  if (o == Outcome::kError && (reply.size() != 4 || reply[2] != kStatusError || reply[0] != req[0] ||
                               reply[1] != req[1]))
    std::abort();
  if (o != Outcome::kAnswered) return 0;
  if (reply[0] != req[0] || reply[1] != req[1] || reply[2] == kStatusError) std::abort();
  if (which == 0) {
    if (reply[2] != reply.size() - 3 || n != 3 + req[2] || req[2] == 0 || req[2] > kSetMaxWords) std::abort();
    for (size_t i = 3; i < reply.size(); ++i)
      if (reply[i] >= s.index->documents() || (i > 3 && reply[i] <= reply[i - 1])) std::abort();
  }
  if (which == 3) {
    Header h;
    if (!parse_header(req[2], req[3], &h)) std::abort();
    uint64_t want = kNoMatch;
    for (uint32_t id = 0; id < s.rules->rules().size(); ++id)
      if (matches(s.rules->rules()[id], h)) {
        want = id;
        break;
      }
    if (reply[2] != want) std::abort();
  }
  return 0;
}
