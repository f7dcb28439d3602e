// An echo service written against the installed nanopu library only.
//   echo-service VDEV [LCORE [traditional]]
//   echo-service 'net_memif0,role=server,socket=/tmp/echo.sock'
// With "traditional" it serves on the traditional path (whole messages in
// memory, nanopu/memory_message.h) instead of word by word.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nanopu/memory_message.h"
#include "nanopu/runtime.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s VDEV [LCORE [traditional]]   e.g. 'net_memif0,role=server,socket=/tmp/e.sock'\n", argv[0]);
    return 2;
  }
  nanopu::Config config;  // every field has a default; validated by Runtime::create
  config.vdevs = {argv[1]};
  if (argc > 2) config.lcores = {static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10))};
  auto rt = nanopu::Runtime::create(config);
  if (!rt.ok()) {
    std::fprintf(stderr, "echo-service: %s\n", std::string(rt.status().message()).c_str());
    return 1;
  }
  const bool traditional = argc > 3 && std::string(argv[3]) == "traditional";
  auto thread = (*rt)->spawn([traditional](nanopu::Thread& t) {
    if (!t.bind(/*context=*/1, /*priority=*/0).ok()) return;
    if (traditional) {  // each message copied whole into memory, the reply handed back whole
      nanopu::serve_from_memory(t, [&t](const nanopu::MemoryMessage& m) {
        (void)t.send_message(m.header, m.words());
      });
      return;
    }
    while (t.wait()) {                       // parks this fiber until a message arrives
      const uint64_t header = t.read();      // application header: peer ip | context | length
      (void)t.write(header);                 // reply to the sender, same length
      const uint32_t words = nanopu::AppHeader::from_word(header).payload_words();
      for (uint32_t i = 0; i < words; ++i) (void)t.write(t.read());
      t.msg_done();
    }
  });
  if (!thread.ok()) return 1;
  nanopu::Runtime::install_signal_handlers();  // Ctrl-C / SIGTERM end run()
  std::fprintf(stderr, "echo-service: serving context 1%s; Ctrl-C stops\n", traditional ? " (traditional path)" : "");
  const absl::Status s = (*rt)->run();
  (*rt)->print_stats(stderr);
  return s.ok() ? 0 : 1;
}
