// The key-value service's messages, shared by kv-server and kv-client. They
// ride on calls (nanopu/rpc.h): the library puts the call word (kind and
// call id) first; these are the payload words after it.
//
//   request  w0 = op << 56 | value_bytes      op: GET, PUT or DELETE
//            w1 = key
//            PUT only: ceil(value_bytes / 8) words of value
//   reply    w0 = status << 56 | value_bytes  status: OK, NOT_FOUND, BAD_REQUEST, TOO_LARGE
//            GET of a present key: the value's words
#pragma once

#include <cstdint>
#include <string_view>

namespace kv {

enum class Op : uint8_t { kGet = 1, kPut = 2, kDelete = 3 };
enum class Status : uint8_t { kOk = 0, kNotFound = 1, kBadRequest = 2, kTooLarge = 3 };

inline constexpr uint32_t kRequestHeadBytes = 16;  // w0 and the key
inline constexpr uint32_t kReplyHeadBytes = 8;     // w0

[[nodiscard]] constexpr uint64_t head_word(uint8_t kind, uint32_t value_bytes) {
  return uint64_t{kind} << 56 | value_bytes;
}
[[nodiscard]] constexpr uint8_t kind_of(uint64_t w0) { return static_cast<uint8_t>(w0 >> 56); }
[[nodiscard]] constexpr uint32_t value_bytes_of(uint64_t w0) { return static_cast<uint32_t>(w0); }
[[nodiscard]] constexpr uint32_t words_for(uint32_t bytes) { return (bytes + 7) / 8; }

[[nodiscard]] constexpr std::string_view status_name(Status s) {
  switch (s) {
    case Status::kOk: return "OK";
    case Status::kNotFound: return "NOT_FOUND";
    case Status::kBadRequest: return "BAD_REQUEST";
    case Status::kTooLarge: return "TOO_LARGE";
  }
  return "?";
}

}  // namespace kv
