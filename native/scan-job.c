/*
 * scanFiles: whole files read by an engine on one of its threads (pool.c), one after another — Claude's
 * (claude.c) or Codex's (codex.c) — and handed back to the JavaScript thread that asked, as a Promise of a
 * Buffer (or false) per file.
 *
 * A job outlives the environment that started it when a Worker is terminated mid-scan, so: it holds its own
 * reference to the compiled projection (`compiled_release`); it stops reading once its environment is gone;
 * and it touches its threadsafe function only inside a gate that the environment's teardown closes (Node frees
 * an environment's threadsafe functions at its teardown, whoever still holds them). pool.c pins the library.
 */
#include <node_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "napi-util.h"

/* Files read by an engine on one of its threads (pool.c), one after another: Claude's (claude.c) or Codex's (codex.c). */
typedef struct {
  char *path;
  uint8_t *file_id;
  size_t file_id_len;
  int status;
  uint8_t *out;
  size_t out_len;
} ScanFile;

typedef struct {
  napi_threadsafe_function done;
  /* Held by the pool thread while it hands the job over, and by the environment's teardown (which sets `dead`):
   * once an environment goes away its threadsafe functions are freed, so no thread may touch `done` after. */
  pthread_mutex_t gate;
  int dead;
  napi_deferred deferred;
  /* a reference of its own (compiled_release when the job is freed) */
  Compiled *proj;
  int codex;
  int32_t map[(int)CX_FIELDS > (int)CS_FIELDS ? (int)CX_FIELDS : (int)CS_FIELDS];
  int64_t max_line, cap;
  uint32_t n;
  ScanFile *files;
} ScanJob;

static void scan_job_free(ScanJob *j);

/* The job's environment is being torn down (a cleanup hook, added after the job's threadsafe function so that
 * it runs before that function is freed): the pool thread must leave `done` alone and free the job itself. */
static void scan_job_teardown(void *data) {
  ScanJob *j = data;
  pthread_mutex_lock(&j->gate);
  __atomic_store_n(&j->dead, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&j->gate);
}

/* On a pool thread (pool.c): read the files, then hand the job back to its JavaScript thread. */
static void scan_job_run(void *data) {
  ScanJob *j = data;
  for (uint32_t i = 0; i < j->n; i++) {
    if (__atomic_load_n(&j->dead, __ATOMIC_RELAXED)) break; /* its environment is gone: read no more for it */
    ScanFile *f = &j->files[i];
    if (j->codex)
      f->out = cx_scan_file(f->path, j->max_line, (size_t)j->cap, j->proj->root, j->proj->slots, j->map, f->file_id, f->file_id_len, &f->status,
                            &f->out_len);
    else
      f->out = cs_scan_file(f->path, j->max_line, (size_t)j->cap, j->proj->root, j->proj->slots, j->map, f->file_id, f->file_id_len, &f->status,
                            &f->out_len);
  }
  pthread_mutex_lock(&j->gate);
  if (j->dead) {
    /* its environment is gone: nobody will take the results */
    pthread_mutex_unlock(&j->gate);
    scan_job_free(j);
    return;
  }
  napi_threadsafe_function done = j->done;
  /* the queue is unbounded: the call does not wait */
  const napi_status handed = napi_call_threadsafe_function(done, j, napi_tsfn_nonblocking);
  napi_release_threadsafe_function(done, napi_tsfn_release);
  pthread_mutex_unlock(&j->gate);
  if (handed != napi_ok) scan_job_free(j);
}

static void scan_job_free(ScanJob *j) {
  for (uint32_t i = 0; i < j->n; i++) {
    free(j->files[i].out);
    free(j->files[i].path);
    free(j->files[i].file_id);
  }
  free(j->files);
  if (j->proj != NULL) compiled_release(j->proj);
  pthread_mutex_destroy(&j->gate);
  free(j);
}

/* On the JavaScript thread: resolve the job's promise with a Buffer (or false) per file. */
static void scan_job_complete(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)context;
  ScanJob *j = data;
  if (env == NULL) {
    scan_job_free(j);
    return;
  }
  /* The pool thread may still be between handing the job over and releasing `done`: wait for it to leave the
   * gate before the environment stops watching over `done` (its teardown could free it under the thread). */
  pthread_mutex_lock(&j->gate);
  napi_remove_env_cleanup_hook(env, scan_job_teardown, j);
  pthread_mutex_unlock(&j->gate);
  napi_value results;
  napi_create_array_with_length(env, j->n, &results);
  for (uint32_t i = 0; i < j->n; i++) {
    ScanFile *f = &j->files[i];
    napi_value r;
    if (f->status == CS_FILE_OK && f->out != NULL) {
      /* A copy, and the block freed now: a Buffer that owned it would keep it until a GC, and the blocks of
       * a whole history stayed resident in the engine threads' allocator arenas meanwhile (a higher peak RSS
       * on a history's first cache build: the peers harness's "first run" row). */
      void *copy;
      if (napi_create_buffer_copy(env, f->out_len, f->out, &copy, &r) != napi_ok) napi_get_boolean(env, false, &r); /* read() takes it */
    } else
      napi_get_boolean(env, false, &r);
    napi_set_element(env, results, i, r);
  }
  napi_resolve_deferred(env, j->deferred, results);
  scan_job_free(j);
}

/* A job that never ran: its promise rejected with `why`, the job freed. */
static napi_value scan_job_reject(napi_env env, ScanJob *j, napi_value promise, const char *why) {
  napi_release_threadsafe_function(j->done, napi_tsfn_abort);
  napi_value msg, err;
  napi_create_string_utf8(env, why, NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, NULL, msg, &err);
  napi_reject_deferred(env, j->deferred, err);
  scan_job_free(j);
  return promise;
}

/* scanFiles(engine, paths, fileIds, maxLine, cap, projection, map): engine 0 Claude, 1 Codex (a fileId: the id
 * a rollout without a header takes). */
static napi_value js_scan_files(napi_env env, napi_callback_info info) {
  SF_ARGS(7);
  int32_t engine;
  int64_t max_line, cap;
  Compiled *pc;
  napi_typedarray_type t;
  size_t map_len, off;
  void *map;
  napi_value ab;
  uint32_t n, nid;
  if (argc < 7 || napi_get_value_int32(env, argv[0], &engine) != napi_ok || (engine != 0 && engine != 1) ||
      napi_get_array_length(env, argv[1], &n) != napi_ok || napi_get_array_length(env, argv[2], &nid) != napi_ok || n != nid ||
      napi_get_value_int64(env, argv[3], &max_line) != napi_ok || napi_get_value_int64(env, argv[4], &cap) != napi_ok ||
      (pc = external_of(env, argv[5], &SF_TAG_PROJECTION)) == NULL ||
      napi_get_typedarray_info(env, argv[6], &t, &map_len, &map, &ab, &off) != napi_ok || t != napi_int32_array ||
      map_len != (size_t)(engine == 1 ? CX_FIELDS : CS_FIELDS) || max_line < 0 || cap <= 0)
    return throw_type(env, "scanFiles(engine, paths: string[], fileIds: string[], maxLine, cap, projection, map: Int32Array)");
  for (size_t i = 0; i < map_len; i++)
    if (((int32_t *)map)[i] >= pc->slots) return throw_type(env, "scanFiles: a slot outside the projection");
  ScanJob *j = calloc(1, sizeof(ScanJob));
  if (j == NULL || (j->files = calloc(n == 0 ? 1 : n, sizeof(ScanFile))) == NULL) {
    free(j);
    return throw_type(env, "scanFiles: out of memory");
  }
  pthread_mutex_init(&j->gate, NULL);
  j->n = n;
  for (uint32_t i = 0; i < n; i++) {
    napi_value p, id;
    size_t plen;
    if (napi_get_element(env, argv[1], i, &p) != napi_ok || napi_get_element(env, argv[2], i, &id) != napi_ok ||
        (j->files[i].path = string_of(env, p, &plen)) == NULL ||
        (j->files[i].file_id = (uint8_t *)string_of(env, id, &j->files[i].file_id_len)) == NULL) {
      scan_job_free(j);
      return throw_type(env, "scanFiles: paths and fileIds must be strings");
    }
  }
  j->codex = engine == 1;
  __atomic_add_fetch(&pc->refs, 1, __ATOMIC_RELAXED);
  j->proj = pc;
  j->max_line = max_line;
  j->cap = cap;
  memcpy(j->map, map, sizeof(int32_t) * map_len);
  napi_value promise, name;
  napi_create_string_utf8(env, "sessionfold.scanFiles", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, scan_job_complete, &j->done) != napi_ok) {
    scan_job_free(j);
    return throw_type(env, "scanFiles: cannot create the completion");
  }
  if (napi_create_promise(env, &j->deferred, &promise) != napi_ok) {
    napi_release_threadsafe_function(j->done, napi_tsfn_abort);
    scan_job_free(j);
    return throw_type(env, "scanFiles: cannot create the promise");
  }
  if (napi_add_env_cleanup_hook(env, scan_job_teardown, j) != napi_ok) return scan_job_reject(env, j, promise, "scanFiles: cannot watch the environment");
  if (!sf_pool_submit(scan_job_run, j)) {
    napi_remove_env_cleanup_hook(env, scan_job_teardown, j);
    return scan_job_reject(env, j, promise, "scanFiles: no thread could be started");
  }
  return promise;
}

napi_value sf_scan_files_function(napi_env env) {
  napi_value fn = NULL;
  napi_create_function(env, "scanFiles", NAPI_AUTO_LENGTH, js_scan_files, NULL, &fn);
  return fn;
}
