#ifndef SECTIONAL_CMICROHTTPD_SHIM_H
#define SECTIONAL_CMICROHTTPD_SHIM_H

// What Swift cannot call directly in libmicrohttpd: its variadic functions.
// https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <microhttpd.h>

/// Starts a daemon bound to `addr` with the options Sectional uses.
/// `threads` > 1 selects a thread pool; `per_ip_limit` 0 means unlimited.
static inline struct MHD_Daemon *sectional_mhd_start(unsigned int flags,
                                                     const struct sockaddr *addr,
                                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                                     MHD_RequestCompletedCallback completed, void *completed_cls,
                                                     void *(*uri_logger)(void *cls, const char *uri, struct MHD_Connection *connection),
                                                     void *uri_logger_cls,
                                                     unsigned int threads,
                                                     unsigned int connection_limit,
                                                     unsigned int timeout_seconds,
                                                     size_t memory_limit,
                                                     unsigned int per_ip_limit) {
    uint16_t port = 0;
    if (addr->sa_family == AF_INET) port = ntohs(((const struct sockaddr_in *)addr)->sin_port);
    else if (addr->sa_family == AF_INET6) port = ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, uri_logger_cls,
                            MHD_OPTION_THREAD_POOL_SIZE, threads > 1 ? threads : 0,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024,
                            MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after binding port 0), or 0.
static inline uint16_t sectional_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Connections currently open on the daemon.
static inline unsigned int sectional_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

/// The peer address of a connection (for logs and per-client limits), or NULL.
static inline const struct sockaddr *sectional_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

#endif
