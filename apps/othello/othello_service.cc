#include "apps/othello/othello_service.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "apps/boot/bind_service.h"
#include "absl/container/flat_hash_map.h"
#include "apps/compute/status_words.h"
#include "apps/othello/othello_board.h"
#include "apps/othello/othello_protocol.h"

namespace nanopu::apps {
namespace {

struct Pending {
  uint64_t parent_host = 0, parent_ptr = 0, timestamp = 0;
  uint32_t left = 0;
  int64_t best = INT64_MIN;
};

class OthelloHost {
 public:
  OthelloHost(Thread& t, uint32_t ip, uint16_t context, const OthelloOptions& o, OthelloStats* s)
      : t_(t), self_(othello_host(ip, context)), o_(o), s_(s) {}

  void on_message() {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint32_t n = h.payload_words();
    uint64_t w[9] = {};
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t x = t_.read();
      if (i < 9) w[i] = x;
    }
    t_.msg_done();
    const OthelloMessage m = parse_othello(w, n > 8 ? 9 : n);  // a longer message is a bad length
    switch (m.kind) {
      case OthelloMessage::Kind::kMap: return on_map(m);
      case OthelloMessage::Kind::kReduce: return on_reduce(m);
      case OthelloMessage::Kind::kError: return error(h, m.code, m.ptr, m.timestamp);
      case OthelloMessage::Kind::kDrop: ++s_->dropped; return;
    }
  }

 private:
  void on_map(const OthelloMessage& m) {
    ++s_->maps;
    const Board b{m.own, m.opp};
    if (!o_.workers.empty() && m.cur_depth < o_.fanout_depth && m.cur_depth < m.max_depth) {
      Board next[64];
      const int k = children(b, next);
      if (k > 0) {
        if (pending_.size() >= o_.max_pending)
          return error({static_cast<uint32_t>(m.host), static_cast<uint16_t>(m.host >> 32), 0}, kErrBadCount, m.ptr,
                       m.timestamp);
        const uint64_t id = next_id_++;
        pending_[id] = {m.host, m.ptr, m.timestamp, static_cast<uint32_t>(k), INT64_MIN};
        for (int i = 0; i < k; ++i) {
          const Peer& p = o_.workers[rr_++ % o_.workers.size()];
          send({p.ip, p.context, kOthelloMapBytes},
               {kOthelloMap, next[i].own, m.max_depth, m.cur_depth + 1, self_, id, m.timestamp, next[i].opp});
          ++s_->fanned_out;
        }
        return;
      }
    }
    ++s_->searched;
    const int64_t v = negamax(b, static_cast<int>(m.max_depth - m.cur_depth), &s_->nodes);
    reduce(m.host, m.ptr, v, m.timestamp);
  }

  void on_reduce(const OthelloMessage& m) {
    const auto it = m.host == self_ ? pending_.find(m.ptr) : pending_.end();
    if (it == pending_.end()) {
      ++s_->stray;
      return;
    }
    ++s_->reduces;
    Pending& p = it->second;
    p.best = std::max(p.best, -static_cast<int64_t>(m.minimax));
    if (--p.left == 0) {
      reduce(p.parent_host, p.parent_ptr, p.best, p.timestamp);
      pending_.erase(it);
    }
  }

  void reduce(uint64_t host, uint64_t ptr, int64_t v, uint64_t ts) {
    send({static_cast<uint32_t>(host), static_cast<uint16_t>(host >> 32), kOthelloReduceBytes},
         {kOthelloReduce, host, ptr, static_cast<uint64_t>(v), ts});
  }
  void error(const AppHeader& to, uint64_t code, uint64_t ptr, uint64_t ts) {
    ++s_->errors;
    send({to.ip, to.context, kOthelloReduceBytes}, {kOthelloError, code, ptr, 0, ts});
  }
  void send(const AppHeader& h, std::initializer_list<uint64_t> words) {
    if (t_.write(h.word()) != ApiError::kOk) {
      ++s_->send_failures;
      return;
    }
    for (uint64_t x : words) (void)t_.write(x);
  }

  Thread& t_;
  uint64_t self_;
  const OthelloOptions& o_;
  OthelloStats* s_;
  absl::flat_hash_map<uint64_t, Pending> pending_;
  uint64_t next_id_ = 1;
  size_t rr_ = 0;
};

}  // namespace

bool serve_othello(Thread& t, uint32_t self_ip, uint16_t context, uint8_t priority, const OthelloOptions& o,
                   OthelloStats* stats) {
  if (!bind_service(t, context, priority, "othello")) return false;
  OthelloHost host(t, self_ip, context, o, stats);
  while (t.wait()) host.on_message();
  return true;
}

}  // namespace nanopu::apps
