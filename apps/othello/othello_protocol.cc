#include "apps/othello/othello_protocol.h"

namespace nanopu::apps {

OthelloMessage parse_othello(const uint64_t* w, uint32_t n) {
  OthelloMessage m;
  if (n == 0) return m;  // kDrop
  auto error = [&](uint64_t code, uint64_t ptr, uint64_t ts) {
    m.kind = OthelloMessage::Kind::kError;
    m.code = code;
    m.ptr = ptr;
    m.timestamp = ts;
    return m;
  };
  if (w[0] == kOthelloMap) {
    if (8 * n != kOthelloMapBytes && 8 * n != kOthelloPrototypeMapBytes) return error(kErrBadLength, 0, 0);
    m.own = w[1];
    m.opp = n == 8 ? w[7] : 0;
    m.max_depth = w[2];
    m.cur_depth = w[3];
    m.host = w[4];
    m.ptr = w[5];
    m.timestamp = w[6];
    if (m.max_depth > kOthelloMaxDepth || m.cur_depth > m.max_depth || (m.own & m.opp) != 0)
      return error(kErrBadValue, m.ptr, m.timestamp);
    m.kind = OthelloMessage::Kind::kMap;
    return m;
  }
  if (w[0] == kOthelloReduce) {
    if (8 * n != kOthelloReduceBytes) return error(kErrBadLength, 0, 0);
    m.kind = OthelloMessage::Kind::kReduce;
    m.host = w[1];
    m.ptr = w[2];
    m.minimax = w[3];
    m.timestamp = w[4];
    return m;
  }
  return error(kErrUnknownType, 0, n >= 7 ? w[6] : 0);
}

}  // namespace nanopu::apps
