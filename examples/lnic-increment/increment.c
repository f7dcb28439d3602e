/* The nanoPU paper's Listing 1 (nanoPU OSDI'21 §3.4), in C against lnic.h
 * alone, with nanopu_main.h for its main: each request comes back with
 * every payload word incremented. No C++ is written; the library's is
 * linked in by a C++ driver.
 *   lnic-increment --vdev='net_memif0,role=server,socket=/tmp/inc.sock' --lcores=1
 */
#include <stddef.h>
#include <stdint.h>

#include "nanopu/lnic.h"
#include "nanopu/nanopu_main.h"

static void increment(void* arg) {
  const uint64_t context = *(const uint64_t*)arg;
  if (lnic_add_context(context, 0) != 0) return; /* taken: nothing to serve */
  for (;;) {
    lnic_wait();
    const uint64_t app_hdr = lnic_read();
    lnic_write_r(app_hdr); /* the reply goes back to the sender, same length */
    const uint64_t words = ((app_hdr & LEN_MASK) + 7) / 8;
    for (uint64_t i = 0; i < words; i++) lnic_write_r(lnic_read() + 1);
    lnic_msg_done();
  }
}

int main(int argc, char** argv) {
  static const uint64_t context = 1;
  const struct nanopu_thread_body bodies[] = {{increment, (void*)&context}};
  return nanopu_main(argc, argv, "every request back with each word + 1 (Listing 1), on context 1", bodies, 1);
}
