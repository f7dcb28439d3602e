// Who sees a multi-packet message's packets as the reassembly buffer takes
// them, before the message is whole: sPIN's handlers, which PsPIN runs on
// each packet as it arrives ("sPIN: High-performance streaming Processing in
// the Network", §II; PsPIN, ISCA'21, §III) — nic/spin/spin_stream.cc. The
// transport calls it once per packet it keeps (never for a duplicate, a
// trimmed or a refused one) and once when it frees a message that will
// never be whole; the whole message still leaves through TransportSink::
// deliver. A one-packet message is whole on arrival and never comes here.
#pragma once

#include <cstdint>

#include "nic/reassembly/reassembly_buffer.h"

namespace nanopu {

class PacketTap {
 public:
  virtual ~PacketTap() = default;
  // m has just stored its packet pkt_offset (m.pkts[pkt_offset], stripped
  // to its payload); m.spin_stream is the tap's to keep.
  virtual void on_stored(InboundMessage& m, uint8_t pkt_offset) = 0;
  // m is freed incomplete (expired, superseded, aborted): its packets go.
  virtual void on_abandoned(InboundMessage& m) = 0;
};

}  // namespace nanopu
