// Trivially copyable values appended to and taken from a byte string, in
// the machine's own byte order: what MPI ranks of one nanopu-sim run (one
// binary on one kind of machine) send each other, frames and reports. Not
// a wire format: lib/wire encodes what goes on a link.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace nanopu {

template <typename T>
void append_raw(std::string* out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Takes a T off the front of *in; false (and *in untouched) if it is shorter.
template <typename T>
[[nodiscard]] bool take_raw(std::string_view* in, T* v) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (in->size() < sizeof *v) return false;
  std::memcpy(v, in->data(), sizeof *v);
  in->remove_prefix(sizeof *v);
  return true;
}

}  // namespace nanopu
