// A TransportSink that records what a transport hands it, shared by the
// tests that drive a transport, or one half of one, by hand: messages
// delivered (their application headers; freed and out of their context's
// custody, as a thread's FIFO would take them), control packets (where to,
// and the header in either protocol), DATA packets (their headers too; the
// packets freed), and
// the messages given up.
#pragma once

#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "lib/wire/ack_list.h"
#include "lib/wire/frame.h"
#include "nanopu/app_header.h"
#include "nic/transport/transport.h"

namespace nanopu::testing {

class RecordingSink final : public TransportSink {
 public:
  struct Control {
    uint32_t ip = 0;
    uint8_t protocol = 0;
    uint8_t tos = 0;
    wire::NdpHeader ndp;    // protocol kIpProtoNdp
    wire::HomaHeader homa;  // protocol kIpProtoHoma
  };
  using Failure = FailedMessage;

  bool deliver(rte_mbuf* msg, ContextEntry* dst) override {
    delivered.push_back(AppHeader::from_word(msg_meta(msg)->app_header));
    dst->packets -= msg->nb_segs;
    rte_pktmbuf_free(msg);
    return true;
  }
  void send_data(rte_mbuf* m, uint32_t ip, const wire::TransportHeader& t, size_t) override {
    ++data_packets;
    data.push_back({ip, t.protocol, t.tos, t.ndp, t.homa});
    rte_pktmbuf_free(m);
  }
  void send_control(uint32_t ip, const wire::TransportHeader& t) override {
    controls.push_back({ip, t.protocol, t.tos, t.ndp, t.homa});
  }
  // As the NIC frames it: one control packet, a list in its payload.
  [[nodiscard]] bool frames_payloads() const override { return true; }
  void send_control_with(uint32_t ip, const wire::TransportHeader& t, const wire::ControlPayload& payload) override {
    controls.push_back({ip, t.protocol, t.tos, t.ndp, t.homa});
    wire::AckList more;
    EXPECT_TRUE(wire::decode_ack_list(payload.data(), payload.size(), &more)) << "a payload that is no ACK list";
    lists.push_back(more);
  }
  void message_failed(const FailedMessage& f) override { failures.push_back(f); }

  // The Homa control packets with `flag` set, in order.
  [[nodiscard]] std::vector<Control> homa_with(uint8_t flag) const {
    std::vector<Control> out;
    for (const Control& c : controls)
      if (c.protocol == wire::kIpProtoHoma && (c.homa.flags & flag)) out.push_back(c);
    return out;
  }

  std::vector<AppHeader> delivered;
  std::vector<Control> controls;
  std::vector<Control> data;  // the DATA packets' headers (where to, either protocol)
  std::vector<Failure> failures;
  std::vector<wire::AckList> lists;  // each ACK list sent, in order
  uint64_t data_packets = 0;
};

}  // namespace nanopu::testing
