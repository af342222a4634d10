/* An LD_PRELOAD shim that counts the MADs a process sends through libibumad
 * (umad_send), so benchmarks can compare ibsm's MAD counts with OpenSM's and
 * the diag tools'. At exit it appends "<pid> <argv0> <count>" to the file named
 * by UMAD_COUNT_FILE (or stderr). Build: cc -shared -fPIC -o umad_count.so umad_count.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_ulong sent;
static int (*real_send)(int, int, void *, int, int, int);

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries) {
  if (!real_send) real_send = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
  int rc = real_send(portid, agentid, umad, length, timeout_ms, retries);
  if (rc == 0) atomic_fetch_add(&sent, 1);
  return rc;
}

static void report(void) __attribute__((destructor));
static void report(void) {
  const char *path = getenv("UMAD_COUNT_FILE");
  FILE *out = path ? fopen(path, "a") : stderr;
  if (!out) return;
  char name[256] = "?";
  FILE *cmd = fopen("/proc/self/comm", "r");
  if (cmd) {
    if (fscanf(cmd, "%255s", name) != 1) name[0] = '?';
    fclose(cmd);
  }
  fprintf(out, "%d %s %lu\n", (int)getpid(), name, (unsigned long)atomic_load(&sent));
  if (out != stderr) fclose(out);
}
