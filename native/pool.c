/*
 * The engines' own threads: a fixed pool (one thread per online CPU, at most 8) that runs submitted jobs in
 * order. Why not libuv's pool: its threads are shared with everything else the process does (file system
 * calls, DNS, crypto), and ours run at a lower priority (nice +10) than the JavaScript thread that feeds them
 * and folds what they find: on a 2-core machine the main thread is the scan's critical path, and at equal
 * priority four busy pool threads took most of its time (bench/RESULTS.md, "Fifth session"). Lowering a
 * thread's own priority needs no privilege; the threads are started on first use and live as long as the
 * process.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "engine.h"
#include "kernel.h"

#define MAX_THREADS 8
#define NICE 10

typedef struct Job {
  void (*run)(void *);
  void *arg;
  struct Job *next;
} Job;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static Job *head, *tail;
static int started;

static void *worker(void *unused) {
  (void)unused;
  sf_pool_thread = 1;
#ifdef SYS_gettid
  setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), NICE);
#endif
  for (;;) {
    pthread_mutex_lock(&mu);
    while (head == NULL) pthread_cond_wait(&cv, &mu);
    Job *j = head;
    head = j->next;
    if (head == NULL) tail = NULL;
    pthread_mutex_unlock(&mu);
    j->run(j->arg);
    free(j);
  }
  return NULL;
}

/*
 * The threads run this library's code for as long as the process lives, so the library must never be unmapped:
 * a Worker that loaded it (the only one to) unloads it with its environment, and a thread of the pool would
 * then return into unmapped code. Pinned once the threads start (RTLD_NODELETE on the loaded object, by its
 * own path); if that fails, no thread is started and the callers read with JavaScript.
 */
static int pin_library(void) {
  static int pinned = -1; /* tried once (under the pool's mutex): a failure is not retried on every call */
  if (pinned >= 0) return pinned;
  Dl_info info;
  pinned = dladdr((void *)pin_library, &info) != 0 && info.dli_fname != NULL && dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
  return pinned;
}

int sf_pool_threads(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

int sf_pool_submit(void (*run)(void *), void *arg) {
  Job *j = malloc(sizeof(Job));
  if (j == NULL) return 0;
  j->run = run;
  j->arg = arg;
  j->next = NULL;
  pthread_mutex_lock(&mu);
  if (!started) {
    const int n = pin_library() ? sf_pool_threads() : 0;
    int ok = 0;
    for (int i = 0; i < n; i++) {
      pthread_t t;
      pthread_attr_t a;
      pthread_attr_init(&a);
      pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
      if (pthread_create(&t, &a, worker, NULL) == 0) ok++;
      pthread_attr_destroy(&a);
    }
    if (ok == 0) {
      pthread_mutex_unlock(&mu);
      free(j);
      return 0;
    }
    started = 1;
  }
  if (tail == NULL) head = tail = j;
  else {
    tail->next = j;
    tail = j;
  }
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  return 1;
}
