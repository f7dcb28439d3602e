#include "model/network/rank_frames.h"

#include <rte_mempool.h>

#include <algorithm>
#include <cstring>

#include "lib/base/raw_bytes.h"

namespace nanopu::model {

void RankFrames::list_pools() {
  pools_.clear();
  pool_index_.clear();
  rte_mempool_walk(
      [](rte_mempool* mp, void* self) { static_cast<RankFrames*>(self)->pools_.push_back(mp); },
      this);
  for (uint32_t i = 0; i < pools_.size(); ++i) pool_index_[pools_[i]] = i;
}

void RankFrames::write(uint32_t end, uint64_t at, rte_mbuf* frame, std::string* out) {
  if (!pool_index_.contains(frame->pool)) list_pools();
  append_raw(out, end);
  append_raw(out, at);
  append_raw(out, pool_index_.at(frame->pool));
  append_raw(out, frame->pkt_len);
  for (const rte_mbuf* seg = frame; seg != nullptr; seg = seg->next)
    out->append(rte_pktmbuf_mtod(seg, const char*), seg->data_len);
  rte_pktmbuf_free(frame);
}

absl::Status RankFrames::next(std::string_view* in, Record* r) {
  uint32_t len = 0;
  if (!take_raw(in, &r->end) || !take_raw(in, &r->at) || !take_raw(in, &r->pool) ||
      !take_raw(in, &len) || in->size() < len)
    return absl::DataLossError("a frame from another rank is cut short");
  if (len > kMaxFrameBytes)
    return absl::DataLossError(absl::StrCat("a frame from another rank of ", len, " bytes"));
  r->bytes = in->substr(0, len);
  in->remove_prefix(len);
  return absl::OkStatus();
}

absl::Status RankFrames::make(const Record& r, rte_mbuf** out) {
  if (r.pool >= pools_.size()) list_pools();
  if (r.pool >= pools_.size())
    return absl::InternalError(absl::StrCat("a frame from pool ", r.pool,
                                            " of another rank: this one has ", pools_.size(),
                                            " (the ranks built different hosts)"));
  rte_mempool* pool = pools_[r.pool];
  rte_mbuf* head = nullptr;
  rte_mbuf* last = nullptr;
  for (size_t at = 0; at < r.bytes.size() || head == nullptr;) {
    rte_mbuf* seg = rte_pktmbuf_alloc(pool);
    if (seg == nullptr) {
      rte_pktmbuf_free(head);
      return absl::ResourceExhaustedError(
          absl::StrCat("pool ", pool->name, " is empty in this rank: give its host more --mbufs"));
    }
    const size_t n = std::min<size_t>(r.bytes.size() - at, rte_pktmbuf_tailroom(seg));
    std::memcpy(rte_pktmbuf_append(seg, static_cast<uint16_t>(n)), r.bytes.data() + at, n);
    at += n;
    if (head == nullptr) {
      head = seg;
    } else {
      last->next = seg;
      ++head->nb_segs;
      head->pkt_len += static_cast<uint32_t>(n);
    }
    last = seg;
  }
  *out = head;
  return absl::OkStatus();
}

}  // namespace nanopu::model
