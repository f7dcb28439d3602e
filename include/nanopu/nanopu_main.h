/* nanopu_main.h — a whole program for a service written in C against
 * lnic.h alone: nanopu's command line (the flags nanopu-server reads:
 * --lcores, --vdev, --backend, --ip, ... ; --helpfull lists them), one nanopu
 * thread per body, spread over the worker cores, run until Ctrl-C or
 * SIGTERM, the counters printed on exit.
 *
 *   static void serve(void* arg) {
 *     if (lnic_add_context(1, 0) != 0) return;
 *     for (;;) { lnic_wait(); ... lnic_msg_done(); }
 *   }
 *   int main(int argc, char** argv) {
 *     const struct nanopu_thread_body bodies[] = {{serve, NULL}};
 *     return nanopu_main(argc, argv, "what my service does", bodies, 1);
 *   }
 *
 * The library is C++: link with a C++ driver (c++, or CMake with CXX
 * enabled), against nanopu::flags or pkg-config nanopu-flags.
 */
#ifndef NANOPU_NANOPU_MAIN_H_
#define NANOPU_NANOPU_MAIN_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*nanopu_thread_fn)(void* arg);

struct nanopu_thread_body {
  nanopu_thread_fn fn; /* runs as a nanopu thread: lnic.h acts on it */
  void* arg;
};

/* Parses argv, starts the runtime, spawns bodies[i] on worker core
 * i mod workers and runs until stopped. Returns the exit status: 0 ran and
 * stopped cleanly, 1 the runtime could not start or failed, 2 a bad flag
 * (one line naming it on stderr). `usage` heads --help. */
int nanopu_main(int argc, char** argv, const char* usage, const struct nanopu_thread_body* bodies,
                size_t count);

#ifdef __cplusplus
}
#endif

#endif /* NANOPU_NANOPU_MAIN_H_ */
