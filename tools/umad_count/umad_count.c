/* An LD_PRELOAD shim that counts the MADs a process sends through libibumad
 * (umad_send): in total, and by management class, method and attribute, so
 * benchmarks can compare ibsm's MAD counts with OpenSM's and the diag tools',
 * and end-to-end tests can check what ibsm sent (e.g. no LFT block on a
 * resweep) without trusting ibsm's own report. At exit it appends one line to
 * the file named by UMAD_COUNT_FILE (or stderr):
 *   <pid> <comm> <total> <class>:<method>:<attr>=<count> ...
 * with class, method and attribute in hex (0x81:0x2:0x19=12: 12 DR SMP Sets
 * of LinearForwardingTable). It is a test and benchmark aid, not part of ibsm. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define MAX_KINDS 256

struct kind {
  uint32_t key; /* class << 24 | method << 16 | attribute */
  unsigned long count;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long sent;
static struct kind kinds[MAX_KINDS];
static int nkinds;
static int (*real_send)(int, int, void *, int, int, int);

static void count(const uint8_t *mad, int length) {
  /* MAD common header (IBA 13.4.2): byte 1 class, byte 3 method, bytes 16-17 attribute id. */
  uint32_t key = length >= 18 ? ((uint32_t)mad[1] << 24) | ((uint32_t)mad[3] << 16) | ((uint32_t)mad[16] << 8) | mad[17]
                              : 0;
  pthread_mutex_lock(&lock);
  ++sent;
  int i;
  for (i = 0; i < nkinds && kinds[i].key != key; ++i) {
  }
  if (i == nkinds && nkinds < MAX_KINDS) kinds[nkinds++].key = key;
  if (i < nkinds) ++kinds[i].count;
  pthread_mutex_unlock(&lock);
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries) {
  if (!real_send) real_send = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
  int rc = real_send(portid, agentid, umad, length, timeout_ms, retries);
  if (rc == 0) count((const uint8_t *)umad_get_mad(umad), length);
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
  fprintf(out, "%d %s %lu", (int)getpid(), name, sent);
  for (int i = 0; i < nkinds; ++i)
    fprintf(out, " 0x%x:0x%x:0x%x=%lu", kinds[i].key >> 24, (kinds[i].key >> 16) & 0xff, kinds[i].key & 0xffff,
            kinds[i].count);
  fprintf(out, "\n");
  if (out != stderr) fclose(out);
}
