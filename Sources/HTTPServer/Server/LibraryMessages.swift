/// What libmicrohttpd's own messages say, as far as the server's operators care.
public enum LibraryMessages {
    /// Whether `message` only says that an answer could not be sent because the client had gone
    /// away (`Failed to send the footers … Error: The socket is no longer available for sending`,
    /// or the connection reset by the peer, or not connected): every event stream whose client
    /// hangs up ends this way, so it is routine, not a warning.
    public static func saysClientWentAway(_ message: String) -> Bool {
        guard message.hasPrefix("Failed to send ") else { return false }
        return clientGone.contains { message.hasSuffix("Error: " + $0) }
    }

    /// The status of libmicrohttpd's own answer to a request line that `message` reports
    /// (`Error processing request (HTTP response code is 414 ('…')). Closing connection.`): a
    /// `414` (a target longer than the connection's memory) or a `505` (an HTTP version other
    /// than 1.x); nil for any other message.
    ///
    /// libmicrohttpd 0.9.75 calls none of the server's callbacks for these two: it answers before
    /// its URI log callback (a `414` while no target is parsed, `get_next_header_line`; a `505`
    /// from `parse_http_version`, which runs before it), so the request never becomes one the
    /// server was told of, and `MHD_OPTION_NOTIFY_COMPLETED` is called only for those
    /// (`client_aware`). `MHD_OPTION_NOTIFY_CONNECTION` hears the close, but after the answer is
    /// freed, when `MHD_CONNECTION_INFO_HTTP_STATUS` no longer tells it, so it looks like a
    /// connection closed without a request. This message, written once per answer on the thread
    /// serving the connection, is the only trace. A `400` for a malformed version
    /// (`HTTP/1`) comes before the callback too, but its message is the one a malformed header
    /// line's `400` writes, which the server is told of: it is not counted here (it would count
    /// those twice).
    public static func requestLineAnswer(_ message: String) -> Int? {
        let prefix = "Error processing request (HTTP response code is "
        guard message.hasPrefix(prefix) else { return nil }
        let digits = message.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
        guard let status = Int(digits), status == 414 || status == 505 else { return nil }
        return status
    }

    /// libmicrohttpd 0.9.75's descriptions of a socket whose peer went away (`str_conn_error_`).
    private static let clientGone = [
        "The socket is no longer available for sending",
        "The connection was forcibly closed by remote peer",
        "The socket is not connected",
    ]
}
