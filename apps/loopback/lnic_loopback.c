/* nanoPU Listing 1 (loopback with increment), ported from RISC-V assembly to
 * lnic.h. The paper's version handles 16-byte messages (two words); this one
 * loops over the message's words so any length works. */
#include <stdint.h>

#include "nanopu/lnic.h"

void nanopu_lnic_loopback_plus1(uint16_t context) {
  /* entry: csrwi lcurport, 0; csrwi lcurpriority, 0; csrwi lniccmd, 1 */
  if (lnic_add_context(context, 0) != 0) return;
  while (1) {
    /* wait_msg / idle: poll lmsgsrdy, writing lidle meanwhile */
    lnic_wait();
    /* mv netTX, netRX: the RX header becomes the TX header (source becomes
     * destination, same length) */
    uint64_t app_hdr = lnic_read();
    lnic_write_r(app_hdr);
    uint64_t words = ((app_hdr & LEN_MASK) + LNIC_WORD_SIZE - 1) / LNIC_WORD_SIZE;
    /* addi netTX, netRX, 1 for each word */
    for (uint64_t i = 0; i < words; i++) lnic_write_r(lnic_read() + 1);
    /* csrwi lmsgdone, 1 */
    lnic_msg_done();
  }
}
