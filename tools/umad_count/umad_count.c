/* An LD_PRELOAD shim that counts the MADs a process sends through libibumad
 * (umad_send): in total, and by management class, method and attribute, so
 * benchmarks can compare ibsm's MAD counts with OpenSM's and the diag tools',
 * and end-to-end tests can check what ibsm sent (e.g. no LFT block on a
 * resweep) without trusting ibsm's own report. At exit it appends one line to
 * the file named by UMAD_COUNT_FILE (or stderr):
 *   <pid> <comm> <total> <class>:<method>:<attr>=<count> ...
 * with class, method and attribute in hex (0x81:0x2:0x19=12: 12 DR SMP Sets
 * of LinearForwardingTable).
 *
 * A marked window, for benchmarks that count a stretch of a long-running
 * process (bench/failover.sh: a standby's polling): with UMAD_MARK_START set,
 * a send also counts in the window if, when it is made, the file it names
 * exists and the one UMAD_MARK_END names does not. At exit one more line goes
 * to UMAD_MARK_FILE (or stderr):
 *   <pid> <comm> <sends in the window> <window seconds> <requests> <responses> <class>:<method>:<attr>=<count> ...
 * (responses: methods with the R bit, e.g. GetResp; the rest, TrapRepress
 * included, count as requests; then the window's sends by kind, as above),
 * the window running from the start file's mtime to the end file's (or to
 * the exit without one). With UMAD_MARK_TIMES also set, one more line goes
 * to the file it names: when the window's first and last send of each kind
 * were made, in seconds from the start file's mtime:
 *   <pid> <comm> <class>:<method>:<attr>=<first>,<last> ...
 * (bench/multicast_vs_opensm.sh: the last MFT Set of a join storm).
 * With UMAD_DUMP_FILE set, every subnet management packet sent (class 0x01
 * or 0x81) is also appended to that file as it goes, one line of hex bytes
 * per MAD, so an end-to-end test can read fields on the wire that the
 * simulator does not keep (tests/e2e/mkey.sh: the M_Key).
 * It is a test and benchmark aid, not part of ibsm. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define MAX_KINDS 256

struct kind {
  uint32_t key; /* class << 24 | method << 16 | attribute */
  unsigned long count;
  double first, last; /* CLOCK_REALTIME of the first and last send (window only) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long sent;
static struct kind kinds[MAX_KINDS], window_kinds[MAX_KINDS];
static int nkinds, nwindow_kinds;
static int (*real_send)(int, int, void *, int, int, int);
static int mark_started, mark_ended;
static unsigned long in_window, window_responses;

static int exists(const char *path) { return path && access(path, F_OK) == 0; }

static double realtime(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* Called with the lock held. Returns the kind's entry (NULL: table full). */
static struct kind *count_kind(struct kind *table, int *n, uint32_t key) {
  int i;
  for (i = 0; i < *n && table[i].key != key; ++i) {
  }
  if (i == *n && *n < MAX_KINDS) table[(*n)++].key = key;
  if (i == *n) return NULL;
  ++table[i].count;
  return &table[i];
}

static double mtime_of(const char *path);
static void report_window(const char *name);
static const char *process_name(void);
static double window_from = -1; /* the start file's mtime when the window opened */
static int window_reported;

/* Called with the lock held. With UMAD_MARK_REARM set, a start file touched
 * again (a new mtime) closes the window, reports it at once, and opens a new
 * one: a long-running process counts several events, a line each
 * (bench/reroute.sh, OpenSM on the k=34 fabric). */
static void count_in_window(const uint8_t *mad, int length, uint32_t key) {
  const char *start = getenv("UMAD_MARK_START");
  if (!start) return;
  if (getenv("UMAD_MARK_REARM") && mark_started) {
    double m = mtime_of(start);
    if (m >= 0 && m != window_from) {
      report_window(process_name());
      mark_started = mark_ended = 0;
      in_window = window_responses = 0;
      nwindow_kinds = 0;
      window_reported = 0;
    }
  }
  if (mark_ended) return;
  if (!mark_started && (mark_started = exists(start))) window_from = mtime_of(start);
  if (mark_started) mark_ended = exists(getenv("UMAD_MARK_END"));
  if (!mark_started || mark_ended || length < 4) return;
  ++in_window;
  if (mad[3] & 0x80) ++window_responses;
  struct kind *k = count_kind(window_kinds, &nwindow_kinds, key);
  if (k && getenv("UMAD_MARK_TIMES")) {
    k->last = realtime();
    if (k->count == 1) k->first = k->last;
  }
}

static void dump_smp(const uint8_t *mad, int length) {
  const char *path = getenv("UMAD_DUMP_FILE");
  if (!path || length < 2 || (mad[1] != 0x01 && mad[1] != 0x81)) return;
  FILE *out = fopen(path, "a");
  if (!out) return;
  for (int i = 0; i < length; ++i) fprintf(out, "%02x", mad[i]);
  fputc('\n', out);
  fclose(out);
}

static void count(const uint8_t *mad, int length) {
  /* MAD common header (IBA 13.4.2): byte 1 class, byte 3 method, bytes 16-17 attribute id. */
  uint32_t key = length >= 18 ? ((uint32_t)mad[1] << 24) | ((uint32_t)mad[3] << 16) | ((uint32_t)mad[16] << 8) | mad[17]
                              : 0;
  pthread_mutex_lock(&lock);
  ++sent;
  count_kind(kinds, &nkinds, key);
  count_in_window(mad, length, key);
  dump_smp(mad, length);
  pthread_mutex_unlock(&lock);
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries) {
  if (!real_send) real_send = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
  int rc = real_send(portid, agentid, umad, length, timeout_ms, retries);
  if (rc == 0) count((const uint8_t *)umad_get_mad(umad), length);
  return rc;
}

static void print_kinds(FILE *out, const struct kind *table, int n) {
  for (int i = 0; i < n; ++i)
    fprintf(out, " 0x%x:0x%x:0x%x=%lu", table[i].key >> 24, (table[i].key >> 16) & 0xff, table[i].key & 0xffff,
            table[i].count);
  fprintf(out, "\n");
}

static double mtime_of(const char *path) {
  struct stat st;
  if (!path || stat(path, &st) != 0) return -1;
  return (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

static void report_window(const char *name) {
  const char *start = getenv("UMAD_MARK_START");
  if (!start || window_reported) return;
  window_reported = 1;
  double from = mtime_of(start), to = mtime_of(getenv("UMAD_MARK_END"));
  if (to < 0) to = realtime();
  const char *path = getenv("UMAD_MARK_FILE");
  FILE *out = path ? fopen(path, "a") : stderr;
  if (!out) return;
  fprintf(out, "%d %s %lu %.3f %lu %lu", (int)getpid(), name, in_window, from < 0 ? 0.0 : to - from,
          in_window - window_responses, window_responses);
  print_kinds(out, window_kinds, nwindow_kinds);
  if (out != stderr) fclose(out);
  const char *times = getenv("UMAD_MARK_TIMES");
  if (!times || from < 0 || !(out = fopen(times, "a"))) return;
  fprintf(out, "%d %s", (int)getpid(), name);
  for (int i = 0; i < nwindow_kinds; ++i)
    fprintf(out, " 0x%x:0x%x:0x%x=%.6f,%.6f", window_kinds[i].key >> 24, (window_kinds[i].key >> 16) & 0xff,
            window_kinds[i].key & 0xffff, window_kinds[i].first - from, window_kinds[i].last - from);
  fprintf(out, "\n");
  fclose(out);
}

static const char *process_name(void) {
  static char name[256] = "";
  if (name[0]) return name;
  FILE *cmd = fopen("/proc/self/comm", "r");
  if (!cmd || fscanf(cmd, "%255s", name) != 1) strcpy(name, "?");
  if (cmd) fclose(cmd);
  return name;
}

static void report(void) __attribute__((destructor));
static void report(void) {
  const char *name = process_name();
  report_window(name);
  const char *path = getenv("UMAD_COUNT_FILE");
  FILE *out = path ? fopen(path, "a") : stderr;
  if (!out) return;
  fprintf(out, "%d %s %lu", (int)getpid(), name, sent);
  print_kinds(out, kinds, nkinds);
  if (out != stderr) fclose(out);
}
