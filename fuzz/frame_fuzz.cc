// libFuzzer target for the wire parser (lib/wire/frame.cc): any byte string
// is either rejected with a reason or decodes to a header that encodes and
// decodes back to itself, and is never the OS's (foreign_frame); the bytes
// after the header, read as an ACK list
// (lib/wire/ack_list.cc), likewise. Never a crash, never a read past the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "lib/wire/ack_list.h"
#include "lib/wire/frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu::wire;
  // Copy to an exact-size heap buffer so ASan sees any overread.
  std::vector<uint8_t> frame(data, data + size);
  FrameHeader h;
  size_t payload = 0;
  const ParseError e = decode_frame_header(frame.data(), frame.size(), &h, &payload);
  if (e == ParseError::kOk) {
    if (payload + kFrameHeaderBytes > size) std::abort();  // payload within the frame
    std::vector<uint8_t> again(kFrameHeaderBytes + payload, 0);
    encode_frame_header(h, payload, again.data());
    FrameHeader back;
    size_t payload2 = 0;
    if (decode_frame_header(again.data(), again.size(), &back, &payload2) != ParseError::kOk) std::abort();
    if (!(back == h) || payload2 != payload) std::abort();
    uint32_t src_ip = 0;  // the steering peek reads what the decoder read
    if (!peek_src_ip(frame.data(), frame.size(), &src_ip) || src_ip != h.src_ip) std::abort();
    if (foreign_frame(frame.data(), frame.size())) std::abort();  // nanopu's is never the OS's
  } else if (parse_error_name(e).empty()) {
    std::abort();
  }
  // (The OS's frames the parser refuses for any reason its checks meet
  // first: a fragment of ICMP is a bad IPv4 header to it, and the OS's to
  // reassemble.)
  // A control packet's payload as an ACK list, wherever the header failed.
  const size_t off = size < kFrameHeaderBytes ? 0 : kFrameHeaderBytes;
  std::vector<uint8_t> tail(frame.begin() + static_cast<std::ptrdiff_t>(off), frame.end());
  AckList list;
  if (decode_ack_list(tail.data(), tail.size(), &list)) {
    if (list.count == 0 || list.count > AckList::kMax) std::abort();
    uint8_t again[kControlPayloadBytes];
    encode_ack_list(list, again);
    AckList back;
    if (!decode_ack_list(again, sizeof again, &back) || back.count != list.count) std::abort();
    for (uint8_t i = 0; i < list.count; ++i)
      if (!(back.msgs[i] == list.msgs[i])) std::abort();
  }
  return 0;
}
