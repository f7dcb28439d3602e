/* lnic.h — the nanoPU prototype's C interface (nanoPU §3.4, Listings 1–2),
 * so nanoPU applications port near-verbatim. Each macro acts on the calling
 * nanopu thread (the fiber the runtime is running), exactly as the hardware
 * macros act on the core's netRX/netTX registers and CSRs.
 *
 *   lnic_add_context(port, prio)  lcurport/lcurpriority/lniccmd: bind
 *   lnic_wait()                   poll lmsgsrdy, writing lidle while waiting
 *   lnic_ready()                  lmsgsrdy
 *   lnic_read()                   read netRX
 *   lnic_write_r(x) / _i(x)       write netTX from a register / an immediate
 *   lnic_write_m(x)               write netTX from memory (x is an lvalue)
 *   lnic_copy()                   netTX = netRX (copy one word)
 *   lnic_msg_done()               lmsgdone
 *   lnic_idle()                   lidle
 *   lnic_branch(op, val, label)   read netRX, compare with val, goto label
 *
 * Differences from the hardware, all deliberate: reading an empty RX FIFO
 * returns 0 and is counted (undefined in hardware); when the runtime stops,
 * lnic_wait() never returns and the thread's stack is unwound, so C code that
 * uses lnic_wait() must be built with unwind tables (the default on x86-64).
 */
#ifndef NANOPU_LNIC_H_
#define NANOPU_LNIC_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LNIC_WORD_SIZE 8
#define IP_MASK 0xffffffff00000000ull
#define CONTEXT_MASK 0x00000000ffff0000ull
#define PORT_MASK CONTEXT_MASK
#define LEN_MASK 0x000000000000ffffull

int nanopu_lnic_add_context(uint64_t context, uint64_t priority);
void nanopu_lnic_wait(void);
int nanopu_lnic_ready(void);
uint64_t nanopu_lnic_read(void);
void nanopu_lnic_write(uint64_t word);
void nanopu_lnic_msg_done(void);
void nanopu_lnic_idle(void);
/* Bulk forms of lnic_read/lnic_write (Thread::read_words/write_words): n
 * words at once, the same as n single calls. */
void nanopu_lnic_read_words(uint64_t* words, size_t n);
void nanopu_lnic_write_words(const uint64_t* words, size_t n);

#define lnic_add_context(context, priority) \
  nanopu_lnic_add_context((uint64_t)(context), (uint64_t)(priority))
#define lnic_wait() nanopu_lnic_wait()
#define lnic_ready() nanopu_lnic_ready()
#define lnic_read() nanopu_lnic_read()
#define lnic_write_r(x) nanopu_lnic_write((uint64_t)(x))
#define lnic_write_i(x) nanopu_lnic_write((uint64_t)(x))
#define lnic_write_m(x) nanopu_lnic_write(*(const uint64_t*)&(x))
#define lnic_copy() nanopu_lnic_write(nanopu_lnic_read())
#define lnic_msg_done() nanopu_lnic_msg_done()
#define lnic_idle() nanopu_lnic_idle()
#define lnic_read_words(p, n) nanopu_lnic_read_words((p), (size_t)(n))
#define lnic_write_words(p, n) nanopu_lnic_write_words((p), (size_t)(n))
/* op is one of ==, !=, <, >=: "lnic_branch(==, 0, done)" jumps to done when
 * the next netRX word equals 0 (the word is consumed either way). */
#define lnic_branch(op, val, label)                       \
  do {                                                    \
    if (nanopu_lnic_read() op (uint64_t)(val)) goto label; \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* NANOPU_LNIC_H_ */
