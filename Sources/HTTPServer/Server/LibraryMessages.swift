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

    /// libmicrohttpd 0.9.75's descriptions of a socket whose peer went away (`str_conn_error_`).
    private static let clientGone = [
        "The socket is no longer available for sending",
        "The connection was forcibly closed by remote peer",
        "The socket is not connected",
    ]
}
