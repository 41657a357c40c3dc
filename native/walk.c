/*
 * listDir(dir): one directory's entries with what discovery needs of each, in one call (cursors/list-dir.ts).
 * Discovery lists thousands of small directories and stats every transcript in them; through Node that is a
 * Dirent object per entry and a Stats object per file, on the thread that also folds. Here it is getdents and
 * fstatat, and one Buffer per directory:
 *
 *   Float64 head [count, names' byte length], then per entry 5 doubles: kind, size, mtimeMs, ino, ctimeMs,
 *   then the names, each followed by a NUL byte (a name cannot hold one).
 *
 * Kinds: LD_FILE (a regular file: its size, mtimeMs, inode and ctimeMs), LD_DIR, LD_OTHER (symlinks, sockets, …: what a
 * Dirent's isFile() and isDirectory() both refuse), LD_GONE (listed, then gone before its stat: discovery
 * leaves it out, as a statSync without an entry does), LD_STAT_FAILED (any other stat error: JavaScript stats
 * it again and reports the error as Node does). The type comes from d_type, or lstat where the file system
 * leaves it unknown, as libuv's scandir and Node's Dirent do. mtimeMs and ctimeMs are Node's arithmetic
 * (sec * 1e3 + nsec / 1e6 in doubles), so they equal `statSync(p).mtimeMs` and `.ctimeMs` bit for bit, and the
 * inode is converted to a double as Node's Stats converts it (exact below 2^53, the nearest double above): the
 * event cache compares them with a JavaScript stat's, so both must give the same numbers. The inode and ctime
 * come with the fstatat the listing makes anyway: the cache's identity of a file costs no syscall more.
 *
 * Returns null when the directory cannot be opened (missing, not a directory, no permission): discovery takes
 * that as empty, as it does readdirSync's error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"
#include "napi-util.h"

#define LD_OTHER 0
#define LD_FILE 1
#define LD_DIR 2
#define LD_GONE 3
#define LD_STAT_FAILED 4

typedef struct {
  double *nums; /* `per` per entry */
  char *names;
  size_t n, cap /* bytes of nums */, names_len, names_cap, per;
} Listing;

/* Room for one more entry and its name (with its NUL), through engine.c's `sf_reserve`. */
static int grow(Listing *l, size_t name_len) {
  return sf_reserve((uint8_t **)&l->nums, &l->cap, (l->n + 1) * l->per * sizeof(double)) &&
         sf_reserve((uint8_t **)&l->names, &l->names_cap, l->names_len + name_len + 1);
}

static double ms_of(struct timespec t) { return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6; }

/* A regular file's size, mtimeMs, inode and ctimeMs into out[1..4]. */
static void file_stat(const struct stat *st, double *out) {
  out[1] = (double)st->st_size;
#ifdef __APPLE__
  out[2] = ms_of(st->st_mtimespec);
  out[4] = ms_of(st->st_ctimespec);
#else
  out[2] = ms_of(st->st_mtim);
  out[4] = ms_of(st->st_ctim);
#endif
  out[3] = (double)st->st_ino;
}

/* One entry's kind, and a file's stat (`type`: its d_type): LD_PER doubles. */
#define LD_PER 5
static void describe(int dfd, const char *name, unsigned char type, double *out) {
  struct stat st;
  int kind;
  for (int i = 1; i < LD_PER; i++) out[i] = 0;
  if (type == DT_UNKNOWN) {
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out[0] = errno == ENOENT ? LD_GONE : LD_STAT_FAILED;
      return;
    }
    kind = S_ISREG(st.st_mode) ? LD_FILE : S_ISDIR(st.st_mode) ? LD_DIR : LD_OTHER;
    if (kind == LD_FILE) file_stat(&st, out);
    out[0] = kind;
    return;
  }
  if (type == DT_DIR) {
    out[0] = LD_DIR;
    return;
  }
  if (type != DT_REG) {
    out[0] = LD_OTHER;
    return;
  }
  if (fstatat(dfd, name, &st, 0) != 0) {
    out[0] = errno == ENOENT ? LD_GONE : LD_STAT_FAILED;
    return;
  }
  out[0] = LD_FILE;
  file_stat(&st, out);
}

/* The listing of `path`, or 0 when it cannot be opened (errno says why); -1 when out of memory. */
static int list_dir(const char *path, Listing *l) {
  int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return 0;
  DIR *d = fdopendir(dfd);
  if (d == NULL) {
    close(dfd);
    return 0;
  }
  struct dirent *e;
  int ok = 1;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
    size_t len = strlen(e->d_name);
    if (!grow(l, len)) {
      ok = -1;
      break;
    }
    describe(dfd, e->d_name, e->d_type, l->nums + LD_PER * l->n);
    memcpy(l->names + l->names_len, e->d_name, len + 1);
    l->names_len += len + 1;
    l->n++;
  }
  closedir(d);
  return ok;
}

/* A path argument: its string, or "" for a string that holds a NUL (it names no directory: the listing is
 * null, as readdirSync's error); NULL for a value that is no string. */
static char *path_arg(napi_env env, napi_value v) {
  char *s = string_of(env, v, NULL);
  napi_valuetype t;
  if (s == NULL && napi_typeof(env, v, &t) == napi_ok && t == napi_string) s = calloc(1, 1);
  return s;
}

/* The listing as its block (head [count, names' length], `per` doubles per entry, names), freeing it; null
 * when `ok` is 0 (nothing could be listed), a thrown error when out of memory (`ok` < 0 too). */
static napi_value block_of(napi_env env, Listing *l, int ok, const char *what) {
  napi_value result;
  void *data;
  const size_t nums_bytes = (2 + l->per * l->n) * sizeof(double);
  if (ok > 0 && napi_create_buffer(env, nums_bytes + l->names_len, &data, &result) != napi_ok) ok = -1;
  if (ok > 0) {
    const double head[2] = {(double)l->n, (double)l->names_len};
    memcpy(data, head, sizeof(head));
    if (l->n > 0) memcpy((char *)data + sizeof(head), l->nums, l->per * l->n * sizeof(double));
    if (l->names_len > 0) memcpy((char *)data + nums_bytes, l->names, l->names_len);
  }
  free(l->nums);
  free(l->names);
  if (ok > 0) return result;
  if (ok < 0) {
    napi_throw_error(env, NULL, what);
    return NULL;
  }
  napi_get_null(env, &result);
  return result;
}

static napi_value js_list_dir(napi_env env, napi_callback_info info) {
  SF_ARGS(1);
  char *path = argc < 1 ? NULL : path_arg(env, argv[0]);
  if (path == NULL) return throw_type(env, "listDir(dir: string)");
  Listing l = {0};
  l.per = LD_PER;
  const int r = path[0] == 0 ? 0 : list_dir(path, &l);
  free(path);
  return block_of(env, &l, r, "listDir: out of memory");
}
napi_value sf_walk_function(napi_env env) {
  napi_value fn;
  napi_create_function(env, "listDir", NAPI_AUTO_LENGTH, js_list_dir, NULL, &fn);
  return fn;
}

/* ------------------------------------------------------------------ listTree */

/*
 * listTree(root, only, maxDepth): a whole tree in one call, for discovery (cursors/list-dir.ts `listTree`).
 * Entries in depth-first order, each directory's children sorted as JavaScript's `<` sorts their names (UTF-16
 * code units: below, `utf16_order`), a directory's entries right after it. Per entry 1 + LD_PER doubles: depth
 * (0 for the root's entries), then listDir's kind, size, mtimeMs, ino, ctimeMs; then the names, each followed
 * by a NUL byte.
 * A directory at depth d < maxDepth is entered when only[d] is empty or its name (so Claude's layout enters
 * only `subagents` at depth 2, following it if it is a link, as a listing of its path would); one that cannot
 * be opened has no entries. Other symlinks are not followed (they are LD_OTHER), and maxDepth bounds a named
 * link that loops. null when the root cannot be opened.
 */

typedef struct {
  char *name;
  size_t len;
  unsigned char type;
} Child;

/* UTF-8 bytes compared in UTF-16 code unit order: code points U+E000–U+FFFF (lead bytes 0xEE, 0xEF) sort after
 * the supplementary ones (0xF0–0xF4), whose UTF-16 surrogates are 0xD800–0xDFFF. */
static unsigned utf16_rank(unsigned char c) { return c == 0xEE || c == 0xEF ? c + 0x10u : c; }

static int utf16_order(const void *pa, const void *pb) {
  const unsigned char *a = (const unsigned char *)((const Child *)pa)->name, *b = (const unsigned char *)((const Child *)pb)->name;
  for (;; a++, b++) {
    if (*a != *b) return *a == 0 ? -1 : *b == 0 ? 1 : utf16_rank(*a) < utf16_rank(*b) ? -1 : 1;
    if (*a == 0) return 0;
  }
}

typedef struct {
  const char *const *only;
  int nonly;
  int max_depth;
  Listing out;
  int oom;
} Tree;

static void walk_dir(Tree *t, int dfd, int depth) {
  DIR *d = fdopendir(dfd);
  if (d == NULL) {
    close(dfd);
    return;
  }
  Child *kids = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
    if (n == cap) {
      size_t c2 = cap == 0 ? 32 : cap * 2;
      Child *k2 = realloc(kids, c2 * sizeof(Child));
      if (k2 == NULL) break;
      kids = k2;
      cap = c2;
    }
    const size_t len = strlen(e->d_name);
    char *name = malloc(len + 1);
    if (name == NULL) break;
    memcpy(name, e->d_name, len + 1);
    kids[n++] = (Child){name, len, e->d_type};
  }
  if (e != NULL) t->oom = 1;
  if (n > 1) qsort(kids, n, sizeof(Child), utf16_order);
  const int fd = dirfd(d);
  for (size_t i = 0; i < n && !t->oom; i++) {
    if (!grow(&t->out, kids[i].len)) {
      t->oom = 1;
      break;
    }
    double *rec = t->out.nums + (1 + LD_PER) * t->out.n;
    rec[0] = depth;
    describe(fd, kids[i].name, kids[i].type, rec + 1);
    memcpy(t->out.names + t->out.names_len, kids[i].name, kids[i].len + 1);
    t->out.names_len += kids[i].len + 1;
    t->out.n++;
    if (depth + 1 >= t->max_depth) continue;
    /* Any directory where `only` names none; where it names one, that name, followed if it is a link (as a
     * listing of its path would). */
    const char *want = depth < t->nonly ? t->only[depth] : "";
    const int enter = want[0] == 0 ? rec[1] == LD_DIR : strcmp(want, kids[i].name) == 0;
    if (!enter) continue;
    const int sub = openat(fd, kids[i].name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sub >= 0) walk_dir(t, sub, depth + 1);
  }
  for (size_t i = 0; i < n; i++) free(kids[i].name);
  free(kids);
  closedir(d);
}

static void free_strings(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static napi_value js_list_tree(napi_env env, napi_callback_info info) {
  SF_ARGS(3);
  uint32_t nonly;
  int32_t max_depth;
  if (argc < 3 || napi_get_array_length(env, argv[1], &nonly) != napi_ok || napi_get_value_int32(env, argv[2], &max_depth) != napi_ok || max_depth < 1 || max_depth > 256) {
    return throw_type(env, "listTree(root: string, only: string[], maxDepth: 1..256)");
  }
  char *root = path_arg(env, argv[0]);
  char **only = calloc(nonly == 0 ? 1 : nonly, sizeof(char *));
  int bad = root == NULL || only == NULL;
  for (uint32_t i = 0; i < nonly && !bad; i++) {
    napi_value v;
    bad = napi_get_element(env, argv[1], i, &v) != napi_ok || (only[i] = string_of(env, v, NULL)) == NULL; /* a NUL: refused */
  }
  if (bad) {
    free(root);
    if (only != NULL) free_strings(only, nonly);
    return throw_type(env, "listTree: root and only must be strings (without NUL)");
  }
  Tree t = {(const char *const *)only, (int)nonly, max_depth, {0}, 0};
  t.out.per = 1 + LD_PER;
  const int dfd = root[0] == 0 ? -1 : open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(root);
  if (dfd >= 0) walk_dir(&t, dfd, 0);
  free_strings(only, nonly);
  return block_of(env, &t.out, t.oom ? -1 : dfd >= 0, "listTree: out of memory");
}

napi_value sf_walk_tree_function(napi_env env) {
  napi_value fn;
  napi_create_function(env, "listTree", NAPI_AUTO_LENGTH, js_list_tree, NULL, &fn);
  return fn;
}
