/* Baseline (a): the smallest libmicrohttpd server answering a fixed body, with the same daemon
 * options Sectional uses (thread pool of one thread per core, epoll, answer on the second call,
 * 16 KiB of memory per connection).
 * It is the physical limit of this stack.  Usage: mhd-fixed PORT BODY_BYTES [CONTENT_FILE]
 * MHD_FIXED_THREADS=N runs N threads instead (the benchmark's one-thread comparison). */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body;
static size_t body_size;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
  static int marker;
  (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
  if (*con_cls == NULL) { *con_cls = &marker; return MHD_YES; }
  *upload_data_size = 0;
  struct MHD_Response *response = MHD_create_response_from_buffer(body_size, body, MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(response, "Content-Type", "application/json; charset=utf-8");
  enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
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
  const char *threads = getenv("MHD_FIXED_THREADS");
  long cores = threads ? atol(threads) : sysconf(_SC_NPROCESSORS_ONLN);
  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG, (uint16_t)atoi(argv[1]),
      NULL, NULL, answer, NULL, MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)(cores > 1 ? cores : 0),
      MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024), MHD_OPTION_END);
  if (daemon == NULL) { fprintf(stderr, "cannot start\n"); return 1; }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, NULL);
  int signal_number;
  sigwait(&set, &signal_number);
  MHD_stop_daemon(daemon);
  return 0;
}
