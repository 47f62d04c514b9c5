/* Baseline (a): the smallest libmicrohttpd server answering a fixed body, with the same daemon
 * options Sectional uses (thread pool of one thread per core it may run on, epoll, answer on the
 * second call, 16 KiB of memory per connection) and the same placement of connections: a thread of
 * its own accepts them and hands each to the pool with MHD_add_connection, which spreads them
 * evenly over the workers, as Sectional's Listener does.
 * It is the physical limit of this stack.  Usage: mhd-fixed PORT BODY_BYTES [CONTENT_FILE]
 * MHD_FIXED_ACCEPT=library lets the workers accept on a shared listening socket instead, as
 * libmicrohttpd does by default: each connection then goes to whichever worker wakes first, and
 * one start may put all of wrk's 32 connections on one worker and the next split them, which moved
 * the figure by a third from start to start (Benchmarks/bench.sh prints it beside).
 * MHD_FIXED_ROUTES="PUT=170,/rows=17794" answers some requests with a body of another size, so
 * that a scenario mixing answers (the mixed reads and writes) is compared with the same bytes: the
 * first rule that matches picks the size, a rule matching the method when it names one, else the
 * path when the path contains its text; other requests get BODY_BYTES. At most 8 rules.
 * MHD_FIXED_BODIES=N keeps the fixed body in N copies (each differing in its first byte) and answers
 * each request with the copy its target (path and query) picks, so that, like a server answering
 * many different pages, it sends N different buffers rather than one that stays hot in cache:
 * the check behind the random pages' entry in docs/performance.md. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body;
static size_t body_size;
/* MHD_FIXED_BODIES's copies of the body. */
static char **copies;
static size_t copy_count;

/* MHD_FIXED_ROUTES's rules: a method or path text, and the size of the body it answers with. */
struct route { char match[64]; size_t size; };
static struct route routes[8];
static int route_count;
static char *route_body;

static void parse_routes(const char *spec) {
  size_t largest = 0;
  while (spec && *spec && route_count < 8) {
    const char *equals = strchr(spec, '='), *end = strchr(spec, ',');
    if (!end) end = spec + strlen(spec);
    if (!equals || equals > end || (size_t)(equals - spec) >= sizeof routes[0].match) { fprintf(stderr, "bad MHD_FIXED_ROUTES\n"); exit(2); }
    struct route *r = &routes[route_count++];
    memcpy(r->match, spec, (size_t)(equals - spec));
    r->size = (size_t)atol(equals + 1);
    if (r->size > largest) largest = r->size;
    spec = *end ? end + 1 : end;
  }
  route_body = malloc(largest + 1);
  memset(route_body, 'x', largest);
}

/* Adds a query parameter's name and value to the djb2 hash in `cls`. */
static enum MHD_Result hash_argument(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  (void)kind;
  unsigned long *hash = cls;
  for (const char *c = key; c && *c; c++) *hash = *hash * 33 + (unsigned char)*c;
  for (const char *c = value; c && *c; c++) *hash = *hash * 33 + (unsigned char)*c;
  return MHD_YES;
}

/* The copy of the body that the request's target picks (MHD_FIXED_BODIES). */
static const char *copy_for(struct MHD_Connection *connection, const char *url) {
  unsigned long hash = 5381;
  for (const char *c = url; *c; c++) hash = hash * 33 + (unsigned char)*c;
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, hash_argument, &hash);
  return copies[hash % copy_count];
}

/* The body for a request: the first matching rule's size (of 'x'), else the fixed body (or its
 * copy for this target). */
static struct MHD_Response *response_for(struct MHD_Connection *connection, const char *url, const char *method) {
  for (int i = 0; i < route_count; i++) {
    const char *m = routes[i].match;
    int matches = m[0] == '/' ? strstr(url, m) != NULL : strcmp(method, m) == 0;
    if (matches) return MHD_create_response_from_buffer(routes[i].size, route_body, MHD_RESPMEM_PERSISTENT);
  }
  const char *bytes = copy_count ? copy_for(connection, url) : body;
  return MHD_create_response_from_buffer(body_size, (void *)bytes, MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
  static int marker;
  (void)cls; (void)version; (void)upload_data;
  if (*con_cls == NULL) { *con_cls = &marker; return MHD_YES; }
  /* A body (the mixed scenario's writes) arrives in calls of its own, each consumed; the answer is
   * queued on the call after it. Queued while the body was still arriving, libmicrohttpd refused
   * it and closed the connection, as it reported on stderr for each write until 2026-12-03. */
  if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
  struct MHD_Response *response = response_for(connection, url, method);
  MHD_add_response_header(response, "Content-Type", "application/json; charset=utf-8");
  enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

/* Accepts connections on the listening socket (blocking) and hands each to the daemon. */
static int listen_fd;
static void *accept_loop(void *daemon) {
  for (;;) {
    struct sockaddr_in peer;
    socklen_t length = sizeof peer;
    int fd = accept(listen_fd, (struct sockaddr *)&peer, &length);
    if (fd >= 0) MHD_add_connection(daemon, fd, (struct sockaddr *)&peer, length);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s PORT BODY_BYTES [CONTENT_FILE]\n", argv[0]); return 2; }
  body_size = (size_t)atol(argv[2]);
  body = malloc(body_size + 1);
  memset(body, 'x', body_size);
  if (argc > 3) {
    FILE *f = fopen(argv[3], "rb");
    if (f) { body_size = fread(body, 1, body_size, f); fclose(f); }
  }
  parse_routes(getenv("MHD_FIXED_ROUTES"));
  const char *copies_wanted = getenv("MHD_FIXED_BODIES");
  copy_count = copies_wanted ? (size_t)atol(copies_wanted) : 0;
  if (copy_count > 0) {
    copies = malloc(copy_count * sizeof *copies);
    for (size_t i = 0; i < copy_count; i++) {
      copies[i] = malloc(body_size + 1);
      memcpy(copies[i], body, body_size);
      if (body_size > 0) copies[i][0] = (char)('a' + i % 26);
    }
  }
  /* One thread per core this process may run on (its affinity mask: `taskset`), as Sectional. */
  cpu_set_t allowed;
  long cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : sysconf(_SC_NPROCESSORS_ONLN);
  const char *accepting = getenv("MHD_FIXED_ACCEPT");
  int library_accepts = accepting && strcmp(accepting, "library") == 0;
  uint16_t port = (uint16_t)atoi(argv[1]);
  /* Blocked before any thread starts (each inherits the mask), so that main alone takes them. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, NULL);
  /* A pool only for two threads or more: libmicrohttpd warns of a size of 0 or 1 (as Sectional). */
  struct MHD_OptionItem pool[] = {
    { cores > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, (intptr_t)cores, NULL },
    { MHD_OPTION_END, 0, NULL },
  };
  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG
          | (library_accepts ? 0 : MHD_USE_NO_LISTEN_SOCKET),
      library_accepts ? port : 0, NULL, NULL, answer, NULL,
      MHD_OPTION_ARRAY, pool,
      MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024), MHD_OPTION_END);
  if (daemon == NULL) { fprintf(stderr, "cannot start\n"); return 1; }
  if (!library_accepts) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int on = 1;
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd < 0 || setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 || bind(listen_fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(listen_fd, 1024) != 0) {
      perror("listen");
      return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, accept_loop, daemon);
  }
  int signal_number;
  sigwait(&set, &signal_number);
  MHD_stop_daemon(daemon);
  return 0;
}
