#ifndef SECTIONAL_CMICROHTTPD_SHIM_H
#define SECTIONAL_CMICROHTTPD_SHIM_H

// What Swift cannot call directly in libmicrohttpd: its variadic functions.
// https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <microhttpd.h>

/// Where libmicrohttpd's own messages go: `callback(cls, message)`, one formatted line each.
struct sectional_mhd_logger {
    void (*callback)(void *cls, const char *message);
    void *cls;
};

/// libmicrohttpd's logger is variadic (`va_list`), which Swift cannot receive: format here.
static inline void sectional_mhd_format_message(void *cls, const char *format, va_list arguments) {
    const struct sectional_mhd_logger *logger = (const struct sectional_mhd_logger *)cls;
    char message[1024];
    vsnprintf(message, sizeof message, format, arguments);
    logger->callback(logger->cls, message);
}

/// Starts a daemon with the options Sectional uses and no listening socket of its own: the
/// server accepts connections itself and hands them over with `MHD_add_connection`.
/// `threads` > 1 selects a thread pool (the option is left out otherwise: libmicrohttpd warns of a
/// pool size of 0 or 1 on every start). `accept` admits or refuses each new connection and
/// `notify` hears when connections start and close (the connection limits are counted there);
/// `logger` receives libmicrohttpd's messages (it must outlive the daemon).
static inline struct MHD_Daemon *sectional_mhd_start(unsigned int flags,
                                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                                     MHD_RequestCompletedCallback completed, void *completed_cls,
                                                     void *(*uri_logger)(void *cls, const char *uri, struct MHD_Connection *connection),
                                                     void *uri_logger_cls,
                                                     unsigned int threads,
                                                     unsigned int connection_limit,
                                                     unsigned int timeout_seconds,
                                                     size_t memory_limit,
                                                     MHD_AcceptPolicyCallback accept, void *accept_cls,
                                                     MHD_NotifyConnectionCallback notify, void *notify_cls,
                                                     const struct sectional_mhd_logger *logger) {
    struct MHD_OptionItem pool[] = {
        { threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, (intptr_t)threads, NULL },
        { MHD_OPTION_END, 0, NULL },
    };
    // The logger first: libmicrohttpd warns, on every start, about a logger given after other options.
    return MHD_start_daemon(flags | MHD_USE_NO_LISTEN_SOCKET, 0, accept, accept_cls, handler, handler_cls,
                            MHD_OPTION_EXTERNAL_LOGGER, sectional_mhd_format_message, (void *)logger,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, uri_logger_cls,
                            MHD_OPTION_ARRAY, pool,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_END);
}

/// The peer address of a connection (for logs and per-client limits), or NULL.
static inline const struct sockaddr *sectional_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// Bytes of the request head (request line and header lines), or 0.
static inline size_t sectional_mhd_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

/// The status libmicrohttpd queued on a connection (its own error answers included), or 0.
static inline unsigned int sectional_mhd_queued_status(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info ? info->http_status : 0;
}

/// What `sectional_mhd_head_is_intact` carries from one header field to the next.
struct sectional_mhd_head_walk {
    const char *start, *end, *previous_value_end;
    bool intact;
};

static inline enum MHD_Result sectional_mhd_walk_field(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                                       const char *value, size_t value_size) {
    struct sectional_mhd_head_walk *walk = (struct sectional_mhd_head_walk *)cls;
    (void)kind;
    (void)key_size;
    if (key == NULL || value == NULL || key < walk->start || value < key || value + value_size >= walk->end) {
        walk->intact = false;
        return MHD_NO;
    }
    if (walk->previous_value_end != NULL) {
        // Between the previous value and this name: only that line's end (CR LF or LF, now NULs).
        ptrdiff_t gap = key - walk->previous_value_end;
        if (gap < 1 || gap > 2 || walk->previous_value_end[0] != 0 || key[-1] != 0) {
            walk->intact = false;
            return MHD_NO;
        }
    }
    walk->previous_value_end = value + value_size;
    return MHD_YES;
}

/// False when a header field value held a NUL byte, a field was folded over lines (obs-fold),
/// or a line was dropped (one without a field name, `: value`).
///
/// libmicrohttpd 0.9.75 keeps header values as C strings: a value sent as `a<NUL>b` reads as `a`,
/// with length 1. It parses the head in place, in one block that starts at `method` (the pointer
/// the access handler receives), overwriting each line end (CR LF or LF) with NULs, and keeps
/// pointers into that block. So after each value, up to the next field's name, there may be only
/// that line's end; after the last one, only its line end and the empty line (2 to 4 bytes).
/// Anything else is a cut-off part of a value, a folded line libmicrohttpd joined elsewhere, or a
/// line it skipped.
/// (libmicrohttpd 1.0 refuses NUL bytes and folded lines itself, and lays out the head otherwise.)
static inline bool sectional_mhd_head_is_intact(struct MHD_Connection *connection, const char *method) {
#if MHD_VERSION >= 0x01000000
    (void)connection;
    (void)method;
    return true;
#endif
    size_t size = sectional_mhd_head_size(connection);
    if (method == NULL || size == 0) return false;
    struct sectional_mhd_head_walk walk = { method, method + size, NULL, true };
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, sectional_mhd_walk_field, &walk);
    if (!walk.intact) return false;
    if (walk.previous_value_end == NULL) return true;
    ptrdiff_t tail = walk.end - walk.previous_value_end;
    if (tail < 2 || tail > 4) return false;
    for (const char *p = walk.previous_value_end; p < walk.end; p++) {
        if (*p != 0) return false;
    }
    return true;
}

/// The socket of a connection, or -1.
static inline int sectional_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// What the connection-start notice stored for a connection (its `socket_context`), or NULL.
static inline void *sectional_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

#endif
