/* Baseline (a): the smallest libmicrohttpd server answering a fixed body, with the same daemon
 * options Sectional uses (thread pool of one thread per core, epoll, answer on the second call,
 * 16 KiB of memory per connection) and the same placement of connections: a thread of its own
 * accepts them and hands each to the pool with MHD_add_connection, which spreads them evenly over
 * the workers, as Sectional's Listener does.
 * It is the physical limit of this stack.  Usage: mhd-fixed PORT BODY_BYTES [CONTENT_FILE]
 * MHD_FIXED_THREADS=N runs N threads instead (the benchmark's one-thread comparison).
 * MHD_FIXED_ACCEPT=library lets the workers accept on a shared listening socket instead, as
 * libmicrohttpd does by default: each connection then goes to whichever worker wakes first, and
 * one start may put all of wrk's 32 connections on one worker and the next split them, which moved
 * the figure by a third from start to start (Benchmarks/bench.sh prints it beside). */
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
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
  const char *threads = getenv("MHD_FIXED_THREADS");
  long cores = threads ? atol(threads) : sysconf(_SC_NPROCESSORS_ONLN);
  const char *accepting = getenv("MHD_FIXED_ACCEPT");
  int library_accepts = accepting && strcmp(accepting, "library") == 0;
  uint16_t port = (uint16_t)atoi(argv[1]);
  /* Blocked before any thread starts (each inherits the mask), so that main alone takes them. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, NULL);
  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG
          | (library_accepts ? 0 : MHD_USE_NO_LISTEN_SOCKET),
      library_accepts ? port : 0, NULL, NULL, answer, NULL,
      MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)(cores > 1 ? cores : 0),
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
